"""parties of combatants, and a ruleset's death threshold

- ``party``: a roster saved from a fight (`tables fight party save`): its
  name, unique in any letter case, and its members' definitions (the
  combatants as they joined: name, side, hits, DEF, armor, rank, features,
  parry, attacks, initiative, death threshold; not their state), a JSON
  array in join order. A party refers to no table, as a fight does not.
- ``ruleset.death_at``: the hits left at or below which a combatant of a
  fight in that ruleset is dead (`Death at | -50` on a workbook's ruleset
  or creatures sheet); NULL, as every existing ruleset: only down.

Downgrading is refused while a party exists or a ruleset has a threshold
(0010 cannot hold them).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07 00:00:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

from tables_app.errors import DatabaseError


revision: str = '0011'
down_revision: Union[str, None] = '0010'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('party',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(collation='NOCASE'), nullable=False),
    sa.Column('members', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('saved_at', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_party')),
    sa.UniqueConstraint('name', name=op.f('uq_party_name'))
    )
    op.add_column('ruleset', sa.Column('death_at', sa.Integer(), nullable=True))


def downgrade() -> None:
    run = op.get_bind().exec_driver_sql
    uses = {"parties": "SELECT count(*) FROM party",
            "rulesets with a death threshold": "SELECT count(*) FROM ruleset WHERE death_at IS NOT NULL"}
    found = ", ".join(f"{count} {what}" for what, sql in uses.items() if (count := run(sql).scalar()))
    if found:
        raise DatabaseError(f"cannot downgrade below 0011: the database holds {found}; "
                            "remove the parties and the thresholds first (nothing changed)")
    op.drop_column('ruleset', 'death_at')
    op.drop_table('party')
