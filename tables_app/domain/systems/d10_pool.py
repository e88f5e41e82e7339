"""The d10 pool (docs/formula-systems.md, "d10-pool").

One d10 + bonus per attack against AD (or GD); a 10 that would hit anyway is
a critical and grants another die, which chains. The damage of each chain is
rolled together; wounds = floor(damage / Toughness). The attack option turns
wounds into an effect (grappled, disarmed, flung, a broken item, prone).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypedDict

from tables_app.domain.dice import Dice, DiceExpression
from tables_app.domain.counts import as_counts, convolve_counts, dice_counts, power_counts
from tables_app.domain.distributions import TAIL_CUT, Dist, mean
from tables_app.domain.systems.base import (Odds, Option, OptionError, Resolution, System, check_bounds, check_damages,
                                            dice_option)
from tables_app.domain.systems.vectorised import by_face, by_value

if TYPE_CHECKING:  # numpy is imported when a simulation runs
    import numpy as np
    from numpy.typing import NDArray

DIE = 10
OPTIONS = ("normal", "grapple", "disarm", "shove", "sunder", "trip")
AGAINST_GD = ("grapple", "shove", "trip")  # "versus GD instead of AD" [seed]
UNARMED = ("grapple", "shove")  # "unarmed only" [seed]: never ranged
MELEE_ONLY = ("high-ground",)
RANGED_ONLY = ("cover", "total-cover", "far", "in-melee", "wind", "lots-of-wind")
MODIFIERS = MELEE_ONLY + RANGED_ONLY + ("concealment", "total-concealment", "flat-footed", "stationary")
# Each modifier with the one it implies [seed] ("targets with total cover also have cover", ...).
IMPLIES = {"total-cover": "cover", "total-concealment": "concealment", "stationary": "flat-footed"}
MODIFIER_VALUES = {  # [seed]; the "total"/"stationary" steps are "−1/+1 more" on top of what they imply
    "high-ground": 1, "cover": -1, "total-cover": -1, "far": -1, "in-melee": -1, "wind": -1,
    "lots-of-wind": -2, "concealment": -1, "total-concealment": -1, "flat-footed": 1, "stationary": 1,
}
DUAL_WIELDING = -2  # per weapon beyond the first [seed]
ITEM = {False: (5, 1), True: (8, 2)}  # sunder: (Toughness, HP), nonmagical / magical [seed]
# Bounds: generous for play, and they keep the exact odds (every chain's damage
# convolved, up to 8 chains) under a second (bench/formula_odds_worst_case.py).
BOUND = 100  # bonus, AD, GD, Toughness
MAX_ATTACKS = 6
MAX_WEAPONS = 3
MAX_DAMAGE_DICE = 4
MAX_DAMAGE = 30  # the most one hit can deal


@dataclass(frozen=True)
class D10Pool:
    bonus: int
    ad: int
    gd: int | None
    toughness: int
    damage: DiceExpression
    attacks: int = 1
    option: str = "normal"
    ranged: bool = False
    heavy: bool = False
    modifiers: tuple[str, ...] = ()  # sorted, with the implied ones added
    weapons: int = 1
    magical_item: bool = False

    @property
    def defense(self) -> tuple[str, int]:
        if self.option in AGAINST_GD:
            assert self.gd is not None  # build requires --gd for these options
            return "GD", self.gd
        return "AD", self.ad

    @property
    def target_toughness(self) -> int:
        return ITEM[self.magical_item][0] if self.option == "sunder" else self.toughness

    @property
    def critical_on(self) -> int:
        return DIE - 1 if self.heavy else DIE  # "Heavy attacks can cause a critical hit on a roll of a 9" [seed]

    @property
    def dice_count(self) -> int:
        return self.attacks + self.weapons - 1  # each extra weapon gives one more attack [seed]


def build(values: dict[str, Any]) -> D10Pool:
    option, ranged = values["option"], bool(values["ranged"])
    chosen = set(values.get("modifier") or ())
    check_bounds(SYSTEM.options, values)
    if option not in OPTIONS:
        raise OptionError(f"--option must be one of {', '.join(OPTIONS)}, not {option!r}")
    if option in UNARMED and ranged:
        raise OptionError(f"a {option} is unarmed only: it cannot be --ranged")
    if option in AGAINST_GD and values.get("gd") is None:
        raise OptionError(f"--gd is required: a {option} targets GD")
    if values["magical_item"] and option != "sunder":
        raise OptionError("--magical-item only applies to --option sunder")
    unknown = sorted(chosen - set(MODIFIERS))
    if unknown:
        raise OptionError(f"unknown --modifier {unknown[0]!r} (choose from {', '.join(MODIFIERS)})")
    if ranged and chosen & set(MELEE_ONLY):
        raise OptionError("--modifier high-ground is melee only: it cannot be used with --ranged")
    ranged_only = sorted(chosen & set(RANGED_ONLY))
    if not ranged and ranged_only:
        raise OptionError(f"--modifier {ranged_only[0]} is ranged only: add --ranged")
    if {"wind", "lots-of-wind"} <= chosen:
        raise OptionError("--modifier wind and lots-of-wind exclude each other (lots of wind replaces wind)")
    damage = dice_option("damage", values["damage"])
    if any(term.sign < 0 for term in damage.terms):  # [decision] a hit's damage dice are never subtracted
        raise OptionError(f"--damage {damage}: negative dice counts are not allowed")
    if damage.dice_count > MAX_DAMAGE_DICE or damage.maximum > MAX_DAMAGE:
        raise OptionError(f"--damage {damage}: at most {MAX_DAMAGE_DICE} dice and {MAX_DAMAGE} damage per hit")
    chosen |= {IMPLIES[name] for name in chosen if name in IMPLIES}
    return D10Pool(
        values["bonus"], values["ad"], values.get("gd"), values["toughness"], damage, values["attacks"],
        option, ranged, bool(values["heavy"]), tuple(sorted(chosen)), values["weapons"], bool(values["magical_item"]),
    )


def bonus_parts(params: D10Pool) -> list[tuple[str, int]]:
    """The total bonus, term by term: bonus, modifiers, option, dual-wielding."""
    parts = [("bonus", params.bonus)]
    parts += [(name, MODIFIER_VALUES[name]) for name in MODIFIERS if name in params.modifiers]
    penalty = {  # [seed]
        "disarm": -1 if params.ranged else 0, "shove": -1,
        "sunder": -2 if params.ranged else -1, "trip": -1 if params.ranged else 0,
    }.get(params.option, 0)
    if penalty:
        parts.append((f"{'ranged ' if params.ranged else ''}{params.option}", penalty))
    if params.weapons > 1:
        parts.append((f"dual-wielding, {params.weapons} weapons", DUAL_WIELDING * (params.weapons - 1)))
    return parts


def total_bonus(params: D10Pool) -> int:
    return sum(value for _, value in bonus_parts(params))


def hit_damage(rolled: int) -> int:
    """One hit's damage roll: a hit never heals [decision]."""
    return max(rolled, 0)


