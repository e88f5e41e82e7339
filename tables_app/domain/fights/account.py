"""A fight in words: each event's account and each combatant's status
line, from the states before and after it (rules.py made them)."""

from __future__ import annotations

from typing import Any

from tables_app.domain.effects import unread_words
from tables_app.domain.fights.events import Attack, Edit, EndRound, Event, Join
from tables_app.domain.fights.rules import skipped
from tables_app.domain.fights.state import Combatant, Fight, Harm, Status


def _rounds(n: int) -> str:
    return f"{n} round{'' if n == 1 else 's'}"


def hits_left(c: Combatant) -> str:
    """`27/45 hits`: hits left of the most (below 0 when taken passes them)."""
    return f"{c.fighter.hits - c.taken}/{c.fighter.hits} hits"


def status_words(c: Combatant) -> list[str]:
    """What a combatant carries, as now: `bleeding 3/rnd`, `stunned 2`, ..., `dying in 4`."""
    n = c.now
    words = [f"bleeding {n.bleed}/rnd" if n.bleed else "", f"stunned {n.stun}" if n.stun else "",
             f"no parry {n.no_parry}" if n.no_parry else "", f"must parry {n.must_parry}" if n.must_parry else "",
             f"penalty {n.penalty}" if n.penalty else "", f"bonus +{c.bonus}" if c.bonus else "",
             f"dying in {n.dying}" if n.dying is not None and c.status is not Status.DEAD else ""]
    return [w for w in words if w] + crippled_words(c)


def crippled_words(c: Combatant) -> list[str]:
    """The rest of a critical it carries, as now: `prone 1`, `knocked out 2` (`knocked out` until woken),
    `blinded 2`, `useless arm`, `useless leg`, `dropped Longsword`, `broken Dagger`, `penalty -20 for 3`."""
    n = c.now
    if c.status is Status.DEAD:
        return []
    out = n.knocked_out
    words = [f"prone {n.prone}" if n.prone else "",
             "" if out is None else f"knocked out {out}" if out else "knocked out",
             f"blinded {n.blinded}" if n.blinded else "", "useless arm" if n.useless_arm else "",
             "useless leg" if n.useless_leg else "", *(f"dropped {w}" for w in n.dropped), *(f"broken {w}" for w in n.broken),
             *(f"penalty {p} for {r}" for p, r in n.timed_penalties)]
    return [w for w in words if w]


def status_line(c: Combatant, width: int = 0) -> str:
    """`Orc Warrior #1  27/45 hits  bleeding 3/rnd  stunned 2  dying in 4` (``width``: the name's column)."""
    state = [] if c.status is Status.UP else [c.status.value.upper()]  # knocked out: its words say so
    return "  ".join([c.name.ljust(width), hits_left(c), *state, *status_words(c)])


def _harm_words(harm: Harm) -> list[str]:
    words = [f"bleeding {harm.bleed}/rnd" if harm.bleed else "", f"stunned {_rounds(harm.stun)}" if harm.stun else "",
             f"unable to parry {_rounds(harm.no_parry)}" if harm.no_parry else "",
             f"must parry {_rounds(harm.must_parry)}" if harm.must_parry else "",
             f"penalty {harm.penalty}" if harm.penalty else "",
             f"dies in {_rounds(harm.death_in)}" if harm.death_in else "",
             f"prone {_rounds(harm.prone)}" if harm.prone else "", f"blinded {_rounds(harm.blinded)}" if harm.blinded else "",
             "a useless arm" if harm.useless_arm else "", "a useless leg" if harm.useless_leg else "",
             *(f"penalty {p} for {_rounds(r)}" for p, r in harm.timed_penalties)]
    return [w for w in words if w]


def _weapon_lines(before: Combatant, after: Combatant, harm: Harm) -> list[str]:
    """A weapon dropped or broken, named; or none left to lose."""
    dropped = [w for w in after.now.dropped if w not in before.now.dropped]
    broken = [w for w in after.now.broken if w not in before.now.broken]
    lines = [f"{after.name} drops {w} (recover it by hand: fight edit --recover {w})." for w in dropped]
    lines += [f"{after.name}'s {w} breaks." for w in broken]
    if (harm.drops_weapon or harm.breaks_weapon) and not dropped and not broken:
        lines.append(f"{after.name} has no weapon left to lose.")
    return lines


def _knocked_out_line(after: Combatant, harm: Harm) -> list[str]:
    """Knocked out acts at once, as down does."""
    if harm.knocked_out is None or after.status is not Status.UP:
        return []
    out = after.now.knocked_out
    return [f"{after.name} is knocked out ({'until woken: fight edit --out 0' if not out else f'{_rounds(out)} left'})."]


def _struck(before: Combatant, after: Combatant, harm: Harm, verb: str) -> list[str]:
    lines = []
    if harm.hits < 0:  # a formula system's healing (pte's absorb)
        lines.append(f"{after.name} heals {-harm.hits} hit{'' if harm.hits == -1 else 's'} ({hits_left(after)} left).")
    elif harm.hits or harm.death_in == 0:
        lines.append(f"{after.name} {verb} {harm.hits} hit{'' if harm.hits == 1 else 's'} ({hits_left(after)} left).")
    effects = _harm_words(harm)
    if effects:
        lines.append(f"{after.name}: {', '.join(effects)} (from the next round).")
    lines += _weapon_lines(before, after, harm) + _knocked_out_line(after, harm)
    if harm.death_in is not None and harm.death_in > 0 and after.now.dying != harm.death_in:
        lines.append(f"{after.name} was already dying sooner: dying in {after.now.dying}.")
    lines += _fell(before, after)
    return lines


