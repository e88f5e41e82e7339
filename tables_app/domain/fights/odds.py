"""Exact odds of a fight (docs/fights.md, "Odds of a fight"): the
distribution of the fight's states, attack after attack and round after
round, stepped with the tracker's own rules (rules.apply), identical states
merged, nothing sampled.

Each round, every combatant able to attack attacks, in initiative order,
the first combatant up of another side (the targeting rule); the blow it
deals has the exact distribution ``blows(fight, attacker, target)`` gives
(blow_odds.py for the d100 tables). A state where the fight is over leaves
the distribution: it ended in that round, with that winner.

How the states are held. Two states that differ only in the hits taken by
combatants still up are stepped by the rules alike: who attacks whom, with
what CMB and DEF, and what a blow's effects do, never read the hits taken
(only the down rule does, once they reach the combatant's hits). So the
states are grouped by their *condition* (the state with the hits taken of
the combatants up set to 0), the rules are applied once per condition and
effect, and each condition holds an array of weights over the hits taken of
its combatants up, one axis each: a blow's hits shift the target's axis,
bleeding shifts every axis at the round's end, and the cells that reach a
combatant's hits are the states where it went down (rules.down_if_beaten);
with a death threshold, the cells past its hits less the threshold are
those where it died, and one down with a threshold keeps its axis (its
bleeding may still take it past).
The weights are integers over one common denominator, multiplied at each
attack by the least common multiple of the denominators of the blows
dealt: exact, as Fractions would be, without a Fraction per state.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import product
from typing import Any, Generic, Literal, TypeVar, overload

import numpy as np

from tables_app.domain.fights.events import Attack, EndRound
from tables_app.domain.fights.rules import (
    apply, counted_out, dead_at, down_at, down_if_beaten, looked_at, turn_target, turn_weapon,
)
from tables_app.domain.fights.state import Blow, Combatant, Counters, Fight, Status

Blows = Callable[[Fight, str, str], dict[Blow, Fraction]]  # (state, attacker, target) → each blow's probability
Ending = tuple["str | None", tuple[Status, ...]]  # an ended fight as the odds read it: its winner, each one's status
Progress = Callable[[int], None]  # called with 1 after each round worked out
# (state, attacker) → whether its blows depend on its target's hits taken (pte's hits left): looked up state by state
ReadsTaken = Callable[[Fight, str], bool]
Dealt = list[tuple[dict[Blow, Fraction], Any]]  # each distribution of a condition's blows, with the weights it deals on
MAX_STATES = 1_000_000  # states held at once (seconds of work, about 200 MB): past it, refused (simulate fight samples them)
# the same memory for float64 weights: at the peak of the bundled duel's round 2 (1.9 million states held; RSS less the
# interpreter's) a state held cost about 80 bytes in float64 and 140 with integers (bench/fight_odds_arithmetic.py)
MAX_FLOAT_STATES = 1_600_000
CELLS_PER_STATE = 4  # cells of the arrays (a state, or a gap between states) past which the states are counted mid-turn
# moves of a fight's odds at most (a move: one condition's states stepped by one blow's effects, or by a round's end;
# 40 µs each on a small machine, 20 s in all): what bounds the time of a fight whose states stay few but many rounds are asked
MAX_MOVES = 500_000
# cells of the dense arrays the states are held in, at once (8 bytes each: a float64, or a pointer to an int): checked
# before an array is made, past it refused, whatever the states. A formula damage with gaps (multiplier=100, +1000)
# spreads few states over a wide box: 36 damages from 100 to 3,600 make a 3,500² box of 1,296 states in round 1.
# The peak is a few times it (the states before a turn, after it, and one move's copy): about 0.3 GB.
MAX_CELLS = 10_000_000
# conditions met at most (each a Fight kept, with the rules worked out on it: about 7 KB with its memos): a 4-vs-4 of
# many hits met 44,000 in round 1, 0.3 GB of them, before its states reached their bound. The bundled duel meets
# 8,400 by its refusal in round 2.
MAX_EXACT_CONDITIONS = 20_000


class TooManyStates(ValueError):
    """The fight's states passed the bound: ``states`` found by ``round``."""

    def __init__(self, states: int, round_: int, limit: int):
        super().__init__(f"the fight reaches more than {limit:,} states ({states:,} by round {round_})")
        self.states, self.round, self.limit = states, round_, limit


class TooMuchWork(TooManyStates):
    """The fight's states took more than ``limit`` moves to step by ``round``."""

    def __init__(self, moves: int, round_: int, limit: int):
        ValueError.__init__(self, f"its states take more than {limit:,} steps to work out ({moves:,} by round {round_})")
        self.states, self.round, self.limit = moves, round_, limit


class OutOfTime(TooMuchWork):
    """The fight's odds took more than ``seconds`` (wall clock) by ``round``: the budget asked for ran out."""

    def __init__(self, seconds: float, round_: int):
        ValueError.__init__(self, f"its states take more than {seconds:g} s to work out (by round {round_})")
        self.states, self.round, self.limit, self.seconds = 0, round_, 0, seconds


class TooManyCells(TooManyStates):
    """The fight's states spread over more than ``limit`` cells of its arrays by ``round``: refused before they are made."""

    def __init__(self, cells: int, round_: int, limit: int):
        ValueError.__init__(self, f"its states spread over more than {limit:,} cells ({cells:,} by round {round_})")
        self.states, self.round, self.limit = cells, round_, limit