def wounds_of(amount: int, toughness: int) -> int:
    """A chain's wounds: its damage over Toughness, floored [decision]."""
    return amount // toughness


def disarms(amount: int, toughness: int) -> bool:
    """"damage equal to or greater than half of its Toughness": 2 × damage ≥ Toughness, per chain [decision]."""
    return bool(amount) and 2 * amount >= toughness


def destroys_item(params: D10Pool, wounds: int) -> bool:
    """Sunder: the item falls when the wounds reach its HP [seed]."""
    return wounds >= ITEM[params.magical_item][1]


DEALS_DAMAGE = ("normal", "sunder")  # the other options inflict no wounds and deal no damage [seed]


def judge(params: D10Pool, die: int, bonus: int, defense: int) -> tuple[bool, bool]:
    """Whether one attack die hits, and whether it is a critical (another die)."""
    total = die + bonus
    hit = die != 1 and (die == DIE or total >= defense)  # natural 10 hits, natural 1 misses [seed]
    # Only a die that would hit on its total is a critical, not one saved by "10 always hits" [decision].
    critical = die >= params.critical_on and total >= defense
    return hit, critical


class ChainRoll(TypedDict):
    """One die of a chain, as ``resolve`` reports it (its extras' ``rolls``)."""

    attack: int
    die: int
    total: int
    hit: bool
    critical: bool
    follow_up: bool


