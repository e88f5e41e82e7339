"""The exact odds and the simulation of a fight whose combatants die past a
negative-hits threshold (docs/fights.md, "Death past a threshold"): equal,
as Fractions, to every path played out; a combatant down keeps its hits
taken while it may yet bleed past its threshold."""

from __future__ import annotations

from dataclasses import replace
from random import Random

import pytest
from fight_states import fighter_on_tiny, tiny_blows, tiny_fight
from test_fight_odds import every_path
from float_agreement import float64_agrees  # noqa: F401  # every exact odds here checked in float64 too
from test_fight_simulate import state_by_state

from tables_app.domain.fights import Edit, Fight, replay
from tables_app.domain.fights.rules import past_death
from tables_app.domain.fights.simulate import Drawn, simulate_fights
from tables_app.domain.fights.state import Status


def mortal(name: str, side: str, hits: int, death_at: int, **kwargs: int) -> object:
    return replace(fighter_on_tiny(name, side, hits, **kwargs), death_at=death_at)  # type: ignore[arg-type]


def _duel() -> Fight:
    return tiny_fight((mortal("Hero", "A", 6, -2, parry=5), mortal("Orc", "B", 5, -1)))  # type: ignore[arg-type]


def _two_against_one() -> Fight:
    """The Orc may go down and bleed past its threshold while the Rat keeps side B standing; the Rat dies at 0."""
    return tiny_fight((mortal("Hero", "A", 4, -3), mortal("Orc", "B", 3, -2, parry=10),  # type: ignore[arg-type]
                       mortal("Rat", "B", 2, 0, cmb=10, armed=False)))  # type: ignore[arg-type]


def _down_and_bleeding() -> Fight:
    """The Orc is down (4 of 3 hits taken) and bleeds 1 a round: 2 rounds from its death at -3."""
    start = _two_against_one()
    return replay(start, [Edit("Orc", (("taken", 4), ("bleed", 1)))])


def _mixed() -> Fight:
    """One with a threshold, one without: the one without only goes down."""
    return tiny_fight((mortal("Hero", "A", 5, -2), fighter_on_tiny("Orc", "B", 4)))  # type: ignore[arg-type]


CASES = [(_duel, 2), pytest.param(_duel, 3, marks=pytest.mark.slow), pytest.param(_two_against_one, 3, marks=pytest.mark.slow),
         (_down_and_bleeding, 3), pytest.param(_mixed, 3, marks=pytest.mark.slow)]  # (seconds each)


@pytest.mark.parametrize("make, rounds", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_the_odds_with_death_thresholds_are_every_path_played_out(make, rounds):  # type: ignore[no-untyped-def]
    odds, paths = every_path(make(), rounds)
    assert odds.rounds


def test_the_threshold_was_in_play() -> None:
    """Some path kills past the threshold from up, and some kills a combatant that was down by its bleeding."""
    _, paths = every_path(_two_against_one(), 3)
    killed = [c for _, ends, _ in paths for state in ends for c in state.combatants
              if c.status is Status.DEAD and past_death(c)]
    assert killed
    _, paths = every_path(_down_and_bleeding(), 3)
    assert any(s.find("Orc").status is Status.DEAD for _, ends, _ in paths for s in ends)  # type: ignore[union-attr]


@pytest.mark.parametrize("make", [_duel, _two_against_one, _down_and_bleeding], ids=lambda f: f.__name__)
def test_the_walk_plays_the_fights_the_rules_play(make):  # type: ignore[no-untyped-def]
    start = make()
    assert simulate_fights(start, Drawn(tiny_blows), 4, 1_000, Random(17)) == \
        state_by_state(start, Drawn(tiny_blows), 4, 1_000, Random(17))
