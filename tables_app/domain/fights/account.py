"""A fight in words: each event's account and each combatant's status
line, from the states before and after it (rules.py made them)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tables_app.domain.effects import unread_words
from tables_app.domain.fights.events import Adjust, Attack, Edit, EndRound, Event, Join, Leave
from tables_app.domain.fights.rules import PENDING, outcome_words, past_death, pending, skipped, whose_turn
from tables_app.domain.fights.state import Armament, Combatant, Fight, Harm, Status


def _rounds(n: int) -> str:
    return f"{n} round{'' if n == 1 else 's'}"


def hits_left(c: Combatant) -> str:
    """`27/45 hits`: hits left of the most (below 0 when taken passes them)."""
    return f"{c.fighter.hits - c.taken}/{c.fighter.hits} hits"


def status_words(c: Combatant) -> list[str]:
    """What a combatant carries, as now: `bleeding 3/rnd`, `stunned 2`, ..., `dying in 4`."""
    words = _counter_words(c)
    words.insert(PENDING.index("dying"), f"bonus +{c.bonus}" if c.bonus else "")  # the bonus before the countdown
    return [w for w in words if w]


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
    return "  ".join([c.name.ljust(width), hits_left(c), *state, *status_words(c), *crippled_words(c)])


def shown_line(c: Combatant, width: int = 0, side_width: int = 0) -> str:
    """`fight show`'s line: the side, then the status line with what counts in
    this round, then what was received in it, as it will count from the next:
    `B  Orc Warrior #1  36/60 hits  from next round: bleeding 2/rnd, stunned 1`."""
    marked: dict[str, Any] = pending(c)
    words = status_words(replace(c, now=c.start))  # what counts in this round
    later = _counter_words(replace(c, now=replace(c.start, **marked)))
    coming = [w for w, key in zip(later, PENDING) if key in marked and w]
    if coming:
        words.append(f"from next round: {', '.join(coming)}")
    state = [] if c.status is Status.UP else [c.status.value.upper()]  # knocked out: its words say so
    # the rest of a critical as it stands now (knocked out counts at once; the rest from the next round)
    return "  ".join([c.side.ljust(side_width), c.name.ljust(width), hits_left(c), *state, *words, *crippled_words(c)])


def _counter_words(c: Combatant) -> list[str]:
    """Each counter's word of the status line, in PENDING's order ("" when it is 0)."""
    n = c.now
    return [f"bleeding {n.bleed}/rnd" if n.bleed else "", f"stunned {n.stun}" if n.stun else "",
            f"no parry {n.no_parry}" if n.no_parry else "", f"must parry {n.must_parry}" if n.must_parry else "",
            f"penalty {n.penalty}" if n.penalty else "",
            f"dying in {n.dying}" if n.dying is not None and c.status is not Status.DEAD else ""]


def turn_line(fight: Fight) -> str | None:
    """`Round 2: next Orc Warrior #1 (side B); acted: Hero; cannot act: Wolf #1 (stunned, 1 round left)`;
    None once the fight is over."""
    if fight.over:
        return None
    nxt = whose_turn(fight)
    parts = [f"Round {fight.round}: " + (f"next {nxt.name} (side {nxt.side})" if nxt else
                                         "nobody left to act (end the round: tables fight round)")]
    acted = [c.name for c in fight.combatants if c.acted]
    if acted:
        parts.append(f"acted: {', '.join(acted)}")
    unable = [f"{c.name} ({why})" for c in fight.combatants
              if c.up and not c.acted and (why := skipped(c) or (None if c.fighter.attacks else "no attack"))]
    if unable:
        parts.append(f"cannot act: {', '.join(unable)}")
    return "; ".join(parts)


def sides_line(fight: Fight) -> str:
    """`Sides: A 1/1 up; B 2/3 up`."""
    return "Sides: " + "; ".join(f"{side} {up}/{total} up" for side, (up, total) in side_counts(fight).items())


def side_counts(fight: Fight) -> dict[str, tuple[int, int]]:
    """Each side's combatants up, and in all, in the order the sides joined."""
    return {side: (sum(1 for c in fight.combatants if c.side == side and c.up),
                   sum(1 for c in fight.combatants if c.side == side)) for side in fight.sides}


