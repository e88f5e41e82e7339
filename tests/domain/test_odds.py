"""Exact odds of the table system (docs/table-system.md "Odds"), against hand
arithmetic, brute-force enumeration and seeded simulation."""

from collections import Counter
from fractions import Fraction
from fractions import Fraction as F

import pytest
from helpers import assert_agrees, assert_mean_agrees
from hypothesis import given, settings
from hypothesis import strategies as st
from small_tables import HAND_CASES, TABLES, attack

from tables_app.domain.dice import ForcedDice, SeededDice
from tables_app.domain.distributions import chain, uniform
from tables_app.domain.odds import attack_roll, open_ended_tail, sweep_odds, table_odds
from tables_app.domain.resolve import resolve_attack
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


def between(roll, low: int, high: int) -> Fraction:  # type: ignore[no-untyped-def]
    """P(low <= T <= high) of a RollDistribution."""
    return roll.at_most(high) - roll.at_most(low - 1)


def test_open_ended_totals():
    roll = attack_roll(RollKind.OE, 0)
    # P(T = 50) = 1/100; P(T > 100) = P(U ≥ 96) = 5/100; P(T ≤ 0) = P(U ≤ 5 and the chain ≥ U) ...
    assert between(roll, 50, 50) == Fraction(1, 100)
    # U = 96..100 opens and adds X ≥ 1: T ≥ 101 needs X ≥ 101 - U: (0.96 + 0.97 + 0.98 + 0.99 + 1) / 100
    assert roll.at_least(101) == Fraction(49, 1000)
    assert roll.at_least(96) == Fraction(5, 100) + 0  # 96+ always opens and adds at least 1
    assert roll.at_most(5) == Fraction(5, 100)  # every low opening ends at or below 4
    assert between(attack_roll(RollKind.OEH, 0), 1, 5) == Fraction(5, 100)  # oeh: low end closed


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
    assert {t: between(roll, t, t) for t in roll.totals} == expected


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
        pytest.param({"cmb": 0, "secondary_critical": "Impact"}, marks=pytest.mark.slow),  # ~7 s (`pytest -m slow`, and CI)
        {"cmb": 50, "armor": "HA", "rank": Rank.HEROIC, "clumsy": 5, "max_result": 110},
        # docs/table-system.md step 9: the weapon's Max critical, then the rank, then the secondary from what is left
        {"cmb": 80, "max_critical": "Mod", "rank": Rank.HEROIC, "secondary_critical": "Impact", "max_result": None},
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
    max_critical=st.sampled_from([None, "Sup", "Mod", "Let"]),
)
def test_probabilities_sum_to_exactly_one(cmb, defense, armor, rank, clumsy, kind, cap, secondary, max_critical):
    odds = table_odds(attack(cmb=cmb, defense=defense, armor=armor, rank=rank, clumsy=clumsy, roll=kind,
                             max_result=cap, secondary_critical=secondary, max_critical=max_critical), TABLES)
    assert sum(odds.outcomes.values()) == 1
    assert sum(odds.critical_severity.values()) == odds.outcomes["critical"]
    assert sum(odds.fumble_rows.values()) == odds.outcomes["fumble"]
    assert all(p >= 0 for p in odds.outcomes.values())


CASES = [
    {"cmb": 40},
    {"cmb": 90, "armor": "HA", "secondary_critical": "Impact", "features": frozenset({"helm"})},
    {"cmb": 20, "defense": 30, "rank": Rank.EPIC, "clumsy": 6, "max_result": None},
    {"cmb": 70, "rank": Rank.HEROIC, "secondary_critical": "Impact", "max_critical": "Gri"},
]


# ~1.5 s each: the first in a plain `pytest`, all of them with `pytest -m slow` (and in CI)
@pytest.mark.parametrize("changes", [CASES[0], *(pytest.param(changes, marks=pytest.mark.slow) for changes in CASES[1:])])
def test_seeded_resolutions_agree_with_the_exact_odds(changes):
    chosen = attack(**changes)
    odds = table_odds(chosen, TABLES)
    dice = SeededDice(seed=20261129)
    results = [resolve_attack(chosen, TABLES, dice) for _ in range(20_000)]
    assert_agrees(Counter(r.outcome.value for r in results), odds.outcomes)
    assert_mean_agrees([r.damage for r in results], odds.expected_damage)


@pytest.mark.parametrize("case", HAND_CASES, ids=lambda case: case.name)
def test_odds_equal_the_hand_worked_cases(case):
    odds = table_odds(attack(**case.changes), TABLES)
    if case.outcomes is None:  # only the severities named were worked out
        assert {code: odds.critical_severity[code] for code in case.severities} == case.severities
        return
    assert {k: v for k, v in odds.outcomes.items() if v} == case.outcomes
    assert {k: v for k, v in odds.critical_severity.items() if v} == case.severities
    assert odds.expected_damage == case.expected_damage


