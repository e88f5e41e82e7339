"""CHECK constraints spelled as ORs instead of IN lists

SQLite builds an IN list's lookup table again for every row it inserts; on
attack_cell that doubled the cost of an import (90,000 cells: 0.73 s → 0.37 s
for the inserts). Same rules, cheaper to check. Each table is rebuilt (batch
mode), so this takes a moment on a large database.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 17:10:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '0002'
down_revision: Union[str, None] = '0001'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def _recreate() -> str:
    # SQLite alters a table by copying it (batch mode); PostgreSQL alters it in place.
    return "always" if op.get_bind().dialect.name == "sqlite" else "auto"

# (table, column, allowed values), as in 0001
CHECKS = [
    ("attack_cell", "outcome", ("miss", "no_damage", "hit", "critical")),
    ("weapon", "roll_kind", ("oe", "oeh", "oel", "d100")),
    ("creature", "rank", ("normal", "heroic", "epic")),
]


# Reflection loses a column's collation: restate the case-insensitive names,
# or the rebuilt tables would take "LONGSWORD" beside "Longsword".
NOCASE_NAMES = {"weapon": ["name"], "creature": ["name"], "attack_cell": []}


def _rewrite(as_ors: bool) -> None:
    # SQLite will not rename a rebuilt table into place under a view or a
    # trigger that names it, dropping a table drops its triggers and indexes,
    # and reflection cannot rebuild an index on an expression or in DESC order.
    # So every view and trigger, and every index on these tables (0001's and
    # the user's own), is set aside exactly as written and put back afterwards
    # in the order it was made.
    tables = [table for table, _, _ in CHECKS]
    if op.get_bind().dialect.name != "sqlite":  # PostgreSQL alters in place, under its views
        for table, column, values in CHECKS:
            rule = " OR ".join(f"{column} = '{value}'" for value in values) if as_ors else (
                f"{column} IN ({', '.join(repr(value) for value in values)})")
            op.drop_constraint(op.f(f"ck_{table}_{column}"), table, type_="check")
            op.create_check_constraint(op.f(f"ck_{table}_{column}"), table, rule)
        return
    marks = ", ".join("?" * len(tables))
    run = op.get_bind().exec_driver_sql  # verbatim: a user's SQL may hold colons
    kept = run(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND "
        f"(type IN ('view', 'trigger') OR (type = 'index' AND tbl_name IN ({marks}))) ORDER BY rowid", tuple(tables)).all()
    for kind, name, _ in reversed(kept):
        quoted = name.replace('"', '""')
        run(f'DROP {kind.upper()} "{quoted}"')
    for table, column, values in CHECKS:
        if as_ors:
            rule = " OR ".join(f"{column} = '{value}'" for value in values)
        else:
            rule = f"{column} IN ({', '.join(repr(value) for value in values)})"
        names = [sa.Column(name, sa.String(collation="NOCASE"), nullable=False) for name in NOCASE_NAMES[table]]
        with op.batch_alter_table(table, recreate=_recreate(), reflect_args=names) as batch_op:
            batch_op.drop_constraint(op.f(f"ck_{table}_{column}"), type_="check")
            batch_op.create_check_constraint(op.f(f"ck_{table}_{column}"), rule)
    for _, _, sql in kept:
        run(sql)


def upgrade() -> None:
    _rewrite(as_ors=True)


def downgrade() -> None:
    _rewrite(as_ors=False)
