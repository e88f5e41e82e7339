"""Never a database by mistake: a mistyped --db is an error, the default
location is made on first use, `tables db init` makes one on request."""

import json
import sqlite3

import pytest
from click.testing import CliRunner
from helpers import db_dump, error_lines

from tables_app.cli.root import cli
from tables_app.storage.connection import SCHEMA_HEAD

CREATED_BUNDLED = "(schema {head}, bundled tables imported)".format(head=SCHEMA_HEAD)


def tables(*args: str, env: dict | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args), env=env)


def created_lines(result) -> list[str]:  # type: ignore[no-untyped-def]
    return [line for line in result.stderr.splitlines() if line.startswith("Created the database")]


def test_a_mistyped_db_is_exit_1_naming_it_and_creates_nothing(tmp_path):
    typo = tmp_path / "tabels.db"
    result = tables("--db", str(typo), "list")
    assert result.exit_code == 1
    assert error_lines(result) == f"Error: no database at {typo} (create one with: tables db init {typo})\n"
    assert list(tmp_path.iterdir()) == []


def test_a_missing_parent_directory_is_not_created(tmp_path):
    typo = tmp_path / "gmaes" / "tables.db"
    result = tables("--db", str(typo), "query", "attack", "Edged", "100", "NA")
    assert result.exit_code == 1 and "Error: no database at " in result.stderr
    assert not (tmp_path / "gmaes").exists()


def test_a_missing_database_from_the_environment_is_exit_1(tmp_path):
    typo = tmp_path / "none" / "x.db"
    result = tables("list", "weapons", env={"TABLES_DB": str(typo)})
    assert result.exit_code == 1
    assert error_lines(result) == f"Error: no database at {typo} (create one with: tables db init {typo})\n"
    assert not typo.parent.exists()


def test_a_missing_sqlite_url_follows_the_same_rule(tmp_path):
    typo = tmp_path / "x.db"
    result = tables("--db", f"sqlite:///{typo}", "list")
    assert result.exit_code == 1 and error_lines(result).startswith(f"Error: no database at {typo} ")
    assert not typo.exists()


@pytest.mark.parametrize(("value", "code", "start"),
                         [("", 2, "Error: --db is empty"), (":memory:", 1, "Error: :memory: is not a database file")])
def test_an_empty_or_in_memory_db_is_refused(value, code, start, no_user_database):
    result = tables("--db", value, "list")
    assert result.exit_code == code and start in result.stderr  # an empty --db is a usage mistake
    assert not no_user_database.parent.exists()  # not silently the default database either


def test_an_empty_file_is_refused_and_left_alone(tmp_path):
    touched = tmp_path / "touched.db"
    touched.touch()
    result = tables("--db", str(touched), "list")
    assert result.exit_code == 1
    assert error_lines(result) == f"Error: {touched} is an empty file, not a database (create one with: tables db init {touched})\n"
    assert touched.stat().st_size == 0


def test_the_default_location_is_created_on_first_use_said_once_on_stderr(no_user_database):
    first = tables("query", "attack", "Edged", "100", "NA", "--json")
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["table"] == "Edged"  # stdout: the result only
    assert created_lines(first) == [f"Created the database {no_user_database} {CREATED_BUNDLED}"]
    assert [p.name for p in no_user_database.parent.iterdir() if p.name.startswith(".tables-new")] == []
    again = tables("db", "current", "--json")
    assert again.exit_code == 0 and created_lines(again) == []
    assert json.loads(again.stdout) == {"database": str(no_user_database), "current": SCHEMA_HEAD, "head": SCHEMA_HEAD}


def test_db_init_creates_the_named_database_and_says_where(tmp_path):
    target = tmp_path / "campaign" / "tables.db"
    result = tables("db", "init", str(target))
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert created_lines(result) == [f"Created the database {target} {CREATED_BUNDLED}"]
    listed = tables("--db", str(target), "list", "weapons", "--json")
    assert listed.exit_code == 0 and created_lines(listed) == []
    assert "Longsword" in {weapon["name"] for weapon in json.loads(listed.stdout)["weapons"]}


def test_db_init_without_a_path_takes_db_or_the_environment(tmp_path):
    from_option, from_environment = tmp_path / "a.db", tmp_path / "b.db"
    assert tables("--db", str(from_option), "db", "init").exit_code == 0
    assert tables("db", "init", env={"TABLES_DB": str(from_environment)}).exit_code == 0
    assert from_option.stat().st_size > 0 and from_environment.stat().st_size > 0


def test_db_init_without_anything_takes_the_default_location(no_user_database):
    result = tables("db", "init")
    assert result.exit_code == 0 and created_lines(result) == [f"Created the database {no_user_database} {CREATED_BUNDLED}"]


def test_db_init_refuses_an_existing_database_and_changes_nothing(db_path, on_postgres):
    before = db_dump(db_path)
    result = tables("db", "init", str(db_path))
    assert result.exit_code == 1
    refused = ("already holds tables; nothing changed (db init makes an empty database a tables_app one, and only an empty one)"
               if on_postgres else "already exists and is not empty; nothing changed (db init makes new databases only)")
    assert error_lines(result) == f"Error: {db_path} {refused}\n"
    assert created_lines(result) == []
    assert db_dump(db_path) == before


