"""Rise's exact odds (docs/formula-systems.md "rise"): the damage of 1 + n rolls
convolved exactly, never enumerated; checked here against plain enumeration."""

import itertools
from collections import Counter
from dataclasses import replace
from fractions import Fraction

import pytest
from conftest import system_params
from hypothesis import given, settings
from hypothesis import strategies as st

from tables_app.domain.dice import ForcedDice, parse_dice
from tables_app.domain.systems.base import OptionError
from tables_app.domain.systems.rise import SYSTEM, attack_totals, classify, damage_scale, damage_sets, odds


def params(**values):
    return system_params(SYSTEM, **values)


def one_roll(expression) -> Counter:
    """Every face of every die of one roll, enumerated: total → ways."""
    faces = [range(1, t.sides + 1) for t in expression.terms for _ in range(t.count)]
    signs = [t.sign for t in expression.terms for _ in range(t.count)]
    return Counter(expression.flat + sum(s * f for s, f in zip(signs, rolled)) for rolled in itertools.product(*faces))


def brute_expected_damage(p) -> Fraction:
    """Expected damage by enumeration: one roll's faces, then plain repeated addition of rolls."""
    single = one_roll(p.damage)
    outcomes = sum(single.values())
    expected = Fraction(0)
    by_sets: dict[int, Counter] = {1: single}
    for total, probability in attack_totals(p).items():
        outcome, n = classify(p, total + p.accuracy)
        if outcome == "miss":
            continue
        sets = damage_sets(n)
        while max(by_sets) < sets:
            last = by_sets[max(by_sets)]
            added = Counter()
            for x, m in last.items():
                for y, k in single.items():
                    added[x + y] += m * k
            by_sets[max(by_sets) + 1] = added
        scale = damage_scale(p, outcome)
        ways = by_sets[sets]
        expected += probability * Fraction(sum(scale(y) * k for y, k in ways.items()), outcomes**sets)
    return expected


SMALL_DICE = st.builds(
    lambda terms, flat: "+".join(f"{c}d{s}" for c, s in terms) + (f"{flat:+d}" if flat else ""),
    st.lists(st.tuples(st.integers(1, 2), st.integers(1, 4)), min_size=1, max_size=2),
    st.integers(-8, 4),
)


@settings(max_examples=60, deadline=None)
@given(
    damage=SMALL_DICE,
    accuracy=st.integers(-5, 25),
    defense=st.integers(0, 20),
    crit_bonus=st.integers(0, 15),
    multiplier=st.integers(0, 3),
    explode_on=st.integers(7, 10),
)
def test_exact_odds_equal_plain_enumeration(damage, accuracy, defense, crit_bonus, multiplier, explode_on):
    p = params(accuracy=accuracy, defense=defense, damage=damage, crit_bonus=crit_bonus, multiplier=multiplier, explode_on=explode_on)
    result = odds(p)
    assert sum(result.outcomes.values(), Fraction(0)) == 1
    assert result.expected_damage == brute_expected_damage(p)


@pytest.mark.parametrize("damage", ["2d20", "2d6+3", "1d4-3"])
def test_the_old_slow_inputs_equal_plain_enumeration(damage):
    p = params(accuracy=6, defense=12, damage=damage)
    assert odds(p).expected_damage == brute_expected_damage(p)


def no_clamp_expected(p) -> Fraction:
    """Damage never below 0: the mean of each roll times the rolls, a glancing blow halved
    (floor: minus half the chance of an odd total)."""
    mean = p.damage.mean
    single = one_roll(p.damage)
    odd = Fraction(sum(k for y, k in single.items() if y * p.multiplier % 2), sum(single.values()))
    expected = Fraction(0)
    for total, probability in attack_totals(p).items():
        outcome, n = classify(p, total + p.accuracy)
        if outcome in ("hit", "critical"):
            expected += probability * mean * (1 + n) * p.multiplier
        elif outcome == "glancing":
            expected += probability * (mean * p.multiplier - odd) / 2
    return expected


@pytest.mark.parametrize("damage, multiplier", [("1d100", 1), ("1d100", 3), ("1d1000", 1), ("1d999+7", 3)])
def test_large_dice_are_exact(damage, multiplier):
    p = params(accuracy=6, defense=12, damage=damage, multiplier=multiplier)
    result = odds(p)
    assert sum(result.outcomes.values(), Fraction(0)) == 1
    assert result.expected_damage == no_clamp_expected(p)


def test_the_largest_dice_and_most_criticals_allowed_are_computed():
    p = params(accuracy=100, defense=-100, crit_bonus=100, damage="100d1000-100", multiplier=100)
    result = odds(p)
    assert sum(result.outcomes.values(), Fraction(0)) == 1 and result.outcomes["critical"] == 1
    # 100 dice of 1000 sides are at least 100: never below 0, so the mean is linear
    expected = sum((pr * p.damage.mean * (1 + n) * 100 for n, pr in result.extras["criticals"].items()), Fraction(0))
    assert result.expected_damage == expected


def test_often_below_zero_at_the_most_criticals():
    # 3d4-100: always below 0, so no damage whatever the criticals
    assert odds(params(accuracy=100, defense=-100, crit_bonus=100, damage="3d4-100")).expected_damage == 0


@pytest.mark.parametrize("dice", [[2, 1, 1], [1, 3, 3], [4, 4, 2], [2, 2, 2]])
def test_resolve_applies_the_same_rule_as_odds(dice):
    # a glancing blow (8 vs 10) and a critical (n = 1): resolve's damage is damage_scale of the rolled sum
    glancing = params(accuracy=0, defense=10, damage="1d4-2", multiplier=3)
    result = SYSTEM.resolve(glancing, ForcedDice(values=(8, dice[0])))
    assert result.damage == damage_scale(glancing, "glancing")(dice[0] - 2)
    critical = replace(glancing, accuracy=12)
    result = SYSTEM.resolve(critical, ForcedDice(values=(9, dice[1], dice[2])))
    assert (result.outcome, result.extras["criticals"]) == ("critical", 1)
    assert result.damage == damage_scale(critical, "critical")(dice[1] + dice[2] - 4)


@pytest.mark.parametrize(
    "damage, message",
    [
        ("1d10000", "1 to 1000 sides"),
        ("101d6", "more than 100 dice"),
        ("2d6+1001", "between -1000 and 1000"),
        ("2d6-101", "at least -100"),
        ("2d6-1d4", "subtracted dice"),
        ("99999999d6", "too large"),
    ],
)
def test_damage_beyond_the_bounds_is_a_usage_error(damage, message):
    with pytest.raises(OptionError, match=message) as raised:
        params(accuracy=6, defense=12, damage=damage)
    assert str(raised.value).startswith("--damage") and "\n" not in str(raised.value)


@pytest.mark.parametrize("damage", ["100d1000", "1d1000", "2d6-100", "50d10+50d1000+1000"])
def test_damage_at_the_bounds_is_accepted(damage):
    assert params(accuracy=6, defense=12, damage=damage).damage == parse_dice(damage)
