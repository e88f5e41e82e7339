"""Worlds Awakening (docs/formula-systems.md, "worlds-awakening")."""

import pytest
from helpers import resolve_forced, system_params

from tables_app.domain.dice import ForcedDice, SeededDice
from tables_app.domain.systems.base import OptionError
from tables_app.domain.systems.worlds_awakening import SYSTEM, critical_from, failure_up_to


def params(**values):
    return system_params(SYSTEM, **values)


def resolve(dice, **values):
    return resolve_forced(SYSTEM, dice, **values)


# "Support actions are not tested: outcome success, no roll"
def test_support_succeeds_without_a_roll():
    result = resolve([], stat=0, support=True)
    assert (result.outcome, result.damage, result.extras["natural"]) == ("success", 0, None)


# "total = n + characteristic + weapon bonus + level + equipment bonus"; "Success: total ≥ defense"
def test_total_and_success():
    hit = resolve([10, 2], stat=2, weapon_bonus=1, level=3, equipment=1, defense=17, damage=("1d4",))
    assert (hit.outcome, hit.extras["total"], hit.damage) == ("hit", 17, 2)
    assert resolve([9], stat=2, weapon_bonus=1, level=3, equipment=1, defense=17, damage=("1d4",)).outcome == "miss"


# Critical range by CHA [source]: +0/+1 → 20; +2/+3 → 19–20; +4/+5 → 18–20; +6 → 17–20; negative → 20
@pytest.mark.parametrize("cha, lowest", [(-3, 20), (0, 20), (1, 20), (2, 19), (3, 19), (4, 18), (5, 18), (6, 17), (9, 17)])
def test_critical_range(cha, lowest):
    assert critical_from(cha) == lowest


# Critical failure range by CHA [source]: −1 or more → 1; −2/−3 → 1–2; −4 or less → 1–3
@pytest.mark.parametrize("cha, highest", [(5, 1), (0, 1), (-1, 1), (-2, 2), (-3, 2), (-4, 3), (-8, 3)])
def test_critical_failure_range(cha, highest):
    assert failure_up_to(cha) == highest


def test_critical_failure_overrides_everything_and_gives_the_opponent_an_advantage():
    result = resolve([2], stat=30, defense=5, cha=-2, damage=("1d4",))
    assert (result.outcome, result.damage, result.extras["opponent_advantage"]) == ("critical_failure", 0, True)


def test_natural_20_is_critical_whatever_the_total():
    result = resolve([20], stat=0, defense=99, damage=("2d6+1",))
    assert (result.outcome, result.damage) == ("critical", 13)


# widened range: succeeds; critical if total ≥ defense, else a hit with normal damage
def test_the_widened_range_always_succeeds():
    assert resolve([19], stat=0, defense=19, cha=2, damage=("2d6+1",)).outcome == "critical"
    low = resolve([19, 3, 4], stat=0, defense=25, cha=2, damage=("2d6+1",))
    assert (low.outcome, low.damage) == ("hit", 8)


# The seed's examples: 2d6+1 → 13; 2d4 + 2d4 → 16
def test_critical_damage_is_every_die_at_its_maximum():
    assert resolve([20], stat=0, defense=10, damage=("2d6+1",)).damage == 13
    assert resolve([20], stat=0, defense=10, damage=("2d4", "2d4")).damage == 16


def test_damage_of_several_expressions_is_rolled_in_order():
    result = resolve([15, 1, 2, 3, 4], stat=0, defense=10, damage=("2d4", "2d4+1"))
    assert result.damage == 1 + 2 + 3 + 4 + 1


def test_bad_options():
    with pytest.raises(OptionError, match="--def is required"):
        params(stat=1)
    with pytest.raises(OptionError, match="support"):
        params(stat=1, support=True, damage=("1d4",))


def test_seeds_and_used_dice_replay():
    for seed in range(100):
        first = SeededDice(seed=seed)
        result = SYSTEM.resolve(params(stat=2, defense=14, cha=4, damage=("2d6+1", "1d4")), first)
        again = ForcedDice(values=tuple(first.used))
        assert SYSTEM.resolve(params(stat=2, defense=14, cha=4, damage=("2d6+1", "1d4")), again) == result
