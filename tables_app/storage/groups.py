"""Groups in the database (models.FightGroup): who shares a server's fights
and parties, each known by the hash of its token. Every statement about
groups is here; which fights and parties a group sees is storage/fights.py's
and storage/parties.py's (their ``group_id``)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from tables_app.storage.fights import now


@dataclass(frozen=True)
class GroupRow:
    id: int
    name: str
    has_token: bool  # False once revoked, until a new token is made
    created_at: str




def _row(found: Any) -> GroupRow | None:
    return None if found is None else GroupRow(found[0], found[1], bool(found[2]), found[3])


def find(connection: sqlite3.Connection, key: str) -> GroupRow | None:
    """The group whose name folds to ``key`` (domain.names.fold)."""
    return _row(connection.execute("SELECT id, name, token_hash IS NOT NULL, created_at FROM fight_group "
                                   "WHERE name_key = ?", (key,)).fetchone())


def by_token(connection: sqlite3.Connection, token_hash: str) -> GroupRow | None:
    """The group whose token hashes to ``token_hash`` (None: no group's, or revoked)."""
    return _row(connection.execute("SELECT id, name, token_hash IS NOT NULL, created_at FROM fight_group "
                                   "WHERE token_hash = ?", (token_hash,)).fetchone())


def names(connection: sqlite3.Connection) -> list[str]:
    return [name for (name,) in connection.execute("SELECT name FROM fight_group ORDER BY name_key")]


def listing(connection: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every group: its name, whether it has a token, when it was made, how many fights and parties it has."""
    rows = connection.execute(
        "SELECT g.name, g.token_hash IS NOT NULL, g.created_at, "
        "(SELECT count(*) FROM fight f WHERE f.group_id = g.id), (SELECT count(*) FROM party p WHERE p.group_id = g.id) "
        "FROM fight_group g ORDER BY g.name_key")
    return [{"group": name, "token": bool(token), "created_at": created, "fights": fights, "parties": parties}
            for name, token, created, fights, parties in rows]


def any_group(connection: sqlite3.Connection) -> bool:
    return connection.execute("SELECT 1 FROM fight_group LIMIT 1").fetchone() is not None


def create(connection: sqlite3.Connection, name: str, key: str, token_hash: str) -> None:
    connection.execute("INSERT INTO fight_group (name, name_key, token_hash, created_at) VALUES (?, ?, ?, ?)",
                       (name, key, token_hash, now()))


def set_token(connection: sqlite3.Connection, group_id: int, token_hash: str | None) -> None:
    """A new token for the group (the old one stops working at once), or none (revoked)."""
    connection.execute("UPDATE fight_group SET token_hash = ? WHERE id = ?", (token_hash, group_id))
