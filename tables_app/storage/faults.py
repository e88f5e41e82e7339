"""What can be wrong with a database file, said plainly: the words for a
fault SQLite reports (fault_problem), rows that refer to nothing
(broken_references), and the constants the messages share. Imported by
connection.py and check.py alike, importing neither (only sql.py).
"""

from __future__ import annotations

import sqlite3

from tables_app.storage.dialect import on_server
from tables_app.storage.sql import quoted

# The newest migration in migrations/versions; tests check it against Alembic.
SCHEMA_HEAD = "0014"
BUSY_TIMEOUT_MS = 10_000


CHECK = "run: tables db check"
UNCHANGED = "nothing was changed"


def fault_problem(error: BaseException) -> str | None:
    """What is wrong with the database file and what to do, for an error
    SQLite raised about the file (damaged, not a database, full, read-only,
    locked, tables missing); None for anything else: a mistake in our own SQL
    is a bug and keeps its traceback.

    By SQLite's error code where the exception has one, else by its message
    (the message alone when a test raises one by hand).
    """
    text = str(error)
    said = text.lower()
    if hasattr(error, "sqlstate"):  # PostgreSQL's (postgres.PgError)
        return server_problem(error.sqlstate, text)
    code = getattr(error, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None

    def met(number: int, *words: str) -> bool:
        return primary == number or any(word in said for word in words)

    if met(5, "database is locked", "database is busy") or met(6, "database table is locked"):
        return f"the database is locked by another process (waited {BUSY_TIMEOUT_MS / 1000:g} s); {UNCHANGED}, try again"
    if met(11, "malformed", "database corrupt"):
        return f"the database file is damaged ({text}); {UNCHANGED}; {CHECK}"
    if met(26, "file is not a database"):
        return f"not a database ({text}): a wrong path or a damaged file; {UNCHANGED}; {CHECK}"
    if met(13, "database or disk is full"):
        return f"the disk is full ({text}); {UNCHANGED}; free some space and try again"
    if met(10, "disk i/o error"):
        return (f"reading or writing the file failed ({text}: a full disk, a file size limit or a failing disk); "
                f"{UNCHANGED}; free some space or check the disk, then try again")
    if met(8, "readonly database", "read-only"):
        return f"the database is read-only ({text}); {UNCHANGED}; make the file and its directory writable"
    if met(14, "unable to open database file") or met(3) or met(23):
        return f"cannot open the database file ({text}); check that you may read and write the file and its directory"
    return None


RETRY = "try again"
SERVER = "check that the server is running and that the URL's host and port are its own"


def server_problem(sqlstate: str | None, text: str) -> str | None:
    """What is wrong and what to do, for an error PostgreSQL (or libpq, on
    connecting: no SQLSTATE then, the message says) reported; None for a
    mistake in our own SQL (a bug), or a table or column missing (check.py
    looks: the schema changed by hand)."""
    said = text.lower()
    state = sqlstate or ""
    if state in ("28P01", "28000") or "password authentication failed" in said or "no password supplied" in said:
        return (f"the server refused the user or password ({text}); {UNCHANGED}; check the URL's user and password "
                "(or ~/.pgpass, $PGPASSWORD)")
    if state == "3D000" or ("database" in said and "does not exist" in said):
        return (f"the server has no such database ({text}); {UNCHANGED}; create it (createdb NAME), "
                "then make it a tables_app database: tables db init URL")
    if state in ("53100",) or "no space left" in said or "disk quota" in said:
        return f"the server's disk is full ({text}); {UNCHANGED}; free some space on the server and try again"
    if state == "55P03" or state in ("40001", "40P01"):
        return f"the database is busy with another writer ({text}); {UNCHANGED}, {RETRY}"
    if state == "25006":
        return f"the database is read-only ({text}); {UNCHANGED}; connect to the primary server, not a standby"
    if state == "42501":
        return f"the database user may not do this ({text}); {UNCHANGED}; grant it the rights on the database's tables"
    if state in ("53300", "53200", "57P03"):
        return f"the server cannot take this now ({text}); {UNCHANGED}, {RETRY} later"
    if state.startswith("08") or state in ("57P01", "57P02") or "server closed the connection" in said \
            or "connection failed" in said or "consuming input failed" in said or "the connection is closed" in said \
            or "connection refused" in said or "could not connect" in said or "timeout expired" in said:
        return (f"cannot reach the database server, or the connection was lost ({text}); {UNCHANGED} "
                f"(a transaction the server did not see committed is rolled back); {SERVER}, then {RETRY}")
    return None


def any_broken_reference(connection: sqlite3.Connection) -> bool:
    """Whether any row's foreign key points at nothing (the first finding of
    ``PRAGMA foreign_key_check`` is enough). PostgreSQL enforces every
    foreign key itself (at the latest at the commit): never."""
    if on_server(connection):
        return False
    return connection.execute("PRAGMA foreign_key_check").fetchone() is not None


def broken_references(connection: sqlite3.Connection, limit: int | None = None) -> list[str]:
    """Rows whose foreign keys point at nothing (``PRAGMA foreign_key_check``), one sentence each."""
    found: list[str] = []
    if on_server(connection):
        return found  # PostgreSQL refuses them (a constraint switched off by hand is check.py's finding)
    for table, rowid, parent, key in connection.execute("PRAGMA foreign_key_check"):
        if limit is not None and len(found) >= limit:
            break
        columns = [row[0] for row in connection.execute('SELECT "from" FROM pragma_foreign_key_list(?) WHERE id = ?', (table, key))]
        # the names are the database's own (a user's table may have any), quoted
        statement = "SELECT {columns} FROM {table} WHERE rowid = ?".format(
            columns=", ".join(map(quoted, columns)) or "NULL", table=quoted(table))
        value = connection.execute(statement, (rowid,)).fetchone()
        shown = ", ".join(f"{column} {value[i]!r}" for i, column in enumerate(columns)) if value else "?"
        found.append(f"{table} row {rowid} refers to a {parent} row that does not exist ({shown})")
    return found
