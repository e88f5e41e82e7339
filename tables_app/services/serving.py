"""A database shared by the threads of a long-lived process (`tables
serve`): opened and checked once, then one connection per thread, all with
one cache of compiled tables; and the schema a health check reports."""

from __future__ import annotations

import threading
from pathlib import Path

from tables_app.storage.database import Database

__all__ = ["Database", "SharedDatabase", "schema_of"]  # Database: what get hands a request (the HTTP face names it here)


class SharedDatabase:
    """The database for this process, one connection per thread (a sqlite3
    connection stays in the thread that made it), each opened on first use
    and kept: every request is one read transaction on it, so it sees the
    database as another process last committed it. The connections share
    one cache of compiled tables, reloaded when the database changes
    (storage/compiled.py)."""

    def __init__(self, url: str, path: Path):
        from tables_app.storage.compiled import CompiledTables

        self.url, self.path = url, path
        self._local = threading.local()
        self.compiled = CompiledTables()

    @classmethod
    def open(cls, location: str | Path) -> SharedDatabase:
        """The database at ``location``, checked (and migrated if behind) now:
        a bad path fails here (DatabaseError), not at the first request."""
        from tables_app.services.database_setup import open_database

        opened = open_database(str(location))
        shared = cls(opened.url, opened.path)
        opened.dispose()
        return shared

    def get(self) -> Database:
        database = getattr(self._local, "database", None)
        if database is None:
            database = self._local.database = Database(self.url, self.path)
            database.compiled = self.compiled
        return database


def schema_of(database: Database) -> str | None:
    """The schema revision the database is at, read in one read transaction
    (a DatabaseError when the file cannot be read)."""
    from tables_app.storage.connection import schema_version

    with database.snapshot() as connection:
        return schema_version(connection)