def _undecided(resolved: dict[str, Any]) -> list[str]:
    """The printed pieces not read of the entries an attack's account (resolve's JSON) read: its criticals'
    and its fumble's, in that order, each once."""
    rolls = [resolved.get("critical"), *(resolved.get("more_criticals") or ()), resolved.get("secondary_critical"),
             resolved.get("fumble")]
    pieces = [piece for roll in rolls if roll for piece in (roll.get("entry") or {}).get("unread", ())]
    return list(dict.fromkeys(pieces))


def _fell(before: Combatant, after: Combatant) -> list[str]:
    if before.status is after.status:
        return []
    if after.status is Status.DEAD:
        return [f"{after.name} is dead."]
    if after.status is Status.DOWN:
        return [f"{after.name} is down."]
    return [f"{after.name} is up."]


def _ending(after: Fight) -> list[str]:
    if not after.over:
        return []
    return [f"The fight is over: side {after.winner} wins." if after.winner else "The fight is over: nobody is standing."]


def _round_end_crippled(c0: Combatant, c1: Combatant) -> list[str]:
    """At a round's end: knocked out rounds counted down, or awake; penalties for N rounds run out."""
    if c1.status is Status.DEAD:
        return []
    lines = []
    if c0.start.knocked_out and c0.now.knocked_out:
        out = c1.now.knocked_out
        lines.append(f"{c1.name}: knocked out, {_rounds(out)} left." if out else f"{c1.name} wakes.")
    # every penalty for N rounds it had as the round began loses a round: those at their last run out
    lines += [f"{c1.name}: its penalty {p} runs out." for p, r in c0.start.timed_penalties if r == 1]
    return lines


def edit_words(key: str, value: Any) -> str:
    """One value set by hand, in words: `stun 2`, `dropped Longsword`, `knocked out until woken`."""
    if key in ("dropped", "broken"):
        return f"{key} {', '.join(value) if value else 'none'}"
    if key == "knocked_out":
        return "awake" if value is None else "knocked out until woken" if value == 0 else f"knocked out {_rounds(value)}"
    if key == "timed_penalties":
        return "penalties for a time " + (", ".join(f"{p} for {_rounds(r)}" for p, r in value) if value else "none")
    if key in ("useless_arm", "useless_leg"):
        return f"{key.replace('_', ' ')}" if value else f"{key.split('_')[1]} healed"
    return f"{key} {value}"


def account(before: Fight, event: Event, after: Fight) -> tuple[str, ...]:
    """The event in words: what it did to whom, who fell, whether the fight ended."""
    lines: list[str] = []
    if isinstance(event, Join):
        f = event.fighter
        arms = "; ".join(f"{a.weapon} {a.cmb}" for a in f.attacks) or "no attacks"
        parry = f", parry {f.parry}" if f.parry else ""
        armor = f", armor {f.armor}" if f.armor else ""  # none for a formula system's combatant
        lines.append(f"{f.name} joins side {f.side}: {f.hits} hits, DEF {f.defense}{armor}{parry}.")
        lines.append(f"{f.name} attacks with {arms}.")
    elif isinstance(event, Attack):
        a0, t0 = before.find(event.attacker), before.find(event.target)
        a1, t1 = after.find(event.attacker), after.find(event.target)
        assert a0 and t0 and a1 and t1
        lines.append(f"{a1.name} attacks {t1.name} with {event.weapon}: CMB {event.cmb} against DEF {event.defense}"
                     + (f" (its bonus +{a0.bonus} spent)" if a0.bonus else "") + ".")
        blow = event.blow
        if blow.to_attacker:
            lines += _struck(a0, a1, blow.to_attacker, "fumbles and takes")
        if blow.to_target or not blow.to_attacker:
            lines += _struck(t0, t1, blow.to_target, "takes") or [f"{t1.name} takes no hits."]
        if undecided := _undecided(event.resolved):  # what the tables printed and the rules did not apply
            lines.append(f"For the GM: {unread_words(undecided)}.")
        if blow.attacker_bonus:
            lines.append(f"{a1.name} gains +{blow.attacker_bonus} for its next attack.")
        if blow.target_bonus:
            lines.append(f"{t1.name} gains +{blow.target_bonus} for its next attack.")
    elif isinstance(event, EndRound):
        lines.append(f"Round {before.round} ends.")
        for c0, c1 in zip(before.combatants, after.combatants):
            if c0.up and not c0.acted:
                lines.append(f"{c0.name} did not attack: {skipped(c0) or 'no attack was made'}.")
            if c1.taken > c0.taken:
                lines.append(f"{c1.name} bleeds {c1.taken - c0.taken} ({hits_left(c1)} left).")
            for word, was, now in (("stunned", c0.start.stun, c1.now.stun), ("unable to parry", c0.start.no_parry, c1.now.no_parry),
                                   ("must parry", c0.start.must_parry, c1.now.must_parry), ("prone", c0.start.prone, c1.now.prone),
                                   ("blinded", c0.start.blinded, c1.now.blinded)):
                if was and c1.status is not Status.DEAD:
                    lines.append(f"{c1.name}: {word}, {_rounds(now)} left." if now else f"{c1.name}: no longer {word}.")
            lines += _round_end_crippled(c0, c1)
            if c1.status is not Status.DEAD and c0.now.dying is not None and c1.now.dying is not None \
                    and c1.now.dying < c0.now.dying:
                lines.append(f"{c1.name}: dying in {_rounds(c1.now.dying)}.")
            lines += _fell(c0, c1)
    elif isinstance(event, Edit):
        values = ", ".join(edit_words(k, v) for k, v in event.values)
        lines.append(f"{event.combatant} set by hand: {values}.")
        edited_before, edited_after = before.find(event.combatant), after.find(event.combatant)
        if edited_before and edited_after:
            lines += _fell(edited_before, edited_after)
    return tuple(lines + _ending(after) if not before.over else lines)