class TooManyConditions(TooManyStates):
    """The fight met more than ``limit`` conditions by ``round`` (each kept, with the rules worked out on it)."""

    def __init__(self, conditions: int, round_: int, limit: int):
        ValueError.__init__(self, f"the fight meets more than {limit:,} conditions ({conditions:,} by round {round_})")
        self.states, self.round, self.limit = conditions, round_, limit


class Stopped(Exception):
    """``should_stop`` asked the odds to stop (a client gone, a newer question): no answer."""


Arithmetic = Literal["rational", "float64"]
Share = TypeVar("Share", Fraction, float)  # a probability: a Fraction (rational, exact) or a float (float64)


@dataclass(frozen=True)
class RoundOdds(Generic[Share]):
    """By the end of ``round``: P(the fight is over), P(each side has won),
    P(each combatant is down) and P(dead) (over every fight, ended or not)."""

    round: int
    over: Share
    sides: dict[str, Share]
    down: dict[str, Share]
    dead: dict[str, Share]
    states: int  # the distinct states still going after it


@dataclass(frozen=True)
class FightOdds(Generic[Share]):
    """The odds of each round from ``start`` (the fight's round), the expected
    number of rounds E[min(end, N)] and the mass left going after N rounds."""

    start: int
    rounds: tuple[RoundOdds[Share], ...]
    expected_rounds: Share
    unfinished: Share
    largest: int = 0  # the most distinct states held at once
    sides: tuple[str, ...] = field(default=())


@dataclass
class _Spread:
    """The states of one condition: ``weights[i, j, …]`` is the weight of
    the state whose combatants up have taken ``origin + (i, j, …)`` hits."""

    origin: tuple[int, ...]
    weights: Any  # a numpy array of Python ints (exact), one axis per combatant up

    @property
    def end(self) -> tuple[int, ...]:
        return tuple(o + n for o, n in zip(self.origin, self.weights.shape))


def _add(into: dict[int, _Spread], condition: int, origin: tuple[int, ...], weights: Any,
         room: Callable[[int], None] | None = None) -> int:
    """Add ``weights`` at ``origin`` to the condition's spread (the two boxes joined); the cells it grew by.
    ``room(cells)`` is asked before the joined box is made (it raises past the bound)."""
    held = into.get(condition)
    if held is None:
        into[condition] = _Spread(origin, weights)
        return int(weights.size)
    if held.origin == origin and held.weights.shape == weights.shape:
        held.weights = held.weights + weights
        return 0
    start = tuple(map(min, held.origin, origin))
    end = tuple(map(max, held.end, tuple(o + n for o, n in zip(origin, weights.shape))))
    shape = tuple(e - s for s, e in zip(start, end))
    if room is not None:
        room(math.prod(shape))
    grown = int(math.prod(shape)) - int(held.weights.size)
    joined = np.zeros(shape, dtype=weights.dtype)
    for spread_origin, w in ((held.origin, held.weights), (origin, weights)):
        joined[tuple(slice(o - s, o - s + n) for o, s, n in zip(spread_origin, start, w.shape))] += w
    into[condition] = _Spread(start, joined)
    return grown


def _has_axis(c: Combatant) -> bool:
    """Whether its hits taken are held on an axis: up (the down rule reads
    them), or down with a death threshold (its bleeding may take it past)."""
    return c.status is Status.UP or (c.status is Status.DOWN and c.fighter.death_at is not None)


def _axes(fight: Fight) -> tuple[int, ...]:
    """The combatants with an axis (the others' hits taken no longer count): a knocked-out one too (its status
    is up: it bleeds, may go down, and wakes with all it carried)."""
    return tuple(i for i, c in enumerate(fight.combatants) if _has_axis(c))


def _reduced(c: Combatant) -> Combatant:
    """What the rules still read of a combatant in a condition: nothing of the
    hits taken (its axis, while it has one: a knocked-out one keeps all it
    carries, to wake with it); once down, only its death countdown, and its
    bleeding if it has a death threshold; once dead, nothing."""
    if c.status is Status.UP:
        return replace(c, taken=0) if c.taken else c
    if c.status is Status.DEAD:
        return Combatant(c.fighter, status=Status.DEAD)
    bleeds = c.fighter.death_at is not None  # else what it bleeds is never read again
    return Combatant(c.fighter, now=Counters(bleed=c.now.bleed if bleeds else 0, dying=c.now.dying),
                     start=Counters(bleed=c.start.bleed if bleeds else 0, dying=c.start.dying),
                     fresh_dying=c.fresh_dying, status=Status.DOWN)


# What an event does to an axis, by the hits taken on it (_Placing.fate): nothing, down, dead.
STAYS, DOWNED, DIES = 0, 1, 2


def _fallen(c: Combatant, fate: int) -> Combatant:
    """The combatant (of a condition) down or dead by its hits taken, reduced."""
    if fate == DIES:
        return _reduced(replace(c, status=Status.DEAD))
    return _reduced(down_if_beaten(replace(c, taken=c.fighter.hits)))


def _cuts(origin: int, size: int, down_at: int | None, dead_at: int | None,
          checked: bool) -> tuple[tuple[slice, int], ...]:
    """An axis's cells (``size`` of them, from hits taken ``origin``) in parts,
    each with its fate: below its hits it stays, from its hits it is down,
    from its hits less its death threshold it is dead; one part when the down
    rule does not look at it."""
    if not checked:
        return ((slice(None), STAYS),)
    parts: list[tuple[slice, int]] = []
    start, fate = 0, STAYS
    for at, next_fate in ((down_at, DOWNED), (dead_at, DIES)):
        if at is None:
            continue
        cut = min(max(at - origin, start), size)
        if cut > start:
            parts.append((slice(start, cut), fate))
        start, fate = cut, next_fate
    if start < size:
        parts.append((slice(start, None), fate))
    return tuple(parts)


