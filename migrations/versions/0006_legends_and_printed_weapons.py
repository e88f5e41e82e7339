"""legends, parry penalties, open-ended fumble rolls, a weapon's Max critical

- ``critical_table.legend`` / ``fumble_table.legend``: the book's key its
  entries were read with (``∑ stun; ∏ no parry; …``); NULL: the default
  legend, which every existing table was read with.
- ``critical_entry.parry_penalty`` / ``fumble_entry.parry_penalty``: the
  penalty to the parry of the must-parry rounds (`(π-10)`); 0 for every
  existing entry.
- ``fumble_table.roll_kind``: ``d100`` for every existing table, or ``oeh``.
- ``weapon.max_critical``: the highest severity its criticals reach (NULL:
  no cap).
- An entry's death said only by an Effects tag (`death in 6`, `instant
  death`), which 0005 left without its ``death_in``, gets it: the tag and
  the field now agree, as an import reads them.
- ``attack_row.clumsy``: a printed row bounded by the attacking weapon's
  Clumsy Range (`XX-33`, `UM 01-XX`); false for every existing row.

Every column is added in place. Downgrading is refused while a row uses
any of these (0005 cannot hold it).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 00:00:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

from tables_app.errors import DatabaseError


revision: str = '0006'
down_revision: Union[str, None] = '0005'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

TABLES = ("critical_table", "fumble_table")
# The rounds a tag `death in N` (N digits) or `instant death` (0) gives an entry; NULL if none.
TAG_DEATH = ("SELECT CASE WHEN lower(trim(t.tag)) = 'instant death' THEN 0 "
             "ELSE CAST(substr(trim(t.tag), 10) AS INTEGER) END FROM {tags} t WHERE t.entry_id = {entries}.id "
             "AND (lower(trim(t.tag)) = 'instant death' OR (lower(substr(trim(t.tag), 1, 9)) = 'death in ' "
             "AND length(trim(t.tag)) BETWEEN 10 AND 16 AND substr(trim(t.tag), 10) NOT GLOB '*[^0-9]*')) "
             "ORDER BY t.position LIMIT 1")
ENTRIES = ("critical_entry", "fumble_entry")


def upgrade() -> None:
    for table in TABLES:
        op.add_column(table, sa.Column("legend", sa.String(), nullable=True))
    for table in ENTRIES:
        op.add_column(table, sa.Column("parry_penalty", sa.Integer(), nullable=False, server_default=sa.text("0")))
    op.add_column("fumble_table", sa.Column("roll_kind", sa.String(), nullable=False, server_default=sa.text("'d100'")))
    op.add_column("weapon", sa.Column("max_critical", sa.String(), nullable=True))
    op.add_column("attack_row", sa.Column("clumsy", sa.Boolean(), nullable=False, server_default=sa.false()))
    death = TAG_DEATH if op.get_bind().dialect.name == "sqlite" else TAG_DEATH.replace(
        "NOT GLOB '*[^0-9]*'", "~ '^[0-9]+$'")  # PostgreSQL has no GLOB: digits only, as a regular expression
    for entries, tags in (("critical_entry", "critical_effect"), ("fumble_entry", "fumble_effect")):
        op.execute(f"UPDATE {entries} SET death_in = ({death.format(tags=tags, entries=entries)}) "
                   f"WHERE death_in IS NULL AND ({death.format(tags=tags, entries=entries)}) IS NOT NULL")


def _refuse_what_0005_cannot_hold() -> None:
    run = op.get_bind().exec_driver_sql
    uses = {f"{table}s read with a legend": f"SELECT count(*) FROM {table} WHERE legend IS NOT NULL" for table in TABLES}
    uses.update({f"{table} rows with a parry penalty": f"SELECT count(*) FROM {table} WHERE parry_penalty != 0"
                 for table in ENTRIES})
    uses["fumble tables rolled open-ended"] = "SELECT count(*) FROM fumble_table WHERE roll_kind != 'd100'"
    uses["weapons with a Max critical"] = "SELECT count(*) FROM weapon WHERE max_critical IS NOT NULL"
    uses["attack rows bounded by a weapon's Clumsy Range"] = "SELECT count(*) FROM attack_row WHERE clumsy"
    found = ", ".join(f"{count} {what}" for what, sql in uses.items() if (count := run(sql).scalar()))
    if found:
        raise DatabaseError(f"cannot downgrade below 0006: the tables use legends or printed weapons ({found}); "
                            "remove those workbooks first (nothing changed)")


def downgrade() -> None:
    _refuse_what_0005_cannot_hold()
    for table in TABLES:
        op.drop_column(table, "legend")
    for table in ENTRIES:
        op.drop_column(table, "parry_penalty")
    op.drop_column("fumble_table", "roll_kind")
    op.drop_column("weapon", "max_critical")
    op.drop_column("attack_row", "clumsy")
