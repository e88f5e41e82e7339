"""Which armor column of an attack table a code means. Its own module: an
attack's preparation (services/attacks.py) needs it, and the look-ups'
answer types and JSON (services/lookups.py) are no part of a resolve,
odds or simulation's start-up."""

from __future__ import annotations

from tables_app.domain.tables import AttackTable
from tables_app.errors import NotFound


def armor_column(table: AttackTable, armor: str) -> int:
    """The index of an armor column; NotFound with the near codes if none."""
    column = table.column(armor)
    if column is None:
        raise unknown_armor(table.name, table.armors, armor)
    return column


def unknown_armor(table: str, armors: tuple[str, ...], armor: str) -> NotFound:
    return NotFound.unknown(f"attack table {table!r} has no armor column {armor!r}", armor, armors, f"columns: {', '.join(armors)}")
