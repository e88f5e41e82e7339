"""Certified bounds on the odds of a fight (domain/fights/certified.py,
issue #42 item 1): on fights small enough for the exact odds, every bound
holds the rational answer, the width asked for is honoured, and a pruning
that drops nothing gives the exact odds (to the rounding margin)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import cache

import pytest
from fight_states import fighter_on_tiny, tiny_blows, tiny_fight

from tables_app.domain.fights import certified
from tables_app.domain.fights.certified import ROUNDING, Bounds, CertifiedOdds, CertifiedTooLarge, certified_odds
from tables_app.domain.fights.odds import FightOdds, OutOfTime, Stopped, fight_odds
from tables_app.domain.fights.state import Fight

ROUNDS = 4


def duel() -> Fight:
    return tiny_fight((fighter_on_tiny("Hero", "A", 8), fighter_on_tiny("Orc", "B", 8, parry=5)))


def deadly() -> Fight:
    """Two against one, each dead 2 hits past its hits: every share (down, dead, each side) in play."""
    return tiny_fight((replace(fighter_on_tiny("Hero", "A", 4), death_at=-2),
                       replace(fighter_on_tiny("Elf", "A", 3, cmb=20), death_at=-2),
                       replace(fighter_on_tiny("Orc", "B", 6, parry=5), death_at=-2)))


@cache
def exact_odds(make: str) -> FightOdds[Fraction]:
    return fight_odds(FIGHTS[make](), tiny_blows, ROUNDS)


FIGHTS = {"duel": duel, "deadly": deadly}


def assert_within(exact: FightOdds[Fraction], bounds: CertifiedOdds, width: float) -> int:
    """Every bound holds the exact share and is at most ``width`` wide; how many bounds were checked."""
    checked = 0

    def holds(b: Bounds, p: Fraction, wide: float = width) -> None:
        nonlocal checked
        assert b.lower <= p <= b.upper and b.upper - b.lower <= wide, (b, float(p))
        checked += 1

    assert [r.round for r in bounds.rounds] == [r.round for r in exact.rounds]
    for e, c in zip(exact.rounds, bounds.rounds):
        holds(c.over, e.over)
        for side in e.sides:
            holds(c.sides[side], e.sides[side])
        for name in e.down:
            holds(c.down[name], e.down[name])
            holds(c.dead[name], e.dead[name])
    holds(bounds.unfinished, exact.unfinished)
    holds(bounds.expected_rounds, exact.expected_rounds, width * ROUNDS)
    assert bounds.dropped <= width
    return checked


@pytest.mark.parametrize(("width", "make"), [  # the duel's in the default run; 0.001 and the deadly fight: seconds each
    *(pytest.param(0.001, make, marks=pytest.mark.slow) for make in FIGHTS), (0.01, "duel"), (0.1, "duel"),
    pytest.param(0.01, "deadly", marks=pytest.mark.slow), pytest.param(0.1, "deadly", marks=pytest.mark.slow)])
def test_certified_bounds_hold_the_exact_odds_within_the_width(make: str, width: float) -> None:
    exact = exact_odds(make)
    bounds = certified_odds(FIGHTS[make](), tiny_blows, ROUNDS, width=width)
    assert 0 < bounds.dropped and bounds.threshold > 0  # something was pruned: the bounds are not the exact odds
    assert bounds.rounds[-1].states < exact.rounds[-1].states
    assert assert_within(exact, bounds, width) > 10
    if make == "deadly":
        assert any(e > 0 for e in exact.rounds[-1].dead.values())


@pytest.mark.slow  # seconds
def test_a_pruning_that_drops_nothing_gives_the_exact_odds() -> None:
    exact = exact_odds("deadly")
    bounds = certified_odds(deadly(), tiny_blows, ROUNDS, width=0.0)
    assert bounds.dropped == 0 and bounds.threshold == 0
    assert [r.states for r in bounds.rounds] == [r.states for r in exact.rounds]
    assert_within(exact, bounds, 2.5 * ROUNDING * ROUNDS)  # lower == upper == exact, but for the rounding margin


def test_a_threshold_dropping_past_the_width_is_lowered_until_it_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(certified, "FIRST_THRESHOLD", 1.0)  # the first threshold: the width itself, far too high
    bounds = certified_odds(duel(), tiny_blows, ROUNDS, width=0.01)
    assert bounds.tries > 1 and bounds.threshold < 0.01
    assert_within(exact_odds("duel"), bounds, 0.01)


def test_past_its_bound_on_states_the_certified_odds_are_refused() -> None:
    with pytest.raises(CertifiedTooLarge, match=r"at width 0\.001 are too large to work out: .*more than 100 states"):
        certified_odds(duel(), tiny_blows, ROUNDS, width=0.001, limit=100)


def test_past_its_bound_on_conditions_met_the_certified_odds_are_refused() -> None:
    """The conditions met are kept, each with the rules worked out on it: their memory is bounded too."""
    with pytest.raises(CertifiedTooLarge, match=r"more than 20 conditions \(\d+ by round \d\)"):
        certified_odds(duel(), tiny_blows, ROUNDS, width=0.001, conditions=20)
    assert certified_odds(duel(), tiny_blows, ROUNDS, width=0.001, conditions=10_000).rounds


def test_a_width_that_is_no_probability_is_refused() -> None:
    with pytest.raises(ValueError, match="the width is a probability"):
        certified_odds(duel(), tiny_blows, ROUNDS, width=1.5)


def test_should_stop_stops_the_certified_odds() -> None:
    with pytest.raises(Stopped):
        certified_odds(duel(), tiny_blows, ROUNDS, should_stop=lambda: True)


def test_progress_is_told_once_per_round_across_tries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(certified, "FIRST_THRESHOLD", 1.0)
    told: list[int] = []
    bounds = certified_odds(duel(), tiny_blows, ROUNDS, width=0.01, progress=told.append)
    assert bounds.tries > 1 and sum(told) == len(bounds.rounds)


@pytest.mark.slow  # seconds
def test_states_pruned_within_a_turn_still_bound_the_exact_odds() -> None:
    """With a low bound on states, the states placed are pruned within an attacker's turn too (each time as many
    cells as the bound are placed), not only after it: the bounds still hold, and fewer states are held at once."""
    limit = 1_000
    exact, bounds = exact_odds("deadly"), certified_odds(deadly(), tiny_blows, ROUNDS, width=0.1, limit=limit)
    assert exact.largest > limit >= bounds.largest
    assert_within(exact, bounds, 0.1)


def test_past_its_seconds_the_certified_odds_are_refused_as_too_much_work() -> None:
    with pytest.raises(OutOfTime, match=r"more than 0 s to work out \(by round 1\)"):
        certified_odds(duel(), tiny_blows, ROUNDS, seconds=0.0)
    assert certified_odds(duel(), tiny_blows, ROUNDS, seconds=600.0) == certified_odds(duel(), tiny_blows, ROUNDS)
