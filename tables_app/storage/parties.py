"""Parties in the database (models.Party): a roster of combatants' definitions
saved from a fight, joined to another in one command. Every statement about
parties is here."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from tables_app.storage.fights import now


@dataclass(frozen=True)
class PartyRow:
    name: str
    members: list[dict[str, Any]]  # each member as a join event keeps its combatant (domain/fights/events.py)
    saved_at: str


def find(connection: sqlite3.Connection, name: str) -> PartyRow | None:
    """The party named ``name`` in any letter case."""
    row = connection.execute("SELECT name, members, saved_at FROM party WHERE name = ?", (name,)).fetchone()
    return None if row is None else PartyRow(row[0], json.loads(row[1]), row[2])


def names(connection: sqlite3.Connection) -> list[str]:
    return [name for (name,) in connection.execute("SELECT name FROM party ORDER BY name")]


def listing(connection: sqlite3.Connection) -> list[PartyRow]:
    return [PartyRow(name, json.loads(members), saved_at) for name, members, saved_at in connection.execute(
        "SELECT name, members, saved_at FROM party ORDER BY name")]


def save(connection: sqlite3.Connection, name: str, members: list[dict[str, Any]]) -> bool:
    """Save the party, replacing one of the same name (any letter case, which keeps its own spelling);
    whether it replaced one."""
    data = json.dumps(members, ensure_ascii=False)
    replaced = connection.execute("UPDATE party SET members = ?, saved_at = ? WHERE name = ?", (data, now(), name)).rowcount
    if not replaced:
        connection.execute("INSERT INTO party (name, members, saved_at) VALUES (?, ?, ?)", (name, data, now()))
    return bool(replaced)


def delete(connection: sqlite3.Connection, name: str) -> None:
    connection.execute("DELETE FROM party WHERE name = ?", (name,))