def test_fumble_rows_read_the_fumble_die_plus_the_modifier():
    # d100 + 25 on F: 1-50 ← rolls 1-25, 51+ ← rolls 26-100
    odds = table_odds(attack(clumsy=10, fumble_modifier=25), TABLES)
    assert odds.fumble_rows == {"1-50": F(10, 100) * F(25, 100), "51+": F(10, 100) * F(75, 100)}


def test_the_rows_read_and_their_probabilities():
    # Closed d100, R = T + 60 capped at 130 (the "cap after DEF" case): 30, 30 and 40 in 100.
    odds = table_odds(attack(roll=RollKind.D100, clumsy=0, cmb=100, defense=40), TABLES)
    assert odds.rows == [("61-90", F(3, 10)), ("91-120", F(3, 10)), ("121-150", F(4, 10))]


def test_a_sweep_gives_the_hand_worked_odds_of_each_cell():
    from dataclasses import replace

    chosen = attack(roll=RollKind.D100, clumsy=0, max_result=None)
    cells = [(cmb, armor) for cmb in (0, 200) for armor in TABLES.attack.armors]
    answers = sweep_odds([replace(chosen, cmb=cmb, armor=armor) for cmb, armor in cells], TABLES)
    grid = {cell: {"outcomes": {word: round(float(p), 12) for word, p in outcomes.items()}, "expected_damage": float(expected)}
            for cell, (outcomes, expected) in zip(cells, answers)}
    assert set(grid) == {(0, "NA"), (0, "HA"), (200, "NA"), (200, "HA")}
    # CMB 0: NA 1-40 miss, 41-60 "0", 61-90 "6", 91-100 "10 Mod" (4.1); HA 1-60 miss, 61-90 "3", 91-100 "8 Sup" (Cut Sup 2.5).
    assert grid[0, "NA"]["outcomes"] == {"fumble": 0.0, "miss": 0.4, "ineffective": 0.0, "no_damage": 0.2, "hit": 0.3, "critical": 0.1}
    assert grid[0, "NA"]["expected_damage"] == float(F(3, 10) * 6 + F(1, 10) * F(141, 10))
    assert grid[0, "HA"]["expected_damage"] == float(F(3, 10) * 3 + F(1, 10) * F(105, 10))
    # CMB 200: always the top row: "15 Let" on Cut (6.5), "12 Gri Impact" (4.2).
    assert grid[200, "NA"]["outcomes"]["critical"] == 1.0 and grid[200, "NA"]["expected_damage"] == 21.5
    assert grid[200, "HA"]["expected_damage"] == float(12 + F(42, 10))


@settings(max_examples=60, deadline=None)
@given(
    cmbs=st.lists(st.integers(-60, 250), min_size=1, max_size=6), defense=st.integers(-50, 150),
    rank=st.sampled_from(list(Rank)), clumsy=st.integers(0, 10), kind=st.sampled_from(list(RollKind)),
    cap=st.one_of(st.none(), st.integers(5, 200)), secondary=st.sampled_from([None, "Impact"]),
    printed=st.sampled_from([None, "TABLES", "BY_CLUMSY"]), max_critical=st.sampled_from([None, "Lig", "Gri"]),
)
def test_a_sweep_gives_exactly_the_odds_of_each_attack(cmbs, defense, rank, clumsy, kind, cap, secondary, printed, max_critical):
    """sweep_odds reads each armor column once and each reading once for all
    the values: the same outcomes and expected damage as table_odds of each
    attack alone, on either side of CMB 0 (step 6), with `UM` rows and `F` cells too,
    and rows bounded by the weapon's Clumsy Range (`XX-30`, `UM 01-XX`)."""
    from dataclasses import replace

    import test_printed_attack_rules as printed_rules

    from tables_app.domain.odds import sweep_odds

    if printed:
        tables = getattr(printed_rules, printed)
        base = printed_rules.attack(defense=defense, rank=rank, clumsy=clumsy, roll=kind, max_result=cap)
    else:
        tables = TABLES
        base = attack(defense=defense, rank=rank, clumsy=clumsy, roll=kind, max_result=cap, secondary_critical=secondary,
                      max_critical=max_critical)
    attacks = [replace(base, cmb=cmb, armor=armor) for cmb in cmbs for armor in tables.attack.armors]
    for one, (outcomes, expected_damage) in zip(attacks, sweep_odds(iter(attacks), tables), strict=True):
        odds = table_odds(one, tables)
        assert (outcomes, expected_damage) == (odds.outcomes, odds.expected_damage)
