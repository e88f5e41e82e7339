"""Pokémon Tabletop Evolution (docs/formula-systems.md, "pte").

A d20 + accuracy against the move's base AC + the target's Evasion; damage is
stat + DB + STAB + modifiers, doubled on a critical, minus defense and DR,
times the type effectiveness, floored once. Absorb turns the damage into
healing, direct damage skips the defenses, and HP markers cause injuries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from tables_app.domain.dice import Dice
from tables_app.domain.systems.base import Odds, Option, OptionError, Resolution, System, check_bounds
from tables_app.domain.systems.vectorised import by_face, codes

if TYPE_CHECKING:  # numpy is imported when a simulation runs
    import numpy as np
    from numpy.typing import NDArray

DIE = 20
OUTCOMES = ("miss", "hit", "critical")
STAB_PER_TIER = 3  # "+3 per Tier extra Damage" [seed]
EFFECTIVENESS = {  # "SE x1.5, doubly SE x2, resisted ½, doubly resisted ¼" [seed]
    "neutral": Fraction(1),
    "se": Fraction(3, 2),
    "double-se": Fraction(2),
    "resisted": Fraction(1, 2),
    "double-resisted": Fraction(1, 4),
}
RANGE_PER_TIER = {"short": 4, "medium": 20, "long": 100}  # maximum range in metres per tier [seed]
MINIMUM_DISTANCE = {"short": 1, "medium": 5, "long": 20}  # "cannot target anyone within ... without penalty" [seed]
POINT_BLANK_PENALTY = 8  # "too close to you results in a -8 Accuracy penalty" [seed]
INCREMENTS_PER_RANGE = 4  # "Range Increments ... equal to 1/4th of its maximum range" [seed]
# Bounds, generous for play (odds resolve the 20 faces of the d20, so any values are fast).
BOUND = 100  # accuracy, AC, evasion, Damage Base, its multiplier, tier
STAT_BOUND = 1000  # stats, modifiers, defense, DR
HP_BOUND = 100_000  # HP, direct damage, distance in metres


def exact(value: float | int) -> Fraction:
    """A float option as the decimal the user typed (12.5, 0.1), not its binary approximation."""
    return Fraction(str(value))


def show(value: Fraction | int) -> str:
    """A number for the steps: 25, 12.5, 8.25."""
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else format(float(value), ".10g")


@dataclass(frozen=True)
class Pte:
    accuracy: int
    ac: int
    evasion: int
    stat: int
    db: int
    defense: int
    db_multiplier: Fraction = Fraction(1)
    tier: int = 1
    stab: bool = False
    damage_mod: int = 0
    dr: int = 0
    effectiveness: str = "neutral"
    absorb: bool = False
    direct: int | None = None
    crit_range: int = DIE
    pp: bool = False
    max_hp: int | None = None
    hp: int | None = None
    range: str | None = None
    distance: Fraction | None = None


def build(values: dict[str, Any]) -> Pte:
    check_bounds(SYSTEM.options, values)  # NaN and infinity are outside every bound too
    if (values.get("range") is None) != (values.get("distance") is None):
        raise OptionError("--range and --distance go together: give both or neither")
    if (values.get("max_hp") is None) != (values.get("hp") is None):
        raise OptionError("--max-hp and --hp go together: give both or neither")
    if values.get("absorb") and values.get("direct") is not None:
        raise OptionError("--absorb and --direct exclude each other: direct damage is dealt 'no questions asked'")
    if values["effectiveness"] not in EFFECTIVENESS:
        raise OptionError(f"--effectiveness must be one of {', '.join(EFFECTIVENESS)}, not {values['effectiveness']}")
    distance = exact(values["distance"]) if values.get("distance") is not None else None
    return Pte(
        values["accuracy"], values["ac"], values["evasion"], values["stat"], values["db"], values["defense"],
        exact(values["db_multiplier"]), values["tier"], bool(values.get("stab")), values["damage_mod"], values["dr"],
        values["effectiveness"], bool(values.get("absorb")), values.get("direct"), values["crit_range"],
        bool(values.get("pp")), values.get("max_hp"), values.get("hp"), values.get("range"), distance,
    )


def range_penalty(params: Pte) -> tuple[int, str | None]:
    """The accuracy penalty for the distance, and a step describing it [seed]."""
    if params.range is None or params.distance is None:
        return 0, None
    maximum = RANGE_PER_TIER[params.range] * params.tier
    increment = Fraction(maximum, INCREMENTS_PER_RANGE)
    minimum = MINIMUM_DISTANCE[params.range]
    where = f"{params.range} range at {show(params.distance)} m (max {maximum} m, increment {show(increment)} m)"
    if params.distance <= minimum:  # "within" the minimum distance, inclusive [decision]
        return -POINT_BLANK_PENALTY, f"Too close: {where}, within {minimum} m: -{POINT_BLANK_PENALTY} accuracy."
    if params.distance > maximum:  # −1 per increment beyond the maximum, a partial one counts [seed]
        beyond = math.ceil((params.distance - maximum) / increment)
        return -beyond, f"Beyond the maximum: {where}: {beyond} increment(s), -{beyond} accuracy."
    return 0, f"In range: {where}: no penalty."


def markers_crossed(max_hp: int, hp: int, hp_after: int) -> int:
    """HP markers at 50%, 0%, −50%, −100%, … of max HP crossed going from hp to hp_after [source].

    Marker k (k ≥ 0) is max_hp × (1 − k) / 2; it is crossed when hp > marker ≥ hp_after,
    i.e. 1 − 2·hp/max_hp < k ≤ 1 − 2·hp_after/max_hp (exact fractions: 50% of 25 is 12.5).
    """
    first = max(math.floor(1 - Fraction(2 * hp, max_hp)) + 1, 0)
    last = math.floor(1 - Fraction(2 * hp_after, max_hp))
    return max(0, last - first + 1)


def damage_of(params: Pte, critical: bool, steps: list[str]) -> int:
    """The damage of a hit (negative when it heals), floored once at the end."""
    if params.direct is not None:
        # Direct damage "simply deals the listed damage, no questions asked" [seed]: no defense, DR or
        # effectiveness, and a critical does not double it either [decision].
        note = " (a critical does not double direct damage)" if critical else ""
        steps.append(f"Direct damage {params.direct}: no defense, DR or effectiveness{note}.")
        return params.direct
    db = params.db * params.db_multiplier
    terms = [f"stat {params.stat}", f"DB {params.db}" + (f" x {show(params.db_multiplier)} = {show(db)}" if params.db_multiplier != 1 else "")]
    total = params.stat + db
    if params.stab:
        total += STAB_PER_TIER * params.tier  # [seed]
        terms.append(f"STAB {STAB_PER_TIER * params.tier} ({STAB_PER_TIER} x tier {params.tier})")
    if params.damage_mod:
        total += params.damage_mod
        terms.append(f"modifiers {params.damage_mod:+d}")
    steps.append(f"Damage: {' + '.join(terms)} = {show(total)}.")
    if critical:  # doubles the sum, before defenses [decision] and before effectiveness [seed]
        total *= 2
        steps.append(f"Critical: doubled to {show(total)}.")
    reduced = max(total - params.defense - params.dr, Fraction(0))  # "Attacks can deal 0 damage" [seed]
    steps.append(f"Minus defense {params.defense} and DR {params.dr}: {show(reduced)} (not below 0).")
    if params.absorb:  # treated as neutral damage and healed instead [seed: the Magmar example]
        healed = math.floor(reduced)
        steps.append(f"Absorbed: effectiveness ignored ({params.effectiveness}); heals {healed} (floor).")
        return -healed
    factor = EFFECTIVENESS[params.effectiveness]
    damage = math.floor(reduced * factor)  # the only rounding [seed: floor once]
    steps.append(f"Effectiveness {params.effectiveness} x{show(factor)}: {show(reduced * factor)}, floor {damage}.")
    return damage


def injuries_of(params: Pte, damage: int, steps: list[str]) -> tuple[int, int | None]:
    """Injuries from this hit and the HP after it (None without --max-hp/--hp)."""
    if params.max_hp is None or params.hp is None:
        return 0, None
    if damage <= 0:
        # Healing never injures; it does not go above max HP [decision] (nor lowers HP already above it).
        hp_after = max(params.hp, min(params.max_hp, params.hp - damage))
        steps.append(f"HP {params.hp} -> {hp_after} of {params.max_hp}: no injuries.")
        return 0, hp_after
    hp_after = params.hp - damage
    massive = params.direct is None and 2 * damage >= params.max_hp  # ≥ 50% in one hit, never direct [source]
    crossed = markers_crossed(params.max_hp, params.hp, hp_after)
    injuries = int(massive) + crossed
    detail = f"massive damage {int(massive)} + markers crossed {crossed}"
    if params.direct is not None and 2 * damage >= params.max_hp:
        detail += " (direct damage is never massive damage)"
    steps.append(f"HP {params.hp} -> {hp_after} of {params.max_hp}: {injuries} {'injury' if injuries == 1 else 'injuries'} ({detail}).")
    return injuries, hp_after


def resolve(params: Pte, dice: Dice) -> Resolution:
    return resolve_natural(params, dice.roll(DIE, "accuracy roll"))


def resolve_natural(params: Pte, natural: int) -> Resolution:
    """The whole attack for one natural d20 (the only die): pure, so odds can enumerate it."""
    steps: list[str] = []
    penalty, range_step = range_penalty(params)
    if range_step:
        steps.append(range_step)
    total = natural + params.accuracy + penalty
    check = params.ac + params.evasion
    penalty_text = f" {penalty:+d} range" if penalty else ""
    roll = f"Accuracy roll {natural} + accuracy {params.accuracy}{penalty_text} = {total} against AC {params.ac} + evasion {params.evasion} = {check}"
    if natural == 1:  # "A 1 is always a miss" [seed]
        hit, why = False, "natural 1 always misses"
    elif natural == DIE:  # "a 20 is always a hit" [seed]
        hit, why = True, "natural 20 always hits"
    else:
        hit, why = total >= check, ("hit" if total >= check else "miss")
    steps.append(f"{roll}: {why}.")
    # The critical range uses the natural roll, not the modified one [seed]; spending PP makes any hit critical [seed].
    critical = hit and (natural >= params.crit_range or params.pp)
    outcome = "critical" if critical else ("hit" if hit else "miss")
    if critical:
        steps.append(f"Critical hit ({'PP spent' if params.pp and natural < params.crit_range else f'natural {natural} in range {params.crit_range}-{DIE}'}).")
    damage = damage_of(params, critical, steps) if hit else 0
    if not hit:
        steps.append("Miss: no damage.")
    injuries, hp_after = injuries_of(params, damage, steps)
    extras = {
        "natural": natural, "accuracy_total": total, "check": check, "range_penalty": penalty,
        "injuries": injuries, "healed": -damage if damage < 0 else 0, "hp_after": hp_after,
    }
    return Resolution(outcome, damage, tuple(steps), extras)


def odds(params: Pte) -> Odds:
    """Exact odds: the d20 is the only die, so each of its 20 faces is resolved as ``resolve`` does."""
    p = Fraction(1, DIE)
    outcomes = {word: Fraction(0) for word in OUTCOMES}
    injuries: dict[int, Fraction] = {}
    expected_damage = healed = Fraction(0)
    for natural in range(1, DIE + 1):
        resolution = resolve_natural(params, natural)
        outcomes[resolution.outcome] += p
        expected_damage += p * resolution.damage
        healed += p * resolution.extras["healed"]
        count = resolution.extras["injuries"]
        injuries[count] = injuries.get(count, Fraction(0)) + p
    extras: dict[str, Fraction | dict[int, Fraction]] = {}
    if params.max_hp is not None and params.hp is not None:
        extras["injuries"] = dict(sorted(injuries.items()))
    if params.absorb:
        extras["healed"] = healed
    return Odds(outcomes, expected_damage, extras)


def damages(params: Pte, limit: int | None = None) -> dict[int, Fraction]:
    """The exact distribution of ``resolve``'s damage (negative: it heals):
    each of the d20's faces resolved as ``resolve`` does (at most 20 values,
    so ``limit`` is never reached)."""
    out: dict[int, Fraction] = {}
    for natural in range(1, DIE + 1):
        damage = resolve_natural(params, natural).damage
        out[damage] = out.get(damage, Fraction(0)) + Fraction(1, DIE)
    return out


def sample(params: Pte, rng: np.random.Generator, n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``resolve`` for n attacks at once: the d20 is the only die, so each face's
    outcome and damage are ``resolve_natural``'s, looked up per roll."""
    code = codes(OUTCOMES)
    faces = by_face(lambda natural: (lambda r: (code[r.outcome], r.damage))(resolve_natural(params, natural)), DIE)
    read = faces[rng.integers(1, DIE + 1, n) - 1]
    return read[:, 0], read[:, 1]