def _condition(fight: Fight) -> Fight:
    return replace(fight, combatants=tuple(_reduced(c) for c in fight.combatants))


class _Conditions:
    """Every condition met, each under a number: a condition is hashed once,
    when it is first met, not at every look-up of the states held under it."""

    def __init__(self) -> None:
        self.listed: list[Fight] = []
        self._numbers: dict[Fight, int] = {}

    def number(self, condition: Fight) -> int:
        found = self._numbers.get(condition)
        if found is None:
            found = self._numbers[condition] = len(self.listed)
            self.listed.append(condition)
        return found


class _Placing:
    """Where the states an event moves from one condition to another go, worked
    out once per such move: the axes of combatants the event killed (summed
    away); each axis left with the hits taken from which it is down (None:
    down already) and dead (None: no death threshold), and whether the down
    rule looks at it (the combatant was harmed); and for each fate of the
    axes (rules.down_if_beaten: stays, down, dead) the condition those states
    are in (a number), or how the fight ended."""

    def __init__(self, conditions: _Conditions, before: Fight, after: Fight, checked: tuple[bool, ...]):
        axes = _axes(before)
        self.conditions, self.after = conditions, after
        kept = [k for k, i in enumerate(axes) if _has_axis(after.combatants[i])]
        self.gone = tuple(k for k in range(len(axes)) if k not in kept)
        self.ids = tuple(axes[k] for k in kept)
        left = [after.combatants[i] for i in self.ids]
        self.down_at = tuple(down_at(c) for c in left)  # the down rule's thresholds (rules.down_if_beaten)
        self.dead_at = tuple(dead_at(c) for c in left)
        self.checked = tuple(checked[k] for k in kept)
        self._outcomes: dict[tuple[int, ...], tuple[int | None, Ending | None]] = {}

    def fate(self, k: int, taken: int) -> int:
        """What the down rule does to axis ``k`` at ``taken`` hits taken (as _cuts parts it)."""
        if not self.checked[k]:
            return STAYS
        dead_at, down_at = self.dead_at[k], self.down_at[k]
        if dead_at is not None and taken >= dead_at:
            return DIES
        return DOWNED if down_at is not None and taken >= down_at else STAYS

    def removed(self, fates: tuple[int, ...]) -> tuple[int, ...]:
        """The axes the fates take away: the dead, and the down without a death threshold."""
        return tuple(k for k, fate in enumerate(fates) if fate == DIES or (fate == DOWNED and self.dead_at[k] is None))

    def outcome(self, fates: tuple[int, ...]) -> tuple[int | None, Ending | None]:
        """(the condition's number, None) of the states whose axes have these fates, or (None, the ending)."""
        found = self._outcomes.get(fates)
        if found is None:
            changed = {self.ids[k]: fate for k, fate in enumerate(fates) if fate != STAYS}
            condition = replace(self.after, combatants=tuple(
                _fallen(c, changed[i]) if i in changed else c
                for i, c in enumerate(self.after.combatants))) if changed else self.after
            if condition.over:
                found = (None, (condition.winner, tuple(c.status for c in condition.combatants)))
            else:
                found = (self.conditions.number(condition), None)
            self._outcomes[fates] = found
        return found


@dataclass(frozen=True)
class _Step:
    """One way an attack moves a condition's states: where they go (before
    the down rule), how many hits each axis gains, the weight of each move."""

    placing: _Placing
    shifts: tuple[tuple[int, ...], ...]  # per move: the hits gained on each axis
    weights: tuple[int | float, ...]  # per move


