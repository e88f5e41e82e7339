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
_FUMBLED = 0  # the reading number of an attack the Clumsy Range fumbles (_Readings)
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


class _Readings:
    """The rules (domain/table_rules.py) as look-up arrays. Every reading an attack can give is numbered once: the
    Clumsy Range's fumble (_FUMBLED), each run of results the rules read alike (``readings_by_result``) and each
    `UM` row; per number, its outcome, cell hits, severity and the plan numbers of its criticals; per plan, its
    extra hits by the critical die. A total is read by bisection at the least total of each run (``lowest_total``,
    as the odds read a roll), so no total is ever read one by one."""

    def __init__(self, rules: AttackRules):
        import numpy as np

        self.rules = rules
        self.features = rules.attack.features
        self.severity_codes = [level.code for level in rules.tables.attack.scale.levels]
        self._number: dict[int, int] = {}
        self._plans: dict[CriticalPlan, int] = {}
        self.critical_hits: list[list[int]] = []  # per plan, by total: 100 faces, or OPEN_CRITICAL_REACH totals
        self.open_ended: list[bool] = []  # per plan: a `Roll kind | oeh` table
        outcome, hits, severity = [OUTCOMES.index(Outcome.FUMBLE.value)], [0], [-1]  # _FUMBLED
        plans: list[list[int]] = [[]]
        for reading in [*(reading for _, reading in rules.readings_by_result), *rules.unmodified_faces.values()]:
            if id(reading) in self._number:  # readings are shared objects that live as long as the rules
                continue
            self._number[id(reading)] = len(outcome)
            outcome.append(OUTCOMES.index(reading.outcome.value))
            hits.append(reading.hits)
            plans.append([self._plan(plan) for plan in reading.plans])
            severity.append(-1 if reading.critical is None else self.severity_codes.index(reading.critical.severity.code))
        self.outcome, self.hits, self.severity = (np.array(values, dtype=np.int64) for values in (outcome, hits, severity))
        self.plans = np.full((len(plans), max(map(len, plans))), -1, dtype=np.int64)
        for i, numbers in enumerate(plans):
            self.plans[i, :len(numbers)] = numbers
        width = max((len(row) for row in self.critical_hits), default=D100)
        self.critical_hits_by_plan = np.zeros((max(len(self.critical_hits), 1), width), dtype=np.int64)
        for i, row in enumerate(self.critical_hits):  # a d100 plan's row is read only at 1-100
            self.critical_hits_by_plan[i, :len(row)] = row
        self.opens = np.array(self.open_ended or [False], dtype=bool)
        self._runs = np.array([self.numbered(reading) for _, reading in rules.readings_by_result], dtype=np.int64)
        # the least total of each run after the first; a run no total reaches (past the Max Result) never begins
        beginnings = [rules.lowest_total(low) for low, _ in rules.readings_by_result[1:] if low is not None]
        self._beginnings = np.array([np.iinfo(np.int64).max if b is None else b for b in beginnings], dtype=np.int64)

    def numbered(self, reading: Reading) -> int:
        return self._number[id(reading)]

    def by_total(self, totals: NDArray[np.int64]) -> NDArray[np.int64]:
        """The reading number of each total (steps 3-11: ``AttackRules.read_total``)."""
        import numpy as np

        return self._runs[np.searchsorted(self._beginnings, totals, side="right")]

    def _plan(self, plan: CriticalPlan) -> int:
        if plan not in self._plans:
            self._plans[plan] = len(self.critical_hits)
            opens = plan.table.roll is RollKind.OEH
            self.open_ended.append(opens)
            self.critical_hits.append(critical_hits_by_total(plan, self.features) if opens else critical_hits_by_die(plan, self.features))
        return self._plans[plan]


