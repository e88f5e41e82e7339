"""The fight's rules, once (docs/fights.md, "The rules"): who may attack,
with what CMB against what DEF, what a blow does, what a round's end does.

``apply(fight, event)`` is the whole of it: the tracker replays a log with
it, and the exact odds and the simulation of a fight build their states
with the same function. A refused event raises FightRuleError saying why.
"""

from __future__ import annotations

from dataclasses import replace
from functools import reduce
from collections.abc import Iterable
from typing import Any

from tables_app.domain.fights.events import (
    ADJUSTABLE, ARMS_EDITABLE, EDITABLE, Adjust, Attack, Edit, EndRound, Event, Join, Leave,
)
from tables_app.domain.fights.blows import knocked_out
from tables_app.domain.fights.state import Armament, Blow, Combatant, Counters, Fight, Fighter, Harm, Status
from tables_app.domain.names import fold


class FightRuleError(ValueError):
    """An event the rules refuse (an attack by a stunned combatant, a round after the end), saying why."""


def _rounds(n: int) -> str:
    return f"{n} round{'' if n == 1 else 's'}"


def skipped(combatant: Combatant) -> str | None:
    """Why ``combatant`` does not attack in this round (None: it may).
    Stun and must parry count as they stood when the round began."""
    if combatant.status is not Status.UP:
        return combatant.status.value
    if (out := combatant.now.knocked_out) is not None:  # at once, as down is
        return "knocked out" + (f", {_rounds(out)} left" if out else " (until woken: fight edit --out 0)")
    if combatant.start.stun:
        return f"stunned, {_rounds(combatant.start.stun)} left"
    if combatant.start.must_parry:
        return f"must parry, {_rounds(combatant.start.must_parry)} left"
    if combatant.start.prone:
        return f"prone (getting up), {_rounds(combatant.start.prone)} left"
    if combatant.fighter.attacks and turn_weapon(combatant) is None:
        lost = combatant.start
        return "no weapon to attack with (" + ", ".join(
            [*(f"{w} dropped" for w in lost.dropped), *(f"{w} broken" for w in lost.broken)]) + ")"
    if combatant.acted:
        return "has already attacked this round"
    return None


def turn_weapon(combatant: Combatant) -> Armament | None:
    """The attack it makes when none is named: its first (Fighter.attacks order) not dropped or broken as the
    round began; None when it has none left."""
    lost = {fold(w) for w in combatant.start.lost}
    return next((arm for arm in combatant.fighter.attacks if fold(arm.weapon) not in lost), None)


def weapon_refusal(combatant: Combatant, weapon: str) -> str | None:
    """Why ``combatant`` may not attack with ``weapon`` (an attack of its own) now: dropped or broken as the round
    began (None: it may)."""
    key = fold(weapon)
    for word, lost in (("dropped", combatant.start.dropped), ("broken", combatant.start.broken)):
        if any(fold(w) == key for w in lost):
            how = "fight edit --recover" if word == "dropped" else "fight edit --repair"
            return f"{combatant.name} cannot attack with {weapon}: {word} ({how} {weapon})"
    return None


def outcome_words(fight: Fight) -> str:
    """How a fight that is over ended (`side A wins`, `nobody is standing`): every message that says so says it so."""
    return f"side {fight.winner} wins" if fight.winner else "nobody is standing"


def over_refusal(fight: Fight) -> str | None:
    """Why nothing more can be fought in ``fight`` (no attack, no round's end), or None while it goes on."""
    return f"the fight is over: {outcome_words(fight)} (undo to go back)" if fight.over else None


def refusal(fight: Fight, attacker: str, target: str) -> str | None:
    """Why ``attacker`` may not attack ``target`` now (None: it may)."""
    if (over := over_refusal(fight)) is not None:
        return over
    a, t = fight.find(attacker), fight.find(target)
    if a is None or t is None:
        return f"no combatant named {attacker if a is None else target!r} in the fight"
    if (why := skipped(a)) is not None:
        return f"{a.name} cannot attack: {why}"
    if a is t:
        return f"{a.name} cannot attack itself"
    if not t.up:  # down, dead, or knocked out (as down: *decision*, docs/fights.md)
        return f"{t.name} is {t.status.value if t.status is not Status.UP else 'knocked out'}"
    return None