def dice_line(event: Attack) -> str:
    """What an attack read, for the log: `dice 80, 95: Edged 106-110 MA → 11 Lig; Lig on Cut 105 → 101-110 Chest cleft`,
    from its recorded account (resolve's JSON); a formula system's attack says its system."""
    dice = f"dice {', '.join(map(str, event.dice))}" if event.dice else "no dice"
    resolved = event.resolved
    if resolved.get("system", "table") != "table":
        return f"{dice}: {resolved['system']}, {resolved.get('damage', 0)} damage"
    read = []
    if cell := resolved.get("cell"):
        read.append(f"{cell['table']} {cell['row']} {cell['armor']} → {cell['text'] or '—'}")
    elif "result" in resolved:
        read.append(f"result {resolved['result']}: {resolved.get('outcome', 'miss')}")
    rolls = [resolved.get("critical"), *(resolved.get("more_criticals") or ()), resolved.get("secondary_critical")]
    read += [f"{roll['severity']} on {roll['table']} {roll['modified_roll']} → {_entry_words(roll.get('entry'))}"
             for roll in rolls if roll]
    if fumble := resolved.get("fumble"):
        read.append(f"fumble on {fumble['table']} {fumble['modified_roll']} → {_entry_words(fumble.get('entry'))}")
    return f"{dice}: {'; '.join(read)}" if read else dice


def _entry_words(entry: dict[str, Any] | None) -> str:
    """`101-110 Chest cleft (if helm)`: an entry's row, title and the branch's condition."""
    if not entry:
        return "no entry"
    words = " ".join(str(w) for w in (entry.get("range"), entry.get("title")) if w)
    return words + (f" (if {entry['condition']})" if entry.get("condition") else "")


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
    lines = [f"{after.name} drops {w}." for w in dropped]  # (picked up by hand: the refusal of an attack with it says how)
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
        if past_death(after):  # its threshold, not a critical's death
            return [f"{after.name} is dead: {after.fighter.hits - after.taken} hits left, at or past its death at "
                    f"{after.fighter.death_at}."]
        return [f"{after.name} is dead."]
    if after.status is Status.DOWN:
        return [f"{after.name} is down."]
    return [f"{after.name} is up."]


def _ending(after: Fight) -> list[str]:
    if not after.over:
        return []
    return [f"The fight is over: {outcome_words(after)}."]


def _round_end_crippled(c0: Combatant, c1: Combatant) -> list[str]:
    """At a round's end: knocked out rounds counted down, or awake; penalties for N rounds run out."""
    if c1.status is Status.DEAD:
        return []
    lines = []
    if c0.start.knocked_out and c0.now.knocked_out:
        out = c1.now.knocked_out
        if out or c1.status is Status.UP:  # run out while it went down at the round's end: it does not wake
            lines.append(f"{c1.name}: knocked out, {_rounds(out)} left." if out else f"{c1.name} wakes.")
    # every penalty for N rounds it had as the round began loses a round: those at their last run out
    lines += [f"{c1.name}: its penalty {p} runs out." for p, r in c0.start.timed_penalties if r == 1]
    return lines


CRIPPLED_KEYS = ("prone", "knocked_out", "blinded", "useless_arm", "useless_leg", "dropped", "broken", "timed_penalties")


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
    return f"{key} {_rounds(value)}"  # prone, blinded


