"""Fights in the database: each one a row and its log of events (models.Fight,
models.FightEvent). Every statement about fights is here.

A fight is found by its name folded by the rule of names (``name_key``,
domain/names.fold), on both databases alike. Every write of a log (an
append, an undo) bumps the fight's ``version``; a writer names the fight
it read by its id and that version (FightRow, read in the same snapshot as
the log), and if either changed since (another writer appended, undid and
wrote again at the same number, removed the fight or made a new one of the
same name), FightChanged, and nothing is written. The check runs under the
write lock, as one compare-and-set (UPDATE ... WHERE version = read), ids
are never given twice (AUTOINCREMENT, a sequence), and the unique (fight,
seq) refuses a second append of the same number whatever happens.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from tables_app.domain.names import fold, is_utf8
from tables_app.errors import FightChanged
from tables_app.storage.dialect import on_server


@dataclass(frozen=True)
class FightRow:
    id: int
    name: str
    ruleset: str | None
    created_at: str
    version: int = 0  # its log's version when read (every write bumps it)


@dataclass(frozen=True)
class LoggedEvent:
    seq: int
    data: dict[str, Any]  # the event's JSON (domain/fights/events.py), with its kind
    at: str


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def find(connection: sqlite3.Connection, name: str, group: int) -> FightRow | None:
    """The fight of ``group`` (0: the operator's) ``name`` names by the rule of names (any letter case, any
    compatibility form)."""
    key = fold(name)
    if not is_utf8(key):  # lone surrogates (bytes of the command line that are not UTF-8): no name is one
        return None
    row = connection.execute("SELECT id, name, ruleset, created_at, version FROM fight WHERE group_id = ? AND name_key = ?",
                             (group, key)).fetchone()
    return None if row is None else FightRow(*row)


def names(connection: sqlite3.Connection, group: int) -> list[str]:
    return [name for (name,) in connection.execute("SELECT name FROM fight WHERE group_id = ? ORDER BY name", (group,))]


def listing(connection: sqlite3.Connection, group: int) -> list[dict[str, Any]]:
    """Every fight of ``group``: its name, ruleset, when it began, how many events, the last one's time."""
    rows = connection.execute(
        "SELECT f.name, f.ruleset, f.created_at, count(e.id), max(e.at) FROM fight f "
        "LEFT JOIN fight_event e ON e.fight_id = f.id WHERE f.group_id = ? GROUP BY f.id ORDER BY f.name", (group,))
    return [{"name": name, "ruleset": ruleset, "created_at": created, "events": count, "last_event_at": last}
            for name, ruleset, created, count, last in rows]


def armor_codes(connection: sqlite3.Connection) -> list[str]:
    """Every armor column's code of every attack table (what a combatant's armor must be one of)."""
    return [code for (code,) in connection.execute("SELECT DISTINCT code FROM armor_column ORDER BY code")]


def events(connection: sqlite3.Connection, fight_id: int, first: int = 1, limit: int | None = None,
           accounts: bool = True) -> list[LoggedEvent]:
    """The log's events from number ``first`` on (``limit`` of them at most: all); without ``accounts``, an
    attack's may lack its ``resolved`` account (what a replay reads, not what the log says)."""
    statement = _EVENTS[accounts or on_server(connection), limit is not None]
    args = (fight_id, first) if limit is None else (fight_id, first, limit)
    return [LoggedEvent(seq, json.loads(text), at) for seq, text, at in connection.execute(statement, args)]


# (whole, bounded): the statement events() runs. Not whole: an event's JSON without an attack's resolved
# account (``resolved``), which a replay does not read: half of a long log's bytes, and of the time and memory
# its reading takes (bench/fight_long_log.py). SQLite drops it before Python parses the text; PostgreSQL could
# only by casting to jsonb, which refuses a log changed by hand with an error of its own: there the whole text
# is read.
_EVENTS = {
    (True, False): "SELECT seq, data, at FROM fight_event WHERE fight_id = ? AND seq >= ? ORDER BY seq",
    (True, True): "SELECT seq, data, at FROM fight_event WHERE fight_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
    (False, False): "SELECT seq, CASE WHEN json_valid(data) THEN json_remove(data, '$.resolved') ELSE data END, at "
                    "FROM fight_event WHERE fight_id = ? AND seq >= ? ORDER BY seq",
    (False, True): "SELECT seq, CASE WHEN json_valid(data) THEN json_remove(data, '$.resolved') ELSE data END, at "
                   "FROM fight_event WHERE fight_id = ? AND seq >= ? ORDER BY seq LIMIT ?",
}


