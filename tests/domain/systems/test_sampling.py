"""`simulate` of the formula systems, vectorised with numpy (domain/systems/vectorised.py):
each system's ``sample`` reads the same rule functions as ``resolve`` and ``odds``, so its
counts agree with the exact odds (chi-square at a fixed seed) and its mean damage with
the exact expected damage; seeded, it is reproducible."""

from fractions import Fraction

import numpy as np
import pytest
from helpers import assert_agrees, seeded_resolutions, system_params

from tables_app.domain.dice import parse_dice, sum_of_dice
from tables_app.domain.systems import get
from tables_app.domain.systems.vectorised import _sum_of_squares, by_value, simulate

CASES = [
    ("rise", dict(accuracy=6, defense=12, damage="2d6+3")),
    ("rise", dict(accuracy=0, defense=11, crit_bonus=15, multiplier=3, damage="2d6-7")),  # glancing, criticals, clamped
    ("rise", dict(accuracy=3, defense=5, explode_on=7, damage="1d4-2")),
    ("rise", dict(accuracy=3, defense=5)),  # no damage dice: no glancing blows
    ("worlds-awakening", dict(stat=2, defense=12, damage=("1d8+2", "1d6"), cha=3)),
    ("worlds-awakening", dict(stat=0, defense=15, damage=("2d6-2d6",), cha=-5)),  # subtracted dice, never heals
    ("worlds-awakening", dict(stat=1, support=True)),
    ("d10-pool", dict(bonus=3, ad=7, toughness=3, damage="2d6", attacks=2)),
    ("d10-pool", dict(bonus=1, ad=8, toughness=2, damage="1d6-3", heavy=True, attacks=3, weapons=2)),  # floored per hit
    ("d10-pool", dict(bonus=2, ad=6, toughness=4, damage="1d6", option="sunder")),
    ("d10-pool", dict(bonus=2, ad=6, gd=4, toughness=4, damage="1d6", option="grapple")),  # deals no damage
    ("pte", dict(accuracy=2, ac=2, evasion=3, stat=20, db=8, defense=10, max_hp=50, hp=40)),
    ("pte", dict(accuracy=0, ac=4, evasion=2, stat=12, db=6, defense=3, absorb=True, crit_range=18)),  # heals
    ("pte", dict(accuracy=1, ac=2, evasion=0, stat=1, db=1, defense=1, direct=30, range="short", distance=0.5)),
]
COUNT = 200_000


@pytest.mark.parametrize("system_id, values", CASES)
def test_simulation_agrees_with_the_exact_odds(system_id, values):
    system = get(system_id)
    params = system_params(system, **values)
    tally = simulate(system.sample, params, system.outcomes, COUNT, seed=2024)
    exact = system.odds(params)
    assert tally.count == COUNT and sum(tally.outcomes.values()) == COUNT
    assert_agrees({k: v for k, v in tally.outcomes.items() if v}, exact.outcomes)
    mean = tally.damage_sum / COUNT
    variance = tally.damage_squares / COUNT - mean * mean
    assert abs(mean - float(exact.expected_damage)) <= 4.5 * (variance / COUNT) ** 0.5 + 1e-9, (mean, float(exact.expected_damage))


@pytest.mark.parametrize("system_id, values", CASES[::3])
def test_simulation_agrees_with_the_resolver(system_id, values):
    """The joint (outcome, damage) counts of ``sample`` and of ``resolve`` run
    one attack at a time: the same distribution (chi-square)."""
    system = get(system_id)
    params = system_params(system, **values)
    looped: dict = {}
    for resolution in seeded_resolutions(system, params, n=20_000):
        key = (resolution.outcome, resolution.damage)
        looped[key] = looped.get(key, 0) + 1
    outcome, damage = system.sample(params, np.random.default_rng(7), 400_000)
    sampled: dict = {}
    for code, amount in zip(outcome.tolist(), damage.tolist()):
        key = (system.outcomes[code], amount)
        sampled[key] = sampled.get(key, 0) + 1
    assert set(looped) <= set(sampled)
    assert_agrees(looped, {key: Fraction(n, 400_000) for key, n in sampled.items()})


def test_seeded_simulations_are_reproducible():
    system = get("d10-pool")
    params = system_params(system, bonus=3, ad=7, toughness=3, damage="2d6", attacks=2)
    first = simulate(system.sample, params, system.outcomes, 250_001, seed=5)
    assert first == simulate(system.sample, params, system.outcomes, 250_001, seed=5)
    assert first != simulate(system.sample, params, system.outcomes, 250_001, seed=6)


def test_progress_is_reported_per_chunk():
    system = get("pte")
    params = system_params(system, accuracy=2, ac=2, evasion=3, stat=20, db=8, defense=10)
    ticks: list[int] = []
    simulate(system.sample, params, system.outcomes, 250_000, seed=1, progress=ticks.append)
    assert ticks == [100_000, 100_000, 50_000]


def test_by_value_calls_the_rule_once_per_distinct_value():
    calls: list[int] = []

    def rule(value):
        calls.append(value)
        return value * 3 // 2

    dense = np.array([5, -3, 5, 7, -3])
    assert by_value(rule, dense).tolist() == [7, -5, 7, 10, -5]
    calls.clear()
    sparse = np.array([10**9, -(10**9), 10**9, 4])
    assert by_value(rule, sparse).tolist() == [3 * 10**9 // 2, -3 * 10**9 // 2, 3 * 10**9 // 2, 6]
    assert sorted(calls) == [-(10**9), 4, 10**9]
    assert by_value(lambda v: (v, -v), np.array([1, 2])).tolist() == [[1, -1], [2, -2]]
    assert by_value(rule, np.array([], dtype=np.int64)).tolist() == []


def test_sums_of_dice_and_expressions():
    rng = np.random.default_rng(3)
    counts = np.array([0, 1, 3, 100, 1, 0])
    sums = sum_of_dice(rng, 6, counts)
    assert sums[0] == sums[-1] == 0 and 1 <= sums[1] <= 6 and 3 <= sums[2] <= 18 and 100 <= sums[3] <= 600
    assert sum_of_dice(rng, 1, counts).tolist() == counts.tolist()
    expression = parse_dice("2d6-1d4+3")
    totals = expression.sample(rng, np.full(100_000, 2))  # two rolls each, each with its +3
    assert totals.min() >= 2 * expression.minimum and totals.max() <= 2 * expression.maximum
    assert abs(totals.mean() - 2 * float(expression.mean)) < 0.05
    assert expression.sample(rng, np.zeros(3, dtype=np.int64)).tolist() == [0, 0, 0]


def test_sum_of_squares_is_exact_beyond_int64():
    damage = np.array([3_000_000_000, -3_000_000_000, 5] * 2, dtype=np.int64)
    assert _sum_of_squares(damage) == 4 * 3_000_000_000**2 + 2 * 25
    assert _sum_of_squares(np.array([1, 2, 3])) == 14
