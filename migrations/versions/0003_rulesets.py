"""rulesets: names and critical codes are unique within a ruleset

A ruleset is a namespace: its severity scale, tables,
weapons and creatures. The six named tables gain ``ruleset_id`` (every
existing row goes to ruleset 1, ``default``), and their names (and critical
codes) become unique per ruleset instead of across the database. Each of
the six tables is rebuilt (batch mode), so this takes a moment on a large
database.

Downgrading is refused while a row lives outside ``default``: two rulesets
may use the same name, which the 0002 schema cannot hold.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-06 10:00:00
"""
from contextlib import contextmanager
from typing import Iterator, Sequence, Union

import sqlalchemy as sa
from alembic import op

from tables_app.errors import DatabaseError


revision: str = '0003'
down_revision: Union[str, None] = '0002'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def _recreate() -> str:
    # SQLite alters a table by copying it (batch mode); PostgreSQL alters it in place.
    return "always" if op.get_bind().dialect.name == "sqlite" else "auto"

DEFAULT_RULESET_ID = 1  # as in models.py; written out so this revision never changes with the models

# Each named table and its columns that were unique across the database
# (0001) and are unique within a ruleset from here on.
UNIQUE_PER_RULESET = {
    "severity_scale": ["name"],
    "critical_table": ["name", "code"],
    "fumble_table": ["name"],
    "attack_table": ["name"],
    "weapon": ["name"],
    "creature": ["name"],
}
TABLES = list(UNIQUE_PER_RULESET)


def _nocase_columns(table: str) -> list[sa.Column]:
    # Reflection loses a column's collation: restate the case-insensitive
    # names and codes, or the rebuilt tables would take "LONGSWORD" beside
    # "Longsword" (as 0002 does). A critical table's code may be NULL.
    return [sa.Column(column, sa.String(collation="NOCASE"), nullable=column == "code")
            for column in UNIQUE_PER_RULESET[table]]


@contextmanager
def _views_triggers_and_indexes_set_aside(tables: list[str]) -> Iterator[None]:
    # SQLite will not rename a rebuilt table into place under a view or a
    # trigger that names it, dropping a table drops its triggers and indexes,
    # and reflection cannot rebuild an index on an expression or in DESC order.
    # So every view and trigger, and every index on these tables (0001's and
    # the user's own), is set aside exactly as written and put back afterwards
    # in the order it was made (0002's recipe).
    if op.get_bind().dialect.name != "sqlite":  # PostgreSQL alters in place, under its views
        yield
        return
    marks = ", ".join("?" * len(tables))
    run = op.get_bind().exec_driver_sql  # verbatim: a user's SQL may hold colons
    kept = run(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND "
        f"(type IN ('view', 'trigger') OR (type = 'index' AND tbl_name IN ({marks}))) ORDER BY rowid", tuple(tables)).all()
    for kind, name, _ in reversed(kept):
        quoted = name.replace('"', '""')
        run(f'DROP {kind.upper()} "{quoted}"')
    yield
    for _, _, sql in kept:
        run(sql)


def upgrade() -> None:
    op.create_table('ruleset',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(collation='NOCASE'), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ruleset')),
    sa.UniqueConstraint('name', name=op.f('uq_ruleset_name'))
    )
    ruleset = sa.table("ruleset", sa.column("id", sa.Integer), sa.column("name", sa.String))
    op.bulk_insert(ruleset, [{"id": DEFAULT_RULESET_ID, "name": "default"}])
    with _views_triggers_and_indexes_set_aside(TABLES):
        for table in TABLES:
            # ADD COLUMN fills every existing row with the default; the
            # rebuild then drops the default (the models have none: the
            # import always says which ruleset a row is in).
            op.add_column(table, sa.Column('ruleset_id', sa.Integer(), nullable=False,
                                           server_default=str(DEFAULT_RULESET_ID)))
            with op.batch_alter_table(table, recreate=_recreate(), reflect_args=_nocase_columns(table)) as batch_op:
                batch_op.alter_column('ruleset_id', existing_type=sa.Integer(), existing_nullable=False,
                                      server_default=None)
                batch_op.create_foreign_key(op.f(f'fk_{table}_ruleset_id_ruleset'), 'ruleset', ['ruleset_id'], ['id'])
                for column in UNIQUE_PER_RULESET[table]:
                    batch_op.drop_constraint(op.f(f'uq_{table}_{column}'), type_='unique')
                    batch_op.create_unique_constraint(op.f(f'uq_{table}_ruleset_id_{column}'), ['ruleset_id', column])


def _refuse_rows_outside_the_default_ruleset() -> None:
    run = op.get_bind().exec_driver_sql
    elsewhere = {table: run(f"SELECT count(*) FROM {table} WHERE ruleset_id != {DEFAULT_RULESET_ID:d}").scalar()
                 for table in TABLES}
    found = ", ".join(f"{count} {table}" for table, count in elsewhere.items() if count)
    if found:
        raise DatabaseError(
            f"cannot downgrade below 0003: rows live outside the ruleset 'default' ({found}), and their names "
            "could collide in the older schema; remove those rulesets first (nothing changed)")


def downgrade() -> None:
    _refuse_rows_outside_the_default_ruleset()
    with _views_triggers_and_indexes_set_aside(TABLES):
        for table in TABLES:
            with op.batch_alter_table(table, recreate=_recreate(), reflect_args=_nocase_columns(table)) as batch_op:
                for column in UNIQUE_PER_RULESET[table]:
                    batch_op.drop_constraint(op.f(f'uq_{table}_ruleset_id_{column}'), type_='unique')
                    batch_op.create_unique_constraint(op.f(f'uq_{table}_{column}'), [column])
                batch_op.drop_constraint(op.f(f'fk_{table}_ruleset_id_ruleset'), type_='foreignkey')
                batch_op.drop_column('ruleset_id')
    op.drop_table('ruleset')