class _Turn:
    """The ways one attacker's blows move each condition: the rules applied
    once per condition and blow with its hits left out, the hits as shifts."""

    def __init__(self, name: str, blows: Blows, reads_taken: ReadsTaken | None, conditions: _Conditions,
                 exact: bool = True):
        self.name, self.blows, self.reads_taken, self.conditions = name, blows, reads_taken, conditions
        self.exact = exact  # a step's weights: integers at a scale, or the blows' probabilities as floats
        self._grouped: dict[int, tuple[dict[Blow, Fraction], list[_Split]]] = {}
        # each condition's target and blows, and its steps at a scale: conditions recur round after round
        self._dealt: dict[int, tuple[str, dict[Blow, Fraction]] | None] = {}
        self._reads: dict[int, bool] = {}  # whether each condition's blows are asked state by state
        self._steps: dict[tuple[int, int, int], tuple[dict[Blow, Fraction], tuple[_Step, ...]]] = {}
        # each condition's blows as its states take them, blow by blow (with the places they go, by blow effect)
        self._moves: dict[tuple[int, int], tuple[dict[Blow, Fraction], dict[tuple[Blow, bool, bool], _Placing],
                                                 list[_Move | None]]] = {}

    def dealt(self, number: int) -> tuple[str, dict[Blow, Fraction]] | None:
        """The condition's target and blows (None: no attack), unless its blows read the hits taken."""
        if number not in self._dealt:
            condition = self.conditions.listed[number]
            target = turn_target(condition, self.name)
            self._dealt[number] = None if target is None else (target, self.blows(condition, self.name, target))
        return self._dealt[number]

    def reads(self, number: int) -> bool:
        """Whether the condition's attacker's blows read the hits taken (asked state by state)."""
        found = self._reads.get(number)
        if found is None:
            found = self._reads[number] = self.reads_taken is not None and \
                self.reads_taken(self.conditions.listed[number], self.name)
        return found

    def dealt_at(self, number: int, taken: tuple[int, ...]) -> tuple[str, dict[Blow, Fraction]] | None:
        """The target and blows of one state: the condition with its axes' hits ``taken``."""
        if not self.reads(number):
            return self.dealt(number)
        condition = self.conditions.listed[number]
        target = turn_target(condition, self.name)
        return None if target is None else (target, self.blows(_with_taken(condition, taken), self.name, target))

    def distributions(self, going: dict[int, _Spread], check: Callable[[], None] | None = None,
                      room: Callable[[int], None] | None = None) -> dict[int, tuple[str, Dealt] | None]:
        """For each condition, its attacker's target and blows (None: no attack); ``check`` called before each
        (a new condition's blows may be looked up in the tables), ``room`` before arrays are made."""
        found: dict[int, tuple[str, Dealt] | None] = {}
        for number, spread in going.items():
            if check is not None:
                check()
            if self.reads(number):
                condition = self.conditions.listed[number]
                target = turn_target(condition, self.name)
                found[number] = None if target is None else (target, self._by_state(condition, spread, target, room))
                continue
            known = self.dealt(number)
            found[number] = None if known is None else (known[0], [(known[1], spread.weights)])
        return found

    def _by_state(self, condition: Fight, spread: _Spread, target: str,
                  room: Callable[[int], None] | None = None) -> Dealt:
        """The blows of each state of the spread (they read its hits taken), the
        states dealt the same distribution together (the others' weights at 0)."""
        groups: dict[int, tuple[dict[Blow, Fraction], list[tuple[int, ...]]]] = {}
        for cell in zip(*np.nonzero(spread.weights)):
            taken = tuple(o + int(c) for o, c in zip(spread.origin, cell))
            distribution = self.blows(_with_taken(condition, taken), self.name, target)
            groups.setdefault(id(distribution), (distribution, []))[1].append(tuple(int(c) for c in cell))
        if len(groups) == 1:
            return [(distribution, spread.weights) for distribution, _ in groups.values()]
        if room is not None:  # a copy of the spread's box per distribution
            room(len(groups) * int(spread.weights.size))
        dealt: Dealt = []
        for distribution, cells in groups.values():
            index = tuple(np.array(axis) for axis in zip(*cells))
            weights = np.zeros(spread.weights.shape, dtype=spread.weights.dtype)
            weights[index] = spread.weights[index]
            dealt.append((distribution, weights))
        return dealt

    def steps(self, number: int, target: str, distribution: dict[Blow, Fraction], scale: int) -> tuple[_Step, ...]:
        key = (number, id(distribution), scale)
        found = self._steps.get(key)
        if found is None or found[0] is not distribution:  # (the distribution is kept: its id is not reused)
            found = self._steps[key] = (distribution, tuple(self._worked_out(number, target, distribution, scale)))
        return found[1]

    def moves(self, number: int, target: str, distribution: dict[Blow, Fraction]) -> list[_Move]:
        """Each blow of ``distribution`` (in its order) as the condition's states
        take it: where they go, and the hits each axis gains."""
        return [self.move(number, target, distribution, index) for index in range(len(distribution))]

    def move(self, number: int, target: str, distribution: dict[Blow, Fraction], index: int) -> _Move:
        """Blow ``index`` of ``distribution`` as the condition's states take it,
        worked out when first asked (a simulation asks only for the blows it draws)."""
        key = (number, id(distribution))
        found = self._moves.get(key)
        if found is None or found[0] is not distribution:  # (the distribution is kept: its id is not reused)
            found = self._moves[key] = (distribution, {}, [None] * len(distribution))
        _, placings, moves = found
        move = moves[index]
        if move is None:
            move = moves[index] = self._move(self.conditions.listed[number], target, self._split(distribution)[index],
                                             placings)
        return move

    def _move(self, condition: Fight, target: str, split: _Split,
              placings: dict[tuple[Blow, bool, bool], _Placing]) -> _Move:
        axes = _axes(condition)
        t = next(k for k, i in enumerate(axes) if condition.combatants[i].name == target)
        a = next(k for k, i in enumerate(axes) if condition.combatants[i].name == self.name)
        key = (split.effects, split.harms_target, split.harms_attacker)
        placing = placings.get(key)
        if placing is None:  # the rules, once per condition and blow effect
            attacker = condition.find(self.name)
            arm = turn_weapon(attacker) if attacker is not None else None  # its attack this turn: what it may drop
            after = _condition(apply(condition, Attack(self.name, target, split.effects, arm.weapon if arm else "")))
            checked = [False] * len(axes)
            checked[t], checked[a] = split.harms_target, split.harms_attacker
            placing = placings[key] = _Placing(self.conditions, condition, after, tuple(checked))
        shift = [0] * len(axes)
        shift[t], shift[a] = split.hits_to_target, split.hits_to_attacker
        return _Move(placing, tuple(shift), split.p)

    def _worked_out(self, number: int, target: str, distribution: dict[Blow, Fraction], scale: int) -> Iterator[_Step]:
        """The moves of the blows that go to the same place, as one step, their weights at ``scale`` (floats:
        the probabilities themselves)."""
        grouped: dict[int, tuple[_Placing, list[tuple[int, ...]], list[int | float]]] = {}
        for move in self.moves(number, target, distribution):
            _, shifts, weights = grouped.setdefault(id(move.placing), (move.placing, [], []))
            shifts.append(move.shift)
            if not self.exact:
                weights.append(float(move.p))
                continue
            weight = move.p * scale
            assert weight.denominator == 1, "the scale is a multiple of every denominator"
            weights.append(weight.numerator)
        for placing, shifts, weights in grouped.values():
            yield _Step(placing, tuple(shifts), tuple(weights))

    def _split(self, distribution: dict[Blow, Fraction]) -> list[_Split]:
        found = self._grouped.get(id(distribution))
        if found is not None and found[0] is distribution:
            return found[1]
        split = [_Split(replace(blow, to_target=replace(blow.to_target, hits=0), to_attacker=replace(blow.to_attacker, hits=0)),
                        blow.to_target.hits, blow.to_attacker.hits, looked_at(blow.to_target), looked_at(blow.to_attacker), p)
                 for blow, p in distribution.items()]
        self._grouped[id(distribution)] = (distribution, split)
        return split


