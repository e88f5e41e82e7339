"""The database of a long-running server (`tables serve`): what the HTTP
layer calls instead of reaching into storage/.

A server opens its database once, when it starts (checked, and migrated if
behind: a bad path fails then, not at the first request), then gives each
thread a Database of its own (a sqlite3 connection stays in the thread
that made it), made on first use and kept; they share one cache of
compiled tables (storage/compiled.py). Each answer is one read
transaction (``read_transaction``), so the several reads of one answer see the
same tables; the health check reads the schema version (``schema``).
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import AbstractContextManager
from pathlib import Path

from tables_app.services.database_setup import open_database
from tables_app.storage.connection import schema_version
from tables_app.storage.database import Database

__all__ = ["Database", "PerThreadDatabases", "read_transaction", "schema"]  # Database: what get hands a request (the HTTP face names it here)


class PerThreadDatabases:
    """The server's database, one Database per thread, all sharing one cache of compiled tables."""

    def __init__(self, location: str | Path):
        opened = open_database(str(location))  # checked and migrated now; --db and $TABLES_DB as for any command
        self.url, self.path = opened.url, opened.path
        opened.dispose()
        self._local = threading.local()
        from tables_app.storage import compiled  # read when made: a test counts the caches made

        self.compiled = compiled.CompiledTables()

    def get(self) -> Database:
        """This thread's Database (made on its first request)."""
        database: Database | None = getattr(self._local, "database", None)
        if database is None:
            database = self._local.database = Database(self.url, self.path)
            database.compiled = self.compiled
        return database


def group_of_token(databases: PerThreadDatabases, token: str) -> int | None:
    """The id of the group whose token ``token`` is (None: no group's, or revoked): services/groups.of_token."""
    from tables_app.services.groups import of_token

    found = of_token(databases.get(), token)
    return None if found is None else found.id


def read_transaction(database: Database) -> AbstractContextManager[sqlite3.Connection]:
    """One read transaction around a whole answer (Database.snapshot): every
    read inside sees the same tables, never half of another process's import."""
    return database.snapshot()


def schema(database: Database) -> str | None:
    """The schema version the database records (the health check's), read in
    a transaction of its own; a TablesError when the file cannot be read."""
    with database.snapshot() as connection:
        return schema_version(connection)
