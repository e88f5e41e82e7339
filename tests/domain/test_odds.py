"""Exact odds of the table system (docs/table-system.md "Odds"), against hand
arithmetic, brute-force enumeration and seeded simulation."""

from collections import Counter
from dataclasses import replace
from fractions import Fraction

import pytest
from conftest import assert_agrees, assert_mean_agrees
from hypothesis import given, settings
from hypothesis import strategies as st
from test_resolve import TABLES, attack

from tables_app.domain.dice import ForcedDice, SeededDice
from tables_app.domain.distributions import chain, uniform
from tables_app.domain.odds import attack_roll, open_ended_tail, table_odds
from tables_app.domain.resolve import resolve_attack
from tables_app.domain.simulate import simulate_table
from tables_app.domain.tables import Rank, RollKind


def test_a_closed_roll_by_hand():
    # R = U: ≤10 and 11-40 "—" miss 40%, 41-60 "0" 20%, 61-90 "6" 30%, 91-100 "10 Mod" 10%.
    # Mod on Cut: d100+20 → 21-50 one hit (30 rolls), 51-100 "not helm" 4 (50), 101+ 9 (20): 4.1
    odds = table_odds(attack(cmb=0, clumsy=0, roll=RollKind.D100, max_result=None), TABLES)
    assert odds.outcomes == {"fumble": 0, "miss": Fraction(40, 100), "ineffective": 0, "no_damage": Fraction(20, 100),
                             "hit": Fraction(30, 100), "critical": Fraction(10, 100)}
    assert odds.expected_damage == Fraction(30, 100) * 6 + Fraction(10, 100) * (10 + Fraction(41, 10))
    assert odds.critical_severity["Mod"] == Fraction(10, 100)


def test_fumbles_are_the_clumsy_range_and_read_the_fumble_table():
    odds = table_odds(attack(clumsy=4, fumble_modifier=10), TABLES)
    assert odds.outcomes["fumble"] == Fraction(4, 100)
    # d100 + 10 on F: 1-50 "stumble" ← rolls 1-40, 51+ ← rolls 41-100
    assert odds.fumble_rows == {"1-50": Fraction(4, 100) * Fraction(40, 100), "51+": Fraction(4, 100) * Fraction(60, 100)}


def test_negative_cmb_is_all_ineffective():
    odds = table_odds(attack(cmb=-1, clumsy=2), TABLES)
    assert odds.outcomes["ineffective"] == Fraction(98, 100) and odds.expected_damage == 0


def test_the_open_ended_tail_matches_the_plain_chain():
    weights, denominator = open_ended_tail()
    reference = chain(uniform(100), lambda face: face >= 96)
    assert {v: Fraction(w, denominator) for v, w in enumerate(weights) if w} == reference
    assert sum(reference.values()) == 1


def test_open_ended_totals():
    roll = attack_roll(RollKind.OE, 0)
    # P(T = 50) = 1/100; P(T > 100) = P(U ≥ 96) = 5/100; P(T ≤ 0) = P(U ≤ 5 and the chain ≥ U) ...
    assert roll.between(50, 50) == Fraction(1, 100)
    # U = 96..100 opens and adds X ≥ 1: T ≥ 101 needs X ≥ 101 - U: (0.96 + 0.97 + 0.98 + 0.99 + 1) / 100
    assert roll.at_least(101) == Fraction(49, 1000)
    assert roll.at_least(96) == Fraction(5, 100) + 0  # 96+ always opens and adds at least 1
    assert roll.at_most(5) == Fraction(5, 100)  # every low opening ends at or below 4
    assert attack_roll(RollKind.OEH, 0).between(1, 5) == Fraction(5, 100)  # oeh: low end closed


@pytest.mark.parametrize("kind, clumsy", [(RollKind.OE, 3), (RollKind.OEH, 0), (RollKind.OEL, 7), (RollKind.D100, 2)])
def test_every_total_of_the_attack_roll_matches_the_plain_chain(kind, clumsy):
    """docs/table-system.md step 2: the first die in the Clumsy Range fumbles; 96+
    opens high (oe, oeh), 1-5 opens low (oe, oel), each adding or taking the
    tail. The distribution is built here face by face from the plain chain."""
    tail = chain(uniform(100), lambda face: face >= 96)
    expected: dict[int, Fraction] = {}
    for first in range(clumsy + 1, 101):
        if first >= 96 and kind in (RollKind.OE, RollKind.OEH):
            spread = {first + x: p for x, p in tail.items()}
        elif first <= 5 and kind in (RollKind.OE, RollKind.OEL):
            spread = {first - x: p for x, p in tail.items()}
        else:
            spread = {first: Fraction(1)}
        for total, p in spread.items():
            expected[total] = expected.get(total, 0) + p / 100
    roll = attack_roll(kind, clumsy)
    assert roll.fumble == Fraction(clumsy, 100)
    assert {t: roll.between(t, t) for t in roll.totals} == expected


