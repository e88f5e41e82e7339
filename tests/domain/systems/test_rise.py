"""Rise (docs/formula-systems.md, "rise")."""

import pytest
from helpers import resolve_forced, system_params

from tables_app.domain.dice import ForcedDice, SeededDice
from tables_app.domain.systems.base import OptionError
from tables_app.domain.systems.rise import SYSTEM


def params(**values):
    return system_params(SYSTEM, **values)


def resolve(dice, **values):
    return resolve_forced(SYSTEM, dice, **values)


# "Roll 1d10 + accuracy. A die showing the explosion target or more explodes ... extra dice explode only on 10"
def test_the_die_explodes_and_keeps_exploding_on_ten():
    assert resolve([10, 10, 3], accuracy=0, defense=40).extras["result"] == 23
    assert resolve([8, 9], accuracy=0, defense=40, explode_on=8).extras["result"] == 17  # extra 9 does not explode
    assert resolve([8, 10, 2], accuracy=0, defense=40, explode_on=8).extras["result"] == 20


# Order [seed]: glancing blow; miss; critical; regular hit.
@pytest.mark.parametrize(
    "die, outcome",
    [(7, "miss"), (8, "glancing"), (9, "glancing"), (10, None), (1, "miss")],
)
def test_glancing_is_one_or_two_short(die, outcome):
    if die == 10:
        result = resolve([10, 1, 6, 6], accuracy=0, defense=10, damage="2d6")  # 11: a hit
        assert result.outcome == "hit"
        return
    dice = [die] + ([3, 4] if outcome == "glancing" else [])
    assert resolve(dice, accuracy=0, defense=10, damage="2d6").outcome == outcome


def test_glancing_is_checked_before_critical():
    # 9 vs 10 with +20 crit-only accuracy: 1 short is a glancing blow, never a critical
    result = resolve([9, 6, 6], accuracy=0, defense=10, damage="2d6", crit_bonus=20)
    assert (result.outcome, result.extras["criticals"]) == ("glancing", 0)
    assert result.damage == 12 // 2  # half of a regular hit, floor [decision]


def test_a_miss_cannot_be_critical_whatever_the_crit_bonus():
    assert resolve([5], accuracy=0, defense=10, damage="2d6", crit_bonus=50).outcome == "miss"


def test_non_damaging_attacks_cannot_glance():
    result = resolve([9], accuracy=0, defense=10)
    assert (result.outcome, result.damage) == ("miss", 0)


# "critical (result + crit-only bonus ≥ defense + 10)"; n = floor((result + bonus − defense) / 10)
@pytest.mark.parametrize(
    "die, accuracy, crit_bonus, outcome, n",
    [(9, 10, 0, "hit", 0), (9, 11, 0, "critical", 1), (9, 1, 10, "critical", 1), (9, 21, 0, "critical", 2), (9, 30, 0, "critical", 2)],
)
def test_criticals_and_their_count(die, accuracy, crit_bonus, outcome, n):
    result = resolve([die], accuracy=accuracy, defense=10, crit_bonus=crit_bonus)
    assert (result.outcome, result.extras["criticals"]) == (outcome, n)


# "two doublings become a tripling": roll the damage dice 1 + n times, flat × (1 + n)
def test_two_doublings_become_a_tripling():
    result = resolve([9, 1, 2, 3, 4, 5, 6], accuracy=21, defense=10, damage="2d6+3")
    assert result.extras["criticals"] == 2
    assert result.damage == (1 + 2) + (3 + 4) + (5 + 6) + 3 * 3


# "The multiplier is multiplicative with the damage multiplier"
def test_critical_and_damage_multipliers_multiply():
    result = resolve([9, 1, 2, 3, 4], accuracy=11, defense=10, damage="2d6+1", multiplier=2)
    assert result.damage == ((1 + 2) + (3 + 4) + 1 * 2) * 2


def test_a_regular_hit():
    result = resolve([6, 4, 5], accuracy=5, defense=10, damage="2d6+2")
    assert (result.outcome, result.damage, result.extras) == ("hit", 11, {"result": 11, "criticals": 0})


def test_glancing_halves_a_multiplied_hit_and_rounds_down():
    result = resolve([8, 3], accuracy=0, defense=10, damage="1d6", multiplier=3)
    assert result.damage == (3 * 3) // 2


def test_damage_never_negative():
    assert resolve([6, 1], accuracy=5, defense=10, damage="1d4-5").damage == 0


@pytest.mark.parametrize("values, message", [({"explode_on": 0}, "--explode-on"), ({"multiplier": -1}, "--multiplier")])
def test_bad_options(values, message):
    with pytest.raises(OptionError, match=message):
        params(accuracy=0, defense=10, **values)


def test_seeds_and_used_dice_replay():
    for seed in range(200):
        first = SeededDice(seed=seed)
        result = SYSTEM.resolve(params(accuracy=8, defense=12, damage="2d6+3", explode_on=9), first)
        again = ForcedDice(values=tuple(first.used))
        assert SYSTEM.resolve(params(accuracy=8, defense=12, damage="2d6+3", explode_on=9), again) == result
        assert again.missing == [] and again.unused == ()
