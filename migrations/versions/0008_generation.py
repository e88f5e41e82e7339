"""the generation number: one row every import and removal bumps

``generation`` holds one row (id 1) whose ``number`` every import and
removal adds one to, in its own transaction. A server's compiled tables
compare it to know they are stale, and an import checked against a
snapshot compares it to know another one committed in between, on SQLite
and PostgreSQL alike (SQLite's ``PRAGMA data_version`` has no PostgreSQL
counterpart, and is per connection).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02 00:00:00
"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op


revision: str = '0008'
down_revision: Union[str, None] = '0007'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    generation = op.create_table('generation',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.CheckConstraint('id = 1', name=op.f('ck_generation_one_row')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_generation'))
    )
    op.bulk_insert(generation, [{"id": 1, "number": 0}])


def downgrade() -> None:
    op.drop_table('generation')
