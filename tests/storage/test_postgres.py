"""PostgreSQL: the same schema, statements, answers and guarantees as SQLite.

Run against the server of $TABLES_TEST_POSTGRES (a URL whose user may
create and drop databases; README, "Tests"), each test on databases of its
own; skipped without one (CI sets $TABLES_REQUIRE_POSTGRES: failed instead).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import psycopg
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from click.testing import CliRunner

from conftest import on_database
from helpers import MINI_ATTACK, MINI_CRITICAL, MINI_FUMBLE, MINI_SEVERITIES, MINI_WEAPONS, serving
from storage.test_sql import SQLITE_ONLY, parameters, storage_statements

from tables_app.cli.root import cli
from tables_app.errors import DatabaseError, DatabaseFault, FightChanged
from tables_app.services.database_setup import open_database
from tables_app.storage import cell_keys, engine as db, fights, models
from tables_app.storage.connection import ADVISORY_LOCK, SCHEMA_HEAD, connect, write_transaction
from tables_app.storage.faults import server_problem
from tables_app.storage.location import Server, locate_database, shown_url
from tables_app.storage.postgres import translated


def tables(*args: str, db: str):  # type: ignore[no-untyped-def]
    return CliRunner(env={"COLUMNS": "10000"}).invoke(cli, ["--db", db, *args], catch_exceptions=False)


def ok_json(*args: str, db: str):  # type: ignore[no-untyped-def]
    result = tables(*args, "--json", db=db)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def table_names(url: str) -> set[str]:
    with psycopg.connect(url) as connection:
        return {name for (name,) in connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")}


# ------------------------------------------------------------------ the schema
def test_every_revision_goes_up_down_and_up_again(new_postgres):
    engine = db.create_db_engine(new_postgres())
    try:
        for revision in reversed(list(ScriptDirectory.from_config(db.alembic_config()).walk_revisions())):
            db.migrate(engine, revision.revision)
            db.run_alembic(engine, "downgrade", revision.down_revision or "base")
            db.migrate(engine, revision.revision)
        with engine.connect() as connection:
            assert connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == SCHEMA_HEAD
        db.run_alembic(engine, "downgrade", "base")
    finally:
        engine.dispose()
    assert table_names(engine.url.render_as_string(hide_password=False).replace("+psycopg", "")) == {"alembic_version"}


def test_the_models_and_the_migrations_give_the_same_schema(new_postgres):
    engine = db.create_db_engine(new_postgres())
    try:
        db.migrate(engine)
        with engine.connect() as connection:
            diff = compare_metadata(MigrationContext.configure(connection), models.metadata)
        assert without_cell_keys(without_deferrability(diff)) == []
    finally:
        engine.dispose()


def without_deferrability(diff: list) -> list:
    """The differences but for foreign keys that differ in being deferrable
    only: on PostgreSQL env.py makes every one deferrable (an import defers
    them to its commit, as SQLite's pragma does), which the models do not say."""
    def key(fk) -> tuple:  # type: ignore[no-untyped-def]
        return (fk.name, fk.parent.name, tuple(fk.column_keys), fk.referred_table.name, fk.ondelete)

    removed = {key(item[1]) for item in diff if item[0] == "remove_fk"}
    added = {key(item[1]) for item in diff if item[0] == "add_fk"}
    same = removed & added
    return [item for item in diff if not (item[0] in ("remove_fk", "add_fk") and key(item[1]) in same)]


def without_cell_keys(diff: list) -> list:
    """The differences but for attack_cell's four foreign keys, which env.py
    replaces on PostgreSQL with triggers checking a statement at a time
    (storage/cell_keys.py; the models keep them for SQLite)."""
    return [item for item in diff if not (item[0] == "add_fk" and item[1].name in cell_keys.FOREIGN_KEYS)]


def test_every_foreign_key_is_deferrable_and_the_ids_run_past_the_seeded_rows(pg_url):
    with psycopg.connect(pg_url) as connection:
        assert connection.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND NOT condeferrable").fetchone() == (0,)
        assert connection.execute("SELECT count(*) FROM pg_constraint WHERE contype = 'f'").fetchone()[0] >= 20
        # `default` (the ruleset and the scale) were written with id 1: a new one is 2, not a clash
        assert connection.execute("INSERT INTO ruleset (name) VALUES ('Other') RETURNING id").fetchone() == (2,)
        connection.rollback()


def test_every_statement_of_storage_prepares_on_postgres(pg_url):
    statements = [s for s in storage_statements() if not SQLITE_ONLY.search(s)]
    assert len(statements) > 150
    failed = {}
    with psycopg.connect(pg_url) as connection:
        for statement in statements:
            text, style = translated(statement)
            given = parameters(statement)
            if style == "numbered":
                given = {f"p{i}": value for i, value in enumerate(given, start=1)}
            try:
                connection.execute("EXPLAIN " + text, given or None)
            except psycopg.Error as exc:
                failed[statement] = str(exc).splitlines()[0]
            connection.rollback()
    assert failed == {}


def test_statements_are_translated_once_into_psycopgs_style():
    assert translated("SELECT * FROM weapon WHERE name = ? AND ruleset_id = ?") == (
        "SELECT * FROM weapon WHERE name = %s AND ruleset_id = %s", "plain")
    assert translated("UPDATE ruleset SET name = :name WHERE id = :id") == (
        "UPDATE ruleset SET name = %(name)s WHERE id = %(id)s", "named")
    assert translated("SELECT a FROM t WHERE x = ?1 OR y = ?1") == ("SELECT a FROM t WHERE x = %(p1)s OR y = %(p1)s", "numbered")
    assert translated("SELECT '~' || id, 'a?b :c 50%' FROM t WHERE v LIKE 'x%'") == (
        "SELECT '~' || id, 'a?b :c 50%%' FROM t WHERE v LIKE 'x%%'", "plain")
    assert translated("DELETE FROM t WHERE id IN (SELECT value FROM json_each(?))")[0] == (
        "DELETE FROM t WHERE id IN (SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST(%s AS json)))")
    with pytest.raises(ValueError, match="mixes parameter styles"):
        translated("SELECT 1 WHERE a = ? AND b = :b")


# ------------------------------------------------------------------ db init, and the same answers
def test_db_init_makes_an_empty_database_a_tables_app_one_and_only_an_empty_one(new_postgres):
    url = new_postgres()
    result = tables("list", db=url)
    assert (result.exit_code, result.stderr) == (1, f"Error: {shown_url(url)} is an empty database, not a tables_app one "
                                                    "(make it one with: tables db init URL)\n")
    result = tables("db", "init", url, db=url)
    assert result.exit_code == 0, result.output
    assert result.stderr == f"Created the database {shown_url(url)} (schema {SCHEMA_HEAD}, bundled tables imported)\n"
    assert len(ok_json("list", "weapons", db=url)["weapons"]) >= 30
    again = tables("db", "init", url, db=url)
    assert (again.exit_code, again.stderr) == (1, f"Error: {shown_url(url)} already holds tables; nothing changed (db init makes an "
                                                  "empty database a tables_app one, and only an empty one)\n")
    check = tables("db", "check", db=url)
    assert check.exit_code == 0 and "no problems found" in check.stdout


def test_the_same_attacks_give_the_same_answers_as_on_sqlite(pg_url, db_path):
    for args in (("resolve", "table", "--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA", "--seed", "3"),
                 ("resolve", "table", "--weapon", "battle axe", "--cmb", "90", "--def", "0", "--armor", "ha", "--seed", "11"),
                 ("query", "attack", "Edged", "95", "MA"), ("list", "rulesets"), ("show", "weapon", "LONGSWORD"),
                 ("odds", "table", "--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA")):
        assert ok_json(*args, db=pg_url) == ok_json(*args, db=str(db_path)), args


def test_an_import_a_lookup_in_any_spelling_and_a_removal(pg_url, write_workbook):
    weapons = [row[:] for row in MINI_WEAPONS]
    weapons[3][0] = "Ærø Needle"
    book = write_workbook("mini.xlsx", {"Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Oops": MINI_FUMBLE,
                                        "Poke": MINI_ATTACK, "Weapons": weapons})
    result = tables("import", str(book), db=pg_url)
    assert result.exit_code == 0, result.output
    for spelling in ("Ærø Needle", "ærø needle", "ÆRØ NEEDLE", "ærø  needle"):
        assert ok_json("show", "weapon", spelling, db=pg_url)["name"] == "Ærø Needle", spelling
    assert ok_json("show", "weapon", "pin", db=pg_url)["name"] == "Pin"
    result = tables("remove", "mini.xlsx", db=pg_url)
    assert result.exit_code == 0, result.output
    assert tables("show", "weapon", "Pin", db=pg_url).exit_code == 1


SEQUENCES = ("SELECT table_name, pg_get_serial_sequence(table_name, 'id') FROM information_schema.columns "
             "WHERE table_schema = current_schema() AND column_name = 'id' "
             "AND pg_get_serial_sequence(table_name, 'id') IS NOT NULL")


def test_every_id_sequence_is_past_the_ids_an_import_gave(pg_url, mini_workbook):
    """The import numbers the rows of its child tables itself (cells, rows,
    columns, entries); each table's sequence is then moved past them, so a row
    added by hand, its id from the sequence, takes a new id."""
    assert tables("import", str(mini_workbook), db=pg_url).exit_code == 0
    with psycopg.connect(pg_url) as connection:
        behind = {}
        for table, sequence in connection.execute(SEQUENCES).fetchall():
            highest = connection.execute(f"SELECT coalesce(max(id), 0) FROM {table}").fetchone()[0]
            given = connection.execute(f"SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM {sequence}"
                                       ).fetchone()[0]
            if given < highest:
                behind[table] = (given, highest)
        assert behind == {}
        # the last cell written, taken out and put back by hand: a new id, past it
        last, row, column = connection.execute("DELETE FROM attack_cell WHERE id = (SELECT max(id) FROM attack_cell) "
                                               "RETURNING id, row_id, armor_column_id").fetchone()
        again = connection.execute("INSERT INTO attack_cell (row_id, armor_column_id, text, outcome, hits) "
                                   "VALUES (%s, %s, 'x', 'miss', 0) RETURNING id", (row, column)).fetchone()[0]
        assert again > last


def test_names_are_unique_in_any_letter_case(pg_url):
    with psycopg.connect(pg_url) as connection:
        connection.execute("INSERT INTO fight (name, name_key, created_at) VALUES ('Ambush', 'ambush', 'now')")
        # the folded key decides (0013), not the ICU collation, which takes katakana for hiragana
        connection.execute("INSERT INTO fight (name, name_key, created_at) VALUES ('ヒラ', 'ヒラ', 'now')")
        connection.execute("INSERT INTO fight (name, name_key, created_at) VALUES ('ひら', 'ひら', 'now')")
        with pytest.raises(psycopg.errors.UniqueViolation):
            connection.execute("INSERT INTO fight (name, name_key, created_at) VALUES ('AMBUSH', 'ambush', 'now')")


# ------------------------------------------------------------------ concurrency
def test_an_import_waits_for_the_write_lock_then_writes(pg_url, write_workbook):
    book = write_workbook("mini.xlsx", {"Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Poke": MINI_ATTACK})
    holder = psycopg.connect(pg_url, autocommit=True)
    holder.execute("BEGIN")
    holder.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK,))
    waits: list[float] = []
    outcome: dict[str, object] = {}

    def importing() -> None:
        from tables_app.services.importing import import_workbooks

        database = open_database(pg_url)
        try:
            outcome["report"] = import_workbooks(database, [book], on_wait=waits.append)
        finally:
            database.dispose()

    worker = threading.Thread(target=importing)
    worker.start()
    time.sleep(1.0)
    assert worker.is_alive() and waits  # waiting its turn, and saying so
    holder.execute("COMMIT")
    worker.join(30)
    holder.close()
    assert not worker.is_alive()
    assert outcome["report"].written is True
    assert ok_json("show", "attack", "Poke", db=pg_url)["table"] == "Poke"


