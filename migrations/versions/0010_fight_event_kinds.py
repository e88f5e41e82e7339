"""fight events of two more kinds: ``adjust`` (a combatant's state changed by
so much: `fight adjust`, `heal`, `damage`) and ``leave`` (a combatant left
the fight)

``fight_event.kind``'s CHECK takes them. The table is rebuilt on SQLite
(batch mode: a CHECK cannot be altered in place), every view, trigger and
index set aside and put back as written (0003's recipe); PostgreSQL alters
the constraint in place. Downgrading is refused while an event of either
kind is kept (0009 cannot hold it).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07 10:00:00
"""
from contextlib import contextmanager
from typing import Iterator, Sequence, Union

from alembic import op

from tables_app.errors import DatabaseError


revision: str = '0010'
down_revision: Union[str, None] = '0009'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None

KINDS_0009 = ("join", "attack", "round", "edit")
ADDED = ("adjust", "leave")
TABLE = "fight_event"
CHECK = "ck_fight_event_kind"


def _recreate() -> str:
    # SQLite alters a table by copying it (batch mode); PostgreSQL alters it in place.
    return "always" if op.get_bind().dialect.name == "sqlite" else "auto"


@contextmanager
def _views_triggers_and_indexes_set_aside() -> Iterator[None]:
    # SQLite will not rename a rebuilt table into place under a view or a
    # trigger that names it, and dropping a table drops its triggers and
    # indexes: each is set aside exactly as written and put back afterwards,
    # in the order it was made (0002's and 0003's recipe).
    if op.get_bind().dialect.name != "sqlite":  # PostgreSQL alters in place, under its views
        yield
        return
    run = op.get_bind().exec_driver_sql  # verbatim: a user's SQL may hold colons
    kept = run("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND "
               "(type IN ('view', 'trigger') OR (type = 'index' AND tbl_name = ?)) ORDER BY rowid", (TABLE,)).all()
    for kind, name, _ in reversed(kept):
        quoted = name.replace('"', '""')
        run(f'DROP {kind.upper()} "{quoted}"')
    yield
    for _, _, sql in kept:
        run(sql)


def _checked(kinds: tuple[str, ...]) -> None:
    rule = " OR ".join(f"kind = '{kind}'" for kind in kinds)
    with _views_triggers_and_indexes_set_aside():
        with op.batch_alter_table(TABLE, recreate=_recreate()) as batch_op:
            batch_op.drop_constraint(op.f(CHECK), type_="check")
            batch_op.create_check_constraint(op.f(CHECK), rule)


def upgrade() -> None:
    _checked((*KINDS_0009, *ADDED))


def downgrade() -> None:
    marks = " OR ".join(f"kind = '{kind}'" for kind in ADDED)
    count = op.get_bind().exec_driver_sql(f"SELECT count(*) FROM {TABLE} WHERE {marks}").scalar()
    if count:
        raise DatabaseError(f"cannot downgrade below 0010: the fights' logs hold {count} event{'' if count == 1 else 's'} of kind "
                            f"{' or '.join(ADDED)}; undo them or remove those fights first (nothing changed)")
    _checked(KINDS_0009)
