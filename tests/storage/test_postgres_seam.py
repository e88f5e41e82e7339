"""The PostgreSQL seam's contract (storage/postgres.py, its docstring), one
test a clause: statements as written (a literal % too), which error class a
caller sees for each failure, an aborted transaction rolled back on the kept
writer, the write lock's key taken by writers and migrations alike, views
not counted as tables, and a NUL in a name finding nothing.

Run against the server of $TABLES_TEST_POSTGRES, each test on databases of
its own (tests/storage/test_postgres.py says how); skipped without one.
"""

from __future__ import annotations

import sqlite3
import threading
import time

import psycopg
import pytest
from click.testing import CliRunner

from tables_app.cli.root import cli
from tables_app.errors import DatabaseError, DatabaseFault
from tables_app.services.database_setup import open_database
from tables_app.storage import fights
from tables_app.storage.connection import ADVISORY_LOCK, connect, has_tables, schema_version, write_transaction
from tables_app.storage.location import Server
from tables_app.storage.postgres import PgDataError, PgIntegrityError, PgOperationalError, PgProgrammingError


@pytest.fixture
def server_connection(pg_url):  # type: ignore[no-untyped-def]
    connection = connect(Server(pg_url))
    yield connection
    connection.close()


# ------------------------------------------------------------------ statements as written
def test_a_literal_percent_sign_reads_as_written_with_or_without_parameters(server_connection):
    """psycopg reads % only in a statement sent with parameters: the seam doubles it there, and only there."""
    assert server_connection.execute("SELECT '50%'").fetchone()[0] == "50%"
    assert server_connection.execute("SELECT 7 % 3").fetchone()[0] == 1
    assert server_connection.execute("SELECT '50%', ?", ("x",)).fetchone() == ("50%", "x")
    assert server_connection.execute("SELECT 7 % ?", (4,)).fetchone()[0] == 3
    assert server_connection.execute("SELECT ? || '%(name)s %s'", ("%",)).fetchone()[0] == "%%(name)s %s"


# ------------------------------------------------------------------ error classes
def test_a_unique_violation_is_an_integrity_error_and_a_writes_database_error(pg_url, server_connection):
    with pytest.raises(sqlite3.IntegrityError) as raised:
        server_connection.execute("INSERT INTO generation (id, number) VALUES (1, 0)")
    assert isinstance(raised.value, PgIntegrityError) and raised.value.sqlstate == "23505"
    database = open_database(pg_url)
    try:
        with pytest.raises(DatabaseError, match=r"^a test: duplicate key value violates unique constraint") as said, \
                database.writing(commit=True, breaking="a test") as connection:
            connection.execute("INSERT INTO generation (id, number) VALUES (1, 0)")
        assert not isinstance(said.value, DatabaseFault)  # the change broke a rule; the database is not at fault
    finally:
        database.dispose()


def test_a_lock_wait_past_the_timeout_is_an_operational_error_and_a_writes_busy_fault(pg_url, monkeypatch):
    from tables_app.storage import connection as settings

    monkeypatch.setattr(settings, "BUSY_TIMEOUT_MS", 300)
    holder = psycopg.connect(pg_url, autocommit=True)
    holder.execute("BEGIN")
    holder.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK,))
    waiting = connect(Server(pg_url))
    try:
        waiting.execute("BEGIN")
        with pytest.raises(sqlite3.OperationalError) as raised:
            waiting.execute("SELECT pg_advisory_xact_lock(?)", (ADVISORY_LOCK,))
        assert isinstance(raised.value, PgOperationalError) and raised.value.sqlstate == "55P03"
        waiting.rollback()
        with pytest.raises(DatabaseFault, match="busy with another writer.*nothing was changed, try again"), \
                write_transaction(Server(pg_url)):
            pass
    finally:
        waiting.close()
        holder.close()