def test_a_write_lock_held_past_the_busy_timeout_is_one_error(pg_url, monkeypatch):
    from tables_app.storage import connection as settings

    monkeypatch.setattr(settings, "BUSY_TIMEOUT_MS", 300)
    holder = psycopg.connect(pg_url, autocommit=True)
    holder.execute("BEGIN")
    holder.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK,))
    try:
        with pytest.raises(DatabaseFault) as raised, write_transaction(Server(pg_url)):
            pass
        assert raised.value.problem == ("the database is busy with another writer (canceling statement due to lock timeout); "
                                        "nothing was changed, try again")
    finally:
        holder.close()


def test_every_import_and_removal_moves_the_generation(pg_url, write_workbook):
    def generation() -> int:
        with psycopg.connect(pg_url) as connection:
            return connection.execute("SELECT number FROM generation").fetchone()[0]

    start = generation()
    book = write_workbook("mini.xlsx", {"Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Poke": MINI_ATTACK})
    assert tables("import", str(book), db=pg_url).exit_code == 0
    assert generation() == start + 1
    assert tables("remove", "mini.xlsx", db=pg_url).exit_code == 0
    assert generation() > start + 1
    assert tables("fight", "new", "Ambush", db=pg_url).exit_code == 0
    before = generation()
    assert tables("fight", "remove", "Ambush", db=pg_url).exit_code == 0
    assert generation() == before  # fights are not tables: a server's compiled tables stay