@dataclass(frozen=True)
class _Move:
    """One blow as a condition's states take it: where they go, the hits each axis gains, its P."""

    placing: _Placing
    shift: tuple[int, ...]
    p: Fraction


def _with_taken(condition: Fight, taken: tuple[int, ...]) -> Fight:
    """The state of ``condition`` whose combatants up (its axes) have taken ``taken``."""
    by_axis = dict(zip(_axes(condition), taken))
    return replace(condition, combatants=tuple(replace(c, taken=by_axis[i]) if i in by_axis else c
                                               for i, c in enumerate(condition.combatants)))


@dataclass(frozen=True)
class _Split:
    """A blow as the grouped states take it: its effects (the blow with its
    hits left out), its hits to each side, whether it harms each side (the
    rules apply the down rule to whom a blow harms: rules.looked_at), its P."""

    effects: Blow
    hits_to_target: int
    hits_to_attacker: int
    harms_target: bool
    harms_attacker: bool
    p: Fraction


def _moved(origin: tuple[int, ...], weights: Any, step: _Step,
           room: Callable[[int], None] | None = None) -> tuple[tuple[int, ...], Any]:
    """The weights after each move of ``step``: (origin, weights). A shift may
    be negative (a heal, held by the rules to the hits taken). ``room(cells)`` asked before the box is made."""
    low = tuple(min(0, *(s[k] for s in step.shifts)) for k in range(weights.ndim))
    high = tuple(max(0, *(s[k] for s in step.shifts)) for k in range(weights.ndim))
    shape = tuple(n + h - lo for n, h, lo in zip(weights.shape, high, low))
    if room is not None:
        room(math.prod(shape))
    out = np.zeros(shape, dtype=weights.dtype)
    for shift, w in zip(step.shifts, step.weights):
        at = tuple(slice(s - lo, s - lo + n) for s, lo, n in zip(shift, low, weights.shape))
        out[at] += weights * w if w != 1 else weights
    return tuple(o + lo for o, lo in zip(origin, low)), out


class _Ledger:
    """Where the moved states go: a condition still going, or the endings. ``room(cells)``, if given, is asked
    before an array is made, with the cells it would hold, and with the cells held in all (it raises past its bound)."""

    def __init__(self, room: Callable[[int], None] | None = None) -> None:
        self.going: dict[int, _Spread] = {}
        self.ended: dict[Ending, Any] = {}  # weights at the scale of the event that ended them (int or numpy float)
        self.cells = 0  # of the arrays placed (an upper bound of the states they hold)
        self.moves = 0  # place() calls
        self.room = room
        self.held = 0  # cells of the arrays in ``going``

    def add(self, number: int, origin: tuple[int, ...], weights: Any) -> None:
        """``weights`` added to the condition's states, the cells held counted."""
        self.held += _add(self.going, number, origin, weights, self.room)
        if self.room is not None:
            self.room(self.held)

    def place(self, placing: _Placing, origin: tuple[int, ...], weights: Any) -> None:
        """The states of ``weights`` (one axis per combatant with one before the
        event), placed as ``placing`` says: each axis the down rule looks at is
        cut where the hits taken reach the combatant's hits (down), and its hits
        less its death threshold (dead)."""
        self.moves += 1
        if placing.gone:  # a combatant the event killed has no axis any more: its hits taken no longer count
            weights = np.asarray(weights.sum(axis=placing.gone), dtype=weights.dtype)
            origin = tuple(o for k, o in enumerate(origin) if k not in placing.gone)
        # Per axis, its parts: (the cells, their fate). The axes a fate takes away are summed away; the others keep
        # their cells from where their part starts (a combatant down with a threshold keeps its hits taken).
        parts = [_cuts(origin[k], weights.shape[k], placing.down_at[k], placing.dead_at[k], placing.checked[k])
                 for k in range(len(placing.ids))]
        for picked in product(*parts):
            part = weights[tuple(cells for cells, _ in picked)] if picked else weights  # (no axis: every one dead)
            if part.size == 0 or not part.any():
                continue
            fates = tuple(fate for _, fate in picked)
            number, ending = placing.outcome(fates)
            if ending is not None:
                self.ended[ending] = self.ended.get(ending, 0) + part.sum()
                continue
            assert number is not None
            removed = placing.removed(fates)
            if removed:
                part = np.asarray(part.sum(axis=removed), dtype=part.dtype)
            self.cells += part.size
            self.add(number, tuple(o + (cells.start or 0) for k, (o, (cells, _)) in enumerate(zip(origin, picked))
                                           if k not in removed), part)


