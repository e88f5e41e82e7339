"""Every number option of every formula system is bounded: beyond a bound is a
one-line usage error naming the option and the bound; at the bound it builds
and its exact odds sum to 1."""

from fractions import Fraction

import pytest

from tables_app.domain.systems import MODULES, get
from tables_app.domain.systems.base import OptionError

VALID = {  # the least each system needs
    "rise": {"accuracy": 6, "defense": 12, "damage": "2d6+3"},
    "worlds-awakening": {"stat": 2, "defense": 15, "damage": ("2d6+1",)},
    "d10-pool": {"bonus": 3, "ad": 7, "gd": 7, "toughness": 4, "damage": "2d6"},
    "pte": {"accuracy": 2, "ac": 2, "evasion": 3, "stat": 15, "db": 10, "defense": 15, "max_hp": 50, "hp": 50,
            "range": "long", "distance": 10.0},
}


def values(system, **given):
    filled = {o.key: (o.default if o.default is not None else (() if o.multiple else (False if o.kind == "flag" else None)))
              for o in system.options}
    filled.update(VALID[system.id])
    filled.update(given)
    return filled


NUMBER_OPTIONS = [(system_id, option) for system_id in MODULES for option in get(system_id).options if option.kind in ("int", "float")]


@pytest.mark.parametrize("system_id, option", NUMBER_OPTIONS, ids=lambda x: getattr(x, "name", x))
def test_every_number_option_has_both_bounds(system_id, option):
    assert option.minimum is not None and option.maximum is not None


@pytest.mark.parametrize("system_id, option", NUMBER_OPTIONS, ids=lambda x: getattr(x, "name", x))
def test_beyond_a_bound_is_a_one_line_usage_error(system_id, option):
    system = get(system_id)
    for beyond, bound in ((option.maximum + 1, option.maximum), (option.minimum - 1, option.minimum)):
        value = float(beyond) if option.kind == "float" else beyond
        with pytest.raises(OptionError) as raised:
            system.build(values(system, **{option.key: value}))
        message = str(raised.value)
        assert message.startswith(f"--{option.name} must be between") and str(bound) in message and "\n" not in message


@pytest.mark.parametrize("system_id, option", NUMBER_OPTIONS, ids=lambda x: getattr(x, "name", x))
def test_at_the_bounds_it_builds_and_the_odds_are_exact(system_id, option):
    system = get(system_id)
    for bound in (option.minimum, option.maximum):
        value = float(bound) if option.kind == "float" else bound
        given = {option.key: value}
        if option.key == "hp":
            given["max_hp"] = 100_000
        odds = system.odds(system.build(values(system, **given)))
        assert sum(odds.outcomes.values(), Fraction(0)) == 1


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_float_options_refuse_nan_and_infinity(value):
    system = get("pte")
    for key, name in (("db_multiplier", "db-multiplier"), ("distance", "distance")):
        with pytest.raises(OptionError, match=f"--{name} must be between"):
            system.build(values(system, **{key: value}))


@pytest.mark.parametrize(
    "system_id, given, message",
    [
        ("worlds-awakening", {"damage": ("1d6",) * 11}, "--damage may be given at most 10 times"),
        ("worlds-awakening", {"damage": ("1d1001",)}, "--damage: '1d1001': a die needs 1 to 1000 sides"),
        ("d10-pool", {"damage": "5d4"}, "at most 4 dice and 30 damage per hit"),
        ("d10-pool", {"damage": "1d20+11"}, "at most 4 dice and 30 damage per hit"),
        ("rise", {"damage": "101d2"}, "--damage: '101d2': more than 100 dice"),
    ],
)
def test_damage_bounds(system_id, given, message):
    system = get(system_id)
    with pytest.raises(OptionError, match=message):
        system.build(values(system, **given))


@pytest.mark.parametrize(
    "system_id, given",
    [
        ("worlds-awakening", {"damage": ("100d1000-1000",) * 10}),
        ("worlds-awakening", {"damage": ("50d1000-50d1000",) * 10}),
        ("d10-pool", {"damage": "4d6+6", "attacks": 6, "weapons": 3, "heavy": True, "bonus": 100, "ad": 0, "toughness": 1}),
    ],
)
def test_the_worst_damage_inside_the_bounds_is_computed_exactly(system_id, given):
    system = get(system_id)
    odds = system.odds(system.build(values(system, **given)))
    assert sum(odds.outcomes.values(), Fraction(0)) == 1
