"""Hostile database paths and damaged databases (issue #17, items 4 and 7).

Every failure is one line, ``Error: <database path>: <what is wrong and what
to do>``, exit code 1, no traceback, and the database's bytes as they were.
"""

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import MINI_ATTACK, MINI_CREATURES, MINI_CRITICAL, MINI_FUMBLE, MINI_SEVERITIES, MINI_WEAPONS, error_lines, without_creature_attacks

from tables_app.cli.root import cli
from tables_app.storage.connection import SCHEMA_HEAD

pytestmark = pytest.mark.sqlite_only  # the SQLite file itself (`pytest --postgres` leaves it out)

CHECK = "nothing was changed; run: tables db check"
QUERY = ("query", "attack", "Edged", "100", "NA")


def tables(*args: str, env: dict | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(cli, list(args), env={"COLUMNS": "10000", **(env or {})})  # nothing wraps


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def failed(result, line: str) -> None:  # type: ignore[no-untyped-def]
    """Exit 1, no traceback, the one Error line ``line``."""
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    assert error_lines(result) == f"Error: {line}\n"


@pytest.fixture
def mini(write_workbook):  # type: ignore[no-untyped-def]
    return write_workbook("mini.xlsx", {"S": MINI_SEVERITIES, "C": MINI_CRITICAL, "F": MINI_FUMBLE, "A": MINI_ATTACK,
                                        "W": MINI_WEAPONS, "M": MINI_CREATURES})


def changed(db_path: Path, *statements: str) -> Path:
    """The database changed by hand, as a user with the sqlite3 shell would (foreign keys off)."""
    connection = sqlite3.connect(db_path, isolation_level=None)
    connection.execute("PRAGMA foreign_keys = OFF")
    for statement in statements:
        connection.execute(statement)
    connection.close()
    return db_path


# ------------------------------------------------------------------ item 4: paths
ODD_NAMES = ["a(b).db", "50%.db", "a%20b.db", "#1.db", "me@home.db", "my tables.db", "ünïcødé €.db", "file:x.db", "what?.db"]


# ~1.5 s each: one in a plain `pytest`, all of them with `pytest -m slow` (and in CI)
@pytest.mark.parametrize("name", [name if name == "my tables.db" else pytest.param(name, marks=pytest.mark.slow) for name in ODD_NAMES])
def test_any_file_name_works_through_init_upgrade_import_and_query(tmp_path, name, mini):
    """`%` once met Alembic's interpolation, `?` cut the path short, `%20` made
    `db upgrade` migrate (and create) a second database beside the user's."""
    from tables_app.storage import engine as db

    folder = tmp_path / f"dir {name}"
    target = folder / name
    assert tables("db", "init", str(target)).exit_code == 0
    without_creature_attacks(target)
    engine = db.create_db_engine(f"sqlite:///{target}".replace("%", "%25").replace("?", "%3F").replace("#", "%23"))
    db.run_alembic(engine, "downgrade", "0001")  # so that `db upgrade` runs Alembic's migrations on this path
    engine.dispose()
    upgraded = tables("--db", str(target), "db", "upgrade")
    assert upgraded.exit_code == 0, upgraded.output
    assert upgraded.stdout.startswith(f"{target}: schema {SCHEMA_HEAD} (newest)")
    imported = tables("import", str(mini), env={"TABLES_DB": str(target)})
    assert imported.exit_code == 0, imported.output
    queried = tables("--db", str(target), *QUERY, "--json")
    assert queried.exit_code == 0 and '"table": "Edged"' in queried.stdout
    assert sorted(p.name for p in folder.iterdir()) == [name]  # no second database, no leftovers


def test_a_sqlite_url_is_percent_decoded_like_sqlalchemy_decodes_it(tmp_path, db_path):
    odd = tmp_path / "a b?.db"
    shutil.copyfile(db_path, odd)
    result = tables("--db", f"sqlite:///{tmp_path}/a%20b%3F.db", "db", "current")
    assert result.exit_code == 0 and result.stdout.startswith(f"{odd}: schema {SCHEMA_HEAD}")


def test_url_options_are_refused_not_read_as_part_of_the_name(tmp_path):
    value = f"sqlite:///{tmp_path}/x.db?mode=ro"
    failed(tables("--db", value, "db", "init"),
           f"{value}: options after '?' in a database URL are not supported; give the file path (a '?' in a file name is %3F in a URL)")
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ item 7: faults
def corrupt_pages(db_path: Path, table: str | None = None) -> Path:
    """Garbage over pages of a real database: the schema's pages, or one table's root page."""
    with sqlite3.connect(db_path) as connection:
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
        root = connection.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0] if table else None
    connection.close()
    with open(db_path, "r+b") as handle:
        for page in [root] if root else range(2, 40, 3):
            handle.seek((page - 1) * page_size + (100 if page == 1 else 0))
            handle.write(b"\xa5\x5a" * (page_size // 2 - 60))
    return db_path


@pytest.mark.parametrize("args", [QUERY, ("list",), ("db", "current"), ("db", "upgrade"), ("import", "MINI"),
                                  ("remove", "mini.xlsx"), ("show", "attack", "Edged")])
def test_corrupt_pages_are_one_line_on_every_command(db_path, mini, args):
    corrupt_pages(db_path)
    before = digest(db_path)
    result = tables("--db", str(db_path), *[str(mini) if a == "MINI" else a for a in args])
    failed(result, f"{db_path}: the database file is damaged (database disk image is malformed); {CHECK}")
    assert digest(db_path) == before


@pytest.mark.parametrize("args", [QUERY, ("show", "attack", "Edged"), ("import", "MINI")])
def test_a_corrupt_table_page_is_one_line_when_it_is_read(db_path, mini, args):
    corrupt_pages(db_path, "attack_row")
    before = digest(db_path)
    result = tables("--db", str(db_path), *[str(mini) if a == "MINI" else a for a in args])
    failed(result, f"{db_path}: the database file is damaged (database disk image is malformed); {CHECK}")
    assert digest(db_path) == before


@pytest.mark.parametrize("content", [b"my notes\n" * 500, b"\0" * 8192])
@pytest.mark.parametrize("args", [QUERY, ("db", "upgrade"), ("import", "MINI")])
def test_a_file_that_is_not_a_database(tmp_path, mini, content, args):
    path = tmp_path / "notes.db"
    path.write_bytes(content)
    result = tables("--db", str(path), *[str(mini) if a == "MINI" else a for a in args])
    failed(result, f"{path}: not a database (file is not a database): a wrong path or a damaged file; {CHECK}")
    assert path.read_bytes() == content


def test_db_init_refuses_a_corrupt_or_foreign_file_unchanged(tmp_path, db_path):
    corrupt_pages(db_path)
    before = digest(db_path)
    failed(tables("db", "init", str(db_path)),
           f"{db_path} already exists and is not empty; nothing changed (db init makes new databases only)")
    assert digest(db_path) == before


def full_disk(limit: int, *args: str) -> subprocess.CompletedProcess:
    """The CLI in a process whose files cannot grow past ``limit`` bytes
    (RLIMIT_FSIZE; SIGXFSZ ignored, so the write fails with EFBIG as on a full disk)."""
    probe = ("import resource, signal, sys\n"
             "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
             f"resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))\n"
             "from tables_app.cli.root import main\n"
             "sys.argv = ['tables', *sys.argv[1:]]\n"
             "main()\n")
    return subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, timeout=120)


FILE_LIMIT = ("reading or writing the file failed (disk I/O error: a full disk, a file size limit or a failing disk); "
              "nothing was changed; free some space or check the disk, then try again")


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGXFSZ"), reason="needs RLIMIT_FSIZE")
def test_a_full_disk_during_an_import_leaves_the_database_as_it_was(db_path, tmp_path):
    big = shutil.copyfile(Path(__file__).parents[2] / "table_sources" / "examples" / "printed.xlsx", tmp_path / "printed.xlsx")
    before = digest(db_path)
    result = full_disk(db_path.stat().st_size // 2, "--db", str(db_path), "import", str(big))
    assert (result.returncode, result.stderr.splitlines()[-1:]) == (1, [f"Error: {db_path}: {FILE_LIMIT}"]), result.stderr
    assert "Traceback" not in result.stderr
    assert digest(db_path) == before


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGXFSZ"), reason="needs RLIMIT_FSIZE")
def test_a_full_disk_on_first_run_leaves_nothing(tmp_path):
    target = tmp_path / "new" / "tables.db"
    result = full_disk(100_000, "db", "init", str(target))
    assert (result.returncode, result.stderr.splitlines()) == (1, [f"Error: {target}: {FILE_LIMIT}"]), result.stderr
    assert list(target.parent.iterdir()) == []  # not half a database, not the temporary file


def test_database_or_disk_is_full_during_an_import(db_path, mini, monkeypatch):
    from tables_app.services import importing

    def full(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(importing._Importer, "run", full)
    before = digest(db_path)
    failed(tables("--db", str(db_path), "import", str(mini)),
           f"{db_path}: the disk is full (database or disk is full); nothing was changed; free some space and try again")
    assert digest(db_path) == before


def test_database_or_disk_is_full_on_first_run(no_user_database, monkeypatch):
    from tables_app.storage import engine

    def full(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(engine, "migrate", full)
    failed(tables(*QUERY), f"{no_user_database}: the disk is full (database or disk is full); nothing was changed; "
                           "free some space and try again")
    assert list(no_user_database.parent.iterdir()) == []


def test_a_dropped_table(db_path):
    changed(db_path, "DROP TABLE weapon")
    before = digest(db_path)
    failed(tables("--db", str(db_path), "list", "weapons"),
           f"{db_path}: the database is damaged or was changed by hand: table weapon is missing; {CHECK}")
    assert digest(db_path) == before


@pytest.mark.parametrize("args", [("list", "weapons"), ("import", "MINI")])
def test_a_dropped_column(db_path, mini, args):
    changed(db_path, "ALTER TABLE weapon DROP COLUMN notes")
    before = digest(db_path)
    failed(tables("--db", str(db_path), *[str(mini) if a == "MINI" else a for a in args]),
           f"{db_path}: the database is damaged or was changed by hand: table weapon has no column notes; {CHECK}")
    assert digest(db_path) == before


@pytest.mark.parametrize("args", [QUERY, ("db", "upgrade"), ("import", "MINI")])
def test_a_second_alembic_version_row(db_path, mini, args):
    changed(db_path, "INSERT INTO alembic_version VALUES ('0004')")
    before = digest(db_path)
    failed(tables("--db", str(db_path), *[str(mini) if a == "MINI" else a for a in args]),
           f"{db_path}: the database records 2 schema versions ({SCHEMA_HEAD}, 0004) where it has one "
           f"(alembic_version changed by hand?); {CHECK}")
    assert digest(db_path) == before


def test_orphaned_rows_refuse_a_removal_naming_the_row(db_path, mini):
    assert tables("--db", str(db_path), "import", str(mini)).exit_code == 0
    changed(db_path, "UPDATE weapon SET critical_table_id = 99999 WHERE name = 'Longsword'")
    row = sqlite3.connect(db_path).execute("SELECT rowid FROM weapon WHERE name = 'Longsword'").fetchone()[0]
    before = digest(db_path)
    failed(tables("--db", str(db_path), "remove", "mini.xlsx"),
           f"{db_path}: weapon row {row} refers to a critical_table row that does not exist (critical_table_id 99999); {CHECK}")
    assert digest(db_path) == before


def test_orphaned_rows_refuse_an_import_naming_the_row(db_path, mini, tmp_path):
    """The rows left by hand are named, not taken for the import's doing."""
    assert tables("--db", str(db_path), "import", str(mini)).exit_code == 0
    changed(db_path, "UPDATE weapon SET critical_table_id = 99999 WHERE name = 'Longsword'")
    row = sqlite3.connect(db_path).execute("SELECT rowid FROM weapon WHERE name = 'Longsword'").fetchone()[0]
    before = digest(db_path)
    again = tmp_path / "again" / "mini.xlsx"
    again.parent.mkdir()
    again.write_bytes(mini.read_bytes())
    failed(tables("--db", str(db_path), "import", str(again), "--replace"),
           f"{db_path}: weapon row {row} refers to a critical_table row that does not exist (critical_table_id 99999); {CHECK}")
    assert digest(db_path) == before


def test_orphaned_rows_refuse_an_upgrade(db_path):
    from tables_app.storage import engine as db

    without_creature_attacks(db_path)
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    db.run_alembic(engine, "downgrade", "0004")
    engine.dispose()
    changed(db_path, "UPDATE weapon SET critical_table_id = 99999 WHERE name = 'Longsword'")
    row = sqlite3.connect(db_path).execute("SELECT rowid FROM weapon WHERE name = 'Longsword'").fetchone()[0]
    before = digest(db_path)
    failed(tables("--db", str(db_path), "db", "upgrade"),
           f"{db_path}: weapon row {row} refers to a critical_table row that does not exist (critical_table_id 99999); "
           "nothing was changed (not migrated); run: tables db check")
    assert digest(db_path) == before


def test_text_in_an_integer_column(db_path):
    changed(db_path, "UPDATE attack_row SET low = 'abc' WHERE attack_table_id = (SELECT id FROM attack_table WHERE name = 'Edged')")
    first, count = sqlite3.connect(db_path).execute(
        "SELECT min(rowid), count(*) FROM attack_row WHERE typeof(low) = 'text'").fetchone()
    before = digest(db_path)
    failed(tables("--db", str(db_path), *QUERY),
           f"{db_path}: the database is damaged or was changed by hand: attack_row row {first}: low holds 'abc' where a whole "
           f"number belongs (and {count - 1} more rows); {CHECK}")
    assert digest(db_path) == before


def test_a_bug_is_not_taken_for_a_fault(db_path, monkeypatch):
    """Only faults of the database are mapped: on a sound database an error stays a bug, with its traceback."""
    from tables_app.storage.reader import Reader

    def broken(*_args, **_kwargs):  # type: ignore[no-untyped-def]
        raise TypeError("a bug")

    monkeypatch.setattr(Reader, "_attack_table", broken)
    result = tables("--db", str(db_path), *QUERY)
    assert isinstance(result.exception, TypeError)


def test_a_home_directory_that_does_not_exist():
    failed(tables("--db", "~nouser-at-all/x.db", *QUERY),
           "~nouser-at-all/x.db: cannot find the home directory of ~nouser-at-all (no such user?); give the full path")


def test_a_symlink_loop(tmp_path):
    (tmp_path / "a.db").symlink_to(tmp_path / "b.db")
    (tmp_path / "b.db").symlink_to(tmp_path / "a.db")
    for args in (QUERY, ("db", "init")):
        failed(tables("--db", str(tmp_path / "a.db"), *args),
               f"{tmp_path / 'a.db'}: a loop of symbolic links, not a database file; point the link at a database file or give another path")


def test_a_directory(tmp_path):
    for args in (QUERY, ("db", "init"), ("db", "check")):
        failed(tables("--db", str(tmp_path), *args),
               f"{tmp_path}: a directory, not a database file; give a file's path, such as {tmp_path / 'tables.db'}")


def read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every connection read-only, as for a file without write permission (root may write any file)."""
    from tables_app.storage import connection, database, transactions

    def connect(path: Path) -> sqlite3.Connection:
        opened = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True, isolation_level=None)
        opened.execute("PRAGMA foreign_keys = ON")
        return opened

    for module in (connection, database, transactions):  # every module that opens the file
        monkeypatch.setattr(module, "connect", connect)


def test_a_read_only_database_for_a_write(db_path, mini, monkeypatch):
    assert tables("--db", str(db_path), "import", str(mini)).exit_code == 0
    before = digest(db_path)
    read_only(monkeypatch)
    assert tables("--db", str(db_path), *QUERY).exit_code == 0  # reading still works
    failed(tables("--db", str(db_path), "remove", "mini.xlsx"),
           f"{db_path}: the database is read-only (attempt to write a readonly database); nothing was changed; "
           "make the file and its directory writable")
    assert digest(db_path) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write a read-only file")
def test_a_read_only_file_for_an_import(db_path, mini):
    db_path.chmod(0o444)
    before = digest(db_path)
    result = tables("--db", str(db_path), "import", str(mini))
    assert result.exit_code == 1 and error_lines(result).startswith(f"Error: {db_path}: ")
    assert digest(db_path) == before