def test_db_init_takes_an_empty_file(tmp_path):
    touched = tmp_path / "touched.db"
    touched.touch()
    assert tables("db", "init", str(touched)).exit_code == 0
    assert tables("--db", str(touched), "list", "weapons").exit_code == 0


def test_db_init_empty_has_no_bundled_tables(tmp_path):
    target = tmp_path / "mine.db"
    result = tables("db", "init", str(target), "--empty")
    assert result.exit_code == 0
    assert created_lines(result) == [f"Created the database {target} (schema {SCHEMA_HEAD}, no tables)"]
    listed = tables("--db", str(target), "list", "--json")
    listing = json.loads(listed.stdout)
    assert listed.exit_code == 0 and listing.pop("rulesets") == [
        {"name": "default", "attack": 0, "critical": 0, "fumble": 0, "weapons": 0, "creatures": 0, "severities": 1, "workbooks": [],
         "death_at": None}]
    assert all(items == [] for items in listing.values())
    with sqlite3.connect(target) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone() == (SCHEMA_HEAD,)


# ---------------------------------------------------------------- db check (issue #17, item 7)
def check(db: object, *more: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, ["--db", str(db), "db", "check", *more], env={"COLUMNS": "10000"})


def test_db_check_on_a_sound_database_is_exit_0(db_path):
    result = check(db_path)
    assert result.exit_code == 0, result.output
    assert result.stdout == f"{db_path}: no problems found (integrity, references, tables and columns, schema version)\n"
    as_json = check(db_path, "--json")
    assert as_json.exit_code == 0 and json.loads(as_json.stdout) == {"database": str(db_path), "ok": True, "problems": []}


def test_db_check_reports_every_finding_one_per_line_and_changes_nothing(db_path):
    connection = sqlite3.connect(db_path, isolation_level=None)
    connection.execute("PRAGMA foreign_keys = OFF")
    connection.execute("UPDATE weapon SET critical_table_id = 99999 WHERE name = 'Longsword'")
    row = connection.execute("SELECT rowid FROM weapon WHERE name = 'Longsword'").fetchone()[0]
    connection.execute("INSERT INTO alembic_version VALUES ('0004')")
    connection.execute("ALTER TABLE creature DROP COLUMN notes")
    connection.execute("UPDATE attack_row SET low = 'abc' WHERE id = (SELECT min(id) FROM attack_row)")
    first = connection.execute("SELECT min(id) FROM attack_row").fetchone()[0]
    connection.close()
    before = db_dump(db_path)
    problems = [f"weapon row {row} refers to a critical_table row that does not exist (critical_table_id 99999)",
                "table creature has no column notes",
                f"alembic_version holds 2 schema versions ({SCHEMA_HEAD}, 0004) where it holds one",
                f"attack_row row {first}: low holds 'abc' where a whole number belongs"]
    result = check(db_path)
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [f"{db_path}: {problem}" for problem in problems]
    assert error_lines(result) == f"Error: {db_path}: 4 problems found; nothing was changed (restore a backup, or see docs/security.md)\n"
    as_json = check(db_path, "--json")
    assert as_json.exit_code == 1 and json.loads(as_json.stdout) == {"database": str(db_path), "ok": False, "problems": problems}
    assert db_dump(db_path) == before


def test_db_check_lists_damaged_pages(db_path):
    with sqlite3.connect(db_path) as connection:
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        pages = [p for (p,) in connection.execute("SELECT pageno FROM dbstat WHERE name = 'attack_cell' AND pagetype = 'leaf'")]
    connection.close()
    with open(db_path, "r+b") as handle:  # garbage over the cell pointers of one page
        handle.seek((pages[1] - 1) * page_size + 8)
        handle.write(b"\xff\x7f" * 40)
    before = db_path.read_bytes()
    result = check(db_path)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert f"{db_path}: damaged: On tree page {pages[1]} cell 0: Offset 65407 out of range" in result.stdout
    assert all(line.startswith(f"{db_path}: ") for line in result.stdout.splitlines())
    assert error_lines(result).startswith(f"Error: {db_path}: ") and db_path.read_bytes() == before


@pytest.mark.parametrize("content", [b"my notes\n" * 100, b"\0" * 4096])
def test_db_check_on_a_file_that_is_not_a_database(tmp_path, content):
    path = tmp_path / "notes.db"
    path.write_bytes(content)
    result = check(path, "--json")
    assert result.exit_code == 1 and json.loads(result.stdout) == {
        "database": str(path), "ok": False,
        "problems": ["not a database (file is not a database): a wrong path or a damaged file"]}
    assert error_lines(result) == f"Error: {path}: 1 problem found; nothing was changed (restore a backup, or see docs/security.md)\n"
    assert path.read_bytes() == content


def test_db_check_of_a_missing_database_creates_none(tmp_path):
    result = check(tmp_path / "none.db")
    assert result.exit_code == 1 and error_lines(result).startswith(f"Error: no database at {tmp_path / 'none.db'} ")
    assert not (tmp_path / "none.db").exists()
