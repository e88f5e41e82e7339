"""Rise (docs/formula-systems.md, "rise").

1d10 + accuracy against one defense; the die explodes; outcomes are checked
in the order glancing, miss, critical, hit; every 10 beyond the defense adds
one more damage roll ("two doublings become a tripling").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from tables_app.domain.dice import Dice, DiceExpression
from tables_app.domain.counts import ClampedScale, dice_counts
from tables_app.domain.distributions import TAIL_CUT, Dist, chain, constant, mix, transform, uniform
from tables_app.domain.systems.base import (Odds, Option, OptionError, Resolution, System, check_bounds, check_damages,
                                            dice_option)
from tables_app.domain.systems.vectorised import by_face, by_value, codes

if TYPE_CHECKING:  # numpy is imported when a simulation runs
    import numpy as np
    from numpy.typing import NDArray

DIE = 10
CRITICAL_MARGIN = 10  # "at least 10 higher than the target's defense"
GLANCING_MARGIN = 2  # "1 or 2 lower than the target's defense"
BOUND = 100  # accuracy, defense, crit bonus and multiplier: generous, and it bounds the criticals (n ≤ 47)
MAX_PENALTY = 100  # the most a damage expression may subtract (bench/formula_odds_worst_case.py)


@dataclass(frozen=True)
class Rise:
    accuracy: int
    defense: int
    damage: DiceExpression | None = None
    crit_bonus: int = 0
    multiplier: int = 1
    explode_on: int = DIE


def build(values: dict[str, Any]) -> Rise:
    check_bounds(SYSTEM.options, values)
    damage = dice_option("damage", values["damage"]) if values.get("damage") is not None else None  # "" is an error
    if damage is not None and any(term.sign < 0 for term in damage.terms):
        # [decision] as in d10-pool: damage dice are added, never subtracted (and exact odds
        # of up to 48 damage rolls mixing added and subtracted dice would take minutes)
        raise OptionError(f"--damage {damage}: subtracted dice are not allowed")
    if damage is not None and damage.flat < -MAX_PENALTY:  # far below 0, many rolls: slow exact odds
        raise OptionError(f"--damage {damage}: the flat modifier must be at least -{MAX_PENALTY}")
    return Rise(values["accuracy"], values["defense"], damage, values["crit_bonus"], values["multiplier"], values["explode_on"])


def explodes(params: Rise, face: int, first: bool) -> bool:
    """The first die explodes on ``explode_on`` or more [seed], the extra dice only on 10 [source]."""
    return face >= (params.explode_on if first else DIE)


def roll_attack(params: Rise, dice: Dice) -> tuple[int, ...]:
    """The attack die and its explosions."""
    rolled = [dice.roll(DIE, "attack roll")]
    while explodes(params, rolled[-1], first=len(rolled) == 1):
        rolled.append(dice.roll(DIE, "explosion"))
    return tuple(rolled)


def damage_dice(params: Rise, outcome: str) -> DiceExpression | None:
    """The damage dice the outcome rolls: every outcome but a miss, when the attack has damage dice."""
    return params.damage if outcome != "miss" else None


def classify(params: Rise, result: int) -> tuple[str, int]:
    """The outcome for an attack result, in the seed's order, and n criticals."""
    short = params.defense - result
    if params.damage is not None and 1 <= short <= GLANCING_MARGIN:
        return "glancing", 0
    if result < params.defense:
        return "miss", 0
    margin = result + params.crit_bonus - params.defense
    if margin >= CRITICAL_MARGIN:
        return "critical", margin // CRITICAL_MARGIN
    return "hit", 0


def damage_sets(criticals: int) -> int:
    """Damage rolls of an attack with n criticals: "two doublings become a tripling" [seed]."""
    return 1 + criticals


def damage_scale(params: Rise, outcome: str) -> ClampedScale:
    """What the rolled sets become: times the damage multiplier [seed], halved
    (floor) on a glancing blow [decision], never below 0. Used by ``resolve``
    on each roll and by ``odds`` for its exact mean."""
    return ClampedScale(params.multiplier, 2 if outcome == "glancing" else 1)


def resolve(params: Rise, dice: Dice) -> Resolution:
    rolled = roll_attack(params, dice)
    result = sum(rolled) + params.accuracy
    chain = " + ".join(map(str, rolled))
    steps = [f"Roll {chain} + accuracy {params.accuracy} = {result} against defense {params.defense}."]
    outcome, criticals = classify(params, result)
    damage = 0
    expression = damage_dice(params, outcome)
    if expression is not None:
        sets = damage_sets(criticals)
        damage_total = 0
        for n in range(sets):
            rolled_damage, faces = expression.roll(dice, f"damage roll {n + 1}" if sets > 1 else "damage roll")
            damage_total += rolled_damage  # each set brings its flat modifier: flat × (1 + n) [seed]
            steps.append(f"Damage {expression}: dice {', '.join(map(str, faces)) or 'none'}.")
        damage = damage_scale(params, outcome)(damage_total)
        detail = f" x{params.multiplier}" if params.multiplier != 1 else ""
        if sets > 1:
            detail = f" ({sets} damage rolls{detail})"
        elif detail:
            detail = f" ({detail.strip()})"
        steps.append(f"{outcome.capitalize()}: {damage} damage{detail}{', halved' if outcome == 'glancing' else ''}.")
    else:
        steps.append(f"{outcome.capitalize()}" + (f" ({criticals} critical)" if criticals else "") + ".")
    return Resolution(outcome, damage, tuple(steps), {"result": result, "criticals": criticals})


