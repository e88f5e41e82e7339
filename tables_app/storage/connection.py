"""Connections: a SQLite file with the standard library's sqlite3, a
PostgreSQL database with psycopg behind the same face (postgres.py).

Everyday commands (query, show, resolve, odds) read through here and never
import SQLAlchemy or Alembic: the schema version is one SELECT, and the
compiled tables are read with plain SQL (reader.py). What the two databases
do each their own way is here and in locking.py, asked by name (begin_read,
defer_foreign_keys, on_server), never written twice in the callers.
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, cast

from tables_app.errors import DatabaseFault, TablesError
from tables_app.storage.dialect import on_server
from tables_app.storage.faults import BUSY_TIMEOUT_MS, CHECK, SCHEMA_HEAD, UNCHANGED, broken_references, fault_problem
from tables_app.storage.location import Server, Target

__all__ = ["BUSY_TIMEOUT_MS", "SCHEMA_HEAD", "connect", "write_transaction"]  # SCHEMA_HEAD's old home: callers read it here


def connect(path: Target) -> sqlite3.Connection:
    """A connection in manual transaction mode with foreign keys and a busy timeout.

    ``mode=rw``: reading never creates a file (plain sqlite3.connect would
    leave an empty one behind a mistyped path). A Server: a PostgreSQL
    connection with the same face (postgres.PgConnection), in autocommit
    mode, transactions said as statements as on SQLite.
    """
    if isinstance(path, Server):
        from tables_app.storage import postgres  # psycopg: only for a server's database

        server = cast(sqlite3.Connection, postgres.connect(path.url, str(path), BUSY_TIMEOUT_MS / 1000))
        try:
            set_busy_timeout(server, BUSY_TIMEOUT_MS)
        except BaseException:
            server.close()
            raise
        return server
    uri = f"{path.absolute().as_uri()}?mode=rw"
    connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    connection.execute("PRAGMA foreign_keys = ON")
    set_busy_timeout(connection, BUSY_TIMEOUT_MS)
    return connection


def _target(path: Target | str) -> Target:
    return path if isinstance(path, (Path, Server)) else Path(path)


def set_busy_timeout(connection: sqlite3.Connection, milliseconds: int) -> None:
    """How long a statement waits for another process's lock. (A pragma takes
    no parameters: this number, made one by int(), is the only value ever
    written into SQL text.) PostgreSQL's lock_timeout, set the same way."""
    if on_server(connection):
        connection.execute(f"SET lock_timeout = {int(milliseconds)}")
        return
    connection.execute(f"PRAGMA busy_timeout = {int(milliseconds)}")


ADVISORY_LOCK = 0x7461626C  # PostgreSQL's write lock: a number of our own ('tabl' in ASCII)


def take_write_lock(connection: sqlite3.Connection) -> None:
    """Begin a write transaction holding the write lock, waiting up to the
    busy timeout: SQLite's BEGIN IMMEDIATE; on PostgreSQL one advisory lock,
    held to the end of the transaction, that every tables_app writer of the
    database takes (a wait past lock_timeout is SQLSTATE 55P03, "busy": faults.py)."""
    if not on_server(connection):
        connection.execute("BEGIN IMMEDIATE")
        return
    connection.execute("BEGIN")
    connection.execute("SELECT pg_advisory_xact_lock(?)", (ADVISORY_LOCK,)).fetchone()


READ_SNAPSHOT_ON_SERVER = "BEGIN ISOLATION LEVEL REPEATABLE READ"


def begin_read(connection: sqlite3.Connection) -> None:
    """A read transaction: every statement in it sees one snapshot. SQLite's
    WAL gives that to a plain BEGIN; PostgreSQL's default (read committed)
    takes a snapshot per statement, so it is asked for repeatable read."""
    connection.execute(READ_SNAPSHOT_ON_SERVER if on_server(connection) else "BEGIN")


def defer_foreign_keys(connection: sqlite3.Connection) -> None:
    """Foreign keys checked at the commit, not statement by statement (an
    import may drop a table that a later workbook of it stops using). On
    PostgreSQL the migrations make every foreign key deferrable (env.py)."""
    connection.execute("SET CONSTRAINTS ALL DEFERRED" if on_server(connection) else "PRAGMA defer_foreign_keys = ON")


@contextmanager
def write_transaction(path: Target, kept: sqlite3.Connection | None = None) -> Iterator[sqlite3.Connection]:
    """A connection of its own holding the write lock, rolled back unless
    committed inside (transactions.writing commits it). ``kept``: a
    connection the caller keeps open between writes (a server's database,
    Database.writing: connecting to PostgreSQL costs more than most writes),
    used and left open.

    BEGIN IMMEDIATE takes the lock up front, so a busy database waits on the
    busy timeout here rather than failing half way. Foreign keys are checked
    at the commit: one workbook may drop a table that another one in the same
    import stops using.
    """
    try:
        connection = kept if kept is not None else connect(path)
    except sqlite3.Error as exc:
        raise fault_or_bug(path, exc) from None
    try:
        try:
            take_write_lock(connection)
            defer_foreign_keys(connection)
            broken = broken_references(connection, limit=1)
            if broken:  # found before any change: the database was broken already, not by this change
                raise DatabaseFault(path, f"{broken[0]}; nothing was changed; run: tables db check")
            yield connection
        except (sqlite3.IntegrityError, TablesError):
            raise  # what the caller was changing broke a rule, or a refusal: the caller says what
        except Exception as exc:
            if connection.in_transaction:
                connection.execute("ROLLBACK")  # judge the database as it was, not half changed
            raise judged(connection, path, exc) from None
    finally:
        try:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
        finally:
            if kept is None:
                connection.close()


