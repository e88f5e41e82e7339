"""Rise (seed 000; docs/formula-systems.md, "rise").

1d10 + accuracy against one defense; the die explodes; outcomes are checked
in the order glancing, miss, critical, hit; every 10 beyond the defense adds
one more damage roll ("two doublings become a tripling").
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from tables_app.domain.dice import Dice, DiceExpression, parse_dice
from tables_app.domain.distributions import chain, constant, dice_sum, mean, mix, power, transform, uniform
from tables_app.domain.systems.base import Odds, Option, OptionError, Resolution, System

DIE = 10
CRITICAL_MARGIN = 10  # "at least 10 higher than the target's defense"
GLANCING_MARGIN = 2  # "1 or 2 lower than the target's defense"


@dataclass(frozen=True)
class Rise:
    accuracy: int
    defense: int
    damage: DiceExpression | None = None
    crit_bonus: int = 0
    multiplier: int = 1
    explode_on: int = DIE


def build(values: dict) -> Rise:
    if not 1 <= values["explode_on"] <= DIE:
        raise OptionError(f"--explode-on must be between 1 and {DIE}, not {values['explode_on']}")
    if values["multiplier"] < 0:
        raise OptionError(f"--multiplier must not be negative, not {values['multiplier']}")
    damage = parse_dice(values["damage"]) if values.get("damage") else None
    return Rise(values["accuracy"], values["defense"], damage, values["crit_bonus"], values["multiplier"], values["explode_on"])


def roll_attack(params: Rise, dice: Dice) -> tuple[int, ...]:
    """The attack die and its explosions: the first die explodes on
    ``explode_on`` or more [seed], the extra dice only on 10 [source]."""
    rolled = [dice.roll(DIE, "attack roll")]
    threshold = params.explode_on
    while rolled[-1] >= threshold:
        rolled.append(dice.roll(DIE, "explosion"))
        threshold = DIE
    return tuple(rolled)


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


def resolve(params: Rise, dice: Dice) -> Resolution:
    rolled = roll_attack(params, dice)
    result = sum(rolled) + params.accuracy
    chain = " + ".join(map(str, rolled))
    steps = [f"Roll {chain} + accuracy {params.accuracy} = {result} against defense {params.defense}."]
    outcome, criticals = classify(params, result)
    damage = 0
    if params.damage is not None and outcome != "miss":
        sets = 1 + criticals  # "two doublings become a tripling"
        total = 0
        for n in range(sets):
            rolled_damage, faces = params.damage.roll(dice, f"damage roll {n + 1}" if sets > 1 else "damage roll")
            total += rolled_damage - params.damage.flat
            steps.append(f"Damage {params.damage}: dice {', '.join(map(str, faces)) or 'none'}.")
        total += params.damage.flat * sets  # flat modifiers multiplied by 1 + n
        total *= params.multiplier
        if outcome == "glancing":
            total //= 2  # half of a regular hit, rounded down [decision]
        damage = max(total, 0)
        detail = f" x{params.multiplier}" if params.multiplier != 1 else ""
        if sets > 1:
            detail = f" ({sets} damage rolls{detail})"
        elif detail:
            detail = f" ({detail.strip()})"
        steps.append(f"{outcome.capitalize()}: {damage} damage{detail}{', halved' if outcome == 'glancing' else ''}.")
    else:
        steps.append(f"{outcome.capitalize()}" + (f" ({criticals} critical)" if criticals else "") + ".")
    return Resolution(outcome, damage, tuple(steps), {"result": result, "criticals": criticals})


def attack_totals(params: Rise) -> dict[int, Fraction]:
    """The exact distribution of the attack dice (first die and explosions)."""
    explosions = chain(uniform(DIE), lambda face: face >= DIE)  # extra dice explode only on 10
    parts = []
    for face, p in uniform(DIE).items():
        parts.append((p, transform(explosions, lambda extra, f=face: f + extra) if face >= params.explode_on else constant(face)))
    return mix(parts)


def odds(params: Rise) -> Odds:
    outcomes = {word: Fraction(0) for word in SYSTEM.outcomes}
    criticals: dict[int, Fraction] = {}
    expected = Fraction(0)
    damage_means: dict[tuple[str, int], Fraction] = {}
    for total, p in attack_totals(params).items():
        outcome, n = classify(params, total + params.accuracy)
        outcomes[outcome] += p
        if n:
            criticals[n] = criticals.get(n, Fraction(0)) + p
        if params.damage is not None and outcome != "miss":
            key = (outcome, n)
            if key not in damage_means:
                damage_means[key] = _mean_damage(params, outcome, n)
            expected += p * damage_means[key]
    return Odds(outcomes, expected, {"criticals": dict(sorted(criticals.items()))})


def _mean_damage(params: Rise, outcome: str, n: int) -> Fraction:
    """Mean damage of one outcome, exactly as ``resolve`` computes it."""
    assert params.damage is not None
    sets = 1 + n
    dice_only = transform(dice_sum(params.damage), lambda value: value - params.damage.flat)  # type: ignore[union-attr]
    summed = transform(power(dice_only, sets), lambda value: (value + params.damage.flat * sets) * params.multiplier)  # type: ignore[union-attr]
    if outcome == "glancing":
        summed = transform(summed, lambda value: value // 2)
    return mean(transform(summed, lambda value: max(value, 0)))


SYSTEM = System(
    id="rise",
    title="Rise: 1d10 + accuracy against a defense",
    outcomes=("miss", "glancing", "hit", "critical"),
    options=(
        Option("accuracy", "int", "Accuracy bonus of the attack.", required=True),
        Option("def", "int", "The target's defense (Armor, Fortitude, Reflex or Mental).", required=True, aliases=("defense",), dest="defense"),
        Option("damage", "dice", "Damage dice (2d6+3); none for a non-damaging attack."),
        Option("crit-bonus", "int", "Accuracy that counts only for criticals.", default=0),
        Option("multiplier", "int", "Damage multiplier from other effects (2 = double damage).", default=1),
        Option("explode-on", "int", "The first die explodes on this or more.", default=DIE),
    ),
    build=build,
    resolve=resolve,
    dice_order="the attack die and its explosions, then the damage dice (each of the 1 + n sets in turn)",
    odds=odds,
)