def cmb_modifiers(fight: Fight, attacker: str) -> tuple[tuple[str, int], ...]:
    """What the fight adds to an attack's CMB, named (those that are not 0):
    the parry it keeps back while it can parry, its penalty and its penalties
    for N rounds (as the round began) and its pending bonus."""
    a = fight.find(attacker)
    assert a is not None
    terms = (("parry", -a.fighter.parry if a.can_parry else 0), ("penalty", a.start.penalty),
             ("timed penalty", a.start.timed_penalty), ("bonus", a.bonus))
    return tuple((name, value) for name, value in terms if value)


def defense_of(fight: Fight, target: str) -> int:
    """The target's DEF, plus its parry while it can parry."""
    t = fight.find(target)
    assert t is not None
    return t.fighter.defense + (t.fighter.parry if t.can_parry else 0)


Terms = tuple[tuple[tuple[str, int], ...], int]  # an attack's CMB modifiers (named), and its target's DEF


def fight_terms(fight: Fight, attacker: str, target: str, mods: tuple[tuple[str, int], ...] = ()) -> Terms:
    """The terms the fight gives ``attacker``'s attack on ``target``: its CMB modifiers (``cmb_modifiers``, then the
    attack's own ``mods``) and the target's DEF (``defense_of``). The tracker resolves an attack on them, and the
    odds of a fight weigh its blows on them."""
    return (*cmb_modifiers(fight, attacker), *mods), defense_of(fight, target)


def attack_terms(fight: Fight, attacker: str, target: str, cmb: int) -> tuple[int, int]:
    """(CMB, DEF) of an attack with ``cmb`` (the weapon's, with the attack's own modifiers)."""
    modifiers, defense = fight_terms(fight, attacker, target)
    return cmb + sum(n for _, n in modifiers), defense


def auto_target(fight: Fight, attacker: str) -> str | None:
    """The targeting rule: the first combatant up of another side, in initiative order."""
    a = fight.find(attacker)
    assert a is not None
    return next((c.name for c in fight.combatants if c.up and c.side != a.side), None)


def turn_target(fight: Fight, name: str) -> str | None:
    """Whom ``name`` attacks in its turn of a round played by the targeting
    rule (`fight round --auto`, the odds and the simulation of a fight):
    None when it does not attack (it has no attack, may not attack now, or
    no foe is up)."""
    c = fight.find(name)
    if c is None or not c.fighter.attacks or skipped(c) is not None:  # (skipped: no weapon left, too)
        return None
    return auto_target(fight, name)


def whose_turn(fight: Fight) -> Combatant | None:
    """The next to act in initiative order: up, allowed to attack, not yet
    attacked this round, with an attack (None: nobody, or the fight is over)."""
    if fight.over:
        return None
    return next((c for c in fight.combatants if c.fighter.attacks and skipped(c) is None), None)


PENDING = ("bleed", "stun", "no_parry", "must_parry", "penalty", "dying")  # the counters that count from the next round


def pending(c: Combatant) -> dict[str, int]:
    """What ``c`` received in this round that counts only from the next: each
    counter that differs from the round's start, with the value it will have
    when the next round begins (the round's end applied: a stun of 2 received
    with 1 left from before is 2 from the next round). Nothing for the dead."""
    if c.status is Status.DEAD:
        return {}
    ended = _ended(c).now
    return {key: getattr(ended, key) for key in PENDING if getattr(c.now, key) != getattr(c.start, key)
            and getattr(ended, key) is not None}