def busy_message(error: Exception, path: Target | str | None = None) -> str:
    """A locked, busy, full or damaged database, said plainly (fault_problem),
    after ``path`` when given; any other SQLite failure as it is."""
    problem = fault_problem(error) or f"the database failed: {error}"
    return f"{path}: {problem}" if path is not None else problem


def integrity_failure(path: Target | str, error: sqlite3.IntegrityError, saying: str) -> Exception:
    """A rule broken at the commit of a change on a connection of the
    caller's (rolled back): by the database as it already was (rows that
    refer to rows that do not exist, left by hand), a DatabaseFault naming
    the file; else by the change, ``saying: error``."""
    from tables_app.errors import DatabaseError

    try:
        connection = connect(_target(path))
        try:
            broken = broken_references(connection, limit=1)
        finally:
            connection.close()
    except sqlite3.Error:
        broken = []
    if broken:
        return DatabaseFault(path, f"{broken[0]}; {UNCHANGED}; {CHECK}")
    return DatabaseError(f"{saying}: {error}")


def fault_or_bug(path: Target | str, error: BaseException) -> BaseException:
    """What to raise for ``error`` met on the database at ``path`` (judged, on a connection of its own)."""
    return judged(None, path, error)


def judged(connection: sqlite3.Connection | None, path: Target | str, error: BaseException) -> BaseException:
    """What to raise for ``error`` met on ``connection`` (None: one is opened
    to look): a fault of the file (fault_problem), else what a quick check of
    the database finds wrong in it (a missing table or column, text in a
    number column, a reference to nothing: storage/check.py), else ``error``
    itself: a bug, with its traceback."""
    problem = fault_problem(error)
    if problem:
        return DatabaseFault(path, problem)
    from tables_app.storage.check import diagnose

    if connection is not None:
        return diagnose(connection, path) or error
    try:
        connection = connect(_target(path))
    except sqlite3.Error:
        return error
    try:
        return diagnose(connection, path) or error
    finally:
        connection.close()


def check_file(path: Target) -> list[str]:
    """``tables db check``: every finding of storage/check.py in the database
    file at ``path``, read only (``query_only``); a file SQLite cannot read
    is a finding, one it cannot open a DatabaseFault."""
    from tables_app.storage.check import problems

    try:
        connection = connect(path)
    except sqlite3.Error as exc:
        raise DatabaseFault(path, fault_problem(exc) or f"cannot open the database ({exc})") from None
    try:
        connection.execute("SET default_transaction_read_only = on" if on_server(connection) else "PRAGMA query_only = ON")
        return problems(connection)
    except sqlite3.DatabaseError as exc:
        return [fault_problem(exc) or f"cannot be checked: {exc}"]
    finally:
        connection.close()


def database_file(connection: sqlite3.Connection) -> str:
    """The file a connection is on (for messages); a server's database as its URL shows it."""
    if on_server(connection):
        return str(cast(Any, connection).shown)
    return connection.execute("PRAGMA database_list").fetchone()[2]


# The tables of the database (the schema's and any other), by name; a view is
# no table (SQLite's sqlite_master says 'view'; PostgreSQL's information_schema
# lists views among its tables, as table_type 'VIEW')
_TABLE_NAMED = {False: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                True: "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() "
                      "AND table_type = 'BASE TABLE' AND table_name = ?"}
_TABLE_COUNT = {False: "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
                True: "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() "
                      "AND table_type = 'BASE TABLE'"}



def schema_version(connection: sqlite3.Connection) -> str | None:
    """The Alembic revision recorded in the database; None if it has none.

    More than one recorded revision (a second ``alembic_version`` row) is a
    DatabaseFault: which schema the tables have is not known."""
    found = connection.execute(_TABLE_NAMED[on_server(connection)], ("alembic_version",)).fetchone()
    if not found:
        return None
    rows = connection.execute("SELECT version_num FROM alembic_version").fetchmany(10)
    if len(rows) > 1:
        versions = ", ".join(str(row[0]) for row in rows)
        raise DatabaseFault(database_file(connection), f"the database records {len(rows)} schema versions ({versions}) where it has one "
                                                       f"(alembic_version changed by hand?); {UNCHANGED}; {CHECK}")
    return rows[0][0] if rows else None


def has_tables(connection: sqlite3.Connection) -> bool:
    """Whether the database holds any table (a view alone is none: `db init` makes it a tables_app database)."""
    return connection.execute(_TABLE_COUNT[on_server(connection)]).fetchone()[0] > 0
