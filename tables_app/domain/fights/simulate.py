"""A fight played many times with random dice, one fight at a time
(docs/fights.md, "Estimates"): the same rounds as the exact odds (odds.py),
stepped with the tracker's rules, each attack's blow drawn from its exact
distribution; counted by round, with each count's standard error. The
estimates play fights all at once (batch.py); this loop plays those the
batch does not hold, and is what the batch is checked against."""

from __future__ import annotations

import math
import time
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from random import Random

from tables_app.domain.fights.odds import Ending, ReadsTaken, State, Stopped, Walk
from tables_app.domain.fights.state import Blow, Fight, Status

Blows = Callable[[Fight, str, str], dict[Blow, Fraction]]
REMEMBERED = 50_000  # conditions whose rules a simulation keeps worked out (about 4 KB each), at most


class Drawn:
    """Blows drawn from their exact distributions, each distribution's
    cumulative weights worked out once."""

    def __init__(self, blows: Blows):
        self.blows = blows
        self._cumulative: dict[int, tuple[list[float], dict[Blow, Fraction]]] = {}

    def index(self, distribution: dict[Blow, Fraction], rng: Random) -> int:
        """The place, in ``distribution``'s order, of a blow drawn from it (one ``rng.random()``)."""
        found = self._cumulative.get(id(distribution))
        if found is None or found[1] is not distribution:  # (the distribution is kept: its id is not reused)
            found = self._cumulative[id(distribution)] = (list(accumulate(float(p) for p in distribution.values())),
                                                          distribution)
        cumulative = found[0]
        return min(bisect_right(cumulative, rng.random() * cumulative[-1]), len(cumulative) - 1)


@dataclass(frozen=True)
class Tally:
    """``count`` fights: by the end of each round (index 0: the fight's round
    now), how many were over, won by each side, had each combatant down or
    dead; the sum of the rounds each lasted (at most ``rounds``)."""

    count: int
    rounds: int
    over: tuple[int, ...]
    won: dict[str, tuple[int, ...]]
    down: dict[str, tuple[int, ...]]
    dead: dict[str, tuple[int, ...]]
    rounds_sum: int
    rounds_squares: int
    unfinished: int

    @property
    def listed(self) -> int:
        """The rounds worth listing: to the one by which every fight played had ended (all of them if some
        went on to the last), as the exact odds stop where no state is left going."""
        return next((j + 1 for j, n in enumerate(self.over) if n == self.count), self.rounds)

    def mean_rounds(self) -> tuple[float, float]:
        """E[min(end, N)] and its standard error."""
        mean = self.rounds_sum / self.count
        variance = max(self.rounds_squares / self.count - mean * mean, 0.0)
        return mean, math.sqrt(variance / self.count)


def share(hits: int, count: int) -> tuple[float, float]:
    """A count as a proportion and its standard error."""
    p = hits / count
    return p, math.sqrt(p * (1 - p) / count)


def simulate_fights(fight: Fight, draw: Drawn, rounds: int, count: int, rng: Random,
                    progress: Callable[[int], None] | None = None, reads_taken: ReadsTaken | None = None,
                    remembered: int = REMEMBERED, should_stop: Callable[[], bool] | None = None,
                    deadline: float | None = None, least: int = 1) -> Tally:
    """``count`` fights from ``fight``'s state now, ``rounds`` rounds each at
    most: each fight's states those the exact odds hold (odds.Walk: a
    condition and the hits taken, the rules worked out once per condition and
    blow, not again per fight), each blow drawn as ``draw`` draws it. Past
    ``remembered`` conditions met, what was worked out is forgotten (between
    two fights): memory stays bounded however many fights are asked.
    ``should_stop`` is asked before each fight: Stopped when it says so.
    ``deadline`` (time.monotonic()): fewer than ``count`` fights, at least
    ``least``, once it has passed (looked at every 10 fights)."""
    walk = Walk(fight, draw.blows, reads_taken)
    names = tuple(c.name for c in fight.combatants)
    over = [0] * rounds
    won = {side: [0] * rounds for side in fight.sides}
    down = {name: [0] * rounds for name in names}
    dead = {name: [0] * rounds for name in names}
    total = squares = unfinished = 0
    played = count
    for done in range(count):
        if should_stop is not None and should_stop():  # every fight: one of many combatants may take a second
            raise Stopped(f"stopped after {done:,} fights")
        if deadline is not None and done >= least and done % 10 == 0 and time.monotonic() > deadline:
            played = done
            break
        state: State | None = walk.start
        ending: Ending | None = None
        ends: list[tuple[str | None, tuple[Status, ...]]] = []  # the winner (None: none yet) and statuses after each round
        for _ in range(rounds):
            for name in names:
                assert state is not None
                dealt = walk.dealt(state, name)
                if dealt is not None:
                    target, distribution = dealt
                    state, ending = walk.attack(state, name, target, distribution, draw.index(distribution, rng))
                    if ending is not None:
                        break
            if ending is None:
                assert state is not None
                state, ending = walk.round_end(state)
            if ending is not None:
                ends.append(ending)
                break
            assert state is not None
            ends.append((None, walk.statuses(state)))
        ended = len(ends) - 1 if ending is not None else None
        lasted = rounds if ended is None else ended + 1
        total, squares = total + lasted, squares + lasted * lasted
        unfinished += ended is None
        for j in range(rounds):
            winner, statuses = ends[min(j, len(ends) - 1)]
            if ended is not None and ended <= j:
                over[j] += 1
                if winner is not None:
                    won[winner][j] += 1
            for name, status in zip(names, statuses):
                if status is Status.DOWN:
                    down[name][j] += 1
                elif status is Status.DEAD:
                    dead[name][j] += 1
        if len(walk.conditions.listed) > remembered:
            walk = Walk(fight, draw.blows, reads_taken)
        if progress is not None and done % 1000 == 999:
            progress(1000)
    return Tally(played, rounds, tuple(over), {s: tuple(v) for s, v in won.items()}, {n: tuple(v) for n, v in down.items()},
                 {n: tuple(v) for n, v in dead.items()}, total, squares, unfinished)