def test_a_read_snapshot_sees_the_tables_as_they_were_when_it_began(pg_url, write_workbook):
    database = open_database(pg_url)
    try:
        with database.snapshot() as connection:
            before = connection.execute("SELECT count(*) FROM attack_table").fetchone()[0]
            book = write_workbook("mini.xlsx", {"Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Poke": MINI_ATTACK})
            assert tables("import", str(book), db=pg_url).exit_code == 0  # another process commits meanwhile
            assert connection.execute("SELECT count(*) FROM attack_table").fetchone()[0] == before
        with database.snapshot() as connection:
            assert connection.execute("SELECT count(*) FROM attack_table").fetchone()[0] == before + 1
    finally:
        database.dispose()


def test_of_two_writers_that_read_the_same_log_the_second_is_refused(pg_url):
    assert tables("fight", "new", "Ambush", db=pg_url).exit_code == 0
    server = Server(pg_url)
    event = {"kind": "edit", "combatant": "nobody"}
    with write_transaction(server) as first:
        read = fights.find(first, "Ambush", 0)  # both writers read the fight at version 0 ...
        assert read is not None
        fights.append(first, read, 0, [event])
        first.execute("COMMIT")
    with pytest.raises(FightChanged, match=r"its log is at event 1, not 0"), write_transaction(server) as second:
        fights.append(second, read, 0, [event])  # ... and the second finds it at another
    # the unique (fight, seq) refuses a second event 1 whatever the order of the writers
    with psycopg.connect(pg_url) as connection, pytest.raises(psycopg.errors.UniqueViolation):
        connection.execute("INSERT INTO fight_event (fight_id, seq, kind, data, at) "
                           "SELECT id, 1, 'edit', '{}', 'now' FROM fight")


