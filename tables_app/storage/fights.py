"""Fights in the database: each one a row and its log of events (models.Fight,
models.FightEvent). Every statement about fights is here.

Writes append to a log only after the log read (``after``, its last
``seq``): if another writer appended in between, FightChanged, and nothing
is written. The check runs under the write lock, and the unique (fight,
seq) refuses a second append of the same number whatever happens.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from tables_app.errors import FightChanged

@dataclass(frozen=True)
class FightRow:
    id: int
    name: str
    ruleset: str | None
    created_at: str


@dataclass(frozen=True)
class LoggedEvent:
    seq: int
    data: dict[str, Any]  # the event's JSON (domain/fights/events.py), with its kind
    at: str


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def find(connection: sqlite3.Connection, name: str) -> FightRow | None:
    """The fight named ``name`` in any letter case."""
    row = connection.execute("SELECT id, name, ruleset, created_at FROM fight WHERE name = ?", (name,)).fetchone()
    return None if row is None else FightRow(*row)


def names(connection: sqlite3.Connection) -> list[str]:
    return [name for (name,) in connection.execute("SELECT name FROM fight ORDER BY name")]


def listing(connection: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every fight: its name, ruleset, when it began, how many events, the last one's time."""
    rows = connection.execute(
        "SELECT f.name, f.ruleset, f.created_at, count(e.id), max(e.at) FROM fight f "
        "LEFT JOIN fight_event e ON e.fight_id = f.id GROUP BY f.id ORDER BY f.name")
    return [{"name": name, "ruleset": ruleset, "created_at": created, "events": count, "last_event_at": last}
            for name, ruleset, created, count, last in rows]


def armor_codes(connection: sqlite3.Connection) -> list[str]:
    """Every armor column's code of every attack table (what a combatant's armor must be one of)."""
    return [code for (code,) in connection.execute("SELECT DISTINCT code FROM armor_column ORDER BY code")]


def events(connection: sqlite3.Connection, fight_id: int) -> list[LoggedEvent]:
    return [LoggedEvent(seq, json.loads(data), at) for seq, data, at in connection.execute(
        "SELECT seq, data, at FROM fight_event WHERE fight_id = ? ORDER BY seq", (fight_id,))]


def create(connection: sqlite3.Connection, name: str, ruleset: str | None) -> None:
    connection.execute("INSERT INTO fight (name, ruleset, created_at) VALUES (?, ?, ?)", (name, ruleset, now()))


def _last_seq(connection: sqlite3.Connection, fight_id: int) -> int:
    return connection.execute("SELECT coalesce(max(seq), 0) FROM fight_event WHERE fight_id = ?", (fight_id,)).fetchone()[0]


def changed(name: str, last: int, after: int) -> FightChanged:
    """The fight's log is at event ``last``, not at ``after`` as the writer read it."""
    return FightChanged(f"the fight {name!r} changed (its log is at event {last}, not {after}): show it again, then retry")


def _current(connection: sqlite3.Connection, name: str, after: int) -> FightRow:
    fight = find(connection, name)
    if fight is None:
        raise FightChanged(f"the fight {name!r} was removed meanwhile")
    last = _last_seq(connection, fight.id)
    if last != after:
        raise changed(fight.name, last, after)
    return fight


def append(connection: sqlite3.Connection, name: str, after: int, added: Iterable[dict[str, Any]]) -> None:
    """Append ``added`` (events' JSON, each with its ``kind``) after event
    ``after``; FightChanged if the log is no longer at ``after``."""
    fight = _current(connection, name, after)
    at = now()
    for seq, data in enumerate(added, start=after + 1):
        try:
            connection.execute("INSERT INTO fight_event (fight_id, seq, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                               (fight.id, seq, data["kind"], json.dumps(data, ensure_ascii=False), at))
        except sqlite3.IntegrityError:  # another writer took this number (a database without the lock's order)
            raise FightChanged(f"the fight {fight.name!r} changed: show it again, then retry") from None


def drop_since(connection: sqlite3.Connection, name: str, first: int, after: int) -> None:
    """Remove events ``first`` to ``after``, the last one (one write's events: one undo); FightChanged if
    ``after`` is not the last."""
    fight = _current(connection, name, after)
    connection.execute("DELETE FROM fight_event WHERE fight_id = ? AND seq >= ? AND seq <= ?", (fight.id, first, after))


def delete(connection: sqlite3.Connection, name: str, after: int | None = None) -> None:
    """Remove the fight and its log; with ``after``, FightChanged unless the log is still at that event."""
    fight = _current(connection, name, after) if after is not None else find(connection, name)
    if fight is not None:
        connection.execute("DELETE FROM fight WHERE id = ?", (fight.id,))
