"""what an entry's text holds that was not read, and how a table reads its conditions

- ``critical_entry.unread`` / ``fumble_entry.unread``: the printed pieces of
  the entry that look like effects or conditions and were not read (a JSON
  array of strings, `["If the attacker maintains the hold, +5 Damage"]`);
  NULL when the entry was read whole, as every existing entry was. The
  GM decides them at the table: they are never applied.
- ``critical_table.condition_reading`` / ``fumble_table.condition_reading``:
  ``also`` (every existing table) or ``instead``: whether a condition that
  follows effects in an earlier sentence gives its targets its effects as
  well as those (``also``) or in their place (``instead``, as Against the
  Darkmaster means it).

Every column is added in place. Downgrading is refused while a row uses
them (0008 cannot hold them).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07 00:00:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

from tables_app.errors import DatabaseError


revision: str = '0009'
down_revision: Union[str, None] = '0008'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

TABLES = ("critical_table", "fumble_table")
ENTRIES = ("critical_entry", "fumble_entry")


def upgrade() -> None:
    for entries in ENTRIES:
        op.add_column(entries, sa.Column("unread", sa.String(), nullable=True))
    for table in TABLES:
        op.add_column(table, sa.Column("condition_reading", sa.String(), nullable=False, server_default=sa.text("'also'")))


def downgrade() -> None:
    run = op.get_bind().exec_driver_sql
    uses = {f"{entries} rows with pieces not read": f"SELECT count(*) FROM {entries} WHERE unread IS NOT NULL"
            for entries in ENTRIES}
    uses.update({f"{table}s reading conditions 'instead'": f"SELECT count(*) FROM {table} WHERE condition_reading != 'also'"
                 for table in TABLES})
    found = ", ".join(f"{count} {what}" for what, sql in uses.items() if (count := run(sql).scalar()))
    if found:
        raise DatabaseError(f"cannot downgrade below 0009: the tables hold what 0008 cannot ({found}); "
                            "remove those workbooks first (nothing changed)")
    for entries in ENTRIES:
        op.drop_column(entries, "unread")
    for table in TABLES:
        op.drop_column(table, "condition_reading")
