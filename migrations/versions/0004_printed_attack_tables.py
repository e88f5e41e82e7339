"""printed attack tables: automatic miss per table, UM rows, F cells, several criticals, no cap

Published Rolemaster attack tables read every row (no automatic miss), have
rows matched on the unmodified roll (`UM 96-100`), cells that fumble (`F`)
and cells with several criticals (`36 E Heat + A Impact`); a weapon may
have no Max Result.

- ``attack_table.automatic_miss``: 10 for every existing table (as before),
  NULL for none.
- ``attack_row.unmodified``: false for every existing row.
- ``attack_cell.outcome`` may be ``fumble`` (the table is rebuilt for its CHECK).
- ``attack_cell_critical``: a cell's second and further criticals.
- ``weapon.max_result`` may be NULL (the table is rebuilt).

Downgrading is refused while a row uses any of these (0003 cannot hold it).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 23:40:00
"""
from contextlib import contextmanager
from typing import Iterator, Sequence, Union

import sqlalchemy as sa
from alembic import op

from tables_app.errors import DatabaseError


revision: str = '0004'
down_revision: Union[str, None] = '0003'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def _recreate() -> str:
    # SQLite alters a table by copying it (batch mode); PostgreSQL alters it in place.
    return "always" if op.get_bind().dialect.name == "sqlite" else "auto"

OUTCOMES_BEFORE = ("miss", "no_damage", "hit", "critical")
OUTCOMES_AFTER = (*OUTCOMES_BEFORE, "fumble")
REBUILT = ["attack_cell", "weapon"]


@contextmanager
def _views_triggers_and_indexes_set_aside(tables: list[str]) -> Iterator[None]:
    # As in 0002 and 0003: SQLite will not rename a rebuilt table into place
    # under a view or trigger that names it, and dropping a table drops its
    # triggers and indexes; set every one aside exactly as written, put back after.
    if op.get_bind().dialect.name != "sqlite":  # PostgreSQL alters in place, under its views
        yield
        return
    marks = ", ".join("?" * len(tables))
    run = op.get_bind().exec_driver_sql
    kept = run(
        "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND "
        f"(type IN ('view', 'trigger') OR (type = 'index' AND tbl_name IN ({marks}))) ORDER BY rowid", tuple(tables)).all()
    for kind, name, _ in reversed(kept):
        quoted = name.replace('"', '""')
        run(f'DROP {kind.upper()} "{quoted}"')
    yield
    for _, _, sql in kept:
        run(sql)


def _outcome_rule(values: tuple[str, ...]) -> str:
    return " OR ".join(f"outcome = '{value}'" for value in values)  # ORs, as 0002 made them


def _rebuild(as_printed: bool) -> None:
    outcomes = OUTCOMES_AFTER if as_printed else OUTCOMES_BEFORE
    with op.batch_alter_table("attack_cell", recreate=_recreate()) as batch_op:
        batch_op.drop_constraint(op.f("ck_attack_cell_outcome"), type_="check")
        batch_op.create_check_constraint(op.f("ck_attack_cell_outcome"), _outcome_rule(outcomes))
    # Reflection loses the name's collation: restate it (as 0002 does).
    name = [sa.Column("name", sa.String(collation="NOCASE"), nullable=False)]
    with op.batch_alter_table("weapon", recreate=_recreate(), reflect_args=name) as batch_op:
        batch_op.alter_column("max_result", existing_type=sa.Integer(), nullable=as_printed)


def upgrade() -> None:
    op.add_column("attack_table", sa.Column("automatic_miss", sa.Integer(), nullable=True))
    op.get_bind().exec_driver_sql("UPDATE attack_table SET automatic_miss = 10")
    op.add_column("attack_row", sa.Column("unmodified", sa.Boolean(), nullable=False, server_default=sa.false()))
    with _views_triggers_and_indexes_set_aside(REBUILT):
        _rebuild(as_printed=True)
    op.create_table(
        "attack_cell_critical",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("cell_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("severity_id", sa.Integer(), nullable=False),
        sa.Column("critical_table_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["cell_id"], ["attack_cell.id"], name=op.f("fk_attack_cell_critical_cell_id_attack_cell"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["critical_table_id"], ["critical_table.id"],
                                name=op.f("fk_attack_cell_critical_critical_table_id_critical_table")),
        sa.ForeignKeyConstraint(["severity_id"], ["severity.id"], name=op.f("fk_attack_cell_critical_severity_id_severity")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attack_cell_critical")),
        sa.UniqueConstraint("cell_id", "position", name=op.f("uq_attack_cell_critical_cell_id_position")),
    )


def _refuse_what_0003_cannot_hold() -> None:
    run = op.get_bind().exec_driver_sql
    uses = {
        "attack tables without the automatic miss at 10": "SELECT count(*) FROM attack_table WHERE automatic_miss IS NULL OR automatic_miss != 10",
        "UM rows": "SELECT count(*) FROM attack_row WHERE unmodified",
        "F cells": "SELECT count(*) FROM attack_cell WHERE outcome = 'fumble'",
        "cells with several criticals": "SELECT count(DISTINCT cell_id) FROM attack_cell_critical",
        "weapons without a Max Result": "SELECT count(*) FROM weapon WHERE max_result IS NULL",
    }
    found = ", ".join(f"{count} {what}" for what, sql in uses.items() if (count := run(sql).scalar()))
    if found:
        raise DatabaseError(f"cannot downgrade below 0004: the tables use printed layouts ({found}); "
                            "remove those workbooks first (nothing changed)")


def downgrade() -> None:
    _refuse_what_0003_cannot_hold()
    op.drop_table("attack_cell_critical")
    name = [sa.Column("name", sa.String(collation="NOCASE"), nullable=False)]
    with _views_triggers_and_indexes_set_aside([*REBUILT, "attack_row", "attack_table"]):
        _rebuild(as_printed=False)
        with op.batch_alter_table("attack_row", recreate=_recreate()) as batch_op:
            batch_op.drop_column("unmodified")
        with op.batch_alter_table("attack_table", recreate=_recreate(), reflect_args=name) as batch_op:
            batch_op.drop_column("automatic_miss")