def simulate_table(attack: Attack, tables: TableSet, count: int, seed: int, progress: Progress | None = None,
                   rules: AttackRules | None = None) -> Tally:
    """``count`` attacks drawn from numpy's generator seeded with ``seed``: per chunk of CHUNK attacks, the first
    dice, the high chains, the low chains, then each critical's dice in turn (the draws are the seed's whatever the
    machine). Most attacks do not open, so their reading is the first die's alone: a face's reading is worked out
    once (``by_face``) and only the opened few are read by their total. A chunk's attacks are then counted by
    reading (``np.bincount``): outcomes, severities and the damage of the attacks that roll no critical come from
    the counts; only the attacks that roll one have their damage summed one by one. ``rules``: this attack's, when
    already built (check_columns)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    weapon = attack.weapon
    readings = _Readings(AttackRules.given_or_built(attack, tables, rules))
    starts = [first_die(face, weapon.clumsy, weapon.roll) for face in FACES]
    # by face, from index 1 (a die is its own index): its sign (+1 adds the chain, -1 takes it, 0 closed), and the
    # reading of an attack whose roll does not open (the Clumsy Range's fumble; an `UM` row's face whatever the total)
    sign_on = np.array([0, *(start.sign for start in starts)], dtype=np.int64)
    opens_on = sign_on != 0
    goes_on = np.array([False, *(chain_goes_on(face) for face in FACES)])
    unmodified = np.full(D100 + 1, -1, dtype=np.int64)
    for face, reading in readings.rules.unmodified_faces.items():
        if face > weapon.clumsy:
            unmodified[face] = readings.numbered(reading)
    by_face = np.where(unmodified >= 0, unmodified, readings.by_total(np.arange(D100 + 1)))
    by_face[[0, *(face for face, start in zip(FACES, starts) if start is FirstDie.FUMBLE)]] = _FUMBLED
    row_outcome, row_hits, row_plans, row_severity = readings.outcome, readings.hits, readings.plans, readings.severity
    critical_hits, width = readings.critical_hits_by_plan.ravel(), readings.critical_hits_by_plan.shape[1]  # by plan × die
    plain = row_plans[:, 0] < 0 if row_plans.shape[1] else np.ones(row_hits.size, dtype=bool)  # rolls no critical
    rolls = ~plain
    critical = row_severity >= 0
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
            faced = unmodified[first[opened]]
            numbers[opened] = np.where(faced >= 0, faced, readings.by_total(totals))
        per_reading = np.bincount(numbers, minlength=row_hits.size)
        np.add.at(outcome_counts, row_outcome, per_reading)
        np.add.at(severity_counts, row_severity[critical], per_reading[critical])
        # the damage: of the attacks that roll no critical, a reading's hits times its count; of the others, each
        # attack's own sum (steps 11-12: each critical's dice in turn, the cell's first, further, then the secondary)
        damage_sum = int(per_reading[plain] @ row_hits[plain])
        damage_squares = int(per_reading[plain] @ (row_hits[plain] * row_hits[plain]))
        if not plain.all():
            rolling = numbers[rolls[numbers]]
            extras = []
            for k in range(row_plans.shape[1]):
                column = row_plans[:, k].take(rolling)  # every attack rolling has a first critical; fewer a further one
                rolled = None if k == 0 else np.flatnonzero(column >= 0)
                plans = column if rolled is None else column.take(rolled)
                dice = rng.integers(1, D100 + 1, plans.size)
                opens = readings.opens.take(plans) & goes_on.take(dice) if readings.opens.any() else None
                if opens is not None and opens.any():  # `Roll kind | oeh`: 96-100 rolls again and adds
                    where = np.flatnonzero(opens)
                    dice[where] += _chains(rng, where.size, goes_on)
                    np.minimum(dice, width, out=dice)
                read = critical_hits.take(plans * width + (dice - 1))  # the plan's row, the die's column
                if rolled is None:
                    extras.append(read)
                else:
                    extra = np.zeros(rolling.size, dtype=np.int64)
                    extra[rolled] = read
                    extras.append(extra)
            damage = damage_of(row_hits.take(rolling), extras)
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
