"""Worlds Awakening (docs/formula-systems.md, "worlds-awakening").

d20 + characteristic + weapon bonus + level + equipment against Def PHY or
Def MAG. CHA widens the critical range and the critical-failure range; a
critical deals every damage die at its maximum.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from tables_app.domain.dice import Dice, DiceExpression, combined
from tables_app.domain.counts import ClampedScale, dice_counts
from tables_app.domain.distributions import Dist, uniform
from tables_app.domain.systems.base import (Odds, Option, OptionError, Resolution, System, check_bounds, check_damages,
                                            dice_option)
from tables_app.domain.systems.vectorised import by_face, by_value, codes

if TYPE_CHECKING:  # numpy is imported when a simulation runs
    import numpy as np
    from numpy.typing import NDArray

DIE = 20
BOUND = 100  # every bonus, level, defense and CHA: generous for play
MAX_DAMAGE_EXPRESSIONS = 10


@dataclass(frozen=True)
class WorldsAwakening:
    stat: int
    defense: int | None
    weapon_bonus: int = 0
    level: int = 0
    equipment: int = 0
    damage: tuple[DiceExpression, ...] = ()
    cha: int = 0
    support: bool = False

    @property
    def bonus(self) -> int:
        return self.stat + self.weapon_bonus + self.level + self.equipment


def critical_from(cha: int) -> int:
    """Lowest natural roll that is a critical [source]: +0/+1 → 20,
    +2/+3 → 19, +4/+5 → 18, +6 or more → 17; negative → 20."""
    if cha >= 6:
        return 17
    if cha >= 4:
        return 18
    if cha >= 2:
        return 19
    return 20


def failure_up_to(cha: int) -> int:
    """Highest natural roll that is a critical failure [source]:
    −1 or more → 1; −2/−3 → 2; −4 or less → 3."""
    if cha <= -4:
        return 3
    if cha <= -2:
        return 2
    return 1


NEVER_HEALS = ClampedScale(1)  # damage is never below 0 [decision], on a hit as on a critical


def critical_total(params: WorldsAwakening) -> int:
    """Every die at its maximum, flat bonuses added, for every expression [seed]."""
    return sum(expression.maximum for expression in params.damage)


def build(values: dict[str, Any]) -> WorldsAwakening:
    check_bounds(SYSTEM.options, values)
    if len(values.get("damage") or ()) > MAX_DAMAGE_EXPRESSIONS:
        raise OptionError(f"--damage may be given at most {MAX_DAMAGE_EXPRESSIONS} times, not {len(values['damage'])}")
    damage = tuple(dice_option("damage", text) for text in values.get("damage") or ())
    if values["support"] and damage:
        raise OptionError("a support action is not an attack: give --support or --damage, not both")
    if values.get("defense") is None and not values["support"]:
        raise OptionError("--def is required (the target's Def PHY or Def MAG)")
    return WorldsAwakening(
        values["stat"], values["defense"], values["weapon_bonus"], values["level"], values["equipment"],
        damage, values["cha"], values["support"],
    )


def classify(params: WorldsAwakening, natural: int) -> str:
    """The outcome of a natural d20, judged in the order of docs/formula-systems.md."""
    total, defense = natural + params.bonus, params.defense
    assert defense is not None  # only a support action has none, and it is never tested
    if natural <= failure_up_to(params.cha):
        return "critical_failure"  # overrides everything [seed]
    if natural == DIE:
        return "critical"  # whatever the total [source]
    if natural >= critical_from(params.cha):
        return "critical" if total >= defense else "hit"  # the widened range always succeeds [source]
    return "hit" if total >= defense else "miss"


def resolve(params: WorldsAwakening, dice: Dice) -> Resolution:
    if params.support:
        return Resolution("success", 0, ("A support action is not tested: it succeeds.",),
                          {"natural": None, "total": None, "opponent_advantage": False})
    natural = dice.roll(DIE, "attack test")
    total, defense = natural + params.bonus, params.defense
    assert defense is not None  # a support action has none, and it returned above
    terms = [("characteristic", params.stat), ("weapon", params.weapon_bonus), ("level", params.level), ("equipment", params.equipment)]
    added = "".join(f" {'+' if value >= 0 else '-'} {label} {abs(value)}" for label, value in terms if value or label == "characteristic")
    steps = [f"d20 {natural}{added} = {total} against defense {params.defense}."]
    outcome = classify(params, natural)
    damage = 0
    if outcome == "critical_failure":
        steps.append(f"Natural {natural}: a critical failure; the opponent gains an advantage.")
    elif outcome == "critical":
        damage = critical_total(params)
        parts = " + ".join(f"{e} max {e.maximum}" for e in params.damage) or "no damage dice"
        steps.append(f"Natural {natural}: a critical. Damage {parts} = {damage}.")
    elif outcome == "hit":
        for expression in params.damage:
            rolled, faces = expression.roll(dice, "damage")
            damage += rolled
            steps.append(f"Damage {expression}: {', '.join(map(str, faces)) or 'no dice'} = {rolled}.")
        widened = " (in the widened critical range, so it succeeds)" if total < defense else ""
        steps.append(f"Hit{widened}: {damage} damage.")
    else:
        steps.append("Miss.")
    damage = NEVER_HEALS(damage)
    return Resolution(outcome, damage, tuple(steps),
                      {"natural": natural, "total": total, "opponent_advantage": outcome == "critical_failure"})


def odds(params: WorldsAwakening) -> Odds:
    outcomes = {word: Fraction(0) for word in SYSTEM.outcomes}
    if params.support:
        outcomes["success"] = Fraction(1)
        return Odds(outcomes, Fraction(0), {"opponent_advantage": Fraction(0)})
    mean_damage: dict[str, Fraction | int] = {"hit": NEVER_HEALS.mean_over(combined(params.damage)), "critical": NEVER_HEALS(critical_total(params))}
    expected = Fraction(0)
    for natural, p in uniform(DIE).items():
        outcome = classify(params, natural)
        outcomes[outcome] += p
        expected += p * mean_damage.get(outcome, 0)
    return Odds(outcomes, expected, {"opponent_advantage": outcomes["critical_failure"]})


def damages(params: WorldsAwakening, limit: int | None = None) -> Dist:
    """The exact distribution of ``resolve``'s damage: per face of the d20, a
    hit's every expression rolled and added (never below 0), a critical's
    maximum, nothing otherwise (a support action deals nothing). TooManyDamages
    before the work when a hit could roll more than ``limit`` totals."""
    if params.support:
        return {0: Fraction(1)}
    rolled = combined(params.damage)
    check_damages(rolled.maximum - rolled.minimum + 2, limit)  # a hit's totals (a critical's among them) and a miss's
    counts, outcomes = dice_counts(rolled)
    hit: dict[int, Fraction] = {}
    for value, ways in counts.items():
        hit[NEVER_HEALS(value)] = hit.get(NEVER_HEALS(value), Fraction(0)) + Fraction(ways, outcomes)
    out: dict[int, Fraction] = {}
    for natural, p in uniform(DIE).items():
        outcome = classify(params, natural)
        dealt = hit if outcome == "hit" else {NEVER_HEALS(critical_total(params)) if outcome == "critical" else 0: Fraction(1)}
        for damage, q in dealt.items():
            out[damage] = out.get(damage, Fraction(0)) + p * q
    return out


def sample(params: WorldsAwakening, rng: np.random.Generator, n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``resolve`` for n attacks at once (domain/systems/vectorised.py): the
    outcome read per face of the d20, the hits' damage rolled, the rest exact."""
    import numpy as np

    code = codes(SYSTEM.outcomes)
    if params.support:
        return np.full(n, code["success"], dtype=np.int64), np.zeros(n, dtype=np.int64)
    outcome = by_face(lambda natural: code[classify(params, natural)], DIE)[rng.integers(1, DIE + 1, n) - 1]
    damage = np.zeros(n, dtype=np.int64)
    damage[outcome == code["critical"]] = critical_total(params)
    hits = outcome == code["hit"]
    damage[hits] = combined(params.damage).sample(rng, np.ones(int(hits.sum()), dtype=np.int64))
    return outcome, by_value(NEVER_HEALS, damage)