SYSTEM = System(
    id="pte",
    title="Pokémon Tabletop Evolution: d20 + accuracy against AC + evasion",
    outcomes=OUTCOMES,
    options=(
        Option("accuracy", "int", "Accuracy bonus of the attacker.", required=True, minimum=-BOUND, maximum=BOUND),
        Option("ac", "int", "The move's base AC.", required=True, minimum=-BOUND, maximum=BOUND),
        Option("evasion", "int", "The target's Evasion.", required=True, minimum=-BOUND, maximum=BOUND),
        Option("stat", "int", "The attacking stat (Atk or SpAtk by the move's class).", required=True, minimum=-STAT_BOUND, maximum=STAT_BOUND),
        Option("damage-base", "int", "The move's Damage Base.", required=True, dest="db", minimum=0, maximum=BOUND),
        Option("db-multiplier", "float", "Multiplier of the Damage Base from other effects.", default=1.0, minimum=0, maximum=BOUND),
        Option("tier", "int", "The attacker's Tier (STAB and ranges scale with it).", default=1, minimum=1, maximum=BOUND),
        Option("stab", "flag", "Same-type attack bonus: +3 damage per Tier.", default=False),
        Option("damage-mod", "int", "Other damage modifiers, added before defenses.", default=0, minimum=-STAT_BOUND, maximum=STAT_BOUND),
        Option("def", "int", "The target's Def or SpDef (by the move's class).", required=True, aliases=("defense",), dest="defense", minimum=-STAT_BOUND, maximum=STAT_BOUND),
        Option("dr", "int", "The target's damage reduction.", default=0, minimum=-STAT_BOUND, maximum=STAT_BOUND),
        Option("effectiveness", "choice", "Type effectiveness.", default="neutral", choices=tuple(EFFECTIVENESS)),
        Option("absorb", "flag", "The target absorbs this type: it heals instead.", default=False),
        Option("direct", "int", "Direct damage: dealt as is, instead of the formula.", minimum=0, maximum=HP_BOUND),
        Option("crit-range", "int", "Lowest natural roll that is a critical hit.", default=DIE, minimum=1, maximum=DIE),
        Option("pp", "flag", "Spend 1 PP: a hit is a critical hit.", default=False),
        Option("max-hp", "int", "The target's maximum HP (with --hp: injuries).", minimum=1, maximum=HP_BOUND),
        Option("hp", "int", "The target's current HP (with --max-hp).", minimum=-HP_BOUND, maximum=HP_BOUND),
        Option("range", "choice", "Range class of the move (with --distance).", choices=tuple(RANGE_PER_TIER)),
        Option("distance", "float", "Distance to the target in metres (with --range).", minimum=0, maximum=HP_BOUND),
    ),
    build=build,
    resolve=resolve,
    dice_order="the d20 (accuracy roll)",
    odds=odds,
    sample=sample,
    damages=damages,
)
