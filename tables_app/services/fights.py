"""The fight operations (docs/fights.md): a fight is read from its log,
replayed with the domain's rules (domain/fights), and written back by
appending events, after the log it read. Each operation here; what they
are made of in their own modules:

- fight_log.py: the log read (by the rule of names, in the database's
  group) and written, checked against the exact log read;
- fight_names.py: names as written, and which combatant a name means;
- fight_joining.py: who joins (by hand, from the bestiary, a party);
- fight_attacks.py: an attack looked up and resolved as `resolve table`
  does it, on the fight's terms (the odds of a fight prepare theirs there
  too); the resolved account and the blow are recorded, never recomputed;
- fight_edits.py: the moves by hand;
- fight_results.py: what each operation answers, JSON and lines.
"""

from __future__ import annotations

from typing import Any

from tables_app.domain.fights import (
    Adjust, Edit, EndRound, Event, Fight, Join, Leave, apply, event_of,
)
from tables_app.domain.fights.rules import over_refusal, turn_target
from tables_app.domain.fights.account import (
    event_words,
)
from tables_app.errors import Offered, TablesError, UsageMistake
from tables_app.services.fight_attacks import check_enough, refuse_unused, resolve_in_fight
from tables_app.services.fight_edits import CRIPPLING_KEYS, NOT_REARMED, Rearming, crippled_edits, rearmed
from tables_app.services.fight_joining import Joining, PartyLookup, joined_fighter, party_alone, party_members
from tables_app.services.fight_log import (
    LOG_PAGE, MAX_LOG_PAGE, Loaded, applied, check_after, check_seq, fight_row, load, read_log, replayed_as_far, written,
)
from tables_app.services.fight_names import combatant_named, valid_name
from tables_app.services.fight_results import FightList, FightLog, FightState, FightStep, step
from tables_app.storage import fights as store
from tables_app.storage.database import Database


def new(database: Database, name: str, ruleset: str | None = None) -> FightState:
    name = valid_name(name, "a fight's name")
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
    return FightState(loaded.fight, loaded.seq if at is None else at, loaded.row.version)


def log(database: Database, name: str, first: int = 1, limit: int = LOG_PAGE) -> FightLog:
    """The fight's events ``first`` on, ``limit`` at most (a page: `next` says where the next one starts). Read
    even when the log does not replay: each event from the one that breaks it is said by its kind."""
    if not 1 <= limit <= MAX_LOG_PAGE:
        raise UsageMistake(f"--limit {limit}: give 1 to {MAX_LOG_PAGE:,} events a page")
    row, logged = read_log(database, name, accounts=False, page=(first, limit))
    return FightLog(row, logged, first, limit)


def listing(database: Database) -> FightList:
    with database.snapshot() as connection:
        return FightList(store.listing(connection, database.group))


def remove(database: Database, name: str, after: int | None = None, *, version: int | None = None) -> dict[str, Any]:
    """Remove a fight; with ``after`` (or ``version``), only if its log is still the one the caller saw. Its log
    is not replayed: a fight whose log does not replay is removed as any other."""
    with database.snapshot() as connection:
        row = fight_row(connection, name, database.group)
        seq = store.last_seq(connection, row.id)
    check_seq(row, seq, after, version)
    with database.writing(commit=True, breaking="a fight") as connection:
        store.delete(connection, row, None if after is None and version is None else seq)  # checked against what it saw
    return {"removed": row.name, "events": seq}


def undo(database: Database, name: str, after: int | None = None, *, version: int | None = None) -> FightStep:
    """Take the last write back (its events: one group). The log is not replayed first, so that a log
    that does not replay can be undone back past the event that breaks it."""
    row, logged = read_log(database, name, accounts=False)  # what undo says of them needs no account
    seq = logged[-1].seq if logged else 0
    check_seq(row, seq, after, version)
    if not logged:
        raise TablesError(f"the fight {row.name!r} has no events to undo")
    group = _last_group(logged)
    first = group[0].seq
    with database.writing(commit=True, breaking="the fight's log") as connection:
        store.drop_since(connection, row, first, seq)
    before, broken = replayed_as_far(row, logged[:-len(group)])
    account = (_undone(before, group), *([] if broken is None else [f"Still: {broken}."]))
    return FightStep(FightState(before, first - 1, row.version + 1), account)


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


def join(database: Database, name: str, joining: Joining, after: int | None = None,
         party: PartyLookup | None = None, *, version: int | None = None) -> FightStep:
    """One combatant joins; with ``party``, every member of that saved party instead (``joining`` gives only its side)."""
    if party is not None:
        party_alone(joining)
    loaded = load(database, name)
    check_after(loaded, after, version)  # a stale caller hears so first, not a refusal of a state it never saw
    if party is not None:
        events: list[Event] = [Join(f) for f in party_members(database, loaded, joining, party)]
    else:
        events = [Join(joined_fighter(database, loaded, joining))]
    return step(loaded, events, written(database, loaded, events, "join"))  # one write: all of them, or none


