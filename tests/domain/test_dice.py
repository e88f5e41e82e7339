"""Dice sources and dice expressions (tables_app/domain/dice.py)."""

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tables_app.domain.dice import DiceExpressionError, ForcedDice, SeededDice, parse_dice


@pytest.mark.parametrize(
    "text, maximum, minimum, mean, count",
    [
        ("2d6+3", 15, 5, Fraction(10), 2),
        ("1d4", 4, 1, Fraction(5, 2), 1),
        ("2d6+1d4+3", 19, 6, Fraction(25, 2), 3),
        ("5", 5, 5, Fraction(5), 0),
        ("2d6-1", 11, 1, Fraction(6), 2),
        ("d8", 8, 1, Fraction(9, 2), 1),
        (" 2d6 + 3 ", 15, 5, Fraction(10), 2),
        ("1d6-1d4", 5, -3, Fraction(1), 2),
    ],
)
def test_expressions(text, maximum, minimum, mean, count):
    expression = parse_dice(text)
    assert (expression.maximum, expression.minimum, expression.mean, expression.dice_count) == (maximum, minimum, mean, count)


@pytest.mark.parametrize("text", ["", "2x6", "2d", "d0", "+", "3d6++2", "2d6 3", "abc", "2d6+", "-"])
def test_bad_expressions_name_themselves(text):
    with pytest.raises(DiceExpressionError) as caught:
        parse_dice(text)
    assert text.strip() == "" or repr(text.strip()) in str(caught.value)


def test_rolling_uses_every_die_in_order():
    forced = ForcedDice(values=(6, 1, 3))
    total, faces = parse_dice("2d6+1d4+3").roll(forced, "damage")
    assert (total, faces) == (6 + 1 + 3 + 3, (6, 1, 3))
    assert forced.purposes == ["damage (2d6+1d4+3)"] * 3


def test_forced_dice_report_what_is_missing_and_unused():
    forced = ForcedDice(values=(4,))
    parse_dice("2d6").roll(forced, "damage")
    assert forced.missing == ["damage (2d6) (d6)"]
    extra = ForcedDice(values=(4, 5, 6))
    extra.roll(6, "x")
    assert extra.unused == (5, 6)


@given(st.integers(0, 2**32), st.sampled_from(["2d6+3", "3d4-2", "1d20", "2d6+1d4+3"]))
def test_rolls_stay_between_minimum_and_maximum(seed, text):
    expression = parse_dice(text)
    total, faces = expression.roll(SeededDice(seed=seed), "damage")
    assert expression.minimum <= total <= expression.maximum and len(faces) == expression.dice_count
