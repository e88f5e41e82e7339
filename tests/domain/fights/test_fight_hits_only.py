"""The hits-only special case of the exact odds of a fight
(domain/fights/odds.py) equals an independent closed computation (issue
#30, "Correctness"): when every blow deals hits and nothing else, the
round a combatant goes down is the first round its foe's running total of
damage reaches its hits, and that total after r rounds is the sum of r
independent damages: the damage distribution convolved r times, written
here with plain Fractions and no fight at all.

docs/fights.md, "Odds of a fight": ``down``, ``sides`` and ``over`` are by
the end of each round (cumulative), listed up to the round by which every
fight has ended, ``expected_rounds`` is E[min(end, N)]
over the N rounds asked, ``unfinished`` the probability the fight is still
going after them, ``states`` the distinct states still going after a
round. "The rules": down the moment hits taken reach its hits; in a round
each attacks in initiative order (equal ones in the order they joined),
and one down mid-round does not act later in it.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest
from fight_states import fighter_on_tiny, tiny_fight
from float_agreement import float64_agrees  # noqa: F401  # every exact odds here checked in float64 too
from hypothesis import given, settings
from hypothesis import strategies as st

from tables_app.domain.fights.odds import FightOdds, fight_odds
from tables_app.domain.fights.state import Blow, Fight, Harm

Damage = dict[int, Fraction]  # hits a blow deals → its probability


# ------------------------------------------------------------------ the closed computation
def convolved(damage: Damage, rounds: int) -> list[Damage]:
    """The distribution of the sum of r independent damages, for r = 0 … rounds."""
    sums = [{0: Fraction(1)}]
    for _ in range(rounds):
        after: Damage = {}
        for total, p in sums[-1].items():
            for hits, q in damage.items():
                after[total + hits] = after.get(total + hits, Fraction(0)) + p * q
        sums.append(after)
    return sums


def down_by(damage: Damage, hits: int, rounds: int) -> list[Fraction]:
    """P(the running total has reached ``hits`` after r rounds), r = 0 … rounds."""
    return [sum((p for total, p in dist.items() if total >= hits), Fraction(0)) for dist in convolved(damage, rounds)]


def still_up(damage: Damage, hits: int, rounds: int) -> list[int]:
    """How many distinct totals below ``hits`` can stand after r rounds, r = 0 … rounds."""
    return [sum(1 for total, p in dist.items() if total < hits and p) for dist in convolved(damage, rounds)]


def listed(over: list[Fraction], rounds: int) -> int:
    """How many rounds the odds list: every round asked, but none after the one by which the fight is surely over."""
    return next((r for r in range(1, rounds + 1) if over[r] == 1), rounds)


# ------------------------------------------------------------------ the fight
def hits_only(damages: dict[str, Damage]) -> Callable[[Fight, str, str], dict[Blow, Fraction]]:
    """A blows function: each attacker's blows deal its damage's hits and nothing else."""
    blows = {name: {Blow(to_target=Harm(hits=hits)): p for hits, p in damage.items()} for name, damage in damages.items()}
    return lambda state, attacker, target: blows[attacker]


def one_sided(damage: Damage, hits: int, rounds: int) -> FightOdds:
    """Hero (side A) strikes a Dummy (side B, ``hits`` hits, no attacks)."""
    start = tiny_fight((fighter_on_tiny("Hero", "A", 10), fighter_on_tiny("Dummy", "B", hits, armed=False)))
    return fight_odds(start, hits_only({"Hero": damage}), rounds)


def duel(damage_a: Damage, hits_a: int, damage_b: Damage, hits_b: int, rounds: int) -> FightOdds:
    """A (side A, joined first) and B (side B) strike each other, A first in every round."""
    start = tiny_fight((fighter_on_tiny("A", "A", hits_a), fighter_on_tiny("B", "B", hits_b)))
    return fight_odds(start, hits_only({"A": damage_a, "B": damage_b}), rounds)


def check_one_sided(damage: Damage, hits: int, rounds: int) -> None:
    odds = one_sided(damage, hits, rounds)
    down, going = down_by(damage, hits, rounds), still_up(damage, hits, rounds)
    assert [r.round for r in odds.rounds] == list(range(1, listed(down, rounds) + 1))
    for r, measured in enumerate(odds.rounds, start=1):
        assert measured.down == {"Hero": 0, "Dummy": down[r]}
        assert measured.sides == {"A": down[r], "B": 0}
        assert measured.over == down[r]
        assert measured.dead == {"Hero": 0, "Dummy": 0}
        assert measured.states == going[r]
    assert odds.expected_rounds == sum(1 - down[r] for r in range(rounds))  # E[min(T, N)] = Σ_{r<N} P(T > r)
    assert odds.unfinished == 1 - down[rounds]


def check_duel(damage_a: Damage, hits_a: int, damage_b: Damage, hits_b: int, rounds: int) -> None:
    odds = duel(damage_a, hits_a, damage_b, hits_b, rounds)
    a = down_by(damage_a, hits_b, rounds)  # a[r] = P(A's total has reached B's hits after r of A's blows)
    b = down_by(damage_b, hits_a, rounds)
    up_a, up_b = still_up(damage_a, hits_b, rounds), still_up(damage_b, hits_a, rounds)
    # A wins in round k: its total reaches B's hits in its k-th blow, B's had not reached A's in k − 1;
    # B wins in round k: its total reaches A's hits in its k-th blow, A's had not reached B's in k (A struck first).
    a_wins = [sum(((a[k] - a[k - 1]) * (1 - b[k - 1]) for k in range(1, r + 1)), Fraction(0)) for r in range(rounds + 1)]
    b_wins = [sum(((b[k] - b[k - 1]) * (1 - a[k]) for k in range(1, r + 1)), Fraction(0)) for r in range(rounds + 1)]
    assert [r.round for r in odds.rounds] == list(range(1, listed([x + y for x, y in zip(a_wins, b_wins)], rounds) + 1))
    for r, measured in enumerate(odds.rounds, start=1):
        assert measured.sides == {"A": a_wins[r], "B": b_wins[r]}
        assert measured.down == {"A": b_wins[r], "B": a_wins[r]}
        assert measured.over == a_wins[r] + b_wins[r]
        assert measured.states == up_a[r] * up_b[r]  # both totals below: independent, so every pair of them
    assert odds.expected_rounds == sum((1 - a[r]) * (1 - b[r]) for r in range(rounds))
    assert odds.unfinished == (1 - a[rounds]) * (1 - b[rounds])


def _d(**weights: int) -> Damage:
    """A damage distribution from weights: _d(h0=1, h3=2) is 0 hits 1/3, 3 hits 2/3."""
    total = sum(weights.values())
    return {int(key[1:]): Fraction(w, total) for key, w in weights.items()}


DAMAGES = {
    "a coin: nothing or 3": (_d(h0=1, h3=1), 7, 6),
    "1, 2 or 5": (_d(h1=1, h2=1, h5=1), 10, 6),
    "always 4: down in round 3": (_d(h4=1), 10, 5),
    "one blow in ten fells it": (_d(h0=9, h10=1), 10, 8),
    "a d100 table's column": (_d(h0=30, h1=20, h2=15, h4=15, h6=15, h9=5), 20, 8),
}


@pytest.mark.parametrize("damage, hits, rounds", DAMAGES.values(), ids=DAMAGES.keys())
def test_a_one_sided_fight_is_the_convolution_of_its_damage(damage, hits, rounds):  # type: ignore[no-untyped-def]
    check_one_sided(damage, hits, rounds)


def test_the_closed_computation_is_not_the_trivial_one():  # type: ignore[no-untyped-def]
    """The cases above do reach the interesting values: a certain end, and odds strictly between."""
    assert down_by(_d(h4=1), 10, 5) == [0, 0, 0, 1, 1, 1]
    coin = down_by(_d(h0=1, h3=1), 7, 6)
    assert coin[2] == 0 and coin[3] == Fraction(1, 8) and coin[4] == Fraction(5, 16)  # 3 of 3 heads; then 3+ of 4
    odds = one_sided(_d(h0=1, h3=1), 7, 6)
    assert 0 < odds.rounds[-1].over < 1 and odds.unfinished > 0


DUELS = {
    "even": (_d(h0=1, h3=1), 6, _d(h0=1, h3=1), 6, 5),
    "A needs two blows, B one: B wins in round 1": (_d(h5=1), 9, _d(h10=1), 9, 3),
    "B hits harder": (_d(h1=1, h2=1), 8, _d(h0=1, h4=2, h6=1), 9, 6),
    "a d100 table's column each": (_d(h0=30, h1=20, h2=15, h4=15, h6=15, h9=5), 14,
                                   _d(h0=50, h3=30, h7=20), 12, 6),
}


@pytest.mark.parametrize("damage_a, hits_a, damage_b, hits_b, rounds", DUELS.values(), ids=DUELS.keys())
def test_a_duel_is_the_race_of_two_convolutions(damage_a, hits_a, damage_b, hits_b, rounds):  # type: ignore[no-untyped-def]
    check_duel(damage_a, hits_a, damage_b, hits_b, rounds)


def test_in_a_duel_who_strikes_first_wins_a_tie():  # type: ignore[no-untyped-def]
    """Both fell the other with one blow: A, first in initiative order, wins in round 1, and B never strikes."""
    odds = duel(_d(h5=1), 5, _d(h5=1), 5, 2)
    assert odds.rounds[0].sides == {"A": 1, "B": 0} and odds.expected_rounds == 1


damages = st.dictionaries(st.integers(0, 6), st.integers(1, 5), min_size=1, max_size=4).map(
    lambda weights: {hits: Fraction(w, sum(weights.values())) for hits, w in weights.items()})


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(damages, st.integers(1, 12), st.integers(1, 5))
def test_any_one_sided_hits_only_fight_is_the_convolution(damage, hits, rounds):  # type: ignore[no-untyped-def]
    check_one_sided(damage, hits, rounds)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(damages, st.integers(1, 10), damages, st.integers(1, 10), st.integers(1, 4))
def test_any_hits_only_duel_is_the_race(damage_a, hits_a, damage_b, hits_b, rounds):  # type: ignore[no-untyped-def]
    check_duel(damage_a, hits_a, damage_b, hits_b, rounds)