def last_seq(connection: sqlite3.Connection, fight_id: int) -> int:
    return connection.execute("SELECT coalesce(max(seq), 0) FROM fight_event WHERE fight_id = ?", (fight_id,)).fetchone()[0]


def create(connection: sqlite3.Connection, name: str, ruleset: str | None, group: int) -> None:
    connection.execute("INSERT INTO fight (group_id, name, name_key, version, ruleset, created_at) "
                       "VALUES (?, ?, ?, 0, ?, ?)", (group, name, fold(name), ruleset, now()))


def changed(name: str, last: int, after: int) -> FightChanged:
    """The fight's log is at event ``last``, not at ``after`` as the writer read it."""
    return FightChanged(f"the fight {name!r} changed (its log is at event {last}, not {after}): show it again, then retry")


def _claimed(connection: sqlite3.Connection, fight: FightRow, after: int) -> None:
    """The log as read (``fight``'s id and version, its last event ``after``) is still the log: its version
    bumped for the write that follows, in one statement; FightChanged (nothing written) otherwise."""
    claimed = connection.execute("UPDATE fight SET version = version + 1 WHERE id = ? AND version = ?",
                                 (fight.id, fight.version)).rowcount
    if claimed == 1:
        return
    if connection.execute("SELECT 1 FROM fight WHERE id = ?", (fight.id,)).fetchone() is None:
        raise FightChanged(f"the fight {fight.name!r} was removed meanwhile: show it again (if it was made anew), "
                           "then retry")
    last = last_seq(connection, fight.id)
    if last != after:
        raise changed(fight.name, last, after)
    raise FightChanged(f"the fight {fight.name!r} changed (its log was undone and written again up to event {last}): "
                       "show it again, then retry")


def append(connection: sqlite3.Connection, fight: FightRow, after: int, added: Iterable[dict[str, Any]]) -> None:
    """Append ``added`` (events' JSON, each with its ``kind``) after event ``after`` of the log read as
    ``fight``; FightChanged if the log changed since."""
    _claimed(connection, fight, after)
    at = now()
    for seq, data in enumerate(added, start=after + 1):
        try:
            connection.execute("INSERT INTO fight_event (fight_id, seq, kind, data, at) VALUES (?, ?, ?, ?, ?)",
                               (fight.id, seq, data["kind"], json.dumps(data, ensure_ascii=False), at))
        except sqlite3.IntegrityError:  # another writer took this number (a database without the lock's order)
            raise FightChanged(f"the fight {fight.name!r} changed: show it again, then retry") from None


def drop_since(connection: sqlite3.Connection, fight: FightRow, first: int, after: int) -> None:
    """Remove events ``first`` to ``after``, the last one (one write's events: one undo); FightChanged if
    the log changed since it was read as ``fight``."""
    _claimed(connection, fight, after)
    connection.execute("DELETE FROM fight_event WHERE fight_id = ? AND seq >= ? AND seq <= ?", (fight.id, first, after))


def delete(connection: sqlite3.Connection, fight: FightRow, after: int | None = None) -> None:
    """Remove the fight read as ``fight`` and its log; with ``after``, FightChanged unless its log is still the
    one read (without, whatever it holds now: FightChanged only if it was removed meanwhile)."""
    if after is not None:
        _claimed(connection, fight, after)
    if connection.execute("DELETE FROM fight WHERE id = ?", (fight.id,)).rowcount != 1:
        raise FightChanged(f"the fight {fight.name!r} was removed meanwhile")


def unreplayable(connection: sqlite3.Connection, limit: int) -> list[str]:
    """Fights whose log does not replay (`tables db check`): which, at which event, and why; ``limit`` at most."""
    from tables_app.domain.fights import Fight, apply, event_of

    found = []
    for fight_id, name, ruleset in connection.execute("SELECT id, name, ruleset FROM fight ORDER BY id").fetchall():
        fight = Fight(name, ruleset)
        expected = 1
        for seq, data in connection.execute("SELECT seq, data FROM fight_event WHERE fight_id = ? ORDER BY seq",
                                            (fight_id,)):
            why = None
            if seq != expected:
                why = f"event {expected} is missing"
            else:
                try:
                    fight = apply(fight, event_of(json.loads(data)))
                except (KeyError, TypeError, ValueError) as exc:  # FightRuleError and bad JSON are ValueErrors
                    why = f"{exc}"
            if why is not None:
                found.append(f"fight {name!r}: its log does not replay at event {seq} ({why}); "
                             "undo back past it, or remove the fight")
                break
            expected += 1
        if len(found) >= limit:
            break
    return found
