"""Alembic environment for tables_app.

Runs on a connection it is handed (``config.attributes["connection"]``, as
``tables db upgrade`` does) or on the URL in the config. Batch mode lets
SQLite alter tables by copying them; foreign keys are checked before commit.
"""

from alembic import context
from alembic.util import CommandError
from sqlalchemy import text

from tables_app.storage import cell_keys, models
from tables_app.storage.connection import ADVISORY_LOCK

config = context.config
target_metadata = models.metadata


# SQLite's NOCASE, on PostgreSQL: a case-insensitive ICU collation of the
# same name, so the migrations' `COLLATE "NOCASE"` columns compare, index
# and stay unique in any letter case there too.
NOCASE_ON_SERVER = ('CREATE COLLATION IF NOT EXISTS "NOCASE" '
                    "(provider = icu, locale = 'und-u-ks-level2', deterministic = false)")
# Every foreign key not yet deferrable (an import defers them to its commit,
# as SQLite's defer_foreign_keys pragma does): "table", "constraint".
NOT_DEFERRABLE = ("SELECT t.relname, c.conname FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid "
                  "WHERE c.contype = 'f' AND NOT c.condeferrable AND t.relnamespace = current_schema()::regnamespace")
# The id sequences, each set past the highest id (the migrations insert rows with their ids: `default`),
# never back (past the last id it gave, too).
# (The table named with its schema: PostgreSQL may call pg_get_serial_sequence on a row of another schema before
# the WHERE drops it, and an unqualified name then fails where that table was just dropped here: 0014's downgrade
# beside a schema holding its own fight_group.)
SERIALS = ("SELECT c.table_name, pg_get_serial_sequence(quote_ident(c.table_schema) || '.' || quote_ident(c.table_name), "
           "c.column_name) FROM information_schema.columns c WHERE c.table_schema = current_schema() "
           "AND c.column_name = 'id' "
           "AND pg_get_serial_sequence(quote_ident(c.table_schema) || '.' || quote_ident(c.table_name), c.column_name) "
           "IS NOT NULL")


def quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def held_cell_keys(connection):
    """The foreign keys of attack_cell that storage/cell_keys.py replaces and it holds; None without the table."""
    if connection.execute(text("SELECT to_regclass('attack_cell')")).scalar() is None:
        return None
    return {name for (name,) in connection.execute(text(cell_keys.HELD_KEYS)).fetchall()} & set(cell_keys.FOREIGN_KEYS)


def revisions_to_run() -> bool:
    """Whether a revision will run (not `db upgrade` of a database at the newest schema)."""
    try:
        current = set(context.get_context().get_current_heads())
        destination = {script.revision for script in context.script.get_revisions(context.get_revision_argument())}
    except Exception:  # noqa: BLE001 — a relative or unusual destination: assume there is
        return True
    return current != destination


def cell_keys_as_made(connection) -> None:
    """Before the revisions: attack_cell's foreign keys as the revisions made
    them (storage/cell_keys.py's triggers taken out, if they are in); none to
    run, nothing taken out (a trigger missing is put back after them)."""
    if not revisions_to_run():
        return
    held = held_cell_keys(connection)
    for statement in [] if held is None else cell_keys.uninstall_statements(held):
        connection.execute(text(statement))


def on_server(connection) -> None:
    """What PostgreSQL needs after the revisions: deferrable foreign keys,
    id sequences past the ids the migrations wrote, and attack_cell's
    references checked a statement at a time (storage/cell_keys.py)."""
    for table, constraint in connection.execute(text(NOT_DEFERRABLE)).fetchall():
        connection.execute(text(f"ALTER TABLE {quoted(table)} ALTER CONSTRAINT {quoted(constraint)} "
                                "DEFERRABLE INITIALLY IMMEDIATE"))
    for table, sequence in connection.execute(text(SERIALS)).fetchall():
        # never back: an id once given is not given again (a fight's writer names the fight it read by its id)
        # (``sequence`` is pg_get_serial_sequence's: a qualified name, quoted where it needs it)
        following = f"(SELECT last_value + CASE WHEN is_called THEN 1 ELSE 0 END FROM {sequence})"
        connection.execute(text(f"SELECT setval(:sequence, greatest(coalesce((SELECT max(id) FROM {quoted(table)}), 0) + 1, "
                                f"{following}), false)"), {"sequence": sequence})
    held = held_cell_keys(connection)
    if held is None:
        return
    enabled = {(table, trigger) for table, trigger, on in connection.execute(text(cell_keys.HELD_TRIGGERS)).fetchall() if on}
    statements = cell_keys.install_statements(held, enabled)
    for statement in statements:
        connection.execute(text(statement))
    if len(statements) > len(cell_keys.FUNCTIONS) and connection.execute(text(cell_keys.DANGLING.replace("?", "1"))).first():
        # the triggers check what is written from now on: what is there already is checked here, once
        raise CommandError("attack cells point at rows that do not exist (see: tables db check)")


def run_on(connection) -> None:
    server = connection.dialect.name == "postgresql"
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
        if server:
            # the writers' lock (connection.take_write_lock): a migration waits
            # for an import to end, and the next import for the migration
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": ADVISORY_LOCK})
            connection.execute(text(NOCASE_ON_SERVER))
            cell_keys_as_made(connection)
        context.run_migrations()
        if server:
            on_server(connection)
            return  # PostgreSQL checked every foreign key itself
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