def test_a_lost_connection_is_an_operational_error_then_broken_and_a_writes_fault(pg_url, postgres_server):
    connection = connect(Server(pg_url))
    pid = connection.execute("SELECT pg_backend_pid()").fetchone()[0]
    with psycopg.connect(postgres_server, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    with pytest.raises(sqlite3.OperationalError) as raised:
        connection.execute("SELECT 1")
    assert isinstance(raised.value, PgOperationalError)
    assert connection.broken and not connection.in_transaction  # the server rolled back whatever was open
    connection.close()
    database = open_database(pg_url)
    try:
        with database.writing(commit=True, breaking="a test") as writer:
            pid = writer.execute("SELECT pg_backend_pid()").fetchone()[0]
        with psycopg.connect(postgres_server, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        with pytest.raises(DatabaseFault, match="the connection was lost"), \
                database.writing(commit=True, breaking="a test") as writer:
            fights.create(writer, "Lost", None, 0)
        with database.writing(commit=True, breaking="a test") as writer:  # a new writer, and the write made
            fights.create(writer, "Found", None, 0)
        with database.snapshot() as reader:
            assert fights.names(reader, 0) == ["Found"]
    finally:
        database.dispose()


def test_a_mistake_in_the_sql_is_a_programming_error_and_stays_a_bug(pg_url, server_connection):
    with pytest.raises(sqlite3.ProgrammingError) as raised:
        server_connection.execute("SELECT no_such_column FROM fight")
    assert isinstance(raised.value, PgProgrammingError) and raised.value.sqlstate == "42703"
    database = open_database(pg_url)
    try:
        with pytest.raises(sqlite3.ProgrammingError), database.writing(commit=True, breaking="a test") as connection:
            connection.execute("SELECT no_such_column FROM fight")  # not a DatabaseError: a bug keeps its traceback
    finally:
        database.dispose()


# ------------------------------------------------------------------ an aborted transaction
def test_a_kept_writer_whose_statement_failed_writes_again(pg_url):
    """A statement that fails inside a write leaves PostgreSQL's transaction aborted (INERROR): every later
    statement of it fails. The kept writer rolls it back, or every later write of the server would fail."""
    database = open_database(pg_url)
    try:
        for failing in ("INSERT INTO generation (id, number) VALUES (1, 0)", "SELECT no_such_column FROM fight"):
            with pytest.raises((DatabaseError, sqlite3.ProgrammingError)), \
                    database.writing(commit=True, breaking="a test") as connection:
                connection.execute(failing)
            with database.writing(commit=True, breaking="a test") as connection:
                fights.create(connection, f"After {failing.split()[0]}", None, 0)
        with database.snapshot() as connection:
            assert fights.names(connection, 0) == ["After INSERT", "After SELECT"]
    finally:
        database.dispose()


def test_an_aborted_transaction_is_still_one_to_roll_back(server_connection):
    server_connection.execute("BEGIN")
    with pytest.raises(sqlite3.IntegrityError):
        server_connection.execute("INSERT INTO generation (id, number) VALUES (1, 0)")
    assert server_connection.in_transaction  # INERROR: open, and failing, until rolled back
    with pytest.raises(sqlite3.DatabaseError, match="current transaction is aborted"):
        server_connection.execute("SELECT 1")
    server_connection.rollback()
    assert not server_connection.in_transaction
    assert server_connection.execute("SELECT 1").fetchone() == (1,)


# ------------------------------------------------------------------ the write lock's key
def advisory_waits(url: str, key: int) -> int:
    """How many sessions wait for the advisory lock ``key`` (a bigint key: classid its high half, objid its low)."""
    with psycopg.connect(url, autocommit=True) as look:
        return look.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted "
                            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
                            "AND classid = %s AND objid = %s AND objsubid = 1",
                            (key >> 32, key & 0xFFFFFFFF)).fetchone()[0]


def test_the_write_lock_is_one_advisory_lock_of_a_fixed_key():
    assert ADVISORY_LOCK == int.from_bytes(b"tabl", "big")  # changing it lets old and new writers write at once


@pytest.mark.parametrize("who", ["writer", "migration"])
def test_writers_and_migrations_take_the_same_lock(who, pg_url, new_postgres):
    """Held by another session, the key makes a writer (take_write_lock) and a migration (migrations/env.py)
    wait for it, and go on once it is let go."""
    from tables_app.services.database_setup import init_database

    url = pg_url if who == "writer" else new_postgres()
    holder = psycopg.connect(url, autocommit=True)
    holder.execute("BEGIN")
    holder.execute("SELECT pg_advisory_xact_lock(%s)", (ADVISORY_LOCK,))
    done: list[str] = []

    def work() -> None:
        if who == "writer":
            with write_transaction(Server(url)) as connection:
                connection.execute("COMMIT")
        else:
            init_database(url).dispose()
        done.append(who)

    worker = threading.Thread(target=work)
    worker.start()
    try:
        deadline = time.monotonic() + 20
        while advisory_waits(url, ADVISORY_LOCK) == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert advisory_waits(url, ADVISORY_LOCK) == 1 and not done  # waiting on the key, nothing done
    finally:
        holder.execute("COMMIT")
        holder.close()
        worker.join(60)
    assert done == [who]


# ------------------------------------------------------------------ views are not tables
def test_a_database_holding_only_a_view_is_an_empty_one(new_postgres):
    """As SQLite (sqlite_master's 'view' is no 'table'): db init makes it a tables_app database, the view kept."""
    url = new_postgres()
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE VIEW alembic_version AS SELECT '0001'::text AS version_num")
        connection.execute("CREATE VIEW lonely AS SELECT 1 AS one")
    on_server = connect(Server(url))
    try:
        assert not has_tables(on_server) and schema_version(on_server) is None
    finally:
        on_server.close()
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DROP VIEW alembic_version")  # a view named as the schema's table would block it
    runner = CliRunner()
    made = runner.invoke(cli, ["db", "init", url])
    assert made.exit_code == 0, made.output
    checked = runner.invoke(cli, ["--db", url, "db", "check"])
    assert checked.exit_code == 0 and "no problems found" in checked.output, checked.output
    with psycopg.connect(url) as connection:
        assert connection.execute("SELECT one FROM lonely").fetchone() == (1,)


# ------------------------------------------------------------------ NUL
def test_a_nul_in_a_reads_text_finds_nothing_and_a_write_is_refused(server_connection):
    """PostgreSQL's text cannot hold NUL; no name holds one on SQLite either: a look-up finds nothing."""
    count = "SELECT count(*) FROM weapon WHERE name = ? COLLATE \"NOCASE\""
    assert server_connection.execute(count, ("Longsword",)).fetchone()[0] >= 1
    assert server_connection.execute(count, ("Long\x00sword",)).fetchone()[0] == 0
    assert server_connection.execute(count, ("Longsword\x00",)).fetchone()[0] == 0  # not as ICU's ignorable U+0001
    assert server_connection.execute("SELECT count(*) FROM weapon WHERE name = :name", {"name": "\x00"}).fetchone()[0] == 0
    with pytest.raises(sqlite3.DataError) as raised:
        server_connection.execute("INSERT INTO fight (name) VALUES (?)", ("A\x00B",))
    assert isinstance(raised.value, PgDataError)
    with pytest.raises(sqlite3.DataError):
        server_connection.executemany("UPDATE fight SET name = ? WHERE id = ?", [("A\x00B", 1)])
    with pytest.raises(sqlite3.DataError):  # a WITH that writes is a write
        server_connection.execute("WITH made AS (INSERT INTO fight (name) VALUES (?) RETURNING id) SELECT id FROM made",
                                  ("A\x00B",))
    assert server_connection.execute("SELECT count(*) FROM fight").fetchone()[0] == 0


def test_no_read_of_storage_asks_whether_a_parameter_is_null():
    """A NUL-holding text is sent as NULL (postgres.py, "NUL in text"): right for = and LIKE, which then find
    nothing, wrong for a statement that asks whether a parameter is NULL. None of storage's does."""
    import re

    from storage.test_sql import storage_statements

    asks = re.compile(r"(\?\d*|(?<![:\w]):\w+)\s+IS\s+(NOT\s+)?(NULL|DISTINCT)|(COALESCE|IFNULL|NULLIF)\s*\([^)]*(\?|(?<![:\w]):\w)",
                      re.IGNORECASE)
    assert [statement for statement in storage_statements() if asks.search(statement)] == []


def test_several_statements_sent_as_one_go_in_one_round_trip_each_ones_rows_in_turn(server_connection, pg_url):
    from tables_app.storage.locking import begin_read_version

    cursor = server_connection.execute("SELECT 1; SELECT 2, 3")
    assert cursor.fetchone() == (1,)
    assert cursor.nextset() and cursor.fetchone() == (2, 3)
    assert not cursor.nextset()
    # a read transaction and its version: the snapshot is the SELECT's, held to the COMMIT
    with psycopg.connect(pg_url, autocommit=True) as other:
        number = begin_read_version(server_connection)
        assert server_connection.in_transaction
        other.execute("UPDATE generation SET number = number + 1 WHERE id = 1")
        assert server_connection.execute("SELECT number FROM generation WHERE id = 1").fetchone() == (number,)
        server_connection.execute("COMMIT")
        assert begin_read_version(server_connection) == number + 1
        server_connection.execute("COMMIT")
