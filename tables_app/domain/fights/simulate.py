"""A fight played many times with random dice (docs/fights.md, "Simulating
a fight"): the same rounds as the exact odds (odds.py), stepped with the
tracker's rules, each attack's blow drawn from its exact distribution;
counted by round, with each count's standard error."""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate
from random import Random

from tables_app.domain.fights.events import Attack, EndRound
from tables_app.domain.fights.rules import apply, turn_target
from tables_app.domain.fights.state import Blow, Fight, Status

Blows = Callable[[Fight, str, str], dict[Blow, Fraction]]


class Drawn:
    """Blows drawn from their exact distributions, each distribution's
    cumulative weights worked out once."""

    def __init__(self, blows: Blows):
        self.blows = blows
        self._cumulative: dict[int, tuple[list[Blow], list[float], dict[Blow, Fraction]]] = {}

    def __call__(self, state: Fight, attacker: str, target: str, rng: Random) -> Blow:
        distribution = self.blows(state, attacker, target)
        found = self._cumulative.get(id(distribution))
        if found is None or found[2] is not distribution:
            listed = list(distribution.items())
            found = ([blow for blow, _ in listed], list(accumulate(float(p) for _, p in listed)), distribution)
            self._cumulative[id(distribution)] = found
        blows, cumulative, _ = found
        return blows[min(bisect_right(cumulative, rng.random() * cumulative[-1]), len(blows) - 1)]


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
                    state = apply(state, Attack(name, target, draw(state, name, target, rng)))
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
