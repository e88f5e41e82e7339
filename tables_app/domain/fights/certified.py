"""Certified bounds on the odds of a fight (issue #42, `--certified`): the
states stepped as the exact odds step them (odds._stepped, in float64), but
after each attacker's turn and each round's end the states of smallest
weight are dropped (pruned) so that fewer are held, their mass carried as
*unknown*: it may have gone anywhere. Every share of every round is then
known between a ``lower`` bound (the mass known to be in it) and an
``upper`` one (lower plus all the mass dropped so far).

How much is dropped: the width asked for (the mass that may be dropped in
all) is spent over the prune points (a turn or a round's end, the rounds
asked times one more than the combatants), each point given an equal share
of what is left (what a point leaves unspent goes to the next ones). At a
point, the smallest weights are dropped, smallest first, while their total
stays within its share: as many states as its share buys.

Float rounding: each bound is widened by ROUNDING (1e-12) per round worked
out (the expected rounds by that times the rounds, per round); the float64
odds agree with the rational ones within 1e-15 on every fight the tests
check, so this is a margin of about a thousand times what was seen, not a
proven bound on the rounding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from tables_app.domain.fights.odds import (MAX_FLOAT_STATES, MAX_MOVES, Blows, Ending, Progress, ReadsTaken,
                                           TooManyStates, TooMuchWork, _Spread, _Stepped, _stepped, _total, _Watch)
from tables_app.domain.fights.state import Fight, Status

ROUNDING = 1e-12  # added to each bound per round worked out: float rounding (see above)
# conditions met at most: each is kept with the rules worked out on it (about 5.5 KB each, measured: 47,063 of them
# beside 370,000 states held at 289 MB, the bundled duel's round 3); 40,000 with the states' bound stay near 300 MB
MAX_CONDITIONS = 40_000


class CertifiedTooLarge(ValueError):
    """The states held passed the bound even with the width asked for dropped (``why``: how many, by which round)."""

    def __init__(self, why: str, round_: int, width: float):
        super().__init__(f"the fight's certified odds at width {width:g} are too large to work out: {why}; "
                         f"ask for a larger width or fewer rounds")
        self.why, self.round, self.width = why, round_, width


@dataclass(frozen=True)
class Bounds:
    """A probability known to be in [lower, upper]."""

    lower: float
    upper: float


@dataclass(frozen=True)
class CertifiedRound:
    """By the end of ``round``: bounds on P(over), P(each side won), P(each combatant down) and P(dead)."""

    round: int
    over: Bounds
    sides: dict[str, Bounds]
    down: dict[str, Bounds]
    dead: dict[str, Bounds]
    states: int  # the distinct states still going after it, once pruned
    dropped: float  # the mass dropped by then


@dataclass(frozen=True)
class CertifiedOdds:
    """The certified odds of each round from ``start``, bounds on E[min(end, N)] and on the mass going after N
    rounds; ``dropped`` the mass dropped in all: every probability's upper less its lower is at most it plus twice
    the rounding margin, within the width asked (the expected rounds' at most N times it)."""

    start: int
    rounds: tuple[CertifiedRound, ...]
    expected_rounds: Bounds
    unfinished: Bounds
    dropped: float
    threshold: float  # the states lighter than it were dropped (0: none), after each turn and each round's end
    largest: int = 0  # the most distinct states held at once (before a point's pruning)
    tries: int = 1  # the thresholds tried (each one a computation): FIRST_THRESHOLD times the width, then by STEP
    sides: tuple[str, ...] = field(default=())


class _OverBudget(Exception):
    """The mass dropped passed the width: the threshold was too high."""


class _Pruner:
    """Drops every state lighter than ``threshold`` at each prune point; _OverBudget once more than ``budget``."""

    def __init__(self, threshold: float, budget: float):
        self.threshold, self.budget = threshold, budget
        self.dropped = 0.0

    def __call__(self, going: dict[int, _Spread]) -> dict[int, _Spread]:
        if self.threshold <= 0:
            return going
        pruned: dict[int, _Spread] = {}
        dropped = 0.0
        for number, spread in going.items():
            light = (spread.weights < self.threshold) & (spread.weights > 0)
            if not light.any():
                pruned[number] = spread
                continue
            dropped += float(spread.weights[light].sum())
            kept = np.where(light, 0.0, spread.weights)
            held = np.nonzero(kept)
            if not held[0].size:
                continue
            low = tuple(int(axis.min()) for axis in held)
            high = tuple(int(axis.max()) + 1 for axis in held)
            pruned[number] = _Spread(tuple(o + lo for o, lo in zip(spread.origin, low)),
                                     kept[tuple(slice(lo, hi) for lo, hi in zip(low, high))])
        self.dropped += dropped
        if self.dropped > self.budget:
            raise _OverBudget
        return pruned


FIRST_THRESHOLD = 1e-4  # times the width: the first threshold tried
STEP = 8  # the threshold's factor from one try to the next
TRIES = 8  # tries at most before giving up


def certified_odds(fight: Fight, blows: Blows, rounds: int, *, width: float = 0.01,
                   reads_taken: ReadsTaken | None = None, progress: Progress | None = None,
                   should_stop: Callable[[], bool] | None = None, limit: int = MAX_FLOAT_STATES,
                   moves: int = MAX_MOVES, conditions: int = MAX_CONDITIONS,
                   seconds: float | None = None) -> CertifiedOdds:
    """Bounds on the odds of ``fight`` for ``rounds`` rounds, each at most
    ``width`` wide: lower <= the exact odds <= upper (module docstring; the
    rounding margin counted in the width). CertifiedTooLarge past ``limit``
    states held at once, or ``conditions`` met, at every threshold the width allows; TooMuchWork past
    ``moves`` moves; OutOfTime (a TooMuchWork) past ``seconds`` of wall
    clock in all (every threshold tried); Stopped once ``should_stop`` says so."""
    if not 0 <= width <= 1:
        raise ValueError(f"the width is a probability, from 0 to 1, not {width}")
    margin = ROUNDING * max(rounds, 1)
    budget = max(width - 2 * margin, 0.0)
    threshold, lowered = budget * FIRST_THRESHOLD, False
    told = 0  # rounds told to ``progress``: a try again tells only the rounds past those

    def tell(round_done: int) -> None:
        nonlocal told
        if progress is not None and round_done > told:
            progress(round_done - told)
            told = round_done

    watch = _Watch(should_stop, seconds, conditions)  # one deadline for every try
    for tries in range(1, TRIES + 1):
        try:
            found = _pruned(fight, blows, rounds, _Pruner(threshold, budget), margin, reads_taken,
                            watch, limit, moves, tell)
            return replace(found, tries=tries)
        except _OverBudget:
            threshold, lowered = threshold / STEP, True
        except TooMuchWork:  # the time or the steps ran out: another threshold would not help
            raise
        except TooManyStates as exc:
            if lowered or threshold >= budget:  # a higher threshold went over the width already, or drops it all
                raise CertifiedTooLarge(str(exc), exc.round, width) from None
            threshold = min(threshold * STEP, budget)
            too_large = exc
    raise CertifiedTooLarge(str(too_large) if not lowered else "no threshold kept both within bounds", 0, width)


def _pruned(fight: Fight, blows: Blows, rounds: int, pruner: _Pruner, margin: float, reads_taken: ReadsTaken | None,
            watch: _Watch, limit: int, moves: int, tell: Progress) -> CertifiedOdds:
    names = tuple(c.name for c in fight.combatants)
    listed: list[CertifiedRound] = []
    lasting: list[tuple[float, float]] = []  # per round: P(the fight lasts into it) known, and the mass unknown then
    largest, unfinished = 1, 1.0
    for held in _stepped(fight, blows, rounds, exact=False, limit=limit, moves=moves, reads_taken=reads_taken,
                         watch=watch, prune=pruner):
        # P(it lasted into the round): the mass known going then, and at most all dropped by then (by now, a bound)
        lasting.append((float(held.lasting), pruner.dropped))
        largest = held.largest
        listed.append(_bounded(held, names, fight.sides, pruner.dropped, ROUNDING * len(listed) + ROUNDING))
        unfinished = float(_total(held.going))
        tell(len(listed))
    dropped = pruner.dropped
    # the rounds after the last listed (none still going that is known): the mass dropped may last into them
    expected = (sum(known for known, _ in lasting), sum(known + unknown for known, unknown in lasting)
                + dropped * (rounds - len(lasting)))
    return CertifiedOdds(fight.round, tuple(listed), _widened(*expected, margin * max(rounds, 1), high=rounds),
                         _widened(unfinished, unfinished + dropped, margin), dropped, pruner.threshold,
                         largest=largest, sides=fight.sides)


def _widened(lower: float, upper: float, margin: float, high: float = 1.0) -> Bounds:
    return Bounds(max(lower - margin, 0.0), min(upper + margin, high))


def _bounded(held: _Stepped, names: tuple[str, ...], sides: tuple[str, ...], dropped: float,
             margin: float) -> CertifiedRound:
    known: dict[Ending, Any] = dict(held.finished)
    over = float(sum(known.values(), 0.0))
    won = dict.fromkeys(sides, 0.0)
    for (winner, _), p in known.items():
        if winner is not None:
            won[winner] += float(p)
    down = dict.fromkeys(names, 0.0)
    dead = dict.fromkeys(names, 0.0)
    endings = [*((statuses, float(p)) for (_, statuses), p in known.items()),
               *((tuple(c.status for c in held.conditions.listed[number].combatants), float(spread.weights.sum()))
                 for number, spread in held.going.items())]
    for statuses, p in endings:
        for name, status in zip(names, statuses):
            if status is Status.DOWN:
                down[name] += p
            elif status is Status.DEAD:
                dead[name] += p

    def bounds(p: float) -> Bounds:
        return _widened(p, p + dropped, margin)

    return CertifiedRound(held.round, bounds(over), {s: bounds(p) for s, p in won.items()},
                          {n: bounds(p) for n, p in down.items()}, {n: bounds(p) for n, p in dead.items()},
                          sum(int(np.count_nonzero(s.weights)) for s in held.going.values()), dropped)


__all__ = ["Bounds", "CertifiedOdds", "CertifiedRound", "CertifiedTooLarge", "MAX_CONDITIONS", "ROUNDING", "certified_odds"]
