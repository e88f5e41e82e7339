"""The database file with the standard library's sqlite3 only.

Everyday commands (query, show, resolve, odds) read through here and never
import SQLAlchemy or Alembic: the schema version is one SELECT, and the
compiled tables are read with plain SQL (reader.py).
"""

from __future__ import annotations

import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

# The newest migration in migrations/versions; tests check it against Alembic.
SCHEMA_HEAD = "0005"
BUSY_TIMEOUT_MS = 10_000


def connect(path: Path) -> sqlite3.Connection:
    """A connection in manual transaction mode with foreign keys and a busy timeout.

    ``mode=rw``: reading never creates a file (plain sqlite3.connect would
    leave an empty one behind a mistyped path).
    """
    uri = f"{path.absolute().as_uri()}?mode=rw"
    connection = sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    return connection


@contextmanager
def write_transaction(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection of its own holding the write lock, rolled back unless the
    caller commits (``connection.execute("COMMIT")``).

    BEGIN IMMEDIATE takes the lock up front, so a busy database waits on the
    busy timeout here rather than failing half way. Foreign keys are checked
    at the commit: one workbook may drop a table that another one in the same
    import stops using.
    """
    connection = connect(path)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("PRAGMA defer_foreign_keys = ON")
        yield connection
    finally:
        try:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
        finally:
            connection.close()


def busy_message(error: Exception) -> str:
    """A locked or busy database, said plainly; any other SQLite failure as it is."""
    text = str(error)
    if "locked" in text or "busy" in text:
        return f"the database is locked by another process (waited {BUSY_TIMEOUT_MS / 1000:g} s); nothing was changed, try again"
    return f"the database failed: {text}"


def schema_version(connection: sqlite3.Connection) -> str | None:
    """The Alembic revision recorded in the database; None if it has none."""
    found = connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'").fetchone()
    if not found:
        return None
    row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    return row[0] if row else None


def has_tables(connection: sqlite3.Connection) -> bool:
    return connection.execute("SELECT count(*) FROM sqlite_master WHERE type = 'table'").fetchone()[0] > 0
