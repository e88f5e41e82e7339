"""The database file with the standard library's sqlite3 only.

Everyday commands (query, show, resolve, odds) read through here and never
import SQLAlchemy or Alembic: the schema version is one SELECT, and the
compiled tables are read with plain SQL (reader.py). The ORM engine is made
only when something is written or migrated.
"""

from __future__ import annotations

import os
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from tables_app.errors import DatabaseError, UsageMistake

# The newest migration in migrations/versions; tests check it against Alembic.
SCHEMA_HEAD = "0002"
BUSY_TIMEOUT_MS = 10_000
ENV_VAR = "TABLES_DB"
PACKAGE_DIR = Path(__file__).resolve().parents[1]


def resource_dir(name: str) -> Path:
    """``migrations`` or ``table_sources``: inside the installed package, else the checkout."""
    for candidate in (PACKAGE_DIR / name, PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise DatabaseError(f"cannot find the {name} directory of tables_app (a broken install?)")


def default_database_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("tables-app", appauthor=False)) / "tables.db"


@dataclass(frozen=True)
class Location:
    """Where the database is, and whether the user named it.

    ``named``: given by ``--db`` or ``$TABLES_DB``. Only the default location
    may be created on first use; a named one must exist (a typo is an error).
    """

    url: str
    path: Path
    named: bool


def locate_database(db: str | None = None) -> Location:
    """``--db`` (a URL or a path), else ``$TABLES_DB``, else the user data directory."""
    if db is not None:
        value, source = db, "--db"
    elif ENV_VAR in os.environ:
        value, source = os.environ[ENV_VAR], f"${ENV_VAR}"
    else:
        path = default_database_path()
        return Location(f"sqlite:///{path}", path, named=False)
    if not value.strip():  # on the command line a usage mistake (exit 2); in the environment bad data (1)
        error = UsageMistake if source == "--db" else DatabaseError
        raise error(f"{source} is empty; give a database file path or sqlite:///PATH")
    if "://" not in value and "?" in value:  # a URL would read the rest as options: another file
        raise DatabaseError(f"{value}: a database path cannot contain '?'; rename or move it")
    url = value if "://" in value else f"sqlite:///{Path(value).expanduser().resolve()}"
    if not url.startswith("sqlite:"):
        raise DatabaseError(f"{url.split('://')[0]} databases are not supported; give a SQLite file path or sqlite:/// URL")
    path = sqlite_path(url)
    if path is None:
        raise DatabaseError(f"{value} is not a database file (an in-memory database would vanish after the command); "
                            "give a file path or sqlite:///PATH")
    return Location(url, path, named=True)


def sqlite_path(url: str) -> Path | None:
    """The file behind a SQLite URL, or None for memory and other databases."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or url == prefix or ":memory:" in url:
        return None
    return Path(url[len(prefix):].split("?", 1)[0])


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


class Database:
    """One database: a sqlite3 connection for reading, an ORM engine on demand."""

    def __init__(self, url: str, path: Path):
        self.url = url
        self.path = path
        self.created = False  # made by this open (the CLI says so once, on stderr)
        self._connection: sqlite3.Connection | None = None
        self._engine = None

    @property
    def connection(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = connect(self.path)
        return self._connection

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every query inside sees the same tables."""
        connection = self.connection
        try:
            connection.execute("BEGIN")
        except sqlite3.OperationalError as exc:
            raise DatabaseError(busy_message(exc)) from None
        try:
            yield connection
        except sqlite3.OperationalError as exc:
            raise DatabaseError(busy_message(exc)) from None
        finally:
            connection.execute("COMMIT")

    def reader(self):  # type: ignore[no-untyped-def]
        from tables_app.storage.reader import Reader

        return Reader(self)

    @property
    def engine(self):  # type: ignore[no-untyped-def]
        """The SQLAlchemy engine, for writes and migrations (imported on first use)."""
        if self._engine is None:
            from tables_app.storage.db import create_db_engine

            self._engine = create_db_engine(self.url)
        return self._engine

    def dispose(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None