def roll_chain(params: D10Pool, bonus: int, defense: int, attack: int, dice: Dice, steps: list[str]) -> list[ChainRoll]:
    """One attack die and the critical follow-ups it triggers, in order."""
    label = params.defense[0]
    chain: list[ChainRoll] = []
    while True:
        follow_up = bool(chain)
        die = dice.roll(DIE, f"critical follow-up, attack {attack}" if follow_up else f"attack {attack}")
        total = die + bonus
        hit, critical = judge(params, die, bonus, defense)
        chain.append({"attack": attack, "die": die, "total": total, "hit": hit, "critical": critical,
                      "follow_up": follow_up})
        verdict = "hit" if hit else "miss"
        if die == 1 and total >= defense:
            verdict += " (a natural 1 always misses)"
        elif die == DIE and total < defense:
            verdict += " (a natural 10 always hits)"
        if critical:
            verdict += ", critical: roll another attack die"
        who = f"Attack {attack}{', follow-up' if follow_up else ''}"
        sign = "+" if bonus >= 0 else "-"
        steps.append(f"{who}: {die} {sign} {abs(bonus)} = {total} against {label} {defense}: {verdict}.")
        if not critical:
            return chain


def apply_option(params: D10Pool, amounts: list[int], wounds: list[int],
                 steps: list[str]) -> tuple[int, int, dict[str, bool | int]]:
    """What the option makes of each chain's damage and wounds [seed]: the damage
    dealt, the wounds inflicted and the effects."""
    effects: dict[str, bool | int] = {"prone": False, "grappled": False, "disarmed": False, "fling_m": 0, "item_destroyed": False}
    total, wounding = sum(wounds), any(wounds)  # "successfully damaging" = at least one wound [decision]
    option = params.option
    if option == "normal":
        steps.append(f"Normal attack: {sum(amounts)} damage, {total} wound(s).")
        return sum(amounts), total, effects
    if option == "sunder":
        hp = ITEM[params.magical_item][1]
        effects["item_destroyed"] = destroys_item(params, total)
        steps.append(f"Sunder: {total} wound(s) against {hp} HP: the item is "
                     f"{'destroyed' if effects['item_destroyed'] else 'intact'}.")
        return sum(amounts), total, effects
    if option == "grapple":
        effects["grappled"] = wounding
        outcome = "both you and the target are grappled" if wounding else "no chain would wound: no grapple"
    elif option == "disarm":
        effects["disarmed"] = any(disarms(amount, params.target_toughness) for amount in amounts)
        outcome = "the target drops what it holds" if effects["disarmed"] else "the target keeps its grip"
    elif option == "shove":
        effects["fling_m"] = total
        # [decision] only a shove that flings (at least one wound) ends a mutual grapple
        outcome = f"the target is flung {total} m" + ("; a mutual grapple ends" if total else "")
    else:  # trip
        effects["prone"] = wounding
        outcome = "the target is knocked prone" if wounding else "no chain would wound: the target stays up"
    assert option not in DEALS_DAMAGE
    steps.append(f"{option.capitalize()}: no damage, no wounds; {outcome}.")
    return 0, 0, effects


