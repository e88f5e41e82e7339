"""The SQLAlchemy engine and Alembic migrations (writes and schema changes).

Reading never comes here (see connection.py and reader.py); Alembic is imported only when the
schema must change.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Connection, Engine

from tables_app.storage import connection as settings
from tables_app.storage.location import resource_dir, sqlite_path

if TYPE_CHECKING:
    from alembic.config import Config


def create_db_engine(url: str) -> Engine:
    """An engine with foreign keys on, WAL, a busy timeout and transactional DDL.

    pysqlite commits implicitly before DDL; putting the connection in manual
    mode and emitting BEGIN ourselves (SQLAlchemy's documented recipe) makes
    every transaction, schema changes included, all or nothing.

    It makes no directories: whether a database may be created, and where,
    is decided in services/database_setup.py.
    """
    if url.startswith("postgresql"):
        from tables_app.storage.location import Server

        return create_engine(Server(url).sqlalchemy_url, connect_args={"connect_timeout": 10}, pool_pre_ping=True)
    path = sqlite_path(url)
    timeout_ms = settings.BUSY_TIMEOUT_MS  # read at call time, so it can be changed
    # A file is handed over as a path, never as URL text to parse again: a
    # '%20' in a file name would otherwise open (and create) another file.
    target = URL.create("sqlite", database=str(path)) if path is not None else url
    engine = create_engine(target, connect_args={"timeout": timeout_ms / 1000})
    if engine.dialect.name != "sqlite":
        return engine

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.execute("PRAGMA foreign_keys = ON")
        settings.set_busy_timeout(dbapi_connection, timeout_ms)
        if path is not None:
            dbapi_connection.execute("PRAGMA journal_mode = WAL")

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        # Writers ask for BEGIN IMMEDIATE (execution option "begin") so they
        # take the write lock up front and wait on the busy timeout.
        connection.exec_driver_sql(connection.get_execution_options().get("begin", "BEGIN"))

    return engine


def alembic_config(engine: Engine | None = None) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(resource_dir("migrations")))
    if engine is not None:
        # ConfigParser reads % as interpolation; a path with # or a space is %-escaped in the URL
        config.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False).replace("%", "%%"))
    return config


def migrate(engine: Engine, revision: str = "head") -> None:
    """Upgrade the schema in one transaction on one connection."""
    run_alembic(engine, "upgrade", revision)


def run_alembic(engine: Engine, direction: str, revision: str) -> None:
    """Run Alembic's ``upgrade`` or ``downgrade`` (``direction``) to ``revision``
    on a connection it is handed (env.py uses it).

    Foreign keys are switched off while batch migrations copy tables (else a
    dropped parent would cascade) and checked before the commit (env.py).
    The pragma only works outside a transaction, hence the raw connection.
    """
    from alembic import command

    config = alembic_config(engine)
    if engine.dialect.name != "sqlite":  # PostgreSQL checks foreign keys itself, deferred to the commit (env.py)
        with engine.connect() as conn:
            config.attributes["connection"] = conn
            getattr(command, direction)(config, revision)
            conn.commit()
        return
    with engine.connect() as conn:
        raw = conn.connection.driver_connection
        assert raw is not None  # a connection checked out of the pool holds its sqlite3 connection until closed
        raw.execute("PRAGMA foreign_keys = OFF")
        try:
            config.attributes["connection"] = conn
            getattr(command, direction)(config, revision)
        finally:
            raw.execute("PRAGMA foreign_keys = ON")
