"""fights found by the rule of names, and written against the version read

- ``fight.name_key``: the fight's name folded by the rule of names
  (``tables_app.domain.names.fold``), unique: which fight a name means is
  decided by the rule on both databases (SQLite's NOCASE is ASCII only,
  PostgreSQL's ICU collation equates katakana with hiragana). ``fight.name``
  is no longer unique by itself (its key is).
- ``fight.version``: bumped by every write of the fight's log (an append,
  an undo); a writer's check is on the fight's id and the version it read,
  so an undo followed by another write at the same number, or a new fight of
  the same name, is never taken for the log it read.
- SQLite: the table is rebuilt with AUTOINCREMENT, so that an id is never
  given twice (INTEGER PRIMARY KEY alone reuses the highest id after a
  removal); PostgreSQL's id sequence never goes back (env.py).

Existing fights whose names fold alike (``Ärger`` and ``ärger`` on SQLite):
the first made keeps its name, each later one is renamed with `` (2)``,
`` (3)``, ... (docs/fights.md, "Names"); the upgrade never fails on them.
Downgrading is refused while two fights' names are one under NOCASE (0012's
unique name cannot hold them).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-07 15:00:00
"""
from contextlib import contextmanager
from typing import Iterator, Sequence, Union

import sqlalchemy as sa
from alembic import op

from tables_app.domain.names import fold
from tables_app.errors import DatabaseError


revision: str = '0013'
down_revision: Union[str, None] = '0012'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

TABLE = "fight"


def _recreate() -> str:
    return "always" if op.get_bind().dialect.name == "sqlite" else "auto"


@contextmanager
def _views_triggers_and_indexes_set_aside() -> Iterator[None]:
    # 0010's recipe: SQLite will not rename a rebuilt table under a view or a
    # trigger naming it, and dropping a table drops its triggers and indexes.
    if op.get_bind().dialect.name != "sqlite":
        yield
        return
    run = op.get_bind().exec_driver_sql
    kept = run("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND "
               "(type IN ('view', 'trigger') OR (type = 'index' AND tbl_name = ?)) ORDER BY rowid", (TABLE,)).all()
    for kind, name, _ in reversed(kept):
        quoted = name.replace('"', '""')
        run(f'DROP {kind.upper()} "{quoted}"')
    yield
    for _, _, sql in kept:
        run(sql)


def folded_names(rows: list[tuple[int, str]]) -> dict[int, tuple[str, str]]:
    """Each fight's (name, key), in the order they were made: a later fight whose
    name folds as an earlier one's is renamed `NAME (2)`, `NAME (3)`, ..."""
    taken: set[str] = set()
    out = {}
    for fight_id, name in rows:
        spelled, number = name, 1
        while fold(spelled) in taken:
            number += 1
            spelled = f"{name} ({number})"
        taken.add(fold(spelled))
        out[fight_id] = (spelled, fold(spelled))
    return out


def upgrade() -> None:
    bind = op.get_bind()
    op.add_column(TABLE, sa.Column('name_key', sa.String(), nullable=True))
    op.add_column(TABLE, sa.Column('version', sa.Integer(), nullable=False, server_default='0'))
    rows = [(i, n) for i, n in bind.exec_driver_sql("SELECT id, name FROM fight ORDER BY id").all()]
    for fight_id, (name, key) in folded_names(rows).items():
        bind.execute(sa.text("UPDATE fight SET name = :name, name_key = :key WHERE id = :id"),
                     {"name": name, "key": key, "id": fight_id})
    with _views_triggers_and_indexes_set_aside():
        with op.batch_alter_table(TABLE, recreate=_recreate(), table_kwargs={"sqlite_autoincrement": True}) as batch:
            batch.alter_column('name_key', existing_type=sa.String(), nullable=False)
            # SQLite's reflection does not see a column's collation: said again, or the copy loses it
            batch.alter_column('name', existing_type=sa.String(collation='NOCASE'), type_=sa.String(collation='NOCASE'),
                               existing_nullable=False)
            batch.drop_constraint(op.f('uq_fight_name'), type_='unique')
            batch.create_unique_constraint(op.f('uq_fight_name_key'), ['name_key'])


def downgrade() -> None:
    run = op.get_bind().exec_driver_sql
    alike = run("SELECT count(*) FROM (SELECT name FROM fight GROUP BY name HAVING count(*) > 1) AS twice").scalar()
    if alike:
        raise DatabaseError(f"cannot downgrade below 0013: {alike} name{'s' if alike > 1 else ''} of fights "
                            "differ only in letter case; remove all but one of each first (nothing changed)")
    with _views_triggers_and_indexes_set_aside():
        with op.batch_alter_table(TABLE, recreate=_recreate(), table_kwargs={"sqlite_autoincrement": False}) as batch:
            batch.alter_column('name', existing_type=sa.String(collation='NOCASE'), type_=sa.String(collation='NOCASE'),
                               existing_nullable=False)
            batch.drop_constraint(op.f('uq_fight_name_key'), type_='unique')
            batch.create_unique_constraint(op.f('uq_fight_name'), ['name'])
            batch.drop_column('version')
            batch.drop_column('name_key')