def brute_force(chosen):
    """Every sequence of dice the attack can ask for, resolved: a tree walk
    that adds one more d100 wherever the forced dice ran out."""
    outcomes, damage = {}, Fraction(0)
    stack = [((), Fraction(1))]
    while stack:
        prefix, weight = stack.pop()
        forced = ForcedDice(values=prefix)
        result = resolve_attack(chosen, TABLES, forced)
        if forced.missing:
            stack.extend((prefix + (die,), weight / 100) for die in range(1, 101))
            continue
        outcomes[result.outcome.value] = outcomes.get(result.outcome.value, 0) + weight
        damage += weight * result.damage
    return outcomes, damage


@pytest.mark.parametrize(
    "changes",
    [
        {"cmb": 0, "secondary_critical": "Impact"},
        {"cmb": 50, "armor": "HA", "rank": Rank.HEROIC, "clumsy": 5, "max_result": 110},
    ],
)
def test_odds_equal_brute_force_enumeration_of_a_closed_roll(changes):
    chosen = attack(roll=RollKind.D100, **changes)
    outcomes, damage = brute_force(chosen)
    odds = table_odds(chosen, TABLES)
    assert {k: v for k, v in odds.outcomes.items() if v} == outcomes
    assert odds.expected_damage == damage


@settings(max_examples=150, deadline=None)
@given(
    cmb=st.integers(-30, 250), defense=st.integers(-50, 150), armor=st.sampled_from(["NA", "HA"]),
    rank=st.sampled_from(list(Rank)), clumsy=st.integers(0, 10), kind=st.sampled_from(list(RollKind)),
    cap=st.one_of(st.none(), st.integers(5, 200)), secondary=st.sampled_from([None, "Impact"]),
)
def test_probabilities_sum_to_exactly_one(cmb, defense, armor, rank, clumsy, kind, cap, secondary):
    odds = table_odds(attack(cmb=cmb, defense=defense, armor=armor, rank=rank, clumsy=clumsy, roll=kind,
                             max_result=cap, secondary_critical=secondary), TABLES)
    assert sum(odds.outcomes.values()) == 1
    assert sum(odds.critical_severity.values()) == odds.outcomes["critical"]
    assert sum(odds.fumble_rows.values()) == odds.outcomes["fumble"]
    assert all(p >= 0 for p in odds.outcomes.values())


CASES = [
    {"cmb": 40},
    {"cmb": 90, "armor": "HA", "secondary_critical": "Impact", "features": frozenset({"helm"})},
    {"cmb": 20, "defense": 30, "rank": Rank.EPIC, "clumsy": 6, "max_result": None},
]


@pytest.mark.parametrize("changes", CASES)
def test_seeded_resolutions_agree_with_the_exact_odds(changes):
    chosen = attack(**changes)
    odds = table_odds(chosen, TABLES)
    dice = SeededDice(seed=20261129)
    results = [resolve_attack(chosen, TABLES, dice) for _ in range(20_000)]
    assert_agrees(Counter(r.outcome.value for r in results), odds.outcomes)
    assert_mean_agrees([r.damage for r in results], odds.expected_damage)


@pytest.mark.parametrize("changes", CASES)
def test_the_vectorised_simulation_agrees_with_the_exact_odds(changes):
    chosen = attack(**changes)
    odds = table_odds(chosen, TABLES)
    tally = simulate_table(chosen, TABLES, 200_000, seed=7)
    assert_agrees(tally.outcomes, odds.outcomes)
    assert_agrees(tally.extra["critical_severity"] | {"none": tally.count - sum(tally.extra["critical_severity"].values())},
                  odds.critical_severity | {"none": 1 - odds.outcomes["critical"]})
    mean = tally.damage_sum / tally.count
    error = ((tally.damage_squares / tally.count - mean**2) / tally.count) ** 0.5
    assert abs(mean - float(odds.expected_damage)) <= 4 * error + 1e-12


def test_a_sweep_equals_single_calls():
    from tables_app.odds import sweep

    chosen = attack(cmb=0)
    grid = sweep(chosen, TABLES, "cmb", range(0, 101, 25))["grid"]
    for cell in grid:
        single = table_odds(replace(chosen, cmb=cell["cmb"], armor=cell["armor"]), TABLES)
        assert cell["outcomes"] == {k: float(v) for k, v in single.outcomes.items()}
        assert cell["expected_damage"] == float(single.expected_damage)
    assert len(grid) == 5 * 2