def attack_totals(params: Rise, cut: Fraction = TAIL_CUT) -> dict[int, Fraction]:
    """The exact distribution of the attack dice (first die and explosions),
    the explosions cut as ``distributions.chain`` cuts them."""
    explosions = chain(uniform(DIE), lambda face: explodes(params, face, first=False), cut)
    parts = []
    for face, p in uniform(DIE).items():
        parts.append((p, transform(explosions, _adding(face)) if explodes(params, face, first=True) else constant(face)))
    return mix(parts)


def _adding(face: int) -> Callable[[int], int]:
    """The first die's face plus its explosions (a function of its own per face)."""
    return lambda extra: face + extra


def odds(params: Rise) -> Odds:
    """Exact odds: the attack total's distribution (explosions convolved), and
    for each outcome the exact mean damage of its 1 + n damage rolls."""
    outcomes = {word: Fraction(0) for word in SYSTEM.outcomes}
    criticals: dict[int, Fraction] = {}
    by_outcome: dict[tuple[str, int], Fraction] = {}
    for total, p in attack_totals(params).items():
        outcome, n = classify(params, total + params.accuracy)
        outcomes[outcome] += p
        if n:
            criticals[n] = criticals.get(n, Fraction(0)) + p
        by_outcome[(outcome, n)] = by_outcome.get((outcome, n), Fraction(0)) + p
    expected = Fraction(0)
    for (outcome, n), p in by_outcome.items():
        expression = damage_dice(params, outcome)
        if expression is not None:
            expected += p * damage_scale(params, outcome).mean_over(expression, damage_sets(n))
    return Odds(outcomes, expected, {"criticals": dict(sorted(criticals.items()))})


def damages(params: Rise, limit: int | None = None, cut: Fraction = TAIL_CUT) -> Dist:
    """The exact distribution of ``resolve``'s damage: for each outcome and n
    criticals (the attack total's distribution, as ``odds`` has it), the sum
    of its 1 + n damage rolls convolved, then scaled as ``damage_scale`` says.
    TooManyDamages before the work when the sums could take more than
    ``limit`` values (the union of each number of rolls' range)."""
    by_outcome: dict[tuple[str, int], Fraction] = {}
    for total, p in attack_totals(params, cut).items():
        key = classify(params, total + params.accuracy)
        by_outcome[key] = by_outcome.get(key, Fraction(0)) + p
    expression = params.damage
    rolled = sorted({damage_sets(n) for (outcome, n) in by_outcome if damage_dice(params, outcome) is not None})
    if expression is not None and rolled:
        spans = sorted((sets * expression.minimum, sets * expression.maximum) for sets in rolled)
        covered, reach = 0, None  # the number of totals in the union of the spans
        for low, high in spans:
            start = low if reach is None else max(low, reach + 1)
            covered += max(high - start + 1, 0)
            reach = high if reach is None else max(reach, high)
        check_damages(covered, limit)
    sums = {sets: dice_counts(expression, sets) for sets in rolled} if expression is not None else {}
    out: dict[int, Fraction] = {}
    for (outcome, n), p in by_outcome.items():
        if damage_dice(params, outcome) is None:
            out[0] = out.get(0, Fraction(0)) + p
            continue
        counts, outcomes = sums[damage_sets(n)]
        scale = damage_scale(params, outcome)
        for value, ways in counts.items():
            damage = scale(value)
            out[damage] = out.get(damage, Fraction(0)) + p * Fraction(ways, outcomes)
    return out


def sample(params: Rise, rng: np.random.Generator, n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``resolve`` for n attacks at once (domain/systems/vectorised.py): the same
    rules, each read once per face or per distinct value."""
    import numpy as np

    first_explodes = by_face(lambda face: explodes(params, face, first=True), DIE).astype(bool)
    later_explodes = by_face(lambda face: explodes(params, face, first=False), DIE).astype(bool)
    total = rng.integers(1, DIE + 1, n)
    going = np.flatnonzero(first_explodes[total - 1])
    while going.size:
        extra = rng.integers(1, DIE + 1, going.size)
        total[going] += extra
        going = going[later_explodes[extra - 1]]
    code = codes(SYSTEM.outcomes)
    read = by_value(lambda result: (code[classify(params, result)[0]], classify(params, result)[1]), total + params.accuracy)
    outcome, criticals = read[:, 0], read[:, 1]
    damage = np.zeros(n, dtype=np.int64)
    for word in SYSTEM.outcomes:
        chosen = outcome == code[word]
        expression = damage_dice(params, word)
        if expression is not None and chosen.any():
            rolled = expression.sample(rng, damage_sets(criticals[chosen]))
            damage[chosen] = by_value(damage_scale(params, word), rolled)
    return outcome, damage


SYSTEM = System(
    id="rise",
    title="Rise: 1d10 + accuracy against a defense",
    outcomes=("miss", "glancing", "hit", "critical"),
    options=(
        Option("accuracy", "int", "Accuracy bonus of the attack.", required=True, minimum=-BOUND, maximum=BOUND),
        Option("def", "int", "The target's defense (Armor, Fortitude, Reflex or Mental).", required=True, aliases=("defense",), dest="defense", minimum=-BOUND, maximum=BOUND),
        Option("damage", "dice", "Damage dice (2d6+3); none for a non-damaging attack."),
        Option("crit-bonus", "int", "Accuracy that counts only for criticals.", default=0, minimum=-BOUND, maximum=BOUND),
        Option("multiplier", "int", "Damage multiplier from other effects (2 = double damage).", default=1, minimum=0, maximum=BOUND),
        Option("explode-on", "int", "The first die explodes on this or more.", default=DIE, minimum=1, maximum=DIE),
    ),
    build=build,
    resolve=resolve,
    dice_order="the attack die and its explosions, then the damage dice (each of the 1 + n sets in turn)",
    odds=odds,
    sample=sample,
    damages=damages,
)
