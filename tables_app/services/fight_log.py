"""A fight's log, read and written (docs/fights.md, "The log is the fight"):
the fight found by its name (the rule of names, within the database's
group), its log read in one snapshot with the row's id and version, the
fight replayed from it; events appended after the log read, checked
against that exact log under the write lock (storage/fights.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tables_app.domain.fights import (
    Event, Fight, FightRuleError, apply, event_json, event_of,
)
from tables_app.domain.names import is_utf8
from tables_app.errors import FightChanged, NotFound, TablesError
from tables_app.storage import fights as store
from tables_app.storage.database import Database


MAX_EVENTS = 100_000  # events of one fight: far past any evening's fight, and what a replay reads in a moment


LOG_PAGE = 1_000  # events `fight log` gives at once unless asked (a long log is read a page at a time)


MAX_LOG_PAGE = 10_000  # ... and at most


@dataclass(frozen=True)
class Loaded:
    """A fight as its log makes it: the state after every event; ``seq`` the last event's."""

    row: store.FightRow
    logged: tuple[store.LoggedEvent, ...]
    fight: Fight

    @property
    def seq(self) -> int:
        return self.logged[-1].seq if self.logged else 0


def _replayed(row: store.FightRow, logged: list[store.LoggedEvent], upto: int | None = None) -> Fight:
    fight, broken = replayed_as_far(row, logged, upto)
    if broken is not None:
        raise TablesError(broken)
    return fight


def replayed_as_far(row: store.FightRow, logged: list[store.LoggedEvent] | tuple[store.LoggedEvent, ...],
                     upto: int | None = None) -> tuple[Fight, str | None]:
    """The fight after its log's events (to ``upto``), and None; or, when an event does not replay, the fight
    before it and why (the one line a refusal says)."""
    fight = Fight(row.name, row.ruleset)
    for event in logged:
        if upto is not None and event.seq > upto:
            break
        try:
            fight = apply(fight, event_of(event.data))
        except (KeyError, TypeError, ValueError) as exc:  # FightRuleError is a ValueError
            return fight, (f"fight {row.name!r}: its log does not replay at event {event.seq} ({exc}); "
                           "undo back past it, or remove the fight")
    return fight, None


def fight_row(connection: Any, name: str, group: int) -> store.FightRow:
    """The fight of ``group`` ``name`` names (the rule of names); NotFound, with the closest names, if none."""
    row = store.find(connection, name, group)
    if row is None:
        if not is_utf8(name):
            raise NotFound(f"no fight named {name!r} (its bytes are not UTF-8; no name can be)")
        known = store.names(connection, group)
        raise NotFound.unknown(f"no fight named {name!r}", name, known,
                               f"fights: {', '.join(known)}" if known else "there are none: tables fight new NAME")
    return row


def read_log(database: Database, name: str, accounts: bool = True,
          page: tuple[int, int] | None = None) -> tuple[store.FightRow, tuple[store.LoggedEvent, ...]]:
    """The fight's row (its id and version) and its whole log, read in one snapshot: what a write is checked
    against. Without ``accounts``, attacks without their resolved account (a replay's reading), but for the
    events of ``page`` (first, limit), read whole."""
    with database.snapshot() as connection:
        row = fight_row(connection, name, database.group)
        try:
            logged = store.events(connection, row.id, accounts=accounts)
            if page is not None and not accounts:
                whole = {e.seq: e for e in store.events(connection, row.id, *page)}
                logged = [whole.get(e.seq, e) for e in logged]
        except ValueError as exc:  # an event's JSON changed by hand
            raise TablesError(f"fight {row.name!r}: an event of its log is not JSON ({exc}); remove the fight") from None
    return row, tuple(logged)


def load(database: Database, name: str, upto: int | None = None) -> Loaded:
    """The fight ``name`` names (by the rule of names), replayed (to event ``upto`` if given); the attacks of
    its ``logged`` events may lack their resolved account (a replay does not read it: `fight log` does)."""
    row, logged = read_log(database, name, accounts=False)
    return Loaded(row, logged, _replayed(row, list(logged), upto))


def written(database: Database, loaded: Loaded, events: list[Event], command: str | None = None) -> list[Fight]:
    """``events`` applied to the fight (FightRuleError refused, nothing
    written), then appended after the log read (the caller has checked its
    ``after`` first: check_after); the fight after each of them.

    The events of one write are one undo: each is kept with the ``command``
    that wrote them (`round --auto`; by default the first event's kind) and
    its ``group``, the first of them's number (undo drops the whole group)."""
    states = [loaded.fight]
    for event in events:
        states.append(applied(states[-1], event))
    if loaded.seq + len(events) > MAX_EVENTS:
        raise TablesError(f"fight {loaded.row.name!r} has {MAX_EVENTS:,} events, the most a fight keeps: start a new one")
    kept = [event_json(e) for e in events]
    written_by = {"command": command or (kept[0]["kind"] if kept else ""), "group": loaded.seq + 1}
    with database.writing(commit=True, breaking="the fight's log") as connection:
        store.append(connection, loaded.row, loaded.seq, [{**data, **written_by} for data in kept])
    return states[1:]


def check_after(loaded: Loaded, after: int | None, version: int | None = None) -> None:
    """FightChanged when the caller saw another log than the one read: behind
    it (another writer won), or past its end (another writer undid events the
    caller saw: the log was longer when it looked; which, no one can tell);
    with ``version`` (the fight's, as the caller saw it), any write since,
    even one undone and written again up to the same event."""
    check_seq(loaded.row, loaded.seq, after, version)


def check_seq(row: store.FightRow, seq: int, after: int | None, version: int | None = None) -> None:
    if after is not None and after != seq:
        raise store.changed(row.name, seq, after)
    if version is not None and version != row.version:
        raise FightChanged(f"the fight {row.name!r} changed (its version is {row.version}, not {version}: written "
                           "since, perhaps undone and written again): show it again, then retry")


def applied(fight: Fight, event: Event) -> Fight:
    try:
        return apply(fight, event)
    except FightRuleError as exc:
        raise TablesError(str(exc)) from None


__all__ = ["LOG_PAGE", "Loaded", "MAX_EVENTS", "MAX_LOG_PAGE", "load"]