def attack(database: Database, name: str, attacker: str, target: str, *, seed: int | None = None,
           forced: tuple[int, ...] | None = None, weapon: str | None = None, mods: tuple[tuple[str, int], ...] = (),
           after: int | None = None, version: int | None = None) -> FightStep:
    from tables_app.services.rolling import dice_source

    loaded = load(database, name)
    check_after(loaded, after, version)  # a stale caller hears so first, not a refusal of a state it never saw
    dice = dice_source(seed, forced)
    fight = loaded.fight
    event, data = resolve_in_fight(database, fight, combatant_named(fight, attacker), combatant_named(fight, target),
                                   weapon, mods, dice)
    check_enough(dice, event)
    refuse_unused(dice)
    events: list[Event] = [event]
    return step(loaded, events, written(database, loaded, events, "attack"), (data,))


def round_(database: Database, name: str, *, auto: bool = False, seed: int | None = None,
           forced: tuple[int, ...] | None = None, after: int | None = None, version: int | None = None) -> FightStep:
    """End the round; with ``auto``, first every combatant able to attack
    that has not attacks, in initiative order, by the targeting rule (the
    dice of each attack in resolve's order, attack after attack)."""
    from tables_app.services.rolling import dice_source

    if not auto and (seed is not None or forced is not None):
        raise UsageMistake("--dice and --seed roll the attacks of --auto: give --auto too")
    loaded = load(database, name)
    check_after(loaded, after, version)  # a stale caller hears so first, not a refusal of a state it never saw
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
            fight = applied(fight, event)
            check_enough(dice, event, more_follow=any(turn_target(fight, later.name) for later in order[place + 1:]))
        refuse_unused(dice)
    if not fight.over:
        events.append(EndRound())
    return step(loaded, events, written(database, loaded, events, "round --auto" if auto else "round"), tuple(attacks),
                 a_round=True)


def edit(database: Database, name: str, combatant: str, values: dict[str, Any], after: int | None = None,
         rearming: Rearming = NOT_REARMED, *, version: int | None = None) -> FightStep:
    loaded = load(database, name)
    check_after(loaded, after, version)  # a stale caller hears so first, not a refusal of a state it never saw
    values = dict(values)
    crippling = {key: values.pop(key) for key in CRIPPLING_KEYS if key in values}
    given = tuple((k, None if k == "dying" and v == 0 else v) for k, v in values.items() if v is not None)
    if not given and not rearming and not any(v not in (None, ()) for v in crippling.values()):
        raise UsageMistake("give what to set (--taken N, --stun N, --status down, --def N, --wield WEAPON, ...)")
    c = combatant_named(loaded.fight, combatant)
    events: list[Event] = [Edit(c.name, (*given, *rearmed(database, loaded.fight, c, rearming),
                                         *crippled_edits(c, crippling)))]
    return step(loaded, events, written(database, loaded, events, "edit"))


def adjust(database: Database, name: str, combatant: str, deltas: dict[str, int | None], after: int | None = None,
           command: str = "adjust", *, version: int | None = None) -> FightStep:
    """Relative changes to a combatant's state (`fight adjust`, `heal`, `damage`), an event of its own
    (domain/fights/rules.py applies and clamps them)."""
    loaded = load(database, name)
    check_after(loaded, after, version)  # a stale caller hears so first, not a refusal of a state it never saw
    given = tuple((k, v) for k, v in deltas.items() if v)
    if not given:
        raise UsageMistake("give what to change, and by how much (--heal 10, --damage 5, --bleed -2, ...)")
    c = combatant_named(loaded.fight, combatant)
    events: list[Event] = [Adjust(c.name, given)]
    return step(loaded, events, written(database, loaded, events, command))


def leave(database: Database, name: str, combatant: str, after: int | None = None, *,
          version: int | None = None) -> FightStep:
    """The combatant leaves the fight (flees, is carried off): it is no longer a combatant."""
    loaded = load(database, name)
    check_after(loaded, after, version)  # a stale caller hears so first, not a refusal of a state it never saw
    c = combatant_named(loaded.fight, combatant)
    events: list[Event] = [Leave(c.name)]
    return step(loaded, events, written(database, loaded, events, "leave"))


# The fight operations, and what their callers take from the modules they are made of.
__all__ = ["FightList", "FightLog", "FightState", "FightStep", "Joining", "Loaded", "Rearming", "adjust", "attack",
           "combatant_named", "edit", "join", "leave", "listing", "load", "log", "new", "remove", "round_", "show", "undo",
           "valid_name"]
