"""printed critical and fumble tables: columns chosen by severity, attack or weapon category; printed effects

- ``critical_entry`` / ``fumble_entry``: ``must_parry``, ``no_parry``,
  ``attacker_bonus`` (0 for every existing entry), ``death_in`` (NULL: no
  death) and ``column_name`` (NULL: a one-column table).
- ``critical_table.column_choice`` / ``fumble_table.column_choice``:
  ``none`` for every existing table (one column), else ``severity`` or
  ``attack``.
- ``critical_table.roll_kind``: ``d100`` for every existing table, or
  ``oeh`` (the critical die is open-ended high, as large-creature criticals).
- ``weapon.critical_column`` / ``weapon.fumble_column`` (NULL).

Every column is added in place (no table is rebuilt). Downgrading is
refused while a row uses any of these (0004 cannot hold it).

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 00:00:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

from tables_app.errors import DatabaseError


revision: str = '0005'
down_revision: Union[str, None] = '0004'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

ENTRIES = ("critical_entry", "fumble_entry")
COUNTS = ("must_parry", "no_parry", "attacker_bonus")


def upgrade() -> None:
    for table in ENTRIES:
        for column in COUNTS:
            op.add_column(table, sa.Column(column, sa.Integer(), nullable=False, server_default=sa.text("0")))
        op.add_column(table, sa.Column("death_in", sa.Integer(), nullable=True))
        op.add_column(table, sa.Column("column_name", sa.String(), nullable=True))
    for table in ("critical_table", "fumble_table"):
        op.add_column(table, sa.Column("column_choice", sa.String(), nullable=False, server_default=sa.text("'none'")))
    op.add_column("critical_table", sa.Column("roll_kind", sa.String(), nullable=False, server_default=sa.text("'d100'")))
    op.add_column("weapon", sa.Column("critical_column", sa.String(), nullable=True))
    op.add_column("weapon", sa.Column("fumble_column", sa.String(), nullable=True))


def _refuse_what_0004_cannot_hold() -> None:
    run = op.get_bind().exec_driver_sql
    # A death its own Effects tag says (`death in 6`, `instant death`: 0006 reads the tag into
    # death_in) is still held by 0004's tag: only a death without one is lost.
    uses = {f"{table} rows with printed effects or columns":
            f"SELECT count(*) FROM {table} e WHERE must_parry != 0 OR no_parry != 0 OR attacker_bonus != 0 OR column_name IS NOT NULL "
            f"OR (death_in IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {tags} t WHERE t.entry_id = e.id AND "
            "lower(trim(t.tag)) = CASE WHEN e.death_in = 0 THEN 'instant death' ELSE 'death in ' || e.death_in END))"
            for table, tags in (("critical_entry", "critical_effect"), ("fumble_entry", "fumble_effect"))}
    uses.update({f"{table}s read by column": f"SELECT count(*) FROM {table} WHERE column_choice != 'none'"
                 for table in ("critical_table", "fumble_table")})
    uses["critical tables rolled open-ended"] = "SELECT count(*) FROM critical_table WHERE roll_kind != 'd100'"
    uses["weapons with a critical or fumble column"] = ("SELECT count(*) FROM weapon WHERE critical_column IS NOT NULL "
                                                        "OR fumble_column IS NOT NULL")
    found = ", ".join(f"{count} {what}" for what, sql in uses.items() if (count := run(sql).scalar()))
    if found:
        raise DatabaseError(f"cannot downgrade below 0005: the tables use printed layouts ({found}); "
                            "remove those workbooks first (nothing changed)")


def downgrade() -> None:
    # SQLite drops a plain column in place (3.35+): nothing to rebuild, no view or trigger to set aside.
    _refuse_what_0004_cannot_hold()
    for table in ENTRIES:
        for column in (*COUNTS, "death_in", "column_name"):
            op.drop_column(table, column)
    for table in ("critical_table", "fumble_table"):
        op.drop_column(table, "column_choice")
    op.drop_column("critical_table", "roll_kind")
    op.drop_column("weapon", "critical_column")
    op.drop_column("weapon", "fumble_column")