def apply(fight: Fight, event: Event) -> Fight:
    """The fight after ``event``; FightRuleError if the rules refuse it."""
    if isinstance(event, Join):
        return _join(fight, event)
    if isinstance(event, Attack):
        return _attack(fight, event)
    if isinstance(event, EndRound):
        return end_round(fight)
    if isinstance(event, Adjust):
        return _adjust(fight, event)
    if isinstance(event, Leave):
        return _leave(fight, event)
    return _edit(fight, event)


def replay(fight: Fight, events: Iterable[Event]) -> Fight:
    """The fight after every event, in order."""
    return reduce(apply, events, fight)


def _join(fight: Fight, event: Join) -> Fight:
    # A join after the fight is over is taken: reinforcements, and the fight goes on once two sides stand again.
    name = event.fighter.name
    if fight.find(name) is not None:
        raise FightRuleError(f"a combatant named {name!r} is already in the fight (give another name: --as)")
    if (gone := fight.departed(name)) is not None:  # the log names it: one name, one combatant
        raise FightRuleError(f"{gone.name} has left the fight, and its name stays taken (give another name: --as)")
    if event.fighter.hits < 1:
        raise FightRuleError(f"{name} needs hits (1 or more)")
    # In initiative order: after every combatant of the same or a higher initiative.
    place = sum(1 for c in fight.combatants if c.fighter.initiative >= event.fighter.initiative)
    combatants = (*fight.combatants[:place], Combatant(event.fighter), *fight.combatants[place:])
    return replace(fight, combatants=combatants)


def _with(fight: Fight, *changed: Combatant) -> Fight:
    by_name = {fold(c.name): c for c in changed}
    return replace(fight, combatants=tuple(by_name.get(fold(c.name), c) for c in fight.combatants))


def _attack(fight: Fight, event: Attack) -> Fight:
    if (why := refusal(fight, event.attacker, event.target)) is not None:
        raise FightRuleError(why)
    a, t = fight.find(event.attacker), fight.find(event.target)
    assert a is not None and t is not None
    if event.weapon and (why := weapon_refusal(a, event.weapon)) is not None:
        raise FightRuleError(why)
    blow: Blow = event.blow
    a = replace(a, acted=True, bonus=blow.attacker_bonus)  # the pending bonus is spent on this attack
    if len(a.fighter.attacks) > 1:  # what it drops: the attack it made last (with one attack, no state to keep)
        made = next((arm.weapon for arm in a.fighter.attacks if fold(arm.weapon) == fold(event.weapon)), None)
        a = replace(a, last_weapon=made or a.last_weapon)
    t = replace(t, bonus=t.bonus + blow.target_bonus)
    return _with(fight, _harmed(a, blow.to_attacker), _harmed(t, blow.to_target))


def _harmed(c: Combatant, harm: Harm) -> Combatant:
    """Hits, instant death and down act at once; the rest counts from the next round."""
    if not looked_at(harm) or c.status is Status.DEAD:
        return c
    now = c.now
    dying, fresh = now.dying, c.fresh_dying
    if harm.death_in is not None and harm.death_in > 0 and (dying is None or harm.death_in < dying):
        dying, fresh = harm.death_in, True  # the least countdown wins, and keeps its own start
    now = replace(now, bleed=now.bleed + harm.bleed, stun=now.stun + harm.stun, no_parry=now.no_parry + harm.no_parry,
                  must_parry=now.must_parry + harm.must_parry, penalty=now.penalty + harm.penalty, dying=dying)
    now = _crippled(c, now, harm)
    status = Status.DEAD if harm.death_in == 0 else c.status
    return down_if_beaten(replace(c, taken=c.taken + harm.hits, now=now, fresh_dying=fresh, status=status))