def resolve(params: D10Pool, dice: Dice) -> Resolution:
    parts = bonus_parts(params)
    bonus = total_bonus(params)
    label, defense = params.defense
    toughness = params.target_toughness
    terms = " ".join(f"{'+' if value >= 0 else '-'} {abs(value)} ({name})" for name, value in parts).lstrip("+ ")
    steps = [f"Bonus {terms} = {bonus:+d}; defense {label} {defense}; {params.dice_count} attack dice."]
    if params.option == "sunder":
        kind = "magical" if params.magical_item else "nonmagical"
        steps.append(f"Sunder: against a {kind} item of Toughness {toughness} and {ITEM[params.magical_item][1]} HP"
                     f" (--toughness {params.toughness} is ignored).")
    # All attack dice first, chain by chain; then the damage dice of each chain (docs/cli.md, dice order).
    chains = [roll_chain(params, bonus, defense, attack, dice, steps) for attack in range(1, params.dice_count + 1)]
    amounts: list[int] = []
    wounds: list[int] = []
    for number, chain in enumerate(chains, start=1):
        hits = sum(roll["hit"] for roll in chain)
        rolled = []
        for n in range(hits):  # one damage roll per hit, summed into one amount per chain [decision]
            purpose = f"damage, chain {number}" + (f", hit {n + 1}" if hits > 1 else "")
            rolled.append(hit_damage(params.damage.roll(dice, purpose)[0]))
        amount = sum(rolled)
        amounts.append(amount)
        wounds.append(wounds_of(amount, toughness))
        if hits:
            detail = " + ".join(map(str, rolled)) + (f" = {amount}" if hits > 1 else "")
            steps.append(f"Chain {number}: {hits} hit{'s' if hits > 1 else ''}, damage {params.damage}: {detail}; "
                         f"{amount} // Toughness {toughness} = {wounds[-1]} wound{'s' if wounds[-1] != 1 else ''}.")
    dealt, inflicted, effects = apply_option(params, amounts, wounds, steps)
    rolls = [roll for chain in chains for roll in chain]
    hit_count = sum(roll["hit"] for roll in rolls)
    extras = {
        "rolls": rolls, "hits": hit_count, "criticals": sum(roll["critical"] for roll in rolls), "wounds": inflicted,
        "rolled_damage": sum(amounts), "effects": effects, "bonus": bonus, "defense": defense,
    }
    return Resolution(outcome_of(hit_count), dealt, tuple(steps), extras)


def outcome_of(hits: int) -> str:
    """An attack with at least one hit is a hit, whatever its chains did."""
    return "hit" if hits else "miss"


