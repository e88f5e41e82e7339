"""creatures' attacks, and fights as event logs

- ``creature_attack``: the attacks a bestiary prints for a creature
  (`Scimitar 55; Bite 40`), in order: a weapon of the creature's ruleset, by
  name, and its CMB. No existing creature has any.
- ``fight`` and ``fight_event``: a fight is its ordered log of events
  (joined, attack, round ended, edited by hand), each stored as JSON with
  its sequence number, unique in the fight: of two writers that read the
  same log, only the first appends. A fight names its ruleset as text and
  refers to no table, so re-importing or removing tables never touches it.

Downgrading is refused while a creature has attacks or a fight exists
(0006 cannot hold them).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02 00:00:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
import sqlmodel
from alembic import op

from tables_app.errors import DatabaseError


revision: str = '0007'
down_revision: Union[str, None] = '0006'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table('creature_attack',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('creature_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('weapon', sa.String(collation='NOCASE'), nullable=False),
    sa.Column('cmb', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['creature_id'], ['creature.id'], name=op.f('fk_creature_attack_creature_id_creature'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_creature_attack')),
    sa.UniqueConstraint('creature_id', 'position', name=op.f('uq_creature_attack_creature_id_position'))
    )
    op.create_table('fight',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(collation='NOCASE'), nullable=False),
    sa.Column('ruleset', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('created_at', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_fight')),
    sa.UniqueConstraint('name', name=op.f('uq_fight_name'))
    )
    op.create_table('fight_event',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('fight_id', sa.Integer(), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('data', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('at', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.CheckConstraint("kind = 'join' OR kind = 'attack' OR kind = 'round' OR kind = 'edit'", name=op.f('ck_fight_event_kind')),
    sa.ForeignKeyConstraint(['fight_id'], ['fight.id'], name=op.f('fk_fight_event_fight_id_fight'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_fight_event')),
    sa.UniqueConstraint('fight_id', 'seq', name=op.f('uq_fight_event_fight_id_seq'))
    )


def downgrade() -> None:
    run = op.get_bind().exec_driver_sql
    uses = {"creature attacks": "SELECT count(*) FROM creature_attack", "fights": "SELECT count(*) FROM fight"}
    found = ", ".join(f"{count} {what}" for what, sql in uses.items() if (count := run(sql).scalar()))
    if found:
        raise DatabaseError(f"cannot downgrade below 0007: the database holds {found}; "
                            "remove the fights and the bestiary's attacks first (nothing changed)")
    op.drop_table('fight_event')
    op.drop_table('fight')
    op.drop_table('creature_attack')
