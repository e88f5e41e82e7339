"""Many random attacks at once: the table system vectorised with numpy,
formula systems through their own resolvers.

numpy is imported inside the functions, so nothing else pays for it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from tables_app.domain.bounds import D100
from tables_app.domain.cells import Outcome
from tables_app.domain.table_rules import (
    Attack, AttackRules, CriticalPlan, FirstDie, Reading, TableSet, chain_goes_on, critical_hits_by_die,
    critical_hits_by_total, first_die,
)
from tables_app.domain.tables import RollKind
from tables_app.domain.table_rules import damage as damage_of  # the step; ``damage`` below is the array

if TYPE_CHECKING:  # numpy is imported when a simulation runs
    import numpy as np
    from numpy.typing import NDArray

    from tables_app.domain.dice import Dice
    from tables_app.domain.systems.base import Resolution

OUTCOMES = tuple(o.value for o in Outcome)
CHUNK = 500_000  # attacks per vectorised step: bounded memory, a progress tick each
Progress = Callable[[int], None]
FACES = range(1, D100 + 1)
_FUMBLED = 0  # the reading number of an attack the Clumsy Range fumbles (_ReadingsByTotal)
Params = TypeVar("Params")  # a formula system's parameters


@dataclass
class Tally:
    count: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    damage_sum: int = 0
    damage_squares: int = 0
    extra: dict[str, dict[str, int]] = field(default_factory=dict)

    def add_damage(self, total: int, squares: int) -> None:
        self.damage_sum += total
        self.damage_squares += squares


class _ReadingsByTotal:
    """Look-up arrays of the rules (domain/table_rules.py), indexed by sampled
    totals: each total is read once by ``AttackRules.read_total``, and each
    distinct reading gets a number; per number, its outcome, cell hits,
    severity and the rows of critical hits by die."""

    def __init__(self, attack: Attack, tables: TableSet):
        import numpy as np

        self.rules, self.features = AttackRules(attack, tables), attack.features
        self.severity_codes = [level.code for level in tables.attack.scale.levels]
        self.low = self.high = 0  # totals covered: low..high-1
        self.index = np.zeros(0, dtype=np.int64)
        self._number: dict[int, int] = {}
        self._plans: dict[CriticalPlan, int] = {}
        self.outcome: list[int] = []
        self.hits: list[int] = []
        self.plans: list[list[int]] = []  # per reading, the plan numbers of every critical it rolls, in order
        self.severity: list[int] = []
        self.critical_hits: list[list[int]] = []  # per plan, by total: 100 faces, or OPEN_CRITICAL_REACH totals
        self.open_ended: list[bool] = []  # per plan: a `Roll kind | oeh` table
        self.opens = np.zeros(1, dtype=bool)  # open_ended as an array, made by arrays()
        self.outcome.append(OUTCOMES.index(Outcome.FUMBLE.value))  # number _FUMBLED: the Clumsy Range's fumble,
        self.hits.append(0)                                        # no reading of the table
        self.plans.append([])
        self.severity.append(-1)

    def cover(self, low: int, high: int) -> None:
        """Make ``index`` reach totals low..high."""
        import numpy as np

        if self.high <= self.low:
            self.low = self.high = low
        if low < self.low or high >= self.high:
            new_low, new_high = min(low, self.low), max(high + 1, self.high)
            before = [self.numbered(self.rules.read_total(t)) for t in range(new_low, self.low)]
            after = [self.numbered(self.rules.read_total(t)) for t in range(self.high, new_high)]
            self.index = np.concatenate([np.array(before, dtype=np.int64), self.index, np.array(after, dtype=np.int64)])
            self.low, self.high = new_low, new_high

    def arrays(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """The per-reading arrays of the readings numbered so far: outcome, hits, plan numbers and severity by
        reading number, critical hits by plan number."""
        import numpy as np

        width = max((len(row) for row in self.critical_hits), default=D100)
        hits = np.zeros((max(len(self.critical_hits), 1), width), dtype=np.int64)
        for i, row in enumerate(self.critical_hits):  # a d100 plan's row is read only at 1-100
            hits[i, :len(row)] = row
        self.opens = np.array(self.open_ended or [False], dtype=bool)
        width = max((len(p) for p in self.plans), default=0)
        plans = np.full((len(self.plans), width), -1, dtype=np.int64)
        for i, numbers in enumerate(self.plans):
            plans[i, :len(numbers)] = numbers
        return (np.array(self.outcome, dtype=np.int64), np.array(self.hits, dtype=np.int64), plans,
                np.array(self.severity, dtype=np.int64), hits)

    def numbered(self, reading: Reading) -> int:
        key = id(reading)  # readings are shared objects that live as long as the rules (one per row read)
        if key not in self._number:
            self._number[key] = len(self.outcome)
            self.outcome.append(OUTCOMES.index(reading.outcome.value))
            self.hits.append(reading.hits)
            self.plans.append([self._plan(plan) for plan in reading.plans])
            self.severity.append(-1 if reading.critical is None else self.severity_codes.index(reading.critical.severity.code))
        return self._number[key]

    def _plan(self, plan: CriticalPlan) -> int:
        if plan not in self._plans:
            self._plans[plan] = len(self.critical_hits)
            opens = plan.table.roll is RollKind.OEH
            self.open_ended.append(opens)
            self.critical_hits.append(critical_hits_by_total(plan, self.features) if opens else critical_hits_by_die(plan, self.features))
        return self._plans[plan]


def simulate_table(attack: Attack, tables: TableSet, count: int, seed: int, progress: Progress | None = None) -> Tally:
    """``count`` attacks drawn from numpy's generator seeded with ``seed``: per chunk of CHUNK attacks, the first
    dice, the high chains, the low chains, then each critical's dice in turn (the draws are the seed's whatever the
    machine). Most attacks do not open, so their reading is the first die's alone: a face's reading is worked out
    once (``by_face``) and only the opened few are read by their total. What is tallied is counted by reading
    (``np.bincount``), never kept attack by attack, except the damage of the attacks that roll a critical."""
    import numpy as np

    rng = np.random.default_rng(seed)
    weapon = attack.weapon
    readings = _ReadingsByTotal(attack, tables)
    rules = readings.rules
    starts = [first_die(face, weapon.clumsy, weapon.roll) for face in FACES]
    # by face, from index 1 (a die is its own index): its sign (+1 adds the chain, -1 takes it, 0 closed), and the
    # reading of an attack whose roll does not open (the Clumsy Range's fumble; an `UM` row's face whatever the total)
    sign_on = np.array([0, *(start.sign for start in starts)], dtype=np.int64)
    opens_on = sign_on != 0
    goes_on = np.array([False, *(chain_goes_on(face) for face in FACES)])
    unmodified = np.full(D100 + 1, -1, dtype=np.int64)
    for face, reading in rules.unmodified_faces.items():
        if face > weapon.clumsy:
            unmodified[face] = readings.numbered(reading)
    by_face = np.array([_FUMBLED, *(_FUMBLED if start is FirstDie.FUMBLE else unmodified[face] if unmodified[face] >= 0
                                     else readings.numbered(rules.read_total(face)) for face, start in zip(FACES, starts))],
                       dtype=np.int64)
    tally = Tally()
    outcome_counts = np.zeros(len(OUTCOMES), dtype=np.int64)
    severity_counts = np.zeros(len(readings.severity_codes), dtype=np.int64)
    done = 0
    while done < count:
        n = min(CHUNK, count - done)
        first = rng.integers(1, D100 + 1, n)
        numbers = by_face[first]
        opened = np.flatnonzero(opens_on[first])
        if opened.size:
            signs = sign_on[first[opened]]
            totals = first[opened]
            for sign in (FirstDie.OPENS_HIGH.sign, FirstDie.OPENS_LOW.sign):  # high chains drawn first, then low
                which = np.flatnonzero(signs == sign)
                totals[which] += sign * _chains(rng, which.size, goes_on)
            readings.cover(int(totals.min()), int(totals.max()))
            read = readings.index[totals - readings.low]
            faced = unmodified[first[opened]]
            numbers[opened] = np.where(faced >= 0, faced, read)
        row_outcome, row_hits, row_plans, row_severity, critical_hits = readings.arrays()
        per_reading = np.bincount(numbers, minlength=row_hits.size)
        np.add.at(outcome_counts, row_outcome, per_reading)
        critical = row_severity >= 0
        np.add.at(severity_counts, row_severity[critical], per_reading[critical])
        # the damage: of the attacks that roll no critical, a reading's hits times its count; of the others, each
        # attack's own sum (steps 11-12: each critical's dice in turn, the cell's first, further, then the secondary)
        plain = row_plans[:, 0] < 0 if row_plans.shape[1] else np.ones(row_hits.size, dtype=bool)
        damage_sum = int(per_reading[plain] @ row_hits[plain])
        damage_squares = int(per_reading[plain] @ (row_hits[plain] * row_hits[plain]))
        if not plain.all():
            rolling = numbers[~plain[numbers]]
            extras = []
            for column in row_plans[rolling].T:
                rolled = column >= 0
                extra = np.zeros(rolling.size, dtype=np.int64)
                plans = column[rolled]
                dice = rng.integers(1, D100 + 1, plans.size)
                opens = readings.opens[plans] & goes_on[dice]
                if opens.any():  # `Roll kind | oeh`: 96-100 rolls again and adds
                    where = np.flatnonzero(opens)
                    dice[where] += _chains(rng, where.size, goes_on)
                extra[rolled] = critical_hits[plans, np.minimum(dice, critical_hits.shape[1]) - 1]
                extras.append(extra)
            damage = damage_of(row_hits[rolling], extras)
            damage_sum += int(damage.sum())
            damage_squares += int(damage @ damage)
        tally.add_damage(damage_sum, damage_squares)
        done += n
        if progress:
            progress(n)
    tally.count = count
    tally.outcomes = {word: int(outcome_counts[i]) for i, word in enumerate(OUTCOMES)}
    tally.extra["critical_severity"] = {code: int(severity_counts[i]) for i, code in enumerate(readings.severity_codes)}
    return tally


def _chains(rng: np.random.Generator, size: int, goes_on: NDArray[np.bool_]) -> NDArray[np.int64]:
    """The open-ended chains of ``size`` opened rolls, in order: d100s added while ``goes_on`` (by die) the new die."""
    import numpy as np

    sums = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    while active.size:
        dice = rng.integers(1, D100 + 1, active.size)
        sums[active] += dice
        active = active[goes_on[dice]]
    return sums


def simulate_formula(resolve: Callable[[Params, Dice], Resolution], params: Params, outcomes: tuple[str, ...], count: int, seed: int,
                     progress: Progress | None = None) -> Tally:
    """Formula systems: their own resolver, one seeded dice stream."""
    from tables_app.domain.dice import SeededDice  # formula systems roll dice; the table system's are numpy's

    dice = SeededDice(seed=seed)
    tally = Tally(outcomes={word: 0 for word in outcomes})
    step = max(count // 100, 1)
    for i in range(count):
        dice.used.clear()
        dice.purposes.clear()
        resolution = resolve(params, dice)
        tally.outcomes[resolution.outcome] = tally.outcomes.get(resolution.outcome, 0) + 1
        tally.add_damage(resolution.damage, resolution.damage * resolution.damage)
        if progress and (i + 1) % step == 0:
            progress(step)
    tally.count = count
    return tally
