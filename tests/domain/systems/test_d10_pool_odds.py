"""Exact odds of d10-pool (docs/formula-systems.md, "d10-pool"; docs/cli.md, "JSON shape of odds").

Odds are computed, never sampled: checked against arithmetic done by hand,
against every die sequence ``resolve`` can be given (ForcedDice), and against
20,000 seeded attacks with a chi-square test.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from fractions import Fraction
from typing import Iterator

import pytest
from helpers import assert_agrees, assert_mean_agrees, seeded_resolutions

from tables_app.domain.dice import ForcedDice
from tables_app.domain.distributions import TAIL_CUT
from tables_app.domain.systems.base import Odds, Resolution
from tables_app.domain.systems.d10_pool import SYSTEM, D10Pool, odds

REQUIRED = {"bonus": 0, "ad": 6, "toughness": 5, "damage": "1d6"}
F = Fraction


def params(**given: object) -> D10Pool:
    values = {o.key: (() if o.multiple else o.default) for o in SYSTEM.options}
    values.update(REQUIRED)
    values.update(given)
    return SYSTEM.build(values)


def wounds_key(p: D10Pool) -> str:
    return "wounds" if p.option in ("normal", "sunder") else "would_wound"


def test_registered() -> None:
    assert SYSTEM.odds is odds


# ---------------------------------------------------------------- by hand
def test_no_critical_possible_by_hand() -> None:
    # Bonus 0 against AD 11: only a natural 10 hits ("always hits"), and it is no critical
    # (10 + 0 < 11), so one die, P(hit) = 1/10. Damage 1d4, Toughness 2: wounds = d4 // 2
    # = 0, 1, 1, 2 for 1, 2, 3, 4. P(0 wounds) = 9/10 + 1/10 · 1/4 = 37/40,
    # P(1) = 1/10 · 2/4 = 1/20, P(2) = 1/10 · 1/4 = 1/40. Expected damage 1/10 · 2.5 = 1/4.
    result = odds(params(bonus=0, ad=11, damage="1d4", toughness=2))
    assert result.outcomes == {"hit": F(1, 10), "miss": F(9, 10)}
    assert result.expected_damage == F(1, 4)
    assert result.extras["wounds"] == {0: F(37, 40), 1: F(1, 20), 2: F(1, 40)}
    assert result.extras["hits"] == {0: F(9, 10), 1: F(1, 10)}
    assert result.extras["criticals"] == 0
    assert result.extras["effects"] == {}


def test_bonus_3_against_ad_7_by_hand() -> None:
    # Die + 3 ≥ 7 ⇔ die ≥ 4: 7 faces hit; the 10 (10 + 3 ≥ 7) is a critical.
    # Per die: P(critical) = 1/10, P(hit, no critical) = 6/10, P(miss) = 3/10.
    # P(hit) = 1 − P(first die misses) = 7/10, whatever the chain does.
    # Hits of the chain: P(0) = 3/10, P(1) = 6/10 + 1/10 · 3/10 = 63/100 (a critical, then a miss).
    # Expected hits = (7/10) / (1 − 1/10) = 7/9 (up to the 1e-15 cut); expected damage
    # = 7/9 · 2.5 = 35/18; expected criticals = (1/10) / (9/10) = 1/9.
    # Wounds 0: no hit, or one hit with a d4 of 1: 3/10 + 63/100 · 1/4 = 183/400
    # (two or more hits deal at least 2 = one wound).
    result = odds(params(bonus=3, ad=7, damage="1d4", toughness=2))
    assert result.outcomes == {"hit": F(7, 10), "miss": F(3, 10)}
    assert result.extras["hits"][0] == F(3, 10)
    assert result.extras["hits"][1] == F(63, 100)
    assert result.extras["wounds"][0] == F(183, 400)
    assert abs(result.expected_damage - F(35, 18)) < F(1, 10**13)
    assert abs(result.extras["criticals"] - F(1, 9)) < F(1, 10**13)
    # Expected wounds: one hit 0·1/4 + 1·2/4 + 2·1/4 = 1; sum of all the others by the sums.
    assert sum(result.extras["wounds"].values()) == 1


def test_chain_cut_keeps_the_mass_on_the_last_die() -> None:
    # Cut at 1/100 with P(critical) = 1/10: the first critical (mass 1/10 ≥ 1/100) and the
    # second (1/100 ≥ 1/100) continue, the third die (1/1000 < 1/100) stops even on a 10:
    # a chain has at most 3 dice. Hits 3: two criticals then a hit (1/100 · 6/10) or a
    # third critical kept as the last die (1/100 · 1/10) = 7/1000.
    result = odds(params(bonus=3, ad=7, damage="1d4", toughness=2), cut=F(1, 100))
    assert result.extras["hits"] == {0: F(3, 10), 1: F(63, 100), 2: F(63, 1000), 3: F(7, 1000)}
    # Criticals: 1 with mass 1/10 · 9/10, 2 with 1/100 · 9/10, 3 with 1/1000.
    assert result.extras["criticals"] == F(9, 100) + 2 * F(9, 1000) + 3 * F(1, 1000)


def test_two_attacks_are_independent_by_hand() -> None:
    # Bonus 0 vs AD 11, two attacks: P(miss) = (9/10)² = 81/100; hits 2 with 1/100.
    result = odds(params(bonus=0, ad=11, damage="1d4", toughness=2, attacks=2))
    assert result.outcomes == {"hit": F(19, 100), "miss": F(81, 100)}
    assert result.extras["hits"] == {0: F(81, 100), 1: F(18, 100), 2: F(1, 100)}
    assert result.expected_damage == F(1, 2)  # 2 · 1/4


def test_heavy_dual_wielding_by_hand() -> None:
    # Bonus 6, two weapons: 6 − 2 = 4 against AD 12: die ≥ 8 hits; heavy: 9 and 10 are criticals
    # (9 + 4 = 13 ≥ 12). Per die 2/10 critical, 1/10 hit, 7/10 miss; 2 dice (attacks + weapons − 1).
    # P(miss) = (7/10)² = 49/100. Expected hits per chain 3/10 / (8/10) = 3/8.
    result = odds(params(bonus=6, ad=12, heavy=True, weapons=2, damage="2", toughness=1))
    assert result.outcomes["miss"] == F(49, 100)
    assert abs(result.expected_damage - 2 * F(3, 8) * 2) < F(1, 10**13)


def test_options_by_hand() -> None:
    # Only a natural 10 hits in each case below (no critical), P = 1/10, one hit of 1d4.
    # Disarm, Toughness 4: disarmed when 2 · damage ≥ 4 ⇔ d4 ≥ 2: 1/10 · 3/4 = 3/40.
    disarm = odds(params(bonus=0, ad=11, damage="1d4", toughness=4, option="disarm"))
    assert disarm.expected_damage == 0
    assert disarm.extras["effects"] == {"disarmed": F(3, 40)}
    assert disarm.extras["would_wound"] == {0: F(39, 40), 1: F(1, 40)}
    # Grapple / trip vs GD 11, Toughness 2: would wound when d4 ≥ 2: 1/10 · 3/4.
    grapple = odds(params(bonus=0, ad=1, gd=11, damage="1d4", toughness=2, option="grapple"))
    assert grapple.extras["effects"] == {"grappled": F(3, 40)} and grapple.expected_damage == 0
    trip = odds(params(bonus=1, ad=1, gd=12, damage="1d4", toughness=2, option="trip"))  # trip: no melee penalty
    assert trip.extras["effects"] == {"prone": F(3, 40)}
    # Shove (−1): flung as many metres as wounds: E = 1/10 · (2/4 · 1 + 1/4 · 2) = 1/10.
    shove = odds(params(bonus=1, ad=1, gd=11, damage="1d4", toughness=2, option="shove"))
    assert shove.extras["effects"] == {"fling_m": F(1, 10)}
    assert shove.extras["would_wound"] == {0: F(37, 40), 1: F(1, 20), 2: F(1, 40)}
    # Sunder (−1 melee) against a nonmagical item, Toughness 5, 1 HP: destroyed when 2d4 ≥ 5:
    # sums 5..8 count 4 + 3 + 2 + 1 = 10 of 16. Damage is dealt: expected 1/10 · 5.
    sunder = odds(params(bonus=1, ad=11, damage="2d4", toughness=99, option="sunder"))
    assert sunder.extras["effects"] == {"item_destroyed": F(1, 10) * F(10, 16)}
    assert sunder.expected_damage == F(1, 2)
    # Magical: Toughness 8, 2 HP: 2d4 ≤ 8 never makes 2 wounds.
    magical = odds(params(bonus=1, ad=11, damage="2d4", toughness=1, option="sunder", magical_item=True))
    assert magical.extras["effects"] == {"item_destroyed": 0}


def test_damage_of_each_hit_is_floored_at_zero() -> None:
    # 1d4 − 2 per hit: −1, 0, 1, 2, floored max(·, 0) = 0, 0, 1, 2 → mean 3/4 (not 1/2);
    # only the natural 10 hits: expected damage 1/10 · 3/4 = 3/40.
    result = odds(params(bonus=0, ad=11, damage="1d4-2", toughness=1))
    assert result.expected_damage == F(3, 40)


# ---------------------------------------------------------------- sums to 1
SETS = [
    {},
    {"bonus": 3, "ad": 7, "damage": "1d4", "toughness": 2},
    {"bonus": 10, "ad": 5, "heavy": True, "damage": "2d6+3", "toughness": 3, "attacks": 3},
    {"bonus": 4, "ad": 8, "weapons": 3, "damage": "1d8", "toughness": 2},
    {"bonus": -5, "ad": 12, "damage": "1d6-3", "toughness": 1, "attacks": 2},
    {"bonus": 2, "ad": 6, "gd": 7, "option": "grapple", "modifier": ("high-ground", "stationary")},
    {"bonus": 2, "ad": 6, "option": "disarm", "ranged": True, "modifier": ("total-cover", "lots-of-wind")},
    {"bonus": 5, "ad": 6, "gd": 9, "option": "shove", "heavy": True, "attacks": 2},
    {"bonus": 5, "ad": 9, "option": "sunder", "ranged": True, "magical_item": True, "damage": "3d6"},
    {"bonus": 5, "ad": 9, "option": "sunder", "damage": "1d10", "attacks": 2, "heavy": True},
    {"bonus": 1, "ad": 2, "gd": 8, "option": "trip", "ranged": True, "modifier": ("far", "in-melee", "wind")},
    {"bonus": 9, "ad": 4, "heavy": True, "damage": "1d6", "toughness": 1, "attacks": 4},
    {"bonus": 0, "ad": 30, "damage": "1d6", "modifier": ("concealment", "flat-footed")},
]


@pytest.mark.parametrize("given", SETS)
def test_every_distribution_sums_to_exactly_one(given: dict) -> None:
    p = params(**given)
    result = odds(p)
    assert isinstance(result, Odds)
    assert set(result.outcomes) == set(SYSTEM.outcomes)
    assert sum(result.outcomes.values()) == 1
    assert all(isinstance(x, Fraction) and x >= 0 for x in result.outcomes.values())
    assert isinstance(result.expected_damage, Fraction) and result.expected_damage >= 0
    assert sum(result.extras[wounds_key(p)].values()) == 1
    assert sum(result.extras["hits"].values()) == 1
    assert result.extras["hits"].get(0, 0) == result.outcomes["miss"]
    assert isinstance(result.extras["criticals"], Fraction)
    if p.option not in ("normal", "sunder"):
        assert result.expected_damage == 0 and "wounds" not in result.extras


# ---------------------------------------------------------------- brute force
def paths(p: D10Pool, max_chain: int | None = None) -> Iterator[tuple[Fraction, Resolution]]:
    """Every die sequence ``resolve`` can ask for, with its exact probability, grown one
    ForcedDice die at a time. With ``max_chain``, a follow-up die asked for once a chain has
    ``max_chain`` dice is forced to 1 (a miss that ends it): the chain as odds cuts it."""
    stack: list[tuple[tuple[int, ...], Fraction]] = [((), F(1))]
    while stack:
        prefix, probability = stack.pop()
        forced = ForcedDice(values=prefix)
        resolution = SYSTEM.resolve(p, forced)
        if not forced.missing:
            yield probability, resolution
            continue
        purposes = forced.purposes
        purpose = purposes[len(prefix)]
        sides = [int(missing.rsplit("(d", 1)[1].rstrip(")")) for missing in forced.missing]
        if purpose.startswith("damage"):
            # The attack dice are all known, so the damage dice still missing are all that is
            # left: every combination of them at once.
            for faces in itertools.product(*(range(1, n + 1) for n in sides)):
                stack.append((prefix + faces, probability / math.prod(sides)))
            continue
        depth = 1  # dice of the current chain so far
        while depth <= len(prefix) and purposes[len(prefix) - depth].startswith("critical follow-up"):
            depth += 1
        if max_chain and purpose.startswith("critical follow-up") and depth >= max_chain:
            stack.append((prefix + (1,), probability))
        else:
            stack.extend((prefix + (face,), probability / sides[0]) for face in range(1, sides[0] + 1))


def brute(p: D10Pool, max_chain: int | None = None) -> dict:
    outcomes: dict[str, Fraction] = {word: F(0) for word in SYSTEM.outcomes}
    wounds: dict[int, Fraction] = defaultdict(Fraction)
    hits: dict[int, Fraction] = defaultdict(Fraction)
    effects: dict[str, Fraction] = defaultdict(Fraction)
    damage = criticals = total = F(0)
    for probability, resolution in paths(p, max_chain):
        total += probability
        outcomes[resolution.outcome] += probability
        damage += probability * resolution.damage
        criticals += probability * resolution.extras["criticals"]
        wounds[resolution.extras["wounds"]] += probability
        hits[resolution.extras["hits"]] += probability
        for name, value in resolution.extras["effects"].items():
            effects[name] += probability * value
    assert total == 1
    return {"outcomes": outcomes, "damage": damage, "criticals": criticals, "wounds": dict(wounds),
            "hits": dict(hits), "effects": dict(effects)}


def nonzero(dist: dict) -> dict:
    return {k: v for k, v in dist.items() if v}


BRUTE = [
    # No critical possible (only a natural 10 hits, 10 + bonus < defense): chains of one die.
    ({"bonus": 0, "ad": 11, "damage": "1d4", "toughness": 2, "attacks": 2}, None),
    ({"bonus": 0, "ad": 11, "damage": "1d3+1", "toughness": 2, "weapons": 2, "option": "sunder"}, None),
    ({"bonus": 0, "ad": 1, "gd": 11, "damage": "1d4", "toughness": 2, "attacks": 2, "option": "shove"}, None),
    # Criticals, chains cut at 3 dice (and at 2) on both sides.
    ({"bonus": 3, "ad": 7, "damage": "1d4", "toughness": 2}, 3),
    ({"bonus": 3, "ad": 7, "damage": "1d2", "toughness": 2, "attacks": 2, "heavy": True}, 2),
    ({"bonus": 3, "ad": 7, "damage": "1d2+2", "attacks": 2, "heavy": True, "option": "sunder"}, 2),
    ({"bonus": 3, "ad": 7, "damage": "1d2", "toughness": 3, "attacks": 2, "heavy": True, "option": "disarm"}, 2),
    ({"bonus": 4, "ad": 1, "gd": 7, "damage": "1d2", "toughness": 2, "attacks": 2, "option": "shove"}, 2),
    ({"bonus": 3, "ad": 1, "gd": 7, "damage": "1d3", "toughness": 2, "heavy": True, "option": "grapple"}, 3),
    ({"bonus": 3, "ad": 1, "gd": 7, "damage": "1d3", "toughness": 3, "heavy": True, "option": "trip"}, 3),
]


@pytest.mark.parametrize(("given", "max_chain"), BRUTE)
def test_exact_agreement_with_every_die_sequence(given: dict, max_chain: int | None) -> None:
    p = params(**given)
    if max_chain is None:
        result = odds(p)
        assert result.extras["criticals"] == 0  # the case really has no critical
    else:
        # A chain has at most max_chain dice when cut = P(critical)^(max_chain − 1).
        result = odds(p, cut=F(2 if p.heavy else 1, 10) ** (max_chain - 1))
        assert result.extras["criticals"] > 0
    expected = brute(p, max_chain)
    assert result.outcomes == expected["outcomes"]
    assert result.expected_damage == expected["damage"]
    assert result.extras["criticals"] == expected["criticals"]
    assert result.extras["hits"] == nonzero(expected["hits"])
    if p.option in ("normal", "sunder"):
        assert result.extras["wounds"] == nonzero(expected["wounds"])
    if p.option == "shove":  # metres flung = the wounds it would inflict
        fling = defaultdict(Fraction)
        for probability, resolution in paths(p, max_chain):
            fling[resolution.extras["effects"]["fling_m"]] += probability
        assert result.extras["would_wound"] == nonzero(fling)
    for name, probability in result.extras["effects"].items():
        assert probability == expected["effects"][name], name


def test_default_cut_is_the_shared_one() -> None:
    p = params(bonus=3, ad=7, damage="1d4", toughness=2)
    assert odds(p) == odds(p, cut=TAIL_CUT)
    # The cut mass is below 1e-15: the chain is deep enough to show it.
    assert max(odds(p).extras["hits"]) >= 15


# ---------------------------------------------------------------- sampling
SAMPLED = [
    {"bonus": 4, "ad": 8, "heavy": True, "attacks": 2, "damage": "1d6+1", "toughness": 3},
    {"bonus": 7, "ad": 1, "gd": 9, "option": "shove", "heavy": True, "damage": "1d8", "toughness": 2},
]


@pytest.mark.parametrize("given", SAMPLED)
def test_chi_square_agreement_at_a_fixed_seed(given: dict) -> None:
    p = params(**given)
    result = odds(p)
    resolutions = seeded_resolutions(SYSTEM, p)
    assert_agrees(Counter(r.outcome for r in resolutions), result.outcomes)
    if p.option == "normal":
        assert_agrees(Counter(r.extras["wounds"] for r in resolutions), result.extras["wounds"])
    else:
        assert_agrees(Counter(r.extras["effects"]["fling_m"] for r in resolutions), result.extras["would_wound"])
    assert_agrees(Counter(r.extras["hits"] for r in resolutions), result.extras["hits"])
    damages = [r.damage for r in resolutions]
    if p.option == "normal":
        assert_mean_agrees(damages, result.expected_damage)
    else:
        assert set(damages) == {0} and result.expected_damage == 0
        assert_mean_agrees([r.extras["effects"]["fling_m"] for r in resolutions], result.extras["effects"]["fling_m"])
