"""A fight played many times at once with numpy (docs/fights.md,
"Estimates"): the fights of a chunk are rows of arrays
(batch_state.py), stepped attack by attack and round by round with the
tracker's rules mirrored on arrays (batch_rules.py), each blow drawn from
its exact distribution (``blows``, asked once per distinct attack: the
attacker's CMB modifiers, the target's DEF, the attack, the target, and its
hits taken when the attack reads them). Counted as simulate_fights counts
(its Tally): the same questions, answered by sampling, with their standard
errors. A fight the batch does not play raises Unsupported: the caller then
plays it with simulate_fights.

Chunks of chunk_size(fight) fights draw from their own random stream (SeedSequence of
the seed, spawned by the chunk's index): a (seed, count) gives the same
Tally on every machine, and a time budget plays whole chunks, so the count
it played, asked again, plays the same fights."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from tables_app.domain.fights.batch_rules import BlowTable, attack, can_parry, end_round, timed_start, turn, up
from tables_app.domain.fights.batch_state import (
    DEAD, DOWN, Batch, Ints, Unsupported, from_fights, to_fight,
)
from tables_app.domain.fights.rules import FightRuleError
from tables_app.domain.fights.odds import Stopped  # one Stopped for the odds, the estimate and the loop
from tables_app.domain.fights.simulate import Tally
from tables_app.domain.fights.state import Blow, Fight, Status

Blows = Callable[[Fight, str, str], dict[Blow, Fraction]]
ReadsTaken = Callable[[Fight, str], bool]
# Fights stepped together: CELLS (fights × combatants) in all, about 400 bytes each: what bounds the memory (a few
# copies at once: under 100 MB). Larger chunks are faster (fewer numpy calls per fight), to about this size.
CELLS = 65_536
# Rounds a chunk is sized for: past them, a chunk holds fewer fights (as many turns in all), so that one chunk, the
# least a time budget plays, stays under a second (a 4-vs-4 of 200 rounds nobody wins: 8,192 fights took 4 s).
CHUNK_ROUNDS = 20


class _Dealer:
    """Each fight's blow distribution for one attacker's turn: the fights
    keyed by what the distribution depends on, ``blows`` asked once per new
    key (with one fight of that key, as the odds would ask it)."""

    def __init__(self, blows: Blows, reads_taken: ReadsTaken | None):
        self.blows, self.reads_taken, self.table = blows, reads_taken, BlowTable()
        self._known: dict[tuple[int, ...], int] = {}
        self._reads: dict[tuple[int, int], bool] = {}

    def distributions(self, b: Batch, rows: Ints, attacker: int, targets: Ints, weapons: Ints) -> Ints:
        c, cast = b.cells, b.cast
        parts = [weapons, targets, c["bonus"][rows, attacker], c["start_penalty"][rows, attacker]]
        if cast.parry[attacker]:
            parts.append(can_parry(b, rows, np.full(len(rows), attacker)).astype(np.int64))
        if cast.parry.any():
            parts.append(can_parry(b, rows, targets).astype(np.int64) * (cast.parry[targets] != 0))
        timed = b.timed["timed_rounds"].any()  # (a key's parts are the same for every fight of the dealer)
        parts.append(timed_start(b, rows * b.size + attacker) if timed else np.zeros(len(rows), dtype=np.int64))
        if self.reads_taken is not None:
            parts.append(np.where(self._reads_with(b, rows, attacker, weapons), c["taken"][rows, targets], -1))
        key, first, inverse = _grouped(parts)
        numbers = np.empty(len(first), dtype=np.int64)
        for k, row in enumerate(first):
            found = (attacker, *(int(p[row]) for p in parts))
            number = self._known.get(found)
            if number is None:
                number = self._known[found] = self._added(b, int(rows[row]), attacker, int(targets[row]))
            numbers[k] = number
        return numbers[inverse]

    def _reads_with(self, b: Batch, rows: Ints, attacker: int, weapons: Ints) -> npt.NDArray[np.bool_]:
        """Per row, whether the attack it makes reads its target's hits taken: ``reads_taken`` asked once per
        attack (of one fight making it: it reads the attack)."""
        reads = np.zeros(int(b.cast.attacks[attacker]), dtype=bool)
        for w in np.unique(weapons):
            found = self._reads.get((attacker, int(w)))
            if found is None:
                assert self.reads_taken is not None
                fight = to_fight(b, int(rows[np.argmax(weapons == w)]))
                found = self._reads[(attacker, int(w))] = self.reads_taken(fight, fight.combatants[attacker].name)
            reads[w] = found
        return reads[weapons]

    def _added(self, b: Batch, row: int, attacker: int, target: int) -> int:
        fight = to_fight(b, row)
        a = fight.combatants[attacker]
        if not (self.reads_taken is not None and self.reads_taken(fight, a.name)):  # as the odds ask: hits taken at 0
            fight = replace(fight, combatants=tuple(replace(c, taken=0) if c.status is Status.UP else c
                                                    for c in fight.combatants))
        return self.table.add(self.blows(fight, a.name, fight.combatants[target].name))


def _grouped(parts: list[Ints]) -> tuple[Ints, Ints, Ints]:
    """One integer key per row for the columns ``parts`` (mixed radix), the first row of each distinct key, and
    each row's key's place among them."""
    key = np.zeros(len(parts[0]), dtype=np.int64)
    scale = 1
    for p in parts:
        low, high = int(p.min()), int(p.max())
        if high > low:
            key += (p - low) * scale
            scale *= high - low + 1
        if scale >= 1 << 62:
            raise Unsupported("an attack's terms spread too widely to be keyed")
    if scale == 1:
        return key, np.zeros(1, dtype=np.int64), np.zeros(len(key), dtype=np.int64)
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return key, first, inverse.reshape(-1)


class _Counts:
    """What a Tally counts, by round: the fights that ended in each (by winner, by each one's status), and of
    those going on, each one's status at each round's end."""

    def __init__(self, fight: Fight, rounds: int):
        self.sides, self.n, self.rounds = fight.sides, len(fight.combatants), rounds
        self.ended = np.zeros(rounds, dtype=np.int64)
        self.won = np.zeros((len(self.sides), rounds), dtype=np.int64)
        self.fates = np.zeros((2, self.n, rounds), dtype=np.int64)  # ended in the round: down, dead
        self.going = np.zeros((2, self.n, rounds), dtype=np.int64)  # going on after the round: down, dead
        self.count = 0

    def ended_rows(self, j: int, statuses: Ints, winners: Ints) -> None:
        self.ended[j] += len(statuses)
        self.won[:, j] += np.bincount(winners[winners >= 0], minlength=len(self.sides))
        self.fates[0, :, j] += (statuses == DOWN).sum(axis=0)
        self.fates[1, :, j] += (statuses == DEAD).sum(axis=0)

    def going_rows(self, j: int, statuses: Ints) -> None:
        self.going[0, :, j] += (statuses == DOWN).sum(axis=0)
        self.going[1, :, j] += (statuses == DEAD).sum(axis=0)

    def tally(self, fight: Fight) -> Tally:
        names = [c.name for c in fight.combatants]
        over = np.cumsum(self.ended)
        fates = np.cumsum(self.fates, axis=2) + self.going
        lasted = np.arange(1, self.rounds + 1)
        unfinished = self.count - int(over[-1])
        rounds_sum = int((self.ended * lasted).sum()) + unfinished * self.rounds
        squares = int((self.ended * lasted * lasted).sum()) + unfinished * self.rounds ** 2
        return Tally(self.count, self.rounds, _tuple(over), {s: _tuple(np.cumsum(w)) for s, w in zip(self.sides, self.won)},
                     {name: _tuple(fates[0, k]) for k, name in enumerate(names)},
                     {name: _tuple(fates[1, k]) for k, name in enumerate(names)}, rounds_sum, squares, unfinished)


def _tuple(values: Any) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def _over(b: Batch, rows: Ints) -> tuple[Ints, Ints]:
    """Of ``rows``, the positions of those whose fight is over (Fight.over: at most one side with someone up), and
    the winner of each (the side's index, -1: nobody standing)."""
    cast = b.cast
    standing = up(b)[rows]
    sides = np.zeros((len(rows), len(b.cast.fight.sides)), dtype=bool)
    for s in np.unique(cast.side):
        sides[:, s] = standing[:, cast.side == s].any(axis=1)
    count = sides.sum(axis=1)
    over = np.flatnonzero(count <= 1)
    winners = np.where(count[over] == 1, sides[over].argmax(axis=1), -1)
    return over, winners


# (round, attacker, the fights attacking, by Batch.ids) → a uniform in [0, 1) per fight: what draws its blow
Uniforms = Callable[[int, int, Ints], npt.NDArray[np.float64]]


def _play_chunk(b: Batch, dealer: _Dealer, counts: _Counts, rounds: int, uniforms: Uniforms,
                should_stop: Callable[[], bool] | None) -> None:
    order = [i for i in range(b.size) if b.cast.attacks[i]]
    going = np.arange(b.rows)  # the rows whose fight goes on (the others are counted, and stepped no more)
    for j in range(rounds):
        for i in order:
            if should_stop is not None and should_stop():
                raise Stopped()
            rows, targets, weapons = turn(b, i, going)
            if not len(rows):
                continue
            distributions = dealer.distributions(b, rows, i, targets, weapons)
            blows = dealer.table.draw(distributions, uniforms(j, i, b.ids[rows]))
            attack(b, dealer.table, rows, i, targets, weapons, blows)
            over, winners = _over(b, rows)
            if len(over):
                ended = rows[over]
                counts.ended_rows(j, b.cells["status"][ended], winners)
                going = np.setdiff1d(going, ended, assume_unique=True)
        if len(going) < b.rows // 2:  # copied into fewer rows once enough have ended: less to step
            b, going = b.taken_rows(going), np.arange(len(going))
        if not len(going):
            return
        end_round(b)  # (on every row: those ended were counted already)
        over, winners = _over(b, going)
        if len(over):
            counts.ended_rows(j, b.cells["status"][going[over]], winners)
            going = np.delete(going, over)
        counts.going_rows(j, b.cells["status"][going])


def _drawn(rng: np.random.Generator) -> Uniforms:
    """Each fight's uniforms in turn from ``rng``, in the order the fights attack."""
    def uniforms(j: int, i: int, ids: Ints) -> npt.NDArray[np.float64]:
        return rng.random(len(ids))

    return uniforms


def chunk_size(fight: Fight, rounds: int = CHUNK_ROUNDS) -> int:
    """The fights of a chunk of ``fight`` played for ``rounds`` rounds: its random stream is the chunk's, whatever
    the count asked."""
    size = max(1024, CELLS // max(1, len(fight.combatants)))
    return size if rounds <= CHUNK_ROUNDS else max(64, size * CHUNK_ROUNDS // rounds)


def play_fights(fight: Fight, blows: Blows, rounds: int, *, seed: int, count: int | None = None,
                seconds: float | None = None, reads_taken: ReadsTaken | None = None,
                progress: Callable[[int], None] | None = None,
                should_stop: Callable[[], bool] | None = None,
                enough: Callable[[Tally], bool] | None = None) -> Tally:
    """Fights from ``fight``'s state now (mid-round too), ``rounds`` rounds
    each at most, counted as simulate_fights counts them: ``count`` fights,
    or as many whole chunks (chunk_size) as ``seconds`` (wall time) allows, one
    at least (a chunk is not begun that the last one's time says would end
    past them), stopping sooner once ``enough`` says the tally is (asked after
    each chunk: a precision reached). ``progress(n)`` after each chunk of
    ``n``; ``should_stop()`` polled between attacks (True: Stopped).
    Unsupported for a fight the batch does not play (simulate_fights plays
    it). The chunks, their sizes and their random streams depend on the
    seed, the count and the rounds only: a given (seed, count) gives the same tally
    wherever it is played, and a budget's tally is its count's."""
    if (count is None) == (seconds is None):
        raise ValueError("give a count of fights or seconds, one of the two")
    if rounds < 1 or (count is not None and count < 1):
        raise ValueError("rounds and the count are 1 or more")
    if fight.over or len(fight.sides) < 2:
        raise FightRuleError("the fight is over, or has one side only")
    first = from_fights([fight])
    dealer = _Dealer(blows, reads_taken)
    counts = _Counts(fight, rounds)
    chunk = chunk_size(fight, rounds)
    deadline = None if seconds is None else time.monotonic() + seconds
    k = 0
    while True:
        size = chunk if count is None else min(chunk, count - counts.count)
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(k,))))
        began = time.monotonic()
        _play_chunk(first.repeated(size), dealer, counts, rounds, _drawn(rng), should_stop)
        counts.count += size
        k += 1
        if progress is not None:
            progress(size)
        now = time.monotonic()
        if (count is not None and counts.count >= count) or (deadline is not None and now + (now - began) > deadline):
            return counts.tally(fight)
        if enough is not None and enough(counts.tally(fight)):
            return counts.tally(fight)


__all__ = ["CELLS", "Stopped", "Unsupported", "chunk_size", "play_fights"]
