"""groups: a community server's players, each group its own fights and parties

- ``fight_group``: a group (`tables group new NAME`): its name, unique by
  the rule of names (``name_key``), and the SHA-256 of its token (NULL once
  revoked; unique: a token names one group).
- ``fight.group_id`` and ``party.group_id``: the group whose fight or party
  it is; 0 for the operator's own (every fight and party made before 0014:
  a server without groups goes on as it was). Names are unique within a
  group: ``(group_id, name_key)``. Not a foreign key, since 0 is no row; a
  group is never removed, and `db check` reports an id that names none.
- ``party.name_key``: a party's name folded by the rule of names, as a
  fight's (0013): `Ärger` and `ärger` are one party on both databases;
  existing parties whose names fold alike are renamed as 0013 renames
  fights (the later gets `` (2)``).

Downgrading is refused while a group exists, or a fight or party of one (0013 cannot hold them).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-07 16:00:00
"""
from contextlib import contextmanager
from typing import Iterator, Sequence, Union

import sqlalchemy as sa
from alembic import op

from tables_app.domain.names import fold
from tables_app.errors import DatabaseError


revision: str = '0014'
down_revision: Union[str, None] = '0013'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def _recreate() -> str:
    return "always" if op.get_bind().dialect.name == "sqlite" else "auto"


@contextmanager
def _views_triggers_and_indexes_set_aside(table: str) -> Iterator[None]:
    # 0010's recipe: SQLite will not rename a rebuilt table under a view or a
    # trigger naming it, and dropping a table drops its triggers and indexes.
    if op.get_bind().dialect.name != "sqlite":
        yield
        return
    run = op.get_bind().exec_driver_sql
    kept = run("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND "
               "(type IN ('view', 'trigger') OR (type = 'index' AND tbl_name = ?)) ORDER BY rowid", (table,)).all()
    for kind, name, _ in reversed(kept):
        quoted = name.replace('"', '""')
        run(f'DROP {kind.upper()} "{quoted}"')
    yield
    for _, _, sql in kept:
        run(sql)


def _folded_names(rows: list[tuple[int, str]]) -> dict[int, tuple[str, str]]:
    """Each party's (name, key), in the order they were saved: a later one whose name folds as an earlier one's
    is renamed `NAME (2)`, `NAME (3)`, ... (as 0013 renames fights)."""
    taken: set[str] = set()
    out = {}
    for row_id, name in rows:
        spelled, number = name, 1
        while fold(spelled) in taken:
            number += 1
            spelled = f"{name} ({number})"
        taken.add(fold(spelled))
        out[row_id] = (spelled, fold(spelled))
    return out


def upgrade() -> None:
    bind = op.get_bind()
    op.create_table('fight_group',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('name_key', sa.String(), nullable=False),
    sa.Column('token_hash', sa.String(), nullable=True),
    sa.Column('created_at', sa.String(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_fight_group')),
    sa.UniqueConstraint('name_key', name=op.f('uq_fight_group_name_key')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_fight_group_token_hash')),
    sqlite_autoincrement=True,
    )
    op.add_column('party', sa.Column('name_key', sa.String(), nullable=True))
    rows = [(i, n) for i, n in bind.exec_driver_sql("SELECT id, name FROM party ORDER BY id").all()]
    for party_id, (name, key) in _folded_names(rows).items():
        bind.execute(sa.text("UPDATE party SET name = :name, name_key = :key WHERE id = :id"),
                     {"name": name, "key": key, "id": party_id})
    op.add_column('fight', sa.Column('group_id', sa.Integer(), nullable=False, server_default='0'))
    op.add_column('party', sa.Column('group_id', sa.Integer(), nullable=False, server_default='0'))
    with _views_triggers_and_indexes_set_aside('fight'), op.batch_alter_table(
            'fight', recreate=_recreate(), table_kwargs={"sqlite_autoincrement": True}) as batch:
        # SQLite's reflection does not see a column's collation: said again, or the copy loses it
        batch.alter_column('name', existing_type=sa.String(collation='NOCASE'), type_=sa.String(collation='NOCASE'),
                           existing_nullable=False)
        batch.drop_constraint(op.f('uq_fight_name_key'), type_='unique')
        batch.create_unique_constraint(op.f('uq_fight_group_id_name_key'), ['group_id', 'name_key'])
    with _views_triggers_and_indexes_set_aside('party'), op.batch_alter_table('party', recreate=_recreate()) as batch:
        # SQLite's reflection does not see a column's collation: said again, or the copy loses it
        batch.alter_column('name', existing_type=sa.String(collation='NOCASE'), type_=sa.String(collation='NOCASE'),
                           existing_nullable=False)
        batch.alter_column('name_key', existing_type=sa.String(), nullable=False)
        batch.drop_constraint(op.f('uq_party_name'), type_='unique')
        batch.create_unique_constraint(op.f('uq_party_group_id_name_key'), ['group_id', 'name_key'])


def downgrade() -> None:
    run = op.get_bind().exec_driver_sql
    if groups := run("SELECT count(*) FROM fight_group").scalar():
        raise DatabaseError(f"cannot downgrade below 0014: the database holds {groups} group{'s' if groups > 1 else ''}; "
                            "0013 has no groups (nothing changed)")
    # a group removed by hand (no command removes one) leaves its fights and parties: 0013 cannot tell them apart
    # from the operator's (two fights `Duel` would break its unique name), so they are refused as a group is
    owned = run("SELECT (SELECT count(*) FROM fight WHERE group_id <> 0) + (SELECT count(*) FROM party WHERE group_id <> 0)"
                ).scalar()
    if owned:
        raise DatabaseError(f"cannot downgrade below 0014: {owned} fight{'s or parties' if owned > 1 else ' or party'} "
                            f"belong{'' if owned > 1 else 's'} to a group (0013 has no groups; tables db check names "
                            "them) (nothing changed)")
    alike = run("SELECT count(*) FROM (SELECT name FROM party GROUP BY name HAVING count(*) > 1) AS twice").scalar()
    if alike:
        raise DatabaseError(f"cannot downgrade below 0014: {alike} name{'s' if alike > 1 else ''} of parties "
                            "differ only in letter case; remove all but one of each first (nothing changed)")
    with _views_triggers_and_indexes_set_aside('party'), op.batch_alter_table('party', recreate=_recreate()) as batch:
        # SQLite's reflection does not see a column's collation: said again, or the copy loses it
        batch.alter_column('name', existing_type=sa.String(collation='NOCASE'), type_=sa.String(collation='NOCASE'),
                           existing_nullable=False)
        batch.drop_constraint(op.f('uq_party_group_id_name_key'), type_='unique')
        batch.create_unique_constraint(op.f('uq_party_name'), ['name'])
        batch.drop_column('group_id')
        batch.drop_column('name_key')
    with _views_triggers_and_indexes_set_aside('fight'), op.batch_alter_table(
            'fight', recreate=_recreate(), table_kwargs={"sqlite_autoincrement": True}) as batch:
        # SQLite's reflection does not see a column's collation: said again, or the copy loses it
        batch.alter_column('name', existing_type=sa.String(collation='NOCASE'), type_=sa.String(collation='NOCASE'),
                           existing_nullable=False)
        batch.drop_constraint(op.f('uq_fight_group_id_name_key'), type_='unique')
        batch.create_unique_constraint(op.f('uq_fight_name_key'), ['name_key'])
        batch.drop_column('group_id')
    op.drop_table('fight_group')