def account(before: Fight, event: Event, after: Fight) -> tuple[str, ...]:
    """The event in words: what it did to whom, who fell, whether the fight ended."""
    lines: list[str] = []
    if isinstance(event, Join):
        f = event.fighter
        arms = "; ".join(f"{a.weapon} {a.cmb}" for a in f.attacks)
        parry = f", parry {f.parry}" if f.parry else ""
        armor = f", armor {f.armor}" if f.armor else ""  # none for a formula system's combatant
        lines.append(f"{f.name} joins side {f.side}: {f.hits} hits, DEF {f.defense}{armor}{parry}.")
        lines.append(f"{f.name} attacks with {arms}." if arms else f"{f.name} has no attack: it is attacked, never attacks.")
        if before.over and after.over:  # reinforcements of the side that won
            lines.append(f"The fight stays over: {_standing(after)} (a foe joining takes it up again).")
    elif isinstance(event, Attack):
        a0, t0 = before.find(event.attacker), before.find(event.target)
        a1, t1 = after.find(event.attacker), after.find(event.target)
        assert a0 and t0 and a1 and t1
        whom = f"an ally, {t1.name}," if a0.side == t0.side else t1.name  # allowed, and said: a deliberate choice
        lines.append(f"{a1.name} attacks {whom} with {event.weapon}: CMB {event.cmb} against DEF {event.defense}"
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
                why = skipped(c0) or ("it has no attack" if not c0.fighter.attacks else "no attack was made")
                lines.append(f"{c0.name} did not attack: {why}.")
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
        edited_before, edited_after = before.find(event.combatant), after.find(event.combatant)
        values = ", ".join(_set_words(key, value, edited_after) for key, value in event.values)
        lines.append(f"{event.combatant} set by hand: {values}.")
        if edited_before and edited_after:
            lines += _fell(edited_before, edited_after)
    elif isinstance(event, Adjust):
        adjusted_before, adjusted_after = before.find(event.combatant), after.find(event.combatant)
        assert adjusted_before and adjusted_after
        lines += _adjusted(adjusted_before, adjusted_after, dict(event.deltas))
    elif isinstance(event, Leave):
        lines.append(f"{event.combatant} leaves the fight.")
    return tuple(lines + _ending(after) if not before.over else lines + _taken_up(after))


def _taken_up(after: Fight) -> list[str]:
    """After an event of a fight that was over (reinforcements, a healed one up again): whether it goes on."""
    return [] if after.over else [f"The fight goes on: {_standing(after)}."]


def _standing(fight: Fight) -> str:
    sides = fight.standing
    if not sides:
        return "nobody is standing"
    if len(sides) == 1:
        return f"side {sides[0]} stands"
    return f"sides {', '.join(sides[:-1])} and {sides[-1]} stand"


# An edit's fields in words (`must parry 2 rounds`, `hits taken 10`); a field not listed reads as its name.
SET_WORDS = {
    "taken": lambda v: f"hits taken {v}", "bleed": lambda v: f"bleeding {v}/rnd", "stun": lambda v: f"stunned {_rounds(v)}",
    "no_parry": lambda v: f"unable to parry {_rounds(v)}", "must_parry": lambda v: f"must parry {_rounds(v)}",
    "penalty": lambda v: f"penalty {v}", "bonus": lambda v: f"bonus +{v}",
    "dying": lambda v: "no death countdown" if v is None else f"dying in {_rounds(v)}",
    "status": lambda v: str(v), "def": lambda v: f"DEF {v}", "parry": lambda v: f"parry {v}",
}


def _set_words(key: str, value: object, after: Combatant | None) -> str:
    if key in CRIPPLED_KEYS:  # the rest of a critical (edit_words)
        return edit_words(key, value)
    if key == "wield" and isinstance(value, Armament):
        return f"wields {value.weapon} (CMB {value.cmb})"
    if key == "cmb" and after is not None and after.fighter.attacks:
        return f"CMB {value} ({after.fighter.attacks[0].weapon})"
    words = SET_WORDS.get(key)
    return words(value) if words else f"{key.replace('_', ' ')} {value}"


# An adjustment's changes in words (`bleeding -2`, `death countdown +1`).
ADJUST_LABELS = {"heal": "heal", "damage": "damage", "bleed": "bleeding", "stun": "stunned", "no_parry": "unable to parry",
                 "must_parry": "must parry", "penalty": "penalty", "bonus": "bonus", "dying": "death countdown"}


def _adjusted(before: Combatant, after: Combatant, deltas: dict[str, int]) -> list[str]:
    """`Hero heals 10 hits (50/50 hits left).`, then every other change with what it is now."""
    lines = []
    change = after.taken - before.taken
    if change < 0:
        lines.append(f"{after.name} heals {-change} hit{'' if change == -1 else 's'} ({hits_left(after)} left).")
    elif change > 0:
        lines.append(f"{after.name} takes {change} hit{'' if change == 1 else 's'} by hand ({hits_left(after)} left).")
    elif "heal" in deltas or "damage" in deltas:
        lines.append(f"{after.name}'s hits taken stay at {after.taken} ({hits_left(after)} left).")
    n = after.now
    now_words = {"bleed": f"{n.bleed}/rnd", "stun": _rounds(n.stun), "no_parry": _rounds(n.no_parry),
                 "must_parry": _rounds(n.must_parry), "penalty": str(n.penalty), "bonus": f"+{after.bonus}",
                 "dying": "none" if n.dying is None else _rounds(n.dying)}
    changed = [f"{ADJUST_LABELS[key]} {delta:+d} (now {now_words[key]})" for key, delta in deltas.items()
               if key in now_words]
    if changed:
        lines.append(f"{after.name} by hand: {', '.join(changed)}.")
    return lines + _fell(before, after)


def event_words(before: Fight, event: Event) -> str:
    """The event named in a few words, from the fight before it (what `undo` says it took back):
    `Hero's attack on Orc Warrior #1`, `the end of round 2`."""
    if isinstance(event, Join):
        return f"{event.fighter.name} joining side {event.fighter.side}"
    if isinstance(event, Attack):
        return f"{event.attacker}'s attack on {event.target}"
    if isinstance(event, EndRound):
        return f"the end of round {before.round}"
    if isinstance(event, Edit):
        after = before.find(event.combatant)
        return f"{event.combatant} set by hand: {', '.join(_set_words(k, v, after) for k, v in event.values)}"
    if isinstance(event, Adjust):
        changes = ", ".join(f"{ADJUST_LABELS.get(k, k)} {v}" if k in ("heal", "damage") else
                            f"{ADJUST_LABELS.get(k, k)} {v:+d}" for k, v in event.deltas)
        return f"{event.combatant} adjusted by hand: {changes}"
    return f"{event.combatant} leaving the fight"