def _bounded(going: dict[int, _Spread], ended: int, limit: int, round_: int) -> int:
    """The distinct states held (going, and ended in the round); TooManyStates past ``limit``."""
    states = _states(going) + ended
    if states > limit:
        raise TooManyStates(states, round_, limit)
    return states


def _states(going: dict[int, _Spread]) -> int:
    return sum(int(np.count_nonzero(s.weights)) for s in going.values())


@dataclass
class _Stepped:
    """The states after round ``round``: those still going (weights over
    ``scale``: 1 for floats), how the fight ended so far (shares: Fractions or
    floats), P(it lasted into the round), the conditions met."""

    round: int
    going: dict[int, _Spread]
    finished: dict[Ending, Any]
    scale: int
    lasting: Any
    largest: int
    conditions: _Conditions


Prune = Callable[[dict[int, _Spread]], dict[int, _Spread]]  # the states held, some dropped (certified.py)


class _Watch:
    """Polled between attacks: ``should_stop``, and the wall-clock budget of ``seconds`` from when it is made."""

    def __init__(self, should_stop: Callable[[], bool] | None, seconds: float | None,
                 conditions: int | None = None, cells: int = MAX_CELLS):
        self.should_stop, self.seconds = should_stop, seconds
        self.cells, self.round = cells, 0  # cells held at once at most (their memory); the round being worked out
        self.deadline = None if seconds is None else time.perf_counter() + seconds
        self.max_conditions = conditions  # conditions met at most (their memory), if bounded
        self.met: _Conditions | None = None

    def room(self, cells: int) -> None:
        """TooManyCells if ``cells`` are past the bound: asked before an array is made (and of those held)."""
        if cells > self.cells:
            raise TooManyCells(cells, self.round, self.cells)

    def check(self, round_: int) -> None:
        self.round = round_
        if self.max_conditions is not None and self.met is not None and len(self.met.listed) > self.max_conditions:
            raise TooManyConditions(len(self.met.listed), round_, self.max_conditions)
        if self.should_stop is not None and self.should_stop():
            raise Stopped(f"stopped in round {round_}")
        if self.deadline is not None and time.perf_counter() > self.deadline:
            assert self.seconds is not None
            raise OutOfTime(self.seconds, round_)


def _stepped(fight: Fight, blows: Blows, rounds: int, *, exact: bool, limit: int, moves: int,
             reads_taken: ReadsTaken | None, watch: _Watch, prune: Prune | None = None) -> Iterator[_Stepped]:
    """The states of ``fight`` after each of ``rounds`` rounds (fewer once none is still going), stepped attack by
    attack; ``prune`` (floats only) may drop some after each attacker's turn and each round's end."""
    assert prune is None or not exact, "a pruned mass is carried as a float"
    names = tuple(c.name for c in fight.combatants)
    conditions = watch.met = _Conditions()
    turns = [_Turn(name, blows, reads_taken, conditions, exact) for name in names]
    start = np.zeros((1,) * len(_axes(fight)), dtype=object if exact else np.float64)
    start[(0,) * start.ndim] = 1
    going = {conditions.number(_condition(fight)): _Spread(tuple(fight.combatants[i].taken for i in _axes(fight)), start)}
    scale = 1  # every weight is over it (exact); the floats are the probabilities themselves
    ends: dict[int, tuple[_Placing, tuple[int, ...]]] = {}  # each condition's round end, worked out once
    # how the fight ended, so far: its winner and each combatant's status (all a measure reads of an ended fight)
    finished: dict[Ending, Any] = {}
    largest = 1
    done = 0  # moves
    for k in range(rounds):
        if not going:
            break
        round_ = fight.round + k
        lasting = _share(_total(going), scale, exact)  # P(the fight lasts into this round)
        ended_in_round = 0
        for turn in turns:
            going, ended, scale, done = _attack_turn(going, turn, scale, limit, round_, done, moves, watch, prune)
            ended_in_round += _settle(ended, scale, finished, exact)
            largest = max(largest, _bounded(going, ended_in_round, limit, round_))
            if prune is not None:
                going = prune(going)
        ledger = _Ledger(watch.room)
        for number, spread in going.items():
            watch.check(round_)
            found = ends.get(number)
            if found is None:
                found = ends[number] = _round_end(conditions, conditions.listed[number])
            placing, shift = found
            ledger.place(placing, tuple(o + s for o, s in zip(spread.origin, shift)), spread.weights)
        going = ledger.going
        done += ledger.moves
        if done > moves:
            raise TooMuchWork(done, round_, moves)
        _settle(ledger.ended, scale, finished, exact)
        largest = max(largest, _bounded(going, 0, limit, round_))
        if prune is not None:
            going = prune(going)
        yield _Stepped(round_, going, finished, scale, lasting, largest, conditions)


@overload
def fight_odds(fight: Fight, blows: Blows, rounds: int, limit: int | None = None, progress: Progress | None = None,
               reads_taken: ReadsTaken | None = None, moves: int = MAX_MOVES, *,
               arithmetic: Literal["rational"] = "rational", should_stop: Callable[[], bool] | None = None,
               seconds: float | None = None, cells: int = MAX_CELLS, conditions: int = MAX_EXACT_CONDITIONS
               ) -> FightOdds[Fraction]: ...