def _crippled(c: Combatant, now: Counters, harm: Harm) -> Counters:
    """The rest of a critical added to what ``c`` carries: rounds prone and blinded add up, as stun's do; knocked out
    as blows.knocked_out combines it; a useless limb stays; a weapon dropped or broken is the one it holds
    (held_weapon); the penalties for N rounds join its own."""
    if not (harm.prone or harm.blinded or harm.knocked_out is not None or harm.useless_arm or harm.useless_leg
            or harm.drops_weapon or harm.breaks_weapon or harm.timed_penalties):
        return now
    now = replace(now, prone=now.prone + harm.prone, blinded=now.blinded + harm.blinded,
                  knocked_out=knocked_out((now.knocked_out, harm.knocked_out)),
                  useless_arm=now.useless_arm or harm.useless_arm, useless_leg=now.useless_leg or harm.useless_leg,
                  timed_penalties=tuple(sorted(now.timed_penalties + harm.timed_penalties)))
    held = held_weapon(c, now)
    if held is not None and harm.breaks_weapon:
        now = replace(now, broken=(*now.broken, held))
    elif held is not None and (harm.drops_weapon or harm.useless_arm):  # a useless arm drops what it held
        now = replace(now, dropped=(*now.dropped, held))
    return now


def held_weapon(c: Combatant, now: Counters) -> str | None:
    """The weapon ``c`` holds: the attack it made last, else its first, not already dropped or broken (``now``)."""
    lost = {fold(w) for w in now.lost}
    if c.last_weapon is not None and fold(c.last_weapon) not in lost:
        return c.last_weapon
    return next((arm.weapon for arm in c.fighter.attacks if fold(arm.weapon) not in lost), None)


def down_if_beaten(c: Combatant) -> Combatant:
    """The down rule: a combatant up whose hits taken reach its hits is down
    (alive, out of the fight); one not dead whose hits left reach its death
    threshold (``death_at``) is dead, from up or from down. Applied to whom
    it looks at (``looked_at``): whom a blow harms, everyone at a round's
    end, one whose hits are set by hand. The odds of a fight cut their
    states by the same two thresholds (``down_at``, ``dead_at``)."""
    if c.status is not Status.DEAD and (dead := dead_at(c)) is not None and c.taken >= dead:
        return replace(c, status=Status.DEAD)
    if (down := down_at(c)) is not None and c.taken >= down:
        return replace(c, status=Status.DOWN)
    return c


def down_at(c: Combatant) -> int | None:
    """The hits taken from which the down rule puts ``c`` down: its hits while it is up (None: it is not up)."""
    return c.fighter.hits if c.status is Status.UP else None


def dead_at(c: Combatant) -> int | None:
    """The hits taken from which the down rule kills ``c``: its hits less its death threshold (None: it has none)."""
    return None if c.fighter.death_at is None else c.fighter.hits - c.fighter.death_at


def past_death(c: Combatant) -> bool:
    """Whether its hits left are at or below its death threshold (never, without one)."""
    return (dead := dead_at(c)) is not None and c.taken >= dead


def looked_at(harm: Harm) -> bool:
    """Whether the down rule looks at one a blow deals ``harm`` to: any harm at all, hits or an effect only (a
    stun downs one a ruling kept up past its hits)."""
    return bool(harm)


def counted_out(dying: int | None) -> bool:
    """Whether a death countdown has run out (at 0: dead, unless brought back by hand)."""
    return dying is not None and dying <= 0


def end_round(fight: Fight) -> Fight:
    """The round's end, for every combatant not dead, with the values as the
    round began: bleeding, then counters down by one, then the death
    countdown (dead at 0), then down at taken ≥ hits."""
    if (over := over_refusal(fight)) is not None:
        raise FightRuleError(over)
    if len(fight.sides) < 2:
        raise FightRuleError("a fight needs combatants of two sides before a round can end")
    return replace(fight, round=fight.round + 1, combatants=tuple(_ended(c) for c in fight.combatants))


