"""A fight simulated with random dice (domain/fights/simulate.py) agrees
with its exact odds (domain/fights/odds.py) on the round it ends in and its
winner, by a chi-square test at a fixed seed, on the tiny invented tables
of test_fight_odds (fight_states has them), and on each proportion within
its standard error."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from random import Random

import pytest
from fight_states import TINY_FIGHTERS, tiny_blows, tiny_fight
from float_agreement import float64_agrees  # noqa: F401  # every exact odds here checked in float64 too

from helpers import chi_square_agrees
from tables_app.domain.fights import Attack, EndRound, Fight, Status, apply
from tables_app.domain.fights.odds import FightOdds, fight_odds
from tables_app.domain.fights.rules import turn_target
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


# The simulation as it was first written: every fight's states built by the rules (rules.apply), attack by
# attack. simulate_fights now plays the states the exact odds hold (odds.Walk); with the same random numbers
# it must play the very same fights.
def state_by_state(fight: Fight, draw: Drawn, rounds: int, count: int, rng: Random,
                    progress: Callable[[int], None] | None = None) -> Tally:
    """``count`` fights from ``fight``'s state now, ``rounds`` rounds each at most."""
    names = tuple(c.name for c in fight.combatants)
    over = [0] * rounds
    won = {side: [0] * rounds for side in fight.sides}
    down = {name: [0] * rounds for name in names}
    dead = {name: [0] * rounds for name in names}
    total = squares = unfinished = 0
    for done in range(count):
        state, ended, ends = fight, None, []
        for k in range(rounds):
            for name in names:
                target = turn_target(state, name)
                if target is not None:
                    distribution = draw.blows(state, name, target)
                    state = apply(state, Attack(name, target, list(distribution)[draw.index(distribution, rng)]))
                    if state.over:
                        break
            if not state.over:
                state = apply(state, EndRound())
            ends.append(state)
            if state.over:
                ended = k
                break
        lasted = rounds if ended is None else ended + 1
        total, squares = total + lasted, squares + lasted * lasted
        unfinished += ended is None
        for j in range(rounds):
            at = ends[min(j, len(ends) - 1)]
            if ended is not None and ended <= j:
                over[j] += 1
                if at.winner is not None:
                    won[at.winner][j] += 1
            for c in at.combatants:
                if c.status is Status.DOWN:
                    down[c.name][j] += 1
                elif c.status is Status.DEAD:
                    dead[c.name][j] += 1
        if progress is not None and done % 1000 == 999:
            progress(1000)
    return Tally(count, rounds, tuple(over), {s: tuple(v) for s, v in won.items()}, {n: tuple(v) for n, v in down.items()},
                 {n: tuple(v) for n, v in dead.items()}, total, squares, unfinished)


@pytest.mark.parametrize("case", ["duel", "one-sided", "two against one"])
def test_the_walk_plays_the_fights_the_rules_play(case):  # type: ignore[no-untyped-def]
    start = tiny_fight(TINY_FIGHTERS[case])
    assert simulate_fights(start, Drawn(tiny_blows), 4, 2_000, Random(11)) == \
        state_by_state(start, Drawn(tiny_blows), 4, 2_000, Random(11))


@pytest.mark.parametrize("make", ["_two_against_two", "_mid_round", "_beaten_but_up"])
def test_the_walk_plays_them_from_any_state(make):  # type: ignore[no-untyped-def]
    import test_fight_odds

    start = getattr(test_fight_odds, make)()
    assert simulate_fights(start, Drawn(tiny_blows), 3, 1_000, Random(12)) == \
        state_by_state(start, Drawn(tiny_blows), 3, 1_000, Random(12))


@pytest.mark.slow  # seconds
def test_the_walk_asks_blows_that_read_the_hits_taken_state_by_state():  # type: ignore[no-untyped-def]
    from test_fight_odds import _reading_taken

    from tables_app.domain.fights import Edit, replay

    start = replay(tiny_fight(TINY_FIGHTERS["duel"]), [Edit("Orc", (("taken", 1),))])
    blows = _reading_taken(tiny_blows)
    reference = state_by_state(start, Drawn(blows), 3, 1_000, Random(13))
    assert simulate_fights(start, Drawn(blows), 3, 1_000, Random(13), reads_taken=lambda state, name: True) == reference
    assert simulate_fights(start, Drawn(blows), 3, 1_000, Random(13)) != reference  # asked at 0: other fights


def test_what_the_walk_forgets_changes_no_fight():  # type: ignore[no-untyped-def]
    """Past its bound of conditions a simulation forgets what it worked out (memory stays bounded): the fights
    played are the same."""
    start = tiny_fight(TINY_FIGHTERS["two against one"])
    assert simulate_fights(start, Drawn(tiny_blows), 4, 500, Random(14), remembered=3) == \
        simulate_fights(start, Drawn(tiny_blows), 4, 500, Random(14))
