"""What can be wrong with a database file, said plainly: the words for a
fault SQLite reports (fault_problem), rows that refer to nothing
(broken_references), and the constants the messages share. Imported by
connection.py and check.py alike, importing neither (only sql.py).
"""

from __future__ import annotations

import sqlite3

from tables_app.storage.sql import quoted

# The newest migration in migrations/versions; tests check it against Alembic.
SCHEMA_HEAD = "0007"
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


def any_broken_reference(connection: sqlite3.Connection) -> bool:
    """Whether any row's foreign key points at nothing (the first finding of ``PRAGMA foreign_key_check`` is enough)."""
    return connection.execute("PRAGMA foreign_key_check").fetchone() is not None


def broken_references(connection: sqlite3.Connection, limit: int | None = None) -> list[str]:
    """Rows whose foreign keys point at nothing (``PRAGMA foreign_key_check``), one sentence each."""
    found: list[str] = []
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