@overload
def fight_odds(fight: Fight, blows: Blows, rounds: int, limit: int | None = None, progress: Progress | None = None,
               reads_taken: ReadsTaken | None = None, moves: int = MAX_MOVES, *,
               arithmetic: Literal["float64"], should_stop: Callable[[], bool] | None = None,
               seconds: float | None = None, cells: int = MAX_CELLS, conditions: int = MAX_EXACT_CONDITIONS
               ) -> FightOdds[float]: ...
def fight_odds(fight: Fight, blows: Blows, rounds: int, limit: int | None = None, progress: Progress | None = None,
               reads_taken: ReadsTaken | None = None, moves: int = MAX_MOVES, *,
               arithmetic: Arithmetic = "rational", should_stop: Callable[[], bool] | None = None,
               seconds: float | None = None, cells: int = MAX_CELLS, conditions: int = MAX_EXACT_CONDITIONS
               ) -> FightOdds[Fraction] | FightOdds[float]:
    """The odds of ``fight`` from its state now, for ``rounds`` rounds (the
    current one first, from wherever it stands); TooManyStates past ``limit``
    states held (by default MAX_STATES, MAX_FLOAT_STATES for floats),
    TooManyCells past ``cells`` cells of its arrays held (checked before they are made), TooManyConditions past
    ``conditions`` conditions met,
    TooMuchWork past ``moves`` moves, OutOfTime (a TooMuchWork) past
    ``seconds`` of wall clock, Stopped once ``should_stop`` says so (both
    polled between two conditions' moves, many times an attack).
    ``arithmetic``: "rational" (Fractions, exact) or "float64" (floats: the
    same steps with the probabilities rounded, about 1e-15 off each).
    ``blows`` is asked with a state whose hits taken are 0 for those up,
    unless ``reads_taken`` says the attacker's blows depend on them; it is
    asked once per condition (with those hits at 0 too), so it may read the
    attack and the condition, not the hits taken."""
    exact = arithmetic == "rational"
    if arithmetic not in ("rational", "float64"):
        raise ValueError(f"unknown arithmetic {arithmetic!r}: rational or float64")
    if limit is None:
        limit = MAX_STATES if exact else MAX_FLOAT_STATES
    names = tuple(c.name for c in fight.combatants)
    results: list[RoundOdds[Any]] = []
    expected: Any = Fraction(0) if exact else 0.0
    unfinished: Any = Fraction(1) if exact else 1.0
    largest = 1
    for held in _stepped(fight, blows, rounds, exact=exact, limit=limit, moves=moves, reads_taken=reads_taken,
                         watch=_Watch(should_stop, seconds, conditions, cells)):
        expected += held.lasting
        largest = held.largest
        results.append(_measured(held, names, fight.sides, exact))
        unfinished = _share(_total(held.going), held.scale, exact)
        if progress is not None:
            progress(1)
    return FightOdds(fight.round, tuple(results), expected, unfinished, largest, fight.sides)


def _round_end(conditions: _Conditions, condition: Fight) -> tuple[_Placing, tuple[int, ...]]:
    """Where the round's end moves the condition's states, and the hits each
    axis gains: bleeding, as the rules add it to the hits taken of the
    condition (whose axes are at 0). The round is not counted in a condition
    (the rules do not read it): the same one recurs round after round."""
    after = apply(condition, EndRound())
    axes = _axes(condition)
    shift = tuple(after.combatants[i].taken for i in axes)
    # the down rule ran on the condition's hits taken (0 on the axes, plus the bleeding): its verdict on an axis
    # is undone, each one's status as it was (a countdown run out stays: it reads no hits), and the placing cuts
    # the axes by their real hits taken instead
    unbeaten = replace(after, round=condition.round, combatants=tuple(
        _reduced(replace(c, taken=0, status=_unjudged(condition.combatants[i], c))) if i in axes else _reduced(c)
        for i, c in enumerate(after.combatants)))
    return _Placing(conditions, condition, unbeaten, (True,) * len(axes)), shift  # the down rule looks at everyone


def _unjudged(before: Combatant, after: Combatant) -> Status:
    """An axis's status after the round's end but for the down rule: dead only by a countdown run out."""
    ran_out = after.status is Status.DEAD and before.now.dying is not None and counted_out(after.now.dying)
    return Status.DEAD if ran_out else before.status


def _attack_turn(going: dict[int, _Spread], turn: _Turn, scale: int, limit: int, round_: int, done: int,
                 moves: int, watch: _Watch, prune: Prune | None = None
                 ) -> tuple[dict[int, _Spread], dict[Ending, Any], int, int]:
    """Every state after ``turn``'s attacker's turn, the endings in it, the
    new scale and the moves made so far, ``done`` before it (TooMuchWork past ``moves``);
    ``prune`` also runs on the states placed each time ``limit`` more cells are (the peak is mid-turn)."""
    watch.check(round_)
    dealt = turn.distributions(going, lambda: watch.check(round_), watch.room)
    grow = 1 if not turn.exact else math.lcm(1, *{p.denominator for found in dealt.values() if found is not None
                                                  for distribution, _ in found[1] for p in distribution.values()})
    ledger = _Ledger(watch.room)
    count_at = limit * CELLS_PER_STATE  # the states are counted (and the fight refused) before the turn is done
    prune_at = limit
    for number, spread in going.items():
        watch.check(round_)
        found = dealt[number]
        if found is None:
            ledger.add(number, spread.origin, spread.weights * grow if grow != 1 else spread.weights)
            continue
        target, parts = found
        for distribution, weights in parts:
            for step in turn.steps(number, target, distribution, grow):
                origin, moved = _moved(spread.origin, weights, step, watch.room)
                ledger.place(step.placing, origin, moved)
        if prune is not None and ledger.cells > prune_at:
            ledger.going = prune(ledger.going)
            prune_at = ledger.cells + limit
        if ledger.cells > count_at:
            _bounded(ledger.going, len(ledger.ended), limit, round_)
            count_at *= 2
        if done + ledger.moves > moves:
            raise TooMuchWork(done + ledger.moves, round_, moves)
    return ledger.going, ledger.ended, scale * grow, done + ledger.moves