def _ended(c: Combatant) -> Combatant:
    if c.status is Status.DEAD:
        return replace(c, start=c.now, fresh_dying=False, acted=False)
    start, now = c.start, c.now
    taken = c.taken + start.bleed
    dying = now.dying
    status: Status = c.status
    if start.dying is not None and not c.fresh_dying and dying is not None:
        dying -= 1
        if counted_out(dying):
            status, dying = Status.DEAD, 0
    now = replace(now, stun=now.stun - (start.stun > 0), no_parry=now.no_parry - (start.no_parry > 0),
                  must_parry=now.must_parry - (start.must_parry > 0), dying=dying, prone=now.prone - (start.prone > 0),
                  blinded=now.blinded - (start.blinded > 0), knocked_out=_woken(start.knocked_out, now.knocked_out),
                  timed_penalties=_ticked(start.timed_penalties, now.timed_penalties))
    return down_if_beaten(replace(c, taken=taken, now=now, start=now, status=status, fresh_dying=False, acted=False))


def _woken(start: int | None, now: int | None) -> int | None:
    """Knocked out rounds, one round on: counted down when they ran as the round began; at 0, awake (None).
    Until woken (0) stays."""
    if not start or not now:
        return now
    return now - 1 or None


def _ticked(start: tuple[tuple[int, int], ...], now: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """The penalties for N rounds, one round on: those it had as the round began lose a round (gone at 0);
    those received in the round count from the next."""
    running = list(start)
    kept = []
    for penalty, rounds in now:
        if (penalty, rounds) in running:
            running.remove((penalty, rounds))
            rounds -= 1
        if rounds:
            kept.append((penalty, rounds))
    return tuple(sorted(kept))


def _found(fight: Fight, name: str) -> Combatant:
    c = fight.find(name)
    if c is None:
        raise FightRuleError(f"no combatant named {name!r} in the fight")
    return c


def _edit(fight: Fight, event: Edit) -> Fight:
    c = _found(fight, event.combatant)
    counters: dict[str, Any] = {}
    changes: dict[str, Any] = {}
    arms = {key: value for key, value in event.values if key in ARMS_EDITABLE}
    if arms:
        c = replace(c, fighter=_rearmed(c.fighter, arms))
    for key, value in event.values:
        if key in ARMS_EDITABLE:
            continue
        if key not in EDITABLE:
            raise FightRuleError(f"{key!r} cannot be edited (one of {', '.join(EDITABLE + ARMS_EDITABLE)})")
        if key in ("taken", "bonus"):
            changes[key] = value
        elif key == "status":
            changes[key] = Status(value)
        elif key in ("dropped", "broken"):  # the whole list, as the GM left it
            counters[key] = _own_weapons(c, value)
        elif key == "timed_penalties":
            counters[key] = tuple(sorted((int(penalty), int(rounds)) for penalty, rounds in value))
        else:
            counters[key] = value
    # Set by hand, a value counts at once: the round's start is corrected too.
    now, start = replace(c.now, **counters), replace(c.start, **counters)
    fresh = c.fresh_dying and "dying" not in counters
    edited = replace(c, now=now, start=start, fresh_dying=fresh, **changes)
    if "taken" in changes and "status" not in changes and edited.status is not Status.DEAD:
        # hits set by hand: down, dead past its threshold, or healed, at once (an edit of anything else leaves the
        # status as it was)
        edited = down_if_beaten(replace(edited, status=Status.UP))
    if edited.status is not Status.DEAD and "dying" not in counters \
            and counted_out(edited.now.dying):  # brought back from a countdown run out: that countdown is over
        edited = replace(edited, now=replace(edited.now, dying=None), start=replace(edited.start, dying=None))
    return _with(fight, edited)


def _own_weapons(c: Combatant, weapons: Iterable[str]) -> tuple[str, ...]:
    """``weapons`` as ``c``'s attacks spell them; FightRuleError for one it has not."""
    own = {fold(arm.weapon): arm.weapon for arm in c.fighter.attacks}
    found = []
    for weapon in weapons:
        if fold(weapon) not in own:
            raise FightRuleError(f"{c.name} has no attack {weapon!r} (its attacks: {', '.join(own.values())})")
        found.append(own[fold(weapon)])
    return tuple(dict.fromkeys(found))


def _rearmed(fighter: Fighter, arms: dict[str, Any]) -> Fighter:
    """``fighter`` with its DEF, parry, attack in use (``wield``: put first, in place of its attack of that
    weapon if it has one) and that attack's CMB as ``arms`` sets them."""
    attacks = fighter.attacks
    if (wielded := arms.get("wield")) is not None:
        assert isinstance(wielded, Armament)
        attacks = (wielded, *(a for a in attacks if fold(a.weapon) != fold(wielded.weapon)))
    if "cmb" in arms:
        if not attacks:
            raise FightRuleError(f"{fighter.name} has no attack to set the CMB of (give one: --wield WEAPON --cmb N)")
        attacks = (replace(attacks[0], cmb=arms["cmb"]), *attacks[1:])
    return replace(fighter, attacks=attacks, defense=arms.get("def", fighter.defense),
                   parry=arms.get("parry", fighter.parry))


def _adjust(fight: Fight, event: Adjust) -> Fight:
    """Relative changes by hand, counted at once (the round's start too, as an edit's), each clamped: hits taken
    and the counters at 0 or more, the penalty at 0 or less. A death countdown changed counts at once; run down
    to 0 it is death. Hits taken changed put a combatant down, or bring it up, as an edit's do."""
    c = _found(fight, event.combatant)
    deltas = dict(event.deltas)
    for key in deltas:
        if key not in ADJUSTABLE:
            raise FightRuleError(f"{key!r} cannot be adjusted (one of {', '.join(ADJUSTABLE)})")
    now, start = _shifted(c.now, deltas), _shifted(c.start, deltas)
    fresh = c.fresh_dying
    if "dying" in deltas:
        dying = _countdown(c.now.dying, deltas["dying"])
        now, start, fresh = replace(now, dying=dying), replace(start, dying=dying), False
    taken = max(0, c.taken - deltas.get("heal", 0) + deltas.get("damage", 0))
    adjusted = replace(c, taken=taken, now=now, start=start, bonus=max(0, c.bonus + deltas.get("bonus", 0)),
                       fresh_dying=fresh)
    if adjusted.status is Status.DEAD:
        return _with(fight, adjusted)
    if "dying" in deltas and counted_out(now.dying):
        adjusted = replace(adjusted, status=Status.DEAD)
    elif "heal" in deltas or "damage" in deltas:  # as hits set by hand: down, dead past its threshold, or healed
        adjusted = down_if_beaten(replace(adjusted, status=Status.UP))
    return _with(fight, adjusted)


def _shifted(counters: Counters, deltas: dict[str, int]) -> Counters:
    """``counters`` with each of ``deltas`` added: at 0 or more, the penalty at 0 or less."""
    counts: dict[str, Any] = {key: max(0, getattr(counters, key) + deltas[key])
                              for key in ("bleed", "stun", "no_parry", "must_parry") if key in deltas}
    if "penalty" in deltas:
        counts["penalty"] = min(0, counters.penalty + deltas["penalty"])
    return replace(counters, **counts)


def _countdown(dying: int | None, delta: int) -> int | None:
    """A death countdown changed by ``delta``: at 0 or more; none running, a positive change starts one (a
    negative one leaves none)."""
    if dying is None:
        return delta if delta > 0 else None
    return max(0, dying + delta)


def _leave(fight: Fight, event: Leave) -> Fight:
    """The combatant is no longer one: it neither attacks nor is attacked, and its side stands without it."""
    c = _found(fight, event.combatant)
    return replace(fight, combatants=tuple(k for k in fight.combatants if k is not c), left=(*fight.left, c.fighter))


__all__ = ["PENDING", "FightRuleError", "apply", "attack_terms", "Terms", "auto_target", "counted_out", "dead_at", "down_at",
           "down_if_beaten", "end_round", "fight_terms", "held_weapon", "looked_at", "outcome_words", "over_refusal", "past_death",
           "pending", "refusal", "replay", "skipped", "turn_weapon",
           "weapon_refusal", "whose_turn"]
