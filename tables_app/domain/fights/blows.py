"""A resolved attack as the blow it deals in a fight (docs/fights.md, "An attack").

The table system: the damage (the cell's hits and every critical's) to the
target; each critical's effects (the further and secondary criticals too)
added up, the least death countdown; `(+N)` to the attacker. A fumble's
entry strikes the attacker: its hits and effects are the attacker's, its
`(+N)` the foe's. A formula system: its damage, and the conditions its
rules give (``conditions`` of its resolution's extras).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from tables_app.domain.fights.state import Blow, Harm
from tables_app.domain.resolve import AttackResult
from tables_app.domain.tables import Entry


def _least(deaths: Iterable[int | None]) -> int | None:
    known = [d for d in deaths if d is not None]
    return min(known) if known else None


def harm_of(entries: Iterable[Entry], hits: int) -> Harm:
    """``hits`` and the effects of ``entries`` (their own hits are in ``hits``)."""
    listed = list(entries)
    return Harm(hits=hits, bleed=sum(e.bleed for e in listed), stun=sum(e.stun for e in listed),
                no_parry=sum(e.no_parry for e in listed), must_parry=sum(e.must_parry for e in listed),
                penalty=sum(e.penalty for e in listed), death_in=_least(e.death_in for e in listed),
                prone=sum(e.prone for e in listed), knocked_out=knocked_out(e.knocked_out for e in listed),
                blinded=sum(e.blinded for e in listed), drops_weapon=any(e.drops_weapon for e in listed),
                breaks_weapon=any(e.breaks_weapon for e in listed), useless_arm=any(e.useless_arm for e in listed),
                useless_leg=any(e.useless_leg for e in listed),
                timed_penalties=tuple(sorted(t for e in listed for t in e.timed_penalties)))


def knocked_out(outs: Iterable[int | None]) -> int | None:
    """Knocked out by several: the rounds add up, as stun's do, and `until woken` (0) wins; None: by none."""
    known = [out for out in outs if out is not None]
    if not known:
        return None
    return 0 if 0 in known else sum(known)


def table_blow(result: AttackResult) -> Blow:
    """The blow of one attack resolved on the d100 tables."""
    if result.fumble is not None:
        return fumble_blow(result.fumble.entry)
    criticals = [c.entry for c in (result.critical, *result.more_criticals, result.secondary_critical) if c is not None]
    return critical_blow(result.damage, criticals)


def critical_blow(damage: int, criticals: Iterable[Entry]) -> Blow:
    """The blow of an attack that dealt ``damage`` (the cell's hits and every critical's) and these criticals'
    entries: the hits and their effects to the target, their `(+N)` to the attacker. The tracker makes it of a
    resolution (table_blow), the odds of each reading (blow_odds): one rule."""
    listed = list(criticals)
    return Blow(to_target=harm_of(listed, damage), attacker_bonus=sum(e.attacker_bonus for e in listed))


def fumble_blow(entry: Entry) -> Blow:
    """The blow of a fumble: its entry strikes the attacker (its hits and effects), its `(+N)` goes to the foe."""
    return Blow(to_attacker=harm_of([entry], entry.hits), target_bonus=entry.attacker_bonus)


CONDITIONS = ("bleed", "stun", "no_parry", "must_parry", "penalty", "death_in")


def formula_blow(damage: int, extras: Mapping[str, Any]) -> Blow:
    """The blow of a formula system's attack: its damage, and the conditions
    its rules define (``extras["conditions"]``: fields of Harm), if any."""
    conditions = extras.get("conditions") or {}
    return Blow(to_target=Harm(hits=damage, **{k: conditions[k] for k in CONDITIONS if k in conditions}))
