"""Parties in the database (models.Party): a roster of combatants' definitions
saved from a fight, joined to another in one command. Every statement about
parties is here."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from tables_app.domain.names import fold, is_utf8
from tables_app.storage.fights import now


@dataclass(frozen=True)
class PartyRow:
    name: str
    members: list[dict[str, Any]]  # each member as a join event keeps its combatant (domain/fights/events.py)
    saved_at: str


def find(connection: sqlite3.Connection, name: str, group: int) -> PartyRow | None:
    """The party of ``group`` (0: the operator's) named ``name`` by the rule of names (any letter case)."""
    key = fold(name)
    if not is_utf8(key):  # lone surrogates (bytes of the command line that are not UTF-8): no name is one
        return None
    row = connection.execute("SELECT name, members, saved_at FROM party WHERE group_id = ? AND name_key = ?",
                             (group, key)).fetchone()
    return None if row is None else PartyRow(row[0], json.loads(row[1]), row[2])


def names(connection: sqlite3.Connection, group: int) -> list[str]:
    return [name for (name,) in connection.execute("SELECT name FROM party WHERE group_id = ? ORDER BY name", (group,))]


def listing(connection: sqlite3.Connection, group: int) -> list[PartyRow]:
    return [PartyRow(name, json.loads(members), saved_at) for name, members, saved_at in connection.execute(
        "SELECT name, members, saved_at FROM party WHERE group_id = ? ORDER BY name", (group,))]


def save(connection: sqlite3.Connection, name: str, members: list[dict[str, Any]], group: int) -> bool:
    """Save the party of ``group``, replacing one of the same name (by the rule of names, which keeps its own
    spelling); whether it replaced one."""
    data = json.dumps(members, ensure_ascii=False)
    replaced = connection.execute("UPDATE party SET members = ?, saved_at = ? WHERE group_id = ? AND name_key = ?",
                                  (data, now(), group, fold(name))).rowcount
    if not replaced:
        connection.execute("INSERT INTO party (group_id, name, name_key, members, saved_at) VALUES (?, ?, ?, ?, ?)",
                           (group, name, fold(name), data, now()))
    return bool(replaced)


def delete(connection: sqlite3.Connection, name: str, group: int) -> None:
    connection.execute("DELETE FROM party WHERE group_id = ? AND name_key = ?", (group, fold(name)))
