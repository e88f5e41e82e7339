"""The odds of a fight in float64 (issue #42, item 3): the same steps as the
rational odds, the weights probabilities as floats; they agree within 1e-12
(float_agreement; its float64_agrees fixture checks every odds the other fight tests work
out, this module the formula systems' duels). And a computation stopped on
request (Stopped) or past its budget of seconds (OutOfTime, a TooMuchWork)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from fight_states import fighter_on_tiny, tiny_blows, tiny_fight
from float_agreement import assert_agree

from tables_app.domain.fights import Fight, formulas
from tables_app.domain.fights.odds import OutOfTime, Stopped, TooManyStates, TooMuchWork, fight_odds
from tables_app.domain.fights.state import Combatant, Fighter
from tables_app.services.fight_odds import _Blows

# As tests/cli/test_fight_formula_chances.py: each system's options, the target's DEF, the hits of both.
DUELS = {
    "rise": (["accuracy=4", "damage=1d4+1"], 8, 6),
    "worlds-awakening": (["stat=2", "damage=1d6", "cha=2"], 12, 6),
    "d10-pool": (["bonus=3", "attacks=2", "damage=1d3", "toughness=3"], 7, 5),
    "pte": (["accuracy=2", "ac=2", "stat=5", "damage-base=4", "def=3"], 3, 12),
}


def formula_duel(system: str) -> Fight:
    given, defense, hits = DUELS[system]
    arm = formulas.armament(system, given)
    return Fight("Duel", combatants=(Combatant(Fighter("Hero", "A", hits, 0, "", parry=1, attacks=(arm,))),
                                     Combatant(Fighter("Orc", "B", hits, defense, "", attacks=(arm,)))))


@pytest.mark.parametrize("system", DUELS)
def test_a_formula_duel_in_float64_agrees_with_its_exact_odds(system: str) -> None:
    start = formula_duel(system)
    blows = _Blows(None, start)  # type: ignore[arg-type]  # no table attack: the database is never read
    exact = fight_odds(start, blows, 6, reads_taken=blows.reads_taken)
    floats = fight_odds(start, blows, 6, reads_taken=blows.reads_taken, arithmetic="float64")
    assert all(0 < p < 1 for p in exact.rounds[-1].sides.values())  # either side may win: every share in play
    assert_agree(exact, floats)
    assert all(isinstance(r.over, Fraction) for r in exact.rounds) and isinstance(floats.expected_rounds, float)


def _duel(hits: int = 12) -> Fight:
    return tiny_fight((fighter_on_tiny("Hero", "A", hits), fighter_on_tiny("Orc", "B", hits, parry=5)))


@pytest.mark.parametrize("arithmetic", ["rational", pytest.param("float64", marks=pytest.mark.slow)])  # (float64's: a second more)
def test_should_stop_is_polled_between_attacks(arithmetic: str) -> None:
    asked: list[int] = []

    def third_time() -> bool:
        asked.append(1)
        return len(asked) >= 3

    with pytest.raises(Stopped):
        fight_odds(_duel(), tiny_blows, 6, arithmetic=arithmetic, should_stop=third_time)  # type: ignore[call-overload]
    assert len(asked) == 3
    never = fight_odds(_duel(), tiny_blows, 3, arithmetic=arithmetic, should_stop=lambda: False)  # type: ignore[call-overload]
    assert never == fight_odds(_duel(), tiny_blows, 3, arithmetic=arithmetic)  # type: ignore[call-overload]


@pytest.mark.parametrize("arithmetic", ["rational", pytest.param("float64", marks=pytest.mark.slow)])  # (float64's: a second more)
def test_past_its_seconds_the_odds_are_refused_as_too_much_work(arithmetic: str) -> None:
    with pytest.raises(OutOfTime, match=r"more than 0 s to work out \(by round 1\)") as refused:
        fight_odds(_duel(), tiny_blows, 6, arithmetic=arithmetic, seconds=0.0)  # type: ignore[call-overload]
    assert isinstance(refused.value, TooMuchWork) and refused.value.round == 1
    given_time = fight_odds(_duel(), tiny_blows, 3, arithmetic=arithmetic, seconds=600.0)  # type: ignore[call-overload]
    assert given_time == fight_odds(_duel(), tiny_blows, 3, arithmetic=arithmetic)  # type: ignore[call-overload]


def test_float64_has_its_bound_on_states_too() -> None:
    with pytest.raises(TooManyStates, match=r"more than 50 states"):
        fight_odds(_duel(30), tiny_blows, 10, limit=50, arithmetic="float64")


def test_an_unknown_arithmetic_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown arithmetic 'decimal'"):
        fight_odds(_duel(), tiny_blows, 1, arithmetic="decimal")  # type: ignore[call-overload]
