"""The fight operations (docs/fights.md): a fight is read from its log,
replayed with the domain's rules (domain/fights), and written back by
appending events, after the log it read.

An attack is looked up and resolved as `resolve table` does it
(services/attacks.py), with the fight's CMB and DEF; the resolved account
and the blow it deals are recorded in the event, never recomputed.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Callable

from tables_app.domain.fights import (
    Adjust, Armament, Attack, Edit, EndRound, Event, Fight, Fighter, FightRuleError, Join, Leave, apply, event_json, event_of, skipped,
)
from tables_app.domain.fights.rules import over_refusal, pending, turn_target, whose_turn
from tables_app.domain.fights.account import (
    account, crippled_words, dice_line, event_words, shown_line, side_counts, sides_line, status_line, status_words,
    turn_line,
)
from tables_app.domain.fights.rules import turn_weapon
from tables_app.domain.fights.state import Combatant
from tables_app.domain.names import fold
from tables_app.domain.tables import Rank
from tables_app.errors import Ambiguous, NotFound, Offered, TablesError, UsageMistake
from tables_app.services.fight_attacks import check_enough, refuse_unused, resolve_in_fight
from tables_app.storage import fights as store
from tables_app.storage.database import Database


MAX_NAME = 200  # characters of a fight's or a combatant's name
MAX_EVENTS = 100_000  # events of one fight: far past any evening's fight, and what a replay reads in a moment
LOG_PAGE = 1_000  # events `fight log` gives at once unless asked (a long log is read a page at a time)
MAX_LOG_PAGE = 10_000  # ... and at most


# ------------------------------------------------------------------ reading
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
    fight, broken = _replayed_as_far(row, logged, upto)
    if broken is not None:
        raise TablesError(broken)
    return fight


def _replayed_as_far(row: store.FightRow, logged: list[store.LoggedEvent] | tuple[store.LoggedEvent, ...],
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


def _row(connection: Any, name: str, group: int) -> store.FightRow:
    """The fight of ``group`` ``name`` names (the rule of names); NotFound, with the closest names, if none."""
    row = store.find(connection, name, group)
    if row is None:
        if not _utf8(name):
            raise NotFound(f"no fight named {name!r} (its bytes are not UTF-8; no name can be)")
        known = store.names(connection, group)
        raise NotFound.unknown(f"no fight named {name!r}", name, known,
                               f"fights: {', '.join(known)}" if known else "there are none: tables fight new NAME")
    return row


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: bytes of the command line that are not UTF-8
        return False
    return True


def _read(database: Database, name: str, accounts: bool = True,
          page: tuple[int, int] | None = None) -> tuple[store.FightRow, tuple[store.LoggedEvent, ...]]:
    """The fight's row (its id and version) and its whole log, read in one snapshot: what a write is checked
    against. Without ``accounts``, attacks without their resolved account (a replay's reading), but for the
    events of ``page`` (first, limit), read whole."""
    with database.snapshot() as connection:
        row = _row(connection, name, database.group)
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
    row, logged = _read(database, name, accounts=False)
    return Loaded(row, logged, _replayed(row, list(logged), upto))


def _written(database: Database, loaded: Loaded, events: list[Event], command: str | None = None) -> list[Fight]:
    """``events`` applied to the fight (FightRuleError refused, nothing
    written), then appended after the log read (the caller has checked its
    ``after`` first: _check_after); the fight after each of them.

    The events of one write are one undo: each is kept with the ``command``
    that wrote them (`round --auto`; by default the first event's kind) and
    its ``group``, the first of them's number (undo drops the whole group)."""
    states = [loaded.fight]
    for event in events:
        states.append(_applied(states[-1], event))
    if loaded.seq + len(events) > MAX_EVENTS:
        raise TablesError(f"fight {loaded.row.name!r} has {MAX_EVENTS:,} events, the most a fight keeps: start a new one")
    kept = [event_json(e) for e in events]
    written_by = {"command": command or (kept[0]["kind"] if kept else ""), "group": loaded.seq + 1}
    with database.writing(commit=True, breaking="the fight's log") as connection:
        store.append(connection, loaded.row, loaded.seq, [{**data, **written_by} for data in kept])
    return states[1:]


def _check_after(loaded: Loaded, after: int | None) -> None:
    """FightChanged when the caller saw another log than the one read: behind
    it (another writer won), or past its end (another writer undid events the
    caller saw: the log was longer when it looked; which, no one can tell)."""
    _check_seq(loaded.row, loaded.seq, after)


def _check_seq(row: store.FightRow, seq: int, after: int | None) -> None:
    if after is not None and after != seq:
        raise store.changed(row.name, seq, after)


def _applied(fight: Fight, event: Event) -> Fight:
    try:
        return apply(fight, event)
    except FightRuleError as exc:
        raise TablesError(str(exc)) from None


# ------------------------------------------------------------------ results
def combatant_json(c: Combatant) -> dict[str, Any]:
    n, f = c.now, c.fighter
    return {"name": c.name, "side": c.side, "hits": f.hits, "taken": c.taken, "bleed": n.bleed, "stun": n.stun,
            "no_parry": n.no_parry, "must_parry": n.must_parry, "penalty": n.penalty, "bonus": c.bonus, "dying": n.dying,
            "status": c.status.value, "def": f.defense, "armor": f.armor, "rank": f.rank.value, "parry": f.parry,
            "features": list(f.features), "creature": f.creature, "initiative": f.initiative,
            "attacks": [{"weapon": a.weapon, "cmb": a.cmb} if a.system == "table" else
                        {"weapon": a.weapon, "cmb": a.cmb, "system": a.system, "options": dict(a.options)}
                        for a in f.attacks],
            "acted": c.acted, "cannot_attack": _cannot_attack(c), "pending": pending(c),
            "words": [*status_words(c), *crippled_words(c)], "status_line": status_line(c),
            "death_at": f.death_at,
            # the rest of a critical (docs/fights.md, "The rest of a critical")
            "prone": n.prone, "knocked_out": n.knocked_out, "blinded": n.blinded, "useless_arm": n.useless_arm,
            "useless_leg": n.useless_leg, "dropped": list(n.dropped), "broken": list(n.broken),
            "timed_penalties": [{"penalty": p, "rounds": r} for p, r in n.timed_penalties],
            "attacks_with": arm.weapon if (arm := turn_weapon(c)) is not None else None}


def _cannot_attack(c: Combatant) -> str | None:
    """Why it may not attack now (None: it may): one without attacks never does (a door, a captive)."""
    return "has no attack" if c.up and not c.fighter.attacks else skipped(c)


@dataclass(frozen=True)
class FightState:
    """`fight show`: the fight after event ``seq``."""

    fight: Fight
    seq: int

    def to_json(self) -> dict[str, Any]:
        f = self.fight
        turn = whose_turn(f)
        return {"fight": f.name, "ruleset": f.ruleset, "round": f.round, "over": f.over, "winner": f.winner,
                "seq": self.seq, "turn": turn.name if turn else None,
                "sides": {side: {"up": up, "total": total} for side, (up, total) in side_counts(f).items()},
                "combatants": [combatant_json(c) for c in f.combatants], "left": self.left_json()}

    def lines(self) -> list[str]:
        """A status line per combatant (after a write)."""
        width = max((len(c.name) for c in self.fight.combatants), default=0)
        return [status_line(c, width) for c in self.fight.combatants] + self.left_lines()

    def left_json(self) -> list[dict[str, Any]]:
        """Who left the fight (no longer among its combatants), in the order they left."""
        return [{"name": f.name, "side": f.side, "creature": f.creature} for f in self.fight.left]

    def left_lines(self) -> list[str]:
        left = self.fight.left
        return [f"Left the fight: {', '.join(f'{f.name} (side {f.side})' for f in left)}."] if left else []

    def shown_lines(self) -> list[str]:
        """`fight show`'s: whose turn, the sides, then a line per combatant with its side and what counts from
        the next round marked."""
        f = self.fight
        if not f.combatants:
            return []
        width = max(len(c.name) for c in f.combatants)
        side_width = max(len(c.side) for c in f.combatants)
        turn = turn_line(f)
        return [*([turn] if turn else []), sides_line(f), *(shown_line(c, width, side_width) for c in f.combatants),
                *self.left_lines()]


@dataclass(frozen=True)
class FightStep:
    """What a write did: the events' accounts, the resolved attacks, the fight after."""

    state: FightState
    account: tuple[str, ...] = ()
    attacks: tuple[dict[str, Any], ...] = ()
    parts: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()  # each event's (attack steps, account), for people
    a_round: bool = False  # a round's: its attacks (none or more) under "attacks"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.a_round:
            data["attacks"] = list(self.attacks)
        elif self.attacks:
            data["attack"] = self.attacks[0]
        data["account"] = list(self.account)
        data["fight"] = self.state.to_json()
        return data


@dataclass(frozen=True)
class FightLog:
    """`fight log`: one page of the fight's events, ``first`` on (``limit`` at most); ``next``, the first
    event of the next page (None: this page ends the log)."""

    row: store.FightRow
    logged: tuple[store.LoggedEvent, ...]  # the whole log: an event's words need the fight before it
    first: int = 1
    limit: int = LOG_PAGE

    @property
    def seq(self) -> int:
        return self.logged[-1].seq if self.logged else 0

    @cached_property
    def page(self) -> tuple[store.LoggedEvent, ...]:
        return tuple(e for e in self.logged if e.seq >= self.first)[:self.limit]

    @property
    def next(self) -> int | None:
        page = self.page
        return page[-1].seq + 1 if page and page[-1].seq < self.seq else None

    def to_json(self) -> dict[str, Any]:
        """Each event as the log keeps it, and ``words``: its account, as `fight log` prints it."""
        return {"fight": self.row.name, "ruleset": self.row.ruleset,
                "events": [{"seq": e.seq, "at": e.at, **e.data, "words": words}
                           for e, words in zip(self.page, self._words())],
                "seq": self.seq, "next": self.next}

    def lines(self) -> list[str]:
        out = []
        for logged, words in zip(self.page, self._words()):
            out.append(f"{logged.seq:>4}  {words[0] if words else logged.data['kind']}")
            out += [f"      {line}" for line in words[1:]]
        if self.next is not None:
            out.append(f"… events {self.next} to {self.seq} follow: tables fight log {self.row.name!r} --from {self.next}")
        return out

    def _words(self) -> list[list[str]]:
        """Each event's account on the page, from the fight before and after it (an attack's dice and rows
        under its line); from an event that does not replay on, its kind and why."""
        page = self.page
        if not page:
            return []
        fight, broken = _replayed_as_far(self.row, self.logged, page[0].seq - 1)
        out = []
        for logged in page:
            if broken is not None:
                out.append([f"{logged.data.get('kind', 'an event')} (not replayed: the log breaks before it)"])
                continue
            try:
                event = event_of(logged.data)
                after = apply(fight, event)
            except (KeyError, TypeError, ValueError) as exc:  # FightRuleError is a ValueError
                broken = str(exc)
                out.append([f"{logged.data.get('kind', 'an event')}: does not replay ({exc}); undo back past it, "
                            "or remove the fight"])
                continue
            words = list(account(fight, event, after))
            if isinstance(event, Attack):  # what it read, under the attack's line
                words.insert(1, dice_line(event))
            out.append(words)
            fight = after
        return out


@dataclass(frozen=True)
class FightList:
    fights: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"fights": self.fights}


def _step(loaded: Loaded, events: list[Event], states: list[Fight], attacks: tuple[dict[str, Any], ...] = (),
          a_round: bool = False) -> FightStep:
    """What writing ``events`` did, from the fight as ``loaded`` to ``states`` (one after each event)."""
    parts = []
    steps = iter(attacks)
    for before, event, after in zip([loaded.fight, *states], events, states):
        parts.append((tuple(next(steps)["steps"]) if isinstance(event, Attack) else (), account(before, event, after)))
    return FightStep(FightState(states[-1], loaded.seq + len(events)), tuple(line for _, words in parts for line in words),
                     attacks, tuple(parts), a_round)


# ------------------------------------------------------------------ the operations
def _name(text: str, what: str) -> str:
    name = " ".join(text.split())
    if not name:
        raise UsageMistake(f"{what} must not be empty")
    if not _utf8(name):
        raise TablesError(f"{what}: its bytes are not UTF-8; no name can be (type it again as text)")
    # control characters, and the invisible ones of format (Cf): a zero-width space or a bidirectional
    # override would make two names print alike, or turn the terminal's line around
    if (control := next((ch for ch in name if unicodedata.category(ch) in ("Cc", "Cf")), None)) is not None:
        kind = "control" if unicodedata.category(control) == "Cc" else "invisible formatting"
        raise UsageMistake(f"{what} holds the {kind} character U+{ord(control):04X}: type it without")
    if len(name) > MAX_NAME:
        raise UsageMistake(f"{what} is {len(name):,} characters, more than {MAX_NAME}")
    return name


valid_name = _name  # a name as a fight's, a combatant's and a party's are: one space between words, no control character


def _side(fight: Fight, given: str) -> str:
    """A side as given, a name's way (one space between words), spelled as a side of the fight already is
    when it is that side by the rule of names (`b` joins `B`)."""
    side = _name(given, "--side")
    key = fold(side)
    known = [*(c.side for c in fight.combatants), *(f.side for f in fight.left)]
    return next((s for s in known if fold(s) == key), side)


def new(database: Database, name: str, ruleset: str | None = None) -> FightState:
    name = _name(name, "a fight's name")
    if ruleset is not None:
        ruleset = database.reader().rulesets_named(ruleset)
    with database.writing(commit=True, breaking="a fight's name") as connection:
        if (found := store.find(connection, name, database.group)) is not None:
            raise Offered(f"a fight named {found.name!r} exists (show it: {{}}, or remove it first)",
                          f"tables fight show {found.name!r}", ("fight", "show"), found.name)
        store.create(connection, name, ruleset, database.group)
    return FightState(Fight(name, ruleset), 0)


def show(database: Database, name: str, at: int | None = None) -> FightState:
    loaded = load(database, name, at)
    if at is not None and not 0 <= at <= loaded.seq:
        raise UsageMistake(f"--at {at}: the fight {loaded.row.name!r} has events 0 to {loaded.seq}")
    return FightState(loaded.fight, loaded.seq if at is None else at)


def log(database: Database, name: str, first: int = 1, limit: int = LOG_PAGE) -> FightLog:
    """The fight's events ``first`` on, ``limit`` at most (a page: `next` says where the next one starts). Read
    even when the log does not replay: each event from the one that breaks it is said by its kind."""
    if not 1 <= limit <= MAX_LOG_PAGE:
        raise UsageMistake(f"--limit {limit}: give 1 to {MAX_LOG_PAGE:,} events a page")
    row, logged = _read(database, name, accounts=False, page=(first, limit))
    return FightLog(row, logged, first, limit)


def listing(database: Database) -> FightList:
    with database.snapshot() as connection:
        return FightList(store.listing(connection, database.group))


def remove(database: Database, name: str, after: int | None = None) -> dict[str, Any]:
    """Remove a fight; with ``after``, only if its log is still the one at that event. Its log is not
    replayed: a fight whose log does not replay is removed as any other."""
    with database.snapshot() as connection:
        row = _row(connection, name, database.group)
        seq = store.last_seq(connection, row.id)
    _check_seq(row, seq, after)
    with database.writing(commit=True, breaking="a fight") as connection:
        store.delete(connection, row, None if after is None else seq)
    return {"removed": row.name, "events": seq}


def undo(database: Database, name: str, after: int | None = None) -> FightStep:
    """Take the last write back (its events: one group). The log is not replayed first, so that a log
    that does not replay can be undone back past the event that breaks it."""
    row, logged = _read(database, name, accounts=False)  # what undo says of them needs no account
    seq = logged[-1].seq if logged else 0
    _check_seq(row, seq, after)
    if not logged:
        raise TablesError(f"the fight {row.name!r} has no events to undo")
    group = _last_group(logged)
    first = group[0].seq
    with database.writing(commit=True, breaking="the fight's log") as connection:
        store.drop_since(connection, row, first, seq)
    before, broken = _replayed_as_far(row, logged[:-len(group)])
    account = (_undone(before, group), *([] if broken is None else [f"Still: {broken}."]))
    return FightStep(FightState(before, first - 1), account)


def _last_group(logged: tuple[store.LoggedEvent, ...]) -> list[store.LoggedEvent]:
    """The events of the last write: those from its ``group`` (the first one's number) on; an event kept
    without a group (a log older than groups) is one on its own."""
    last = logged[-1]
    first = last.data.get("group")
    if not isinstance(first, int) or isinstance(first, bool) or not 1 <= first <= last.seq:
        return [last]
    group = [e for e in logged if e.seq >= first]
    return group if all(e.data.get("group") == first for e in group) else [last]


def _undone(before: Fight, group: list[store.LoggedEvent]) -> str:
    """`Undone: round 2 played by --auto (events 5 to 7): Hero's attack on Orc, Orc's attack on Hero, the end
    of round 2.`: what one undo took back, in words."""
    fight, words = before, []
    for logged in group:
        try:
            event = event_of(logged.data)
            words.append(event_words(fight, event))
            fight = apply(fight, event)
        except (KeyError, TypeError, ValueError):  # an event that does not replay: said by its kind
            words.append(f"an event that did not replay ({logged.data.get('kind', 'of no kind')})")
    if len(group) == 1:
        return f"Undone: {words[0]} (event {group[0].seq})."
    command = str(group[0].data.get("command") or "")
    what = f"round {before.round} played by --auto" if command == "round --auto" else f"fight {command}"
    return f"Undone: {what} (events {group[0].seq} to {group[-1].seq}): {', '.join(words)}."


@dataclass(frozen=True, kw_only=True)
class Joining:
    """A combatant as `fight join` gives it: a creature of the bestiary, or by hand (each option overrides)."""

    creature: str | None = None
    hits: int | None = None
    defense: int | None = None
    armor: str | None = None
    weapon: str | None = None
    cmb: int | None = None
    label: str | None = None
    side: str | None = None
    parry: int = 0
    features: tuple[str, ...] = ()
    rank: str | None = None
    initiative: int = 0
    system: str | None = None  # a formula system's attack (services/fight_formulas.py), with its options
    options: tuple[str, ...] = ()  # KEY=VALUE, as `resolve SYSTEM` takes them
    death_at: int | None = None  # its own death threshold (else the fight's ruleset's)


# A saved party, looked up when it is needed (services/parties.py): its name and its members
PartyLookup = Callable[[], tuple[str, tuple[Fighter, ...]]]


def join(database: Database, name: str, joining: Joining, after: int | None = None,
         party: PartyLookup | None = None) -> FightStep:
    """One combatant joins; with ``party``, every member of that saved party instead (``joining`` gives only its side)."""
    if party is not None:
        _party_alone(joining)
    loaded = load(database, name)
    _check_after(loaded, after)  # a stale caller hears so first, not a refusal of a state it never saw
    if party is not None:
        events: list[Event] = [Join(f) for f in _party_members(database, loaded, joining, party)]
    else:
        events = [Join(_fighter(database, loaded, joining))]
    return _step(loaded, events, _written(database, loaded, events, "join"))  # one write: all of them, or none


# Joining's fields a party's members bring themselves (each with the value that means "not given")
PARTY_BRINGS = (("creature", None, "--creature"), ("hits", None, "--hits"), ("defense", None, "--def"),
                ("armor", None, "--armor"), ("weapon", None, "--weapon"), ("cmb", None, "--cmb"), ("label", None, "--as"),
                ("parry", 0, "--parry"), ("features", (), "--has"), ("rank", None, "--rank"),
                ("initiative", 0, "--initiative"), ("system", None, "--system"), ("options", (), "--option"),
                ("death_at", None, "--death-at"))


def _party_alone(j: Joining) -> None:
    """A party joins as saved: a member's own option given with it is a usage mistake."""
    given = [flag for field_name, unset, flag in PARTY_BRINGS
             if (bool(getattr(j, field_name)) if unset == () else getattr(j, field_name) != unset)]  # a list is a tuple
    if given:
        raise UsageMistake(f"--party joins its members as saved: give only --side with it (not {', '.join(given)})")


def _party_members(database: Database, loaded: Loaded, j: Joining, party: PartyLookup) -> list[Fighter]:
    """The saved party's members, as they will join: refused whole if any name is taken in the fight."""
    party_name, members = party()
    taken = [f.name for f in members if loaded.fight.find(f.name) is not None]
    gone = [f.name for f in members if loaded.fight.departed(f.name) is not None]  # a name that left stays taken
    if taken or gone:
        why = [f"{', '.join(names)} {verbs[len(names) > 1]} {what}" for names, verbs, what in (
            (taken, ("is", "are"), "already in the fight"), (gone, ("has", "have"), "left the fight")) if names]
        raise TablesError(f"the party {party_name!r} cannot join: {'; '.join(why)} (nothing joined)")
    side = _side(loaded.fight, j.side) if j.side else None
    return [replace(f, side=side or f.side, armor=_armor_column(database, f.armor) if f.armor else f.armor)
            for f in members]


def _fighter(database: Database, loaded: Loaded, j: Joining) -> Fighter:
    reader = database.reader()
    ruleset = loaded.row.ruleset
    attacks: list[Armament] = []
    if (j.weapon is None) != (j.cmb is None):
        raise UsageMistake("give --weapon and --cmb together (an attack is a weapon and its CMB)")
    if j.weapon is not None and j.cmb is not None:
        found = reader.locate("weapons", j.weapon, ruleset)
        attacks.append(Armament(found.name, j.cmb, ruleset=found.ruleset))
    if j.system is not None or j.options:
        from tables_app.services.fight_formulas import armament

        if j.weapon is not None:
            raise UsageMistake("give --weapon and --cmb, or --system and its options, not both (one attack a join)")
        attacks.append(armament(j.system, j.options))
    if j.creature:
        found = reader.locate("creatures", j.creature, ruleset)
        creature = reader.load_creature(found)
        hits = j.hits if j.hits is not None else creature.hp
        if hits is None:
            raise UsageMistake(f"the bestiary gives {creature.name} no hits: give them (--hits N)")
        for arm in creature.attacks:
            if not any(fold(a.weapon) == fold(arm.weapon) for a in attacks):
                weapon = reader.locate("weapons", arm.weapon, found.ruleset)
                attacks.append(Armament(weapon.name, arm.cmb, ruleset=weapon.ruleset))
        # numbered past every copy that joined, those who left too (a name names one combatant in the log)
        joined = (*(c.fighter for c in loaded.fight.combatants), *loaded.fight.left)
        # ... and past any name `N #k` of it, by hand too (a copy of it: combatant_named)
        numbered = [int(m.group(2)) for f in joined if (m := _COPY_NUMBER.fullmatch(f.name))
                    and fold(m.group(1)) == fold(creature.name)]
        copies = max(sum(1 for f in joined if f.creature == creature.name), *numbered, 0)
        label = _name(j.label, "--as") if j.label else f"{creature.name} #{copies + 1}"
        side = _side(loaded.fight, j.side) if j.side else _default_side(loaded.fight, creature=True)
        fighter = Fighter(name=label, side=side, hits=hits,
                          defense=creature.defense if j.defense is None else j.defense,
                          armor=j.armor or creature.armor, rank=Rank(j.rank) if j.rank else creature.rank,
                          features=tuple(dict.fromkeys([*creature.features, *(fold(f) for f in j.features)])),
                          parry=j.parry, attacks=tuple(attacks), creature=creature.name, initiative=j.initiative)
    else:
        armor = j.armor if j.system is None else j.armor or ""  # a formula system's combatant needs no armor column
        missing = [flag for flag, value in (("--as", j.label), ("--hits", j.hits), ("--armor", armor)) if value is None]
        if missing:
            raise UsageMistake(f"give --creature NAME, or the combatant by hand ({' and '.join(missing)} missing)")
        assert j.label is not None and j.hits is not None and armor is not None
        fighter = Fighter(name=_name(j.label, "--as"),
                          side=_side(loaded.fight, j.side) if j.side else _default_side(loaded.fight, creature=False),
                          hits=j.hits, defense=j.defense or 0,
                          armor=armor, rank=Rank(j.rank) if j.rank else Rank.NORMAL,
                          features=tuple(dict.fromkeys(fold(f) for f in j.features)), parry=j.parry,
                          attacks=tuple(attacks), initiative=j.initiative)
    # Without attacks it joins all the same (a door, a captive, a fleeing villager): attacked, never attacking.
    if fighter.armor:  # a formula system's combatant may have none
        fighter = replace(fighter, armor=_armor_column(database, fighter.armor))
    return replace(fighter, death_at=j.death_at if j.death_at is not None else _ruleset_death_at(database, ruleset))


def _ruleset_death_at(database: Database, ruleset: str | None) -> int | None:
    """The fight's ruleset's death threshold (`Death at`); None without a ruleset, or one without it."""
    if ruleset is None:
        return None
    try:
        return database.reader().death_at(ruleset)
    except NotFound:  # the ruleset went since the fight began: its combatants go down only
        return None


def _default_side(fight: Fight, *, creature: bool) -> str:
    """Without --side: `A` for the first combatant of the fight, then `B` for a creature and `A` by hand."""
    return "B" if creature and fight.combatants else "A"


def _armor_column(database: Database, armor: str) -> str:
    """``armor`` as the tables spell it; NotFound if no attack table has that column."""
    with database.snapshot() as connection:
        codes = store.armor_codes(connection)
    spelled = {fold(code): code for code in codes}
    if fold(armor) not in spelled:
        listed = f"armor columns: {', '.join(codes)}" if len(codes) <= 30 else "see: tables show attack TABLE"
        raise NotFound.unknown(f"no attack table has an armor column {armor!r}", armor, codes, listed)
    return spelled[fold(armor)]


# ------------------------------------------------------------------ attacks
NUMBERED = re.compile(r"(.+) #\d+")  # a creature's copy: `Wolf #1`
_COPY_NUMBER = re.compile(r"(.+) #(\d+)")  # ... and its number
LISTED = 12  # combatants named in a refusal, at most (past it: fight show lists them)


def combatant_named(fight: Fight, name: str) -> Combatant:
    """The combatant ``name`` names: its name in any letter case, or a
    creature's name when the fight has one numbered copy of it (`Wolf` is
    `Wolf #1` while it is the only one). Otherwise NotFound, saying the
    closest names (exit 1, HTTP 404), or Ambiguous, listing the copies."""
    found = fight.find(name)
    if found is not None:
        return found
    if (gone := fight.departed(name)) is not None:
        raise NotFound(f"{gone.name} has left the fight (it is no longer a combatant)")
    key = fold(name)
    copies = [c for c in fight.combatants if (m := NUMBERED.fullmatch(c.name)) and fold(m.group(1)) == key]
    if len(copies) == 1:
        return copies[0]
    if copies:
        names = [c.name for c in copies]
        raise Ambiguous(f"{name!r} is any of {len(names)} combatants: {', '.join(names)} (name one)", names)
    known = [c.name for c in fight.combatants]
    listed = ", ".join(known) if len(known) <= LISTED else f"{len(known)} of them: tables fight show lists them"
    raise NotFound.unknown(f"no combatant named {name!r} in the fight", name, known,
                           f"its combatants: {listed}" if known else "it has none yet: tables fight join")


def attack(database: Database, name: str, attacker: str, target: str, *, seed: int | None = None,
           forced: tuple[int, ...] | None = None, weapon: str | None = None, mods: tuple[tuple[str, int], ...] = (),
           after: int | None = None) -> FightStep:
    from tables_app.services.rolling import dice_source

    loaded = load(database, name)
    _check_after(loaded, after)  # a stale caller hears so first, not a refusal of a state it never saw
    dice = dice_source(seed, forced)
    fight = loaded.fight
    event, data = resolve_in_fight(database, fight, combatant_named(fight, attacker), combatant_named(fight, target),
                                   weapon, mods, dice)
    check_enough(dice, event)
    refuse_unused(dice)
    events: list[Event] = [event]
    return _step(loaded, events, _written(database, loaded, events, "attack"), (data,))


def round_(database: Database, name: str, *, auto: bool = False, seed: int | None = None,
           forced: tuple[int, ...] | None = None, after: int | None = None) -> FightStep:
    """End the round; with ``auto``, first every combatant able to attack
    that has not attacks, in initiative order, by the targeting rule (the
    dice of each attack in resolve's order, attack after attack)."""
    from tables_app.services.rolling import dice_source

    if not auto and (seed is not None or forced is not None):
        raise UsageMistake("--dice and --seed roll the attacks of --auto: give --auto too")
    loaded = load(database, name)
    _check_after(loaded, after)  # a stale caller hears so first, not a refusal of a state it never saw
    fight = loaded.fight
    if (over := over_refusal(fight)) is not None:
        raise TablesError(over)
    events: list[Event] = []
    attacks: list[dict[str, Any]] = []
    if auto:
        dice = dice_source(seed, forced)
        order = loaded.fight.combatants  # in initiative order
        for place, c in enumerate(order):
            if fight.over:
                break
            target = turn_target(fight, c.name)
            if target is None:
                continue
            event, data = resolve_in_fight(database, fight, combatant_named(fight, c.name), combatant_named(fight, target),
                                           None, (), dice)
            events.append(event)
            attacks.append(data)
            fight = _applied(fight, event)
            check_enough(dice, event, more_follow=any(turn_target(fight, later.name) for later in order[place + 1:]))
        refuse_unused(dice)
    if not fight.over:
        events.append(EndRound())
    return _step(loaded, events, _written(database, loaded, events, "round --auto" if auto else "round"), tuple(attacks),
                 a_round=True)


@dataclass(frozen=True, kw_only=True)
class Rearming:
    """What `fight edit` changes of who a combatant is: its DEF, its parry, the
    attack in use (``wield``: one of its attacks, or a weapon of the armory)
    and that attack's CMB (None: unchanged)."""

    defense: int | None = None
    parry: int | None = None
    cmb: int | None = None
    wield: str | None = None

    def __bool__(self) -> bool:
        return any(v is not None for v in (self.defense, self.parry, self.cmb, self.wield))


def edit(database: Database, name: str, combatant: str, values: dict[str, Any], after: int | None = None,
         rearming: Rearming = Rearming()) -> FightStep:
    loaded = load(database, name)
    _check_after(loaded, after)  # a stale caller hears so first, not a refusal of a state it never saw
    values = dict(values)
    crippling = {key: values.pop(key) for key in CRIPPLING_KEYS if key in values}
    given = tuple((k, None if k == "dying" and v == 0 else v) for k, v in values.items() if v is not None)
    if not given and not rearming and not any(v not in (None, ()) for v in crippling.values()):
        raise UsageMistake("give what to set (--taken N, --stun N, --status down, --def N, --wield WEAPON, ...)")
    c = combatant_named(loaded.fight, combatant)
    events: list[Event] = [Edit(c.name, (*given, *_rearmed(database, loaded.fight, c, rearming),
                                         *crippled_edits(c, crippling)))]
    return _step(loaded, events, _written(database, loaded, events, "edit"))


def _rearmed(database: Database, fight: Fight, c: Combatant, r: Rearming) -> tuple[tuple[str, Any], ...]:
    """The edit's values of ``r``: ``def``, ``parry``, and the attack in use as the Armament it becomes
    (``wield``, its CMB in), or only its new ``cmb``; the log keeps them so (a replay looks nothing up)."""
    values: list[tuple[str, Any]] = [(k, v) for k, v in (("def", r.defense), ("parry", r.parry)) if v is not None]
    if r.wield is not None:
        arm = next((a for a in c.fighter.attacks if fold(a.weapon) == fold(r.wield)), None)
        if arm is None:  # a weapon of the armory, looked up as join looks it up
            found = database.reader().locate("weapons", r.wield, fight.ruleset)
            if r.cmb is None:
                raise UsageMistake(f"{c.name} has no attack {found.name!r}: give its CMB too "
                                   f"(--wield {found.name!r} --cmb N)")
            arm = Armament(found.name, r.cmb, ruleset=found.ruleset)
        values.append(("wield", _with_cmb(c, arm, r.cmb)))
    elif r.cmb is not None:
        if not c.fighter.attacks:
            raise TablesError(f"{c.name} has no attack to set the CMB of (give one: --wield WEAPON --cmb N)")
        _with_cmb(c, c.fighter.attacks[0], r.cmb)
        values.append(("cmb", r.cmb))
    return tuple(values)


def _with_cmb(c: Combatant, arm: Armament, cmb: int | None) -> Armament:
    if cmb is None:
        return arm
    if arm.system != "table":  # its bonus is its options' (fight join --option)
        raise TablesError(f"{c.name}'s {arm.weapon} attack is a formula system's: its bonus is set by its options, "
                          "not --cmb (--cmb sets an attack's on the tables)")
    return replace(arm, cmb=cmb)


def adjust(database: Database, name: str, combatant: str, deltas: dict[str, int | None], after: int | None = None,
           command: str = "adjust") -> FightStep:
    """Relative changes to a combatant's state (`fight adjust`, `heal`, `damage`), an event of its own
    (domain/fights/rules.py applies and clamps them)."""
    loaded = load(database, name)
    _check_after(loaded, after)  # a stale caller hears so first, not a refusal of a state it never saw
    given = tuple((k, v) for k, v in deltas.items() if v)
    if not given:
        raise UsageMistake("give what to change, and by how much (--heal 10, --damage 5, --bleed -2, ...)")
    c = combatant_named(loaded.fight, combatant)
    events: list[Event] = [Adjust(c.name, given)]
    return _step(loaded, events, _written(database, loaded, events, command))


def leave(database: Database, name: str, combatant: str, after: int | None = None) -> FightStep:
    """The combatant leaves the fight (flees, is carried off): it is no longer a combatant."""
    loaded = load(database, name)
    _check_after(loaded, after)  # a stale caller hears so first, not a refusal of a state it never saw
    c = combatant_named(loaded.fight, combatant)
    events: list[Event] = [Leave(c.name)]
    return _step(loaded, events, _written(database, loaded, events, "leave"))




# ------------------------------------------------------------------ the rest of a critical, by hand
CRIPPLING_KEYS = ("prone", "knocked_out", "blinded", "useless_arm", "useless_leg", "drop", "breaks", "recover", "repair",
                  "timed_penalties")
MAX_TIMED_PENALTIES = 50  # penalties for a time set at once: far past any table's


def crippled_edits(c: Combatant, given: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """`fight edit`'s options for the rest of a critical as the values the edit sets (events.EDITABLE):
    `--out` read, `--arm`/`--leg` as true or false, the weapons dropped and broken as whole lists worked out from
    what ``c`` carries now, the penalties for a time as (penalty, rounds)."""
    edits: list[tuple[str, Any]] = []
    for key in ("prone", "blinded"):
        if given.get(key) is not None:
            edits.append((key, given[key]))
    if given.get("knocked_out") is not None:
        edits.append(("knocked_out", _out(given["knocked_out"])))
    for key in ("useless_arm", "useless_leg"):
        if given.get(key) is not None:
            edits.append((key, given[key] == "useless"))
    dropped, broken = list(c.now.dropped), list(c.now.broken)
    for weapon in map(lambda w: _own_attack(c, w), given.get("drop") or ()):
        if weapon not in broken and weapon not in dropped:
            dropped.append(weapon)
    for weapon in map(lambda w: _own_attack(c, w), given.get("breaks") or ()):
        dropped = [w for w in dropped if w != weapon]
        broken += [weapon] if weapon not in broken else []
    dropped = _taken_back(c, dropped, broken, given.get("recover") or (), "dropped", "--repair")
    broken = _taken_back(c, broken, dropped, given.get("repair") or (), "broken", "--recover")
    if dropped != list(c.now.dropped):
        edits.append(("dropped", tuple(dropped)))
    if broken != list(c.now.broken):
        edits.append(("broken", tuple(broken)))
    if given.get("timed_penalties"):
        edits.append(("timed_penalties", _timed_penalties(given["timed_penalties"])))
    return tuple(edits)


def _out(text: str) -> int | None:
    """`--out N` (rounds; 0 wakes it: None) or `until-woken` (0)."""
    word = text.strip().lower()
    if word in ("until-woken", "until woken"):
        return 0
    if not (word.isascii() and word.isdigit()) or len(word) > 6 or int(word) > 100_000:
        raise UsageMistake(f"--out {text}: give the rounds knocked out (0 to 100000; 0 wakes it) or until-woken")
    return int(word) or None


def _own_attack(c: Combatant, weapon: str) -> str:
    """One of ``c``'s attacks, as it spells it; NotFound with the closest."""
    for arm in c.fighter.attacks:
        if fold(arm.weapon) == fold(weapon):
            return arm.weapon
    known = [a.weapon for a in c.fighter.attacks]
    raise NotFound.unknown(f"{c.name} has no attack {weapon!r}", weapon, known, f"its attacks: {', '.join(known)}")


def _taken_back(c: Combatant, lost: list[str], other: list[str], named: tuple[str, ...], word: str,
                other_option: str) -> list[str]:
    """``lost`` without the weapons ``named`` (`all`: every one); a weapon named that is not ``word`` is refused."""
    for weapon in named:
        if fold(weapon) == "all":
            lost = []
            continue
        own = _own_attack(c, weapon)
        if own not in lost:
            how = f" (it is {'broken' if word == 'dropped' else 'dropped'}: {other_option} {own})" if own in other else ""
            raise TablesError(f"{c.name}'s {own} is not {word}{how}")
        lost = [w for w in lost if w != own]
    return lost


def _timed_penalties(texts: tuple[str, ...]) -> tuple[tuple[int, int], ...]:
    """`--timed-penalty -20:3` (repeatable) as (penalty, rounds) pairs; `none` alone clears them."""
    if [t.strip().lower() for t in texts] == ["none"]:
        return ()
    if len(texts) > MAX_TIMED_PENALTIES:
        raise UsageMistake(f"--timed-penalty: at most {MAX_TIMED_PENALTIES} penalties, not {len(texts)}")
    pairs = []
    for text in texts:
        penalty, colon, rounds = text.strip().partition(":")
        try:
            pair = (int(penalty), int(rounds)) if colon else None
        except ValueError:
            pair = None
        if pair is None or not -100_000 <= pair[0] <= -1 or not 1 <= pair[1] <= 100_000:
            raise UsageMistake(f"--timed-penalty {text}: write PENALTY:ROUNDS, the penalty -1 to -100000 and the rounds "
                               "1 to 100000 (-20:3), or none")
        pairs.append(pair)
    return tuple(sorted(pairs))


__all__ = ["EndRound", "FightList", "FightLog", "FightState", "FightStep", "Joining", "Rearming", "adjust", "attack",
           "combatant_named", "edit", "join", "leave", "listing", "load", "log", "new", "remove", "round_", "show", "undo"]
