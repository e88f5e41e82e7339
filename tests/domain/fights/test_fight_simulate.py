"""A fight simulated with random dice (domain/fights/simulate.py) agrees
with its exact odds (domain/fights/odds.py) on the round it ends in and its
winner, by a chi-square test at a fixed seed, on the tiny invented tables
of test_fight_odds (fight_states has them), and on each proportion within
its standard error."""

from __future__ import annotations

from fractions import Fraction
from random import Random

import pytest
from fight_states import TINY_FIGHTERS, tiny_blows, tiny_fight

from helpers import chi_square_agrees
from tables_app.domain.fights.odds import FightOdds, fight_odds
from tables_app.domain.fights.simulate import Drawn, Tally, share, simulate_fights


def categories_exact(odds: FightOdds, sides: tuple[str, ...]) -> dict[tuple[int, str | None], Fraction]:
    """P(the fight ends in round j, won by a side or by nobody), and P(still going after the last)."""
    found: dict[tuple[int, str | None], Fraction] = {}
    before_over, before = Fraction(0), dict.fromkeys(sides, Fraction(0))
    for j, r in enumerate(odds.rounds):
        for side in sides:
            found[(j, side)] = r.sides[side] - before[side]
        found[(j, None)] = (r.over - before_over) - sum(found[(j, side)] for side in sides)
        before_over, before = r.over, dict(r.sides)
    found[(-1, None)] = odds.unfinished
    return found


def categories_counted(tally: Tally, sides: tuple[str, ...]) -> dict[tuple[int, str | None], int]:
    found: dict[tuple[int, str | None], int] = {}
    before_over, before = 0, dict.fromkeys(sides, 0)
    for j in range(tally.rounds):
        for side in sides:
            found[(j, side)] = tally.won[side][j] - before[side]
        found[(j, None)] = (tally.over[j] - before_over) - sum(found[(j, side)] for side in sides)
        before_over, before = tally.over[j], {side: tally.won[side][j] for side in sides}
    found[(-1, None)] = tally.unfinished
    return found


def agree(case: str, rounds: int, count: int, seed: int) -> None:
    start = tiny_fight(TINY_FIGHTERS[case])
    exact = fight_odds(start, tiny_blows, rounds)
    tally = simulate_fights(start, Drawn(tiny_blows), rounds, count, Random(seed))
    ok, statistic, critical = chi_square_agrees(categories_counted(tally, start.sides), categories_exact(exact, start.sides))
    assert ok, (statistic, critical)
    for j, r in enumerate(exact.rounds):
        p, se = share(tally.over[j], count)
        assert abs(p - float(r.over)) <= 4.5 * se + 1e-9
        for name in r.dead:
            p, se = share(tally.dead[name][j], count)
            assert abs(p - float(r.dead[name])) <= 4.5 * se + 1e-9
    mean, se = tally.mean_rounds()
    assert abs(mean - float(exact.expected_rounds)) <= 4.5 * se + 1e-9


@pytest.mark.parametrize("case", ["duel", "one-sided", "two against one"])
def test_a_simulated_fight_agrees_with_its_exact_odds(case):  # type: ignore[no-untyped-def]
    agree(case, 3, 5_000, seed=29)


@pytest.mark.slow  # 200,000 fights of each (~1 min)
@pytest.mark.parametrize("case", ["duel", "two against one"])
def test_at_200000_fights_the_round_of_the_end_and_the_winner_agree(case):  # type: ignore[no-untyped-def]
    agree(case, 4, 200_000, seed=30)


def test_the_same_seed_plays_the_same_fights():  # type: ignore[no-untyped-def]
    start = tiny_fight(TINY_FIGHTERS["duel"])
    first = simulate_fights(start, Drawn(tiny_blows), 3, 500, Random(7))
    assert first == simulate_fights(start, Drawn(tiny_blows), 3, 500, Random(7))
    assert first != simulate_fights(start, Drawn(tiny_blows), 3, 500, Random(8))