def _settle(ended: dict[Ending, Any], scale: int, finished: dict[Ending, Any], exact: bool) -> int:
    """Add the endings (weights over ``scale``) to ``finished``; how many there were."""
    for key, weight in ended.items():
        share = _share(weight, scale, exact)
        found = finished.get(key)
        finished[key] = share if found is None else found + share
    return len(ended)


def _share(weight: Any, scale: int, exact: bool) -> Fraction | float:
    """A weight over ``scale`` as a Fraction, or a float weight as a float."""
    return Fraction(int(weight), scale) if exact else float(weight)


def _total(going: dict[int, _Spread]) -> Any:
    """The weight of every state held: an int (exact) or a float."""
    return sum((s.weights.sum() for s in going.values()), 0)


def _measured(held: _Stepped, names: tuple[str, ...], sides: tuple[str, ...], exact: bool) -> RoundOdds[Any]:
    zero: Any = Fraction(0) if exact else 0.0
    finished = held.finished
    over = sum(finished.values(), zero)
    won = dict.fromkeys(sides, zero)
    for (winner, _), p in finished.items():
        if winner is not None:
            won[winner] += p
    down = dict.fromkeys(names, zero)
    dead = dict.fromkeys(names, zero)
    endings = [*finished.items(), *(((None, tuple(c.status for c in held.conditions.listed[number].combatants)),
                                     _share(spread.weights.sum(), held.scale, exact))
                                    for number, spread in held.going.items())]
    for (_, statuses), p in endings:
        for name, status in zip(names, statuses):
            if status is Status.DOWN:
                down[name] += p
            elif status is Status.DEAD:
                dead[name] += p
    return RoundOdds(held.round, over, won, down, dead, _states(held.going))


State = tuple[int, tuple[int, ...]]  # a state as the odds hold it: its condition's number, the hits taken on its axes


class Walk:
    """A fight played one blow at a time on the conditions the odds hold
    (`simulate fight`): a state is its condition's number and the hits taken
    of those up, stepped with the same rules, each worked out once per
    condition and blow and kept (the rules are not applied again per fight)."""

    def __init__(self, fight: Fight, blows: Blows, reads_taken: ReadsTaken | None = None):
        self.conditions = _Conditions()
        self.turns = {c.name: _Turn(c.name, blows, reads_taken, self.conditions) for c in fight.combatants}
        self._ends: dict[int, tuple[_Placing, tuple[int, ...]]] = {}
        axes = _axes(fight)
        self.start: State = (self.conditions.number(_condition(fight)), tuple(fight.combatants[i].taken for i in axes))

    def dealt(self, state: State, name: str) -> tuple[str, dict[Blow, Fraction]] | None:
        """Whom ``name`` attacks in its turn, and its blows (None: it does not attack)."""
        return self.turns[name].dealt_at(*state)

    def attack(self, state: State, name: str, target: str, distribution: dict[Blow, Fraction],
               index: int) -> tuple[State | None, Ending | None]:
        """The state after blow ``index`` of ``distribution`` (its order), or how the fight ended."""
        move = self.turns[name].move(state[0], target, distribution, index)
        return self._placed(move.placing, tuple(t + s for t, s in zip(state[1], move.shift)))

    def round_end(self, state: State) -> tuple[State | None, Ending | None]:
        found = self._ends.get(state[0])
        if found is None:
            found = self._ends[state[0]] = _round_end(self.conditions, self.conditions.listed[state[0]])
        placing, shift = found
        return self._placed(placing, tuple(t + s for t, s in zip(state[1], shift)))

    def statuses(self, state: State) -> tuple[Status, ...]:
        return tuple(c.status for c in self.conditions.listed[state[0]].combatants)

    @staticmethod
    def _placed(placing: _Placing, taken: tuple[int, ...]) -> tuple[State | None, Ending | None]:
        """As _Ledger.place does for a single state: the axes of those killed
        dropped, those the down rule looks at and whose hits taken reach their
        hits down."""
        taken = tuple(t for k, t in enumerate(taken) if k not in placing.gone)
        fates = tuple(placing.fate(k, t) for k, t in enumerate(taken))
        number, ending = placing.outcome(fates)
        if ending is not None:
            return None, ending
        assert number is not None
        removed = placing.removed(fates)
        return (number, tuple(t for k, t in enumerate(taken) if k not in removed)), None
__all__ = ["Arithmetic", "Blows", "FightOdds", "MAX_CELLS", "MAX_EXACT_CONDITIONS", "MAX_FLOAT_STATES", "MAX_MOVES", "MAX_STATES", "OutOfTime",
           "RoundOdds", "State", "Stopped", "TooManyCells", "TooManyConditions", "TooManyStates", "TooMuchWork", "Walk", "fight_odds"]