@pytest.mark.timeout(120)
def test_two_servers_share_fights_and_imports_through_one_database(pg_url, mini_workbook):
    token = "a-token-for-the-test"

    def call(base: str, method: str, route: str, body: dict | None = None, upload: Path | None = None) -> tuple[int, dict]:
        data, headers = None, {"Authorization": f"Bearer {token}"}
        if body is not None:
            data, headers = json.dumps(body).encode(), {**headers, "Content-Type": "application/json"}
        if upload is not None:
            data, route = upload.read_bytes(), f"{route}?name={upload.name}"
        request = urllib.request.Request(base + route, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    hero = {"as": "Hero", "hits": 50, "def": 20, "armor": "MA", "weapon": "Longsword", "cmb": 60, "side": "A"}
    env = {**os.environ, "TABLES_TOKEN": token}
    with serving(pg_url, env, ("--allow-import",)) as (one, _), serving(pg_url, env) as (other, _):
        assert call(one, "POST", "/api/v1/fights", {"name": "Ambush"})[0] == 200
        assert call(other, "POST", "/api/v1/fights/Ambush/combatants", hero)[0] == 200
        assert call(one, "POST", "/api/v1/fights/Ambush/combatants", {"creature": "Orc Warrior", "side": "B"})[0] == 200
        assert call(other, "GET", "/api/v1/fights/Ambush")[1]["seq"] == 2
        body = {"attacker": "Hero", "target": "Orc Warrior #1", "seed": 7, "after": 2}
        answers = [call(one, "POST", "/api/v1/fights/Ambush/attacks", body),
                   call(other, "POST", "/api/v1/fights/Ambush/attacks", {**body, "seed": 8})]
        assert [status for status, _ in answers] == [200, 409], answers
        assert answers[1][1]["error"]["message"] == \
            "the fight 'Ambush' changed (its log is at event 3, not 2): show it again, then retry"
        log = call(other, "GET", "/api/v1/fights/Ambush/log")[1]
        assert [event["seq"] for event in log["events"]] == [1, 2, 3]
        assert log["events"][-1] == call(one, "GET", "/api/v1/fights/Ambush/log")[1]["events"][-1]
        # an import through one server is read by the other at its next request
        assert call(other, "GET", "/api/v1/query/attack?table=Poke&result=35&armor=Cloth")[0] == 404
        status, imported = call(one, "POST", "/api/v1/import", upload=mini_workbook)
        assert status == 200, imported
        status, cell = call(other, "GET", "/api/v1/query/attack?table=Poke&result=35&armor=Cloth")
        assert status == 200, cell


# ------------------------------------------------------------------ faults: one line, naming the database, never the password
def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_server_that_is_not_there_is_one_error_naming_the_database():
    url = f"postgresql://tables:secret@127.0.0.1:{free_port()}/tables"
    result = tables("list", db=url)
    assert result.exit_code == 1
    line = result.stderr
    assert line.count("\n") == 1 and "secret" not in line
    assert line.startswith(f"Error: postgresql://tables:***@127.0.0.1:{url.split(':')[3].split('/')[0]}/tables: "
                           "cannot reach the database server, or the connection was lost (")
    assert line.endswith("check that the server is running and that the URL's host and port are its own, then try again\n")


def test_a_database_the_server_does_not_have(postgres_server):
    url = on_database(postgres_server, "tables_no_such_database")
    result = tables("list", db=url)
    assert result.exit_code == 1
    assert re.fullmatch(rf"Error: {re.escape(shown_url(url))}: the server has no such database \(.*\); nothing was changed; "
                        r"create it \(createdb NAME\), then make it a tables_app database: tables db init URL\n", result.stderr)


def test_a_wrong_password_is_one_error_without_the_password(postgres_server):
    parts = locate_database(postgres_server)
    wrong = re.sub(r"^postgresql://([^:@/]+)(:[^@]*)?@", r"postgresql://\1:not-the-password@", parts.url)
    try:
        psycopg.connect(wrong).close()
    except psycopg.OperationalError:
        pass
    else:
        pytest.skip("the test server lets its user in without a password (trust)")
    result = tables("list", db=wrong)
    assert result.exit_code == 1 and "not-the-password" not in result.stderr
    assert "the server refused the user or password" in result.stderr and result.stderr.count("\n") == 1


def test_a_read_only_database_refuses_an_import_and_nothing_changes(pg_url, postgres_server, mini_workbook):
    name = pg_url.rsplit("/", 1)[1]
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
    result = tables("import", str(mini_workbook), db=pg_url)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: {shown_url(pg_url)}: the database is read-only (")
    with psycopg.connect(pg_url) as connection:
        assert connection.execute("SELECT count(*) FROM workbook WHERE file_name = 'mini.xlsx'").fetchone() == (0,)


def test_a_connection_lost_in_the_middle_of_an_import_writes_nothing(pg_url, postgres_server, mini_workbook, monkeypatch):
    from tables_app.storage import repository

    def killed(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        pid = self.db.execute("SELECT pg_backend_pid()").fetchone()[0]
        with psycopg.connect(postgres_server, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        return original(self, *args, **kwargs)

    original = repository.Writer._write_attack_table
    monkeypatch.setattr(repository.Writer, "_write_attack_table", killed)
    result = tables("import", str(mini_workbook), db=pg_url)
    assert result.exit_code == 1, result.output
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"Error: {shown_url(pg_url)}: cannot reach the database server, or the connection was lost (")
    monkeypatch.undo()
    assert tables("show", "attack", "Poke", db=pg_url).exit_code == 1  # nothing of it was written


@pytest.mark.parametrize(("sqlstate", "text", "said"), [
    ("53100", "could not extend file: No space left on device", "the server's disk is full"),
    ("53100", "could not write: Disk quota exceeded", "the server's disk is full"),
    ("57P01", "terminating connection due to administrator command", "cannot reach the database server, or the connection was lost"),
    ("40P01", "deadlock detected", "the database is busy with another writer"),
    ("42501", "permission denied for table weapon", "the database user may not do this"),
    ("53300", "sorry, too many clients already", "the server cannot take this now"),
])
def test_each_fault_of_the_server_is_said_with_what_to_do(sqlstate, text, said):
    assert (server_problem(sqlstate, text) or "").startswith(f"{said} ({text}); nothing was changed"), server_problem(sqlstate, text)


def test_a_mistake_in_our_own_sql_stays_a_bug():
    assert server_problem("42601", "syntax error at or near \"SELEC\"") is None
    assert server_problem("42P01", "relation \"weapon\" does not exist") is None  # db check says what is missing


def test_a_named_database_must_name_one():
    with pytest.raises(DatabaseError, match=r"^postgresql://u@host: name the database"):
        locate_database("postgresql://u@host")
    assert str(locate_database("postgres://u:pw@host:5433/t?password=x&sslmode=require").path) == \
        "postgresql://u:***@host:5433/t?password=***&sslmode=require"


def test_connect_takes_a_server_and_gives_sqlite3s_face(pg_url):
    connection = connect(Server(pg_url))
    try:
        cursor = connection.cursor()
        cursor.row_factory = object()  # any factory: rows by name too, as sqlite3.Row
        row = cursor.execute("SELECT id, name FROM ruleset WHERE name = ?", ("DEFAULT",)).fetchone()
        assert (row[0], row["name"], row.keys()) == (1, "default", ["id", "name"])
        assert not connection.in_transaction
        connection.execute("BEGIN")
        assert connection.in_transaction
        connection.execute("ROLLBACK")
    finally:
        connection.close()


def test_db_check_finds_what_was_changed_by_hand_with_the_servers_own_checks(pg_url):
    assert ok_json("db", "check", db=pg_url) == {"database": shown_url(pg_url), "ok": True, "problems": []}
    with psycopg.connect(pg_url) as connection:
        connection.execute("ALTER TABLE weapon DROP CONSTRAINT fk_weapon_fumble_table_id_fumble_table")
        connection.execute("ALTER TABLE weapon ADD CONSTRAINT fk_weapon_fumble_table_id_fumble_table FOREIGN KEY "
                           "(fumble_table_id) REFERENCES fumble_table (id) NOT VALID")
        connection.execute("ALTER TABLE creature DROP COLUMN notes")
        connection.execute("UPDATE alembic_version SET version_num = '0007'")
    result = tables("db", "check", "--json", db=pg_url)
    assert result.exit_code == 1
    assert json.loads(result.stdout)["problems"] == [
        "constraint fk_weapon_fumble_table_id_fumble_table of table weapon is not valid (switched off by hand?)",
        "table creature has no column notes",
        f"the schema is version 0007, not the newest ({SCHEMA_HEAD}): run: tables db upgrade",
    ]


def test_a_dry_run_and_lint_write_nothing(pg_url, mini_workbook, dump):
    before = dump(pg_url)
    for args in (("import", "--dry-run", str(mini_workbook)), ("lint", str(mini_workbook))):
        result = tables(*args, db=pg_url)
        assert result.exit_code == 0, result.output
    assert dump(pg_url) == before


def test_many_rows_go_in_by_copy_and_come_out_as_by_insert(pg_url):
    from tables_app.storage.postgres import COPY_FROM, copy_of

    statement = "INSERT INTO creature_feature (creature_id, feature) VALUES (?, ?)"
    assert copy_of(statement) == "COPY creature_feature (creature_id, feature) FROM STDIN"
    assert copy_of("INSERT INTO ruleset (name) VALUES (?) RETURNING id") is None
    assert copy_of("INSERT INTO t (a, b) VALUES (?, 1)") is None
    assert copy_of("UPDATE severity SET code = '~' || id WHERE id = ?") is None
    connection = connect(Server(pg_url))
    try:
        creature = connection.execute("SELECT id FROM creature ORDER BY id").fetchone()[0]
        connection.execute("DELETE FROM creature_feature")
        odd = ["plain", "tab\there", "new\nline", "back\\slash", "ünïcode", "'quoted'", "%s ?"]
        many = [(creature, f"{odd[i % len(odd)]} {i}") for i in range(COPY_FROM + 7)]
        few = [(creature, f"few {i}") for i in range(3)]
        connection.executemany(statement, many)  # by COPY
        connection.executemany(statement, few)  # by INSERT
        stored = connection.execute("SELECT creature_id, feature FROM creature_feature ORDER BY id").fetchall()
        assert [tuple(row) for row in stored] == many + few
        with pytest.raises(sqlite3.IntegrityError):  # a broken rule is the same error either way
            connection.executemany(statement, [(creature, "again 0")] * COPY_FROM)
    finally:
        connection.close()


def test_writes_keep_one_connection_and_make_another_once_it_is_lost(pg_url, postgres_server):
    database = open_database(pg_url)
    try:
        def write(name: str) -> int:
            with database.writing(commit=True, breaking="a fight") as connection:
                fights.create(connection, name, None, 0)
                return connection.execute("SELECT pg_backend_pid()").fetchone()[0]

        first = write("One")
        assert write("Two") == first  # no new connection for each write
        with psycopg.connect(postgres_server, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (first,))
        with pytest.raises((DatabaseError, DatabaseFault), match="the connection was lost"):
            write("Three")
        assert write("Three") != first  # made anew, and written
        with database.snapshot() as connection:
            assert fights.names(connection, 0) == ["One", "Three", "Two"]
    finally:
        database.dispose()


def test_a_name_the_collation_takes_for_another_is_not_that_name(pg_url):
    """ICU's level-2 collation (the NOCASE of PostgreSQL) equates katakana
    with hiragana; the rule of names (NFKC, case folding) does not: a lookup
    finds only what the rule says is the name."""
    with psycopg.connect(pg_url) as connection:
        assert connection.execute("SELECT 'ひら' = 'ヒラ' COLLATE \"NOCASE\"").fetchone() == (True,)
        connection.execute("UPDATE weapon SET name = 'ヒラ' WHERE name = 'Dagger'")
    assert ok_json("show", "weapon", "ヒラ", db=pg_url)["name"] == "ヒラ"
    result = tables("show", "weapon", "ひら", db=pg_url)
    assert result.exit_code == 1 and "no weapon named 'ひら'" in result.stderr


# ------------------------------------------------------------------ attack cells' references (storage/cell_keys.py)
def refused(connection, statement: str, *params) -> str:  # type: ignore[no-untyped-def]
    """The SQLSTATE of ``statement``'s refusal (its transaction rolled back)."""
    with pytest.raises(psycopg.Error) as caught:
        connection.execute(statement, params or None)
        connection.commit()
    connection.rollback()
    return caught.value.sqlstate


def test_a_cell_pointing_at_nothing_is_never_committed(pg_url):
    with psycopg.connect(pg_url) as connection:
        count, cells = connection.execute("SELECT count(*), max(id) FROM attack_cell").fetchone()
        assert count > 500 and connection.execute(translated(cell_keys.DANGLING)[0], (1,)).fetchall() == []
        some = "(SELECT min(id) FROM attack_cell WHERE critical_table_id IS NOT NULL)"
        for column in ("row_id", "armor_column_id", "severity_id", "critical_table_id"):
            assert refused(connection, f"UPDATE attack_cell SET {column} = 1000000 WHERE id = {some}") == "23503", column
        assert refused(connection, "INSERT INTO attack_cell (id, row_id, armor_column_id, text, outcome, hits) "
                                   "VALUES ((SELECT max(id) + 1 FROM attack_cell), 1000000, (SELECT min(id) FROM armor_column), "
                                   "'x', 'miss', 0)") == "23503"
        # by COPY too, as an import writes them
        with pytest.raises(psycopg.Error) as caught:
            with connection.cursor().copy("COPY attack_cell (id, row_id, armor_column_id, text, outcome, hits) FROM STDIN") as copy:
                copy.write_row((cells * 10, 1000000, 1, "x", "miss", 0))
            connection.commit()
        connection.rollback()
        assert caught.value.sqlstate == "23503"
        # a critical table that only cells still use: refused at the commit, unless they are re-pointed first
        table = connection.execute("SELECT min(critical_table_id) FROM attack_cell").fetchone()[0]
        other = connection.execute("SELECT max(id) FROM critical_table WHERE id <> %s", (table,)).fetchone()[0]
        repoint = [("UPDATE weapon SET critical_table_id = %s WHERE critical_table_id = %s", (other, table)),
                   ("UPDATE weapon SET secondary_critical_table_id = NULL WHERE secondary_critical_table_id = %s", (table,)),
                   ("DELETE FROM attack_cell_critical WHERE critical_table_id = %s", (table,))]
        for statement, params in repoint:
            connection.execute(statement, params)
        connection.execute("DELETE FROM critical_table WHERE id = %s", (table,))
        with pytest.raises(psycopg.errors.ForeignKeyViolation):
            connection.commit()
        for statement, params in repoint:
            connection.execute(statement, params)
        connection.execute("DELETE FROM critical_table WHERE id = %s", (table,))  # deferred: the cells re-pointed after it
        connection.execute("UPDATE attack_cell SET critical_table_id = %s WHERE critical_table_id = %s", (other, table))
        connection.commit()
        # a row deleted takes its cells with it; a row table emptied alone is refused
        row = connection.execute("SELECT min(row_id) FROM attack_cell").fetchone()[0]
        connection.execute("DELETE FROM attack_row WHERE id = %s", (row,))
        assert connection.execute("SELECT count(*) FROM attack_cell WHERE row_id = %s", (row,)).fetchone() == (0,)
        connection.commit()
        assert refused(connection, "TRUNCATE attack_row CASCADE") == "0A000"
        assert connection.execute(translated(cell_keys.DANGLING)[0], (1,)).fetchall() == []


def test_db_check_finds_a_cell_pointing_at_nothing_once_its_trigger_is_switched_off(pg_url):
    assert ok_json("db", "check", db=pg_url)["ok"]
    with psycopg.connect(pg_url) as connection:
        cell, row = connection.execute("SELECT id, row_id FROM attack_cell ORDER BY id LIMIT 1").fetchone()
        connection.execute("ALTER TABLE attack_cell DISABLE TRIGGER tables_attack_cells_updated")
        connection.execute("UPDATE attack_cell SET row_id = 1000000 WHERE id = %s", (cell,))
    result = tables("db", "check", "--json", db=pg_url)
    assert result.exit_code == 1
    assert json.loads(result.stdout)["problems"] == [
        "trigger tables_attack_cells_updated of table attack_cell is missing or switched off (by hand?): run: tables db upgrade",
        f"attack_cell row {cell} refers to a row that does not exist",
    ]
    assert tables("db", "upgrade", db=pg_url).exit_code != 0  # the triggers would check new writes only: refused
    with psycopg.connect(pg_url) as connection:
        connection.execute("UPDATE attack_cell SET row_id = %s WHERE id = %s", (row, cell))
    assert tables("db", "upgrade", db=pg_url).exit_code == 0
    assert ok_json("db", "check", db=pg_url)["ok"]
    with psycopg.connect(pg_url) as connection:
        assert refused(connection, "UPDATE attack_cell SET row_id = 1000000 WHERE id = %s", cell) == "23503"


def test_db_upgrade_puts_the_triggers_in_place_of_the_cells_foreign_keys_and_back(pg_url):
    def held() -> tuple[set[str], int]:
        with psycopg.connect(pg_url) as connection:
            keys = {name for (name,) in connection.execute(cell_keys.HELD_KEYS)} & set(cell_keys.FOREIGN_KEYS)
            return keys, len(connection.execute(cell_keys.HELD_TRIGGERS).fetchall())

    assert held() == (set(), len(cell_keys.TRIGGERS))
    with psycopg.connect(pg_url) as connection:  # a database made before them: the foreign keys themselves
        for statement in cell_keys.uninstall_statements(set()):
            connection.execute(statement)
    assert held() == (set(cell_keys.FOREIGN_KEYS), 0)
    assert ok_json("db", "check", db=pg_url)["ok"]
    assert tables("db", "upgrade", db=pg_url).exit_code == 0
    assert held() == (set(), len(cell_keys.TRIGGERS))
    assert ok_json("db", "check", db=pg_url)["ok"]


def test_a_row_whose_cells_are_being_written_is_deleted_only_after_their_commit_and_with_them(pg_url):
    """The cells' trigger locks the rows they point at (FOR KEY SHARE, as a
    foreign key does): a concurrent delete waits for the commit, then takes
    the committed cells with it; no cell is ever left pointing at nothing."""
    with psycopg.connect(pg_url) as writer, psycopg.connect(pg_url) as deleter:
        row = writer.execute("INSERT INTO attack_row (id, attack_table_id, position, low, high, label, unmodified, clumsy) "
                             "SELECT max(id) + 1, min(attack_table_id), 10000, 500, 600, '500-600', false, false "
                             "FROM attack_row RETURNING id").fetchone()[0]
        writer.commit()
        writer.execute("INSERT INTO attack_cell (id, row_id, armor_column_id, text, outcome, hits) "
                       "SELECT (SELECT max(id) + 1 FROM attack_cell), %s, min(id), '3', 'hit', 3 FROM armor_column "
                       "WHERE attack_table_id = (SELECT attack_table_id FROM attack_row WHERE id = %s)", (row, row))
        deleter.execute("SET lock_timeout = 300")
        assert refused(deleter, "DELETE FROM attack_row WHERE id = %s", row) == "55P03"  # waits for the writer
        writer.commit()
        deleter.execute("DELETE FROM attack_row WHERE id = %s", (row,))
        deleter.commit()
        assert deleter.execute("SELECT count(*) FROM attack_cell WHERE row_id = %s", (row,)).fetchone() == (0,)
        assert deleter.execute(translated(cell_keys.DANGLING)[0], (1,)).fetchall() == []