def sample(params: D10Pool, rng: np.random.Generator, n: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``resolve`` for n attacks at once (domain/systems/vectorised.py): each die
    judged per face, the chains rolled on while critical, one damage roll per
    hit, floored per hit as ``hit_damage`` does."""
    import numpy as np

    bonus, defense = total_bonus(params), params.defense[1]
    judged = by_face(lambda die: judge(params, die, bonus, defense), DIE).astype(bool)
    hit_on, critical_on = judged[:, 0], judged[:, 1]
    hits = np.zeros(n, dtype=np.int64)
    for _ in range(params.dice_count):  # each attack die and the chain it starts
        going = np.arange(n)
        while going.size:
            die = rng.integers(1, DIE + 1, going.size)
            hits[going] += hit_on[die - 1]
            going = going[critical_on[die - 1]]
    code = {word: i for i, word in enumerate(SYSTEM.outcomes)}
    outcome = by_value(lambda count: code[outcome_of(count)], hits)
    damage = np.zeros(n, dtype=np.int64)
    if params.option in DEALS_DAMAGE:  # the other options deal none (apply_option)
        rolled = by_value(hit_damage, params.damage.sample(rng, np.ones(int(hits.sum()), dtype=np.int64)))
        damage = np.bincount(np.repeat(np.arange(n), hits), weights=rolled, minlength=n).round().astype(np.int64)
    return outcome, damage


# ---------------------------------------------------------------- exact odds
def _sum_of(dist: Mapping[int, Fraction], times: int) -> dict[int, Fraction]:
    """The sum of ``times`` independent copies of ``dist``, convolved as integer counts."""
    counts, denominator = as_counts(dist)
    scale = denominator**times
    return {value: Fraction(n, scale) for value, n in sorted(power_counts(counts, times).items()) if n}


# Bounded: keyed by the damage a caller gives, these lived as long as the server and grew with every new one.
@lru_cache(maxsize=256)
def _hit_damage(damage: DiceExpression) -> tuple[dict[int, int], int]:
    """One hit's damage as counts over its denominator, floored at 0 as ``resolve`` does."""
    counts, denominator = dice_counts(damage)
    floored: dict[int, int] = defaultdict(int)
    for value, n in counts.items():
        floored[hit_damage(value)] += n
    return dict(floored), denominator


@lru_cache(maxsize=2048)  # (a chain's every length for about a hundred damages)
def _chain_damage(damage: DiceExpression, hits: int) -> tuple[dict[int, int], int]:
    """The damage of a chain with ``hits`` hits (the sum of ``hits`` hit damages), as counts."""
    if hits == 0:
        return {0: 1}, 1
    previous, denominator = _chain_damage(damage, hits - 1)
    one, sides = _hit_damage(damage)
    return convolve_counts(previous, one), denominator * sides


def _chain_shapes(
    p_critical: Fraction, p_hit: Fraction, p_miss: Fraction, cut: Fraction
) -> dict[tuple[int, int], Fraction]:
    """(hits, criticals) of one chain → probability: criticals, then a die that is not one.

    Cut as distributions.chain does: where the mass still to come is below ``cut``, the
    last die stops even on a critical (it still counts as a hit and a critical)."""
    shapes: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    weight, criticals = Fraction(1), 0
    while True:
        shapes[(criticals + 1, criticals)] += weight * p_hit
        shapes[(criticals, criticals)] += weight * p_miss
        if weight * p_critical < cut:
            shapes[(criticals + 1, criticals + 1)] += weight * p_critical
            return {shape: p for shape, p in shapes.items() if p}
        weight *= p_critical
        criticals += 1


def _shapes(params: D10Pool, cut: Fraction) -> dict[tuple[int, int], Fraction]:
    """(hits, criticals) of one chain of ``params``'s attack → probability."""
    bonus = total_bonus(params)
    defense = params.defense[1]
    faces = [judge(params, die, bonus, defense) for die in range(1, DIE + 1)]
    p_critical = Fraction(sum(critical for _, critical in faces), DIE)
    p_hit = Fraction(sum(hit and not critical for hit, critical in faces), DIE)
    return _chain_shapes(p_critical, p_hit, 1 - p_critical - p_hit, cut)


def damages(params: D10Pool, limit: int | None = None, cut: Fraction = TAIL_CUT) -> Dist:
    """The exact distribution of ``resolve``'s damage: the hits of every chain
    added (each chain's as ``odds`` weighs them), then the sum of that many
    hits' damage, each floored at 0; nothing for an option that deals none.
    TooManyDamages before the work past ``limit`` values."""
    if params.option not in DEALS_DAMAGE:
        return {0: Fraction(1)}
    by_hits: dict[int, Fraction] = defaultdict(Fraction)
    for (hits, _), p in _shapes(params, cut).items():
        by_hits[hits] += p
    total_hits = _sum_of(by_hits, params.dice_count)
    most = max(total_hits)
    check_damages(most * hit_damage(params.damage.maximum) + 1, limit)  # each sum is one of 0 to the most
    # Added up as whole numbers over one denominator (far faster than Fractions): P(hits) × ways / sides^hits.
    counts, denominator = as_counts(total_hits)
    sides = _hit_damage(params.damage)[1]
    ways_of: dict[int, int] = defaultdict(int)
    for hits, n in counts.items():
        amounts, _ = _chain_damage(params.damage, hits)
        scale = n * sides ** (most - hits)
        for amount, ways in amounts.items():
            ways_of[amount] += ways * scale
    whole = denominator * sides**most
    return {amount: Fraction(ways, whole) for amount, ways in sorted(ways_of.items())}


def odds(params: D10Pool, cut: Fraction = TAIL_CUT) -> Odds:
    """Exact odds of one use of ``resolve``: independent chains, one per attack die."""
    toughness = params.target_toughness
    shapes = _shapes(params, cut)
    by_hits: dict[int, Fraction] = defaultdict(Fraction)
    for (hits, _), p in shapes.items():
        by_hits[hits] += p

    # One chain: its wounds, and whether it disarms (2 × damage ≥ Toughness, damage > 0).
    chain_wounds: dict[int, Fraction] = defaultdict(Fraction)
    p_disarms = Fraction(0)
    for hits, p in by_hits.items():
        amounts, denominator = _chain_damage(params.damage, hits)
        wounds: dict[int, int] = defaultdict(int)
        disarming = 0
        for amount, n in amounts.items():
            wounds[wounds_of(amount, toughness)] += n
            if disarms(amount, toughness):
                disarming += n
        for count, n in wounds.items():
            chain_wounds[count] += p * Fraction(n, denominator)
        p_disarms += p * Fraction(disarming, denominator)

    dice = params.dice_count
    total_wounds = _sum_of(chain_wounds, dice)
    total_hits = _sum_of(by_hits, dice)
    p_miss = by_hits.get(0, Fraction(0)) ** dice  # no die of any chain hit
    one_hit, sides = _hit_damage(params.damage)
    mean_hit = Fraction(sum(value * n for value, n in one_hit.items()), sides)
    rolled = dice * mean_hit * sum((hits * p for hits, p in by_hits.items()), Fraction(0))
    p_wounding = 1 - total_wounds.get(0, Fraction(0))

    option = params.option
    effects: dict[str, Fraction] = {}
    if option == "sunder":
        effects["item_destroyed"] = sum((p for count, p in total_wounds.items() if destroys_item(params, count)), Fraction(0))
    elif option == "grapple":
        effects["grappled"] = p_wounding
    elif option == "disarm":
        effects["disarmed"] = 1 - (1 - p_disarms) ** dice  # any chain disarms
    elif option == "shove":
        effects["fling_m"] = mean(total_wounds)
    elif option == "trip":
        effects["prone"] = p_wounding
    wounding = option in DEALS_DAMAGE
    extras = {
        "wounds" if wounding else "would_wound": total_wounds,
        "hits": total_hits,
        "criticals": dice * sum((criticals * p for (_, criticals), p in shapes.items()), Fraction(0)),
        "effects": effects,
    }
    return Odds({"miss": p_miss, "hit": 1 - p_miss}, rolled if wounding else Fraction(0), extras)


SYSTEM = System(
    id="d10-pool",
    title="d10 pool: one d10 + bonus per attack against AD/GD, wounds by Toughness",
    outcomes=("miss", "hit"),
    options=(
        Option("bonus", "int", "Attack bonus.", required=True, minimum=-BOUND, maximum=BOUND),
        Option("attacks", "int", "Number of attacks (one d10 each).", default=1, minimum=1, maximum=MAX_ATTACKS),
        Option("ad", "int", "The target's AD.", required=True, minimum=-BOUND, maximum=BOUND),
        Option("gd", "int", "The target's GD (needed for grapple, shove and trip).", minimum=-BOUND, maximum=BOUND),
        Option("toughness", "int", "The target's Toughness (ignored for sunder).", required=True, minimum=1, maximum=BOUND),
        Option("option", "choice", "Attack option.", default="normal", choices=OPTIONS),
        Option("ranged", "flag", "A ranged attack (else melee).", default=False),
        Option("heavy", "flag", "A heavy weapon: criticals on 9 or 10.", default=False),
        Option("damage", "dice", "Damage per hit (2d6+1).", required=True),
        Option("modifier", "choice", "An attack modifier (repeatable).", multiple=True, choices=MODIFIERS),
        Option("weapons", "int", "Weapons wielded (dual-wielding).", default=1, minimum=1, maximum=MAX_WEAPONS),
        Option("magical-item", "flag", "Sunder: the item is magical (Toughness 8, 2 HP).", default=False),
    ),
    build=build,
    resolve=resolve,
    dice_order="each attack die followed by the chain it starts, then the damage dice of each chain in order",
    odds=odds,
    sample=sample,
    damages=damages,
)
