"""Alembic environment for tables_app.

Runs on a connection it is handed (``config.attributes["connection"]``, as
``tables db upgrade`` does) or on the URL in the config. Batch mode lets
SQLite alter tables by copying them; foreign keys are checked before commit.
"""

from alembic import context
from sqlalchemy import text

from tables_app.storage import models

config = context.config
target_metadata = models.metadata


def run_on(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=True,
        compare_type=True,
        # SQLite's DDL is transactional on our manual-BEGIN connections: run
        # every revision and the foreign-key check in one transaction, so a
        # failure anywhere leaves the schema and its version as they were.
        transactional_ddl=True,
    )
    with context.begin_transaction():
        context.run_migrations()
        broken = connection.execute(text("PRAGMA foreign_key_check")).fetchall()
        if broken:
            raise RuntimeError(f"migration left broken foreign keys: {broken[:5]}")


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        run_on(connection)
        return
    from tables_app.storage.engine import create_db_engine

    engine = create_db_engine(config.get_main_option("sqlalchemy.url"))
    with engine.connect() as conn:
        run_on(conn)


def run_migrations_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        render_as_batch=True,
        literal_binds=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
