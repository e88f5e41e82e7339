"""The float64 odds of a fight against the rational ones (issue #42, item 3):
every share of every round, the expected rounds and the mass unfinished
within 1e-12, the same rounds listed and the same states held.

A test module that imports ``float64_agrees`` (an autouse fixture) has
every exact odds it works out, through the ``fight_odds`` of any test
module (test_fight_odds.every_path included), worked out in float64 too
and checked against them: the odds, death, crippling, hits-only, review,
simulate and moves tests do."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from fractions import Fraction
from typing import Any

import pytest

from tables_app.domain.fights import odds
from tables_app.domain.fights.odds import FightOdds, RoundOdds

TOLERANCE = 1e-12


def assert_agree(exact: FightOdds[Fraction], floats: FightOdds[float], tolerance: float = TOLERANCE) -> None:
    assert [r.round for r in floats.rounds] == [r.round for r in exact.rounds]
    for e, f in zip(exact.rounds, floats.rounds):
        assert _differences(e, f) <= tolerance, (e.round, e, f)
        assert f.states == e.states
    assert abs(floats.expected_rounds - float(exact.expected_rounds)) <= tolerance
    assert abs(floats.unfinished - float(exact.unfinished)) <= tolerance
    assert floats.largest == exact.largest


def _differences(e: RoundOdds[Fraction], f: RoundOdds[float]) -> float:
    pairs = [(e.over, f.over), *((e.sides[s], f.sides[s]) for s in e.sides),
             *((e.down[n], f.down[n]) for n in e.down), *((e.dead[n], f.dead[n]) for n in e.dead)]
    assert all(isinstance(p, float) for _, p in pairs)
    return max(abs(float(a) - b) for a, b in pairs)


def checking(fight_odds: Callable[..., Any], checked: list[int]) -> Callable[..., Any]:
    """``fight_odds`` that also works the same odds out in float64 and asserts they agree (the rational answer
    returned); a call naming its arithmetic is left alone. ``checked`` counts the comparisons made."""
    def both(*args: Any, **kwargs: Any) -> Any:
        exact = fight_odds(*args, **kwargs)
        if "arithmetic" in kwargs:
            return exact
        kwargs.pop("progress", None)
        if len(args) > 4:  # (fight, blows, rounds, limit, progress, ...): the progress is told once, by the exact run
            args = (*args[:4], None, *args[5:])
        assert_agree(exact, fight_odds(*args, **kwargs, arithmetic="float64"))
        checked.append(1)
        return exact

    return both


@pytest.fixture(autouse=True)
def float64_agrees(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """``fight_odds`` checked against float64 in every test module that imported it by name (see above)."""
    checked: list[int] = []
    wrapped = checking(odds.fight_odds, checked)
    for module in list(sys.modules.values()):
        name = getattr(module, "__name__", "")
        if name.startswith("test_") and getattr(module, "fight_odds", None) is odds.fight_odds:
            monkeypatch.setattr(module, "fight_odds", wrapped)
    yield checked
