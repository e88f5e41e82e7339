"""Rise's exact odds (docs/formula-systems.md "rise"): the damage of 1 + n rolls
convolved exactly, never enumerated; checked here against plain enumeration."""

import itertools
from collections import Counter
from dataclasses import replace
from fractions import Fraction

import pytest
from helpers import system_params
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


# ---------------------------------------------------------------- pinned by hand
# The explosions are an infinite chain that odds cuts below 1e-15 (the cut mass stays on the
# last die): outcomes and the first criticals are exact, the expected damage within 1e-13.
def test_accuracy_6_against_12_by_hand():
    # d10 + 6 vs 12: 1-3 miss (7-9); 4-5 glancing (10, 11: 1 or 2 short); 6-9 hit; 10 explodes:
    # 16 + X, margin 4 + X: X 1-5 a hit, X 6-9 a critical, X = 10 explodes again (margin 14 + Y ≥ 15).
    # hit 4/10 + 1/10 · 5/10 = 9/20; critical 1/10 · 5/10 = 1/20.
    # n criticals = ⌊margin / 10⌋: P(1) = 1/10 · (4/10 + 1/10 · 5/10) = 9/200, each further 10 a tenth of it.
    # Damage 2d6+3 (mean 10): glancing ⌊S/2⌋ = 10/2 − P(S odd)/2 = 5 − 1/4 = 19/4 (S = 2d6 + 3 is odd
    # half the time); a critical rolls 1 + n sets: Σ (1 + n) · 10 · 9/200 · (1/10)^(n−1)
    # = 9/20 · (10/9 + 100/81) = 19/18. E = 2/10 · 19/4 + 9/20 · 10 + 19/18 = 1171/180.
    result = odds(params(accuracy=6, defense=12, damage="2d6+3"))
    assert result.outcomes == {"miss": Fraction(3, 10), "glancing": Fraction(1, 5), "hit": Fraction(9, 20), "critical": Fraction(1, 20)}
    criticals = result.extras["criticals"]
    assert (criticals[1], criticals[2], criticals[3]) == (Fraction(9, 200), Fraction(9, 2000), Fraction(9, 20000))
    assert abs(result.expected_damage - Fraction(1171, 180)) < Fraction(1, 10**13)


def test_flat_damage_and_a_glancing_blow_by_hand():
    # d10 + 0 vs 5, damage a flat 2: 1-2 miss; 3-4 glancing (⌊2/2⌋ = 1); 5-9 hit; 10 explodes:
    # with j further 10s and a last die F < 10, margin = 5 + 10j + F, n = j + (F ≥ 5):
    # P(n = 0 | 10) = 4/10 (a hit), P(n = k) = (1/10)^k · (5/10 + 4/100) = 54/100 · (1/10)^k.
    # hit 5/10 + 4/100 = 27/50; critical 54/100 · 1/9 = 3/50.
    # E = 2/10 · 1 + 27/50 · 2 + Σ (1 + k) · 2 · 54/100 · (1/10)^k
    #   = 1/5 + 27/25 + 27/25 · (1/9 + 10/81) = 1/5 + 27/25 + 19/75 = 23/15.
    result = odds(params(accuracy=0, defense=5, damage="2"))
    assert result.outcomes == {"miss": Fraction(1, 5), "glancing": Fraction(1, 5), "hit": Fraction(27, 50), "critical": Fraction(3, 50)}
    criticals = result.extras["criticals"]
    assert (criticals[1], criticals[2]) == (Fraction(54, 1000), Fraction(54, 10000))
    assert abs(result.expected_damage - Fraction(23, 15)) < Fraction(1, 10**13)


def test_a_lower_explosion_target_by_hand():
    # d10 + 3 vs 10, the first die explodes on 8+ (extras only on 10), no damage dice:
    # 1-6 is 4-9: a miss (a non-damaging attack never glances); 7 is 10: a hit.
    # 8 + X + 3 = 11 + X: margin 1 + X, a critical from X = 9 (X = 10 explodes on: margin ≥ 12).
    # 9 + X + 3: margin 2 + X, a critical from X = 8; 10 + X + 3: margin 3 + X, from X = 7.
    # critical = 1/10 · (2 + 3 + 4)/10 = 9/100; hit = 1/10 + 1/10 · (8 + 7 + 6)/10 = 31/100.
    result = odds(params(accuracy=3, defense=10, explode_on=8))
    assert result.outcomes == {"miss": Fraction(6, 10), "glancing": 0, "hit": Fraction(31, 100), "critical": Fraction(9, 100)}
    assert result.expected_damage == 0