SYSTEM = System(
    id="worlds-awakening",
    title="Worlds Awakening: d20 + characteristic + bonuses against Def PHY or Def MAG",
    outcomes=("critical_failure", "miss", "hit", "critical", "success"),
    options=(
        Option("stat", "int", "The characteristic used (e.g. DEX +2).", required=True, minimum=-BOUND, maximum=BOUND),
        Option("weapon-bonus", "int", "The weapon's bonus (Dagger DEX+1 → 1; abilities 0).", default=0, minimum=-BOUND, maximum=BOUND),
        Option("level", "int", "The character's level.", default=0, minimum=-BOUND, maximum=BOUND),
        Option("equipment", "int", "Equipment bonus (e.g. a grimoire's +1 Atq MAG).", default=0, minimum=-BOUND, maximum=BOUND),
        Option("def", "int", "The target's Def PHY or Def MAG (required unless --support).", aliases=("defense",), dest="defense", minimum=-BOUND, maximum=BOUND),
        Option("damage", "dice", "Damage dice (repeatable: the weapon's, then the ability's).", multiple=True),
        Option("cha", "int", "CHA: widens the critical and critical-failure ranges.", default=0, minimum=-BOUND, maximum=BOUND),
        Option("support", "flag", "A support action: not tested, it succeeds."),
    ),
    build=build,
    resolve=resolve,
    dice_order="the d20, then the damage dice of each expression in order (none on a critical, whose dice are maximal)",
    odds=odds,
    sample=sample,
    damages=damages,
)
