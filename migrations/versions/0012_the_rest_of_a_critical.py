"""the rest of a critical: prone, knocked out, blinded, a weapon dropped or broken, a useless limb, timed penalties

- ``critical_entry.conditions`` / ``fumble_entry.conditions``: what the
  entry does beyond hits, bleeding, stun, parries, a lasting penalty, a
  bonus and death, as a JSON object of the fields it holds
  (`{"prone": 1, "drops_weapon": true, "timed_penalties": [[-20, 3]]}`;
  keys `prone`, `knocked_out` (rounds, 0: until woken), `blinded`,
  `drops_weapon`, `breaks_weapon`, `useless_arm`, `useless_leg`,
  `timed_penalties`); NULL when it holds none, as every existing entry
  does until its workbook is imported again.

The columns are added in place. Downgrading drops them: what they hold was
read from each entry's text and Effects tags, which 0011 keeps (importing
the workbook again reads it back).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07 10:00:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '0012'
down_revision: Union[str, None] = '0011'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

ENTRIES = ("critical_entry", "fumble_entry")


def upgrade() -> None:
    for entries in ENTRIES:
        op.add_column(entries, sa.Column("conditions", sa.String(), nullable=True))


def downgrade() -> None:
    # Nothing is lost that 0009 holds: the column is read from the entry's text and Effects tags, which stay.
    for entries in ENTRIES:
        op.drop_column(entries, "conditions")
