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
        self.opens = np.zeros(1, dtype=bool)  # open_ended as an array, made by cover()

    def cover(self, low: int, high: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64],
                                                  NDArray[np.int64], NDArray[np.int64]]:
        """Make ``index`` reach totals low..high; returns the per-reading arrays: outcome,
        hits, plan numbers and severity by reading number, critical hits by plan number."""
        import numpy as np

        if self.high <= self.low:
            self.low = self.high = low
        if low < self.low or high >= self.high:
            new_low, new_high = min(low, self.low), max(high + 1, self.high)
            before = [self.numbered(self.rules.read_total(t)) for t in range(new_low, self.low)]
            after = [self.numbered(self.rules.read_total(t)) for t in range(self.high, new_high)]
            self.index = np.concatenate([np.array(before, dtype=np.int64), self.index, np.array(after, dtype=np.int64)])
            self.low, self.high = new_low, new_high
        width = max((len(row) for row in self.critical_hits), default=D100)
        hits = np.zeros((max(len(self.critical_hits), 1), width), dtype=np.int64)
        for i, row in enumerate(self.critical_hits):  # a d100 plan's row is read only at 1-100
            hits[i, :len(row)] = row
        self.opens = np.array(self.open_ended or [False], dtype=bool)
        width = max((len(p) for p in self.plans), default=0)
        plans = np.full((len(self.plans), width), -1, dtype=np.int64)
        for i, numbers in enumerate(self.plans):
            plans[i, :len(numbers)] = numbers
        return np.array(self.outcome), np.array(self.hits, dtype=np.int64), plans, np.array(self.severity), hits

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
    import numpy as np

    rng = np.random.default_rng(seed)
    weapon = attack.weapon
    readings = _ReadingsByTotal(attack, tables)
    starts = [first_die(face, weapon.clumsy, weapon.roll) for face in FACES]
    fumbles_on = np.array([start is FirstDie.FUMBLE for start in starts])
    sign_on = np.array([start.sign for start in starts])  # +1 adds the chain, -1 takes it, 0 closed
    goes_on = np.array([chain_goes_on(face) for face in FACES])
    # `UM` rows: the face's reading whatever the total (the Clumsy Range first)
    unmodified = np.full(D100, -1, dtype=np.int64)
    for face, reading in readings.rules.unmodified_faces.items():
        if face > weapon.clumsy:
            unmodified[face - 1] = readings.numbered(reading)
    codes = {word: i for i, word in enumerate(OUTCOMES)}
    severity_codes = readings.severity_codes
    tally = Tally()
    outcome_counts = np.zeros(len(OUTCOMES), dtype=np.int64)
    severity_counts = np.zeros(len(severity_codes), dtype=np.int64)
    done = 0
    while done < count:
        n = min(CHUNK, count - done)
        first = rng.integers(1, D100 + 1, n)
        fumble = fumbles_on[first - 1]
        total = first.astype(np.int64)
        signs = sign_on[first - 1]
        for sign in (FirstDie.OPENS_HIGH.sign, FirstDie.OPENS_LOW.sign):  # high chains drawn first, then low
            _open(rng, total, signs == sign, sign, goes_on)
        outcome = np.empty(n, dtype=np.int64)
        damage = np.zeros(n, dtype=np.int64)
        outcome[fumble] = codes["fumble"]
        reached = ~fumble
        row_outcome, row_hits, row_plans, row_severity, critical_hits = readings.cover(int(total.min()), int(total.max()))
        numbers = readings.index[total[reached] - readings.low]
        by_face = unmodified[first[reached] - 1]
        numbers = np.where(by_face >= 0, by_face, numbers)
        outcome[reached] = row_outcome[numbers]
        extras = []
        for plan in row_plans[numbers].T:  # each critical's dice in turn: the cell's first, further, then the secondary
            extra = np.zeros(numbers.size, dtype=np.int64)
            rolled = plan >= 0
            if rolled.any():
                dice = rng.integers(1, D100 + 1, int(rolled.sum())).astype(np.int64)
                opens = readings.opens[plan[rolled]] & goes_on[dice - 1]
                if opens.any():  # `Roll kind | oeh`: 96-100 rolls again and adds
                    _open(rng, dice, opens, 1, goes_on)
                extra[rolled] = critical_hits[plan[rolled], np.minimum(dice, critical_hits.shape[1]) - 1]
            extras.append(extra)
        damage[reached] = damage_of(row_hits[numbers], extras)
        severities = row_severity[numbers]
        severity_counts += np.bincount(severities[severities >= 0], minlength=len(severity_codes))
        outcome_counts += np.bincount(outcome, minlength=len(OUTCOMES))
        tally.add_damage(int(damage.sum()), int((damage * damage).sum()))
        done += n
        if progress:
            progress(n)
    tally.count = count
    tally.outcomes = {word: int(outcome_counts[i]) for i, word in enumerate(OUTCOMES)}
    tally.extra["critical_severity"] = {code: int(severity_counts[i]) for i, code in enumerate(severity_codes)}
    return tally


def _open(rng: np.random.Generator, total: NDArray[np.int64], mask: NDArray[np.bool_], sign: int,
          goes_on: NDArray[np.bool_]) -> None:
    """Roll the open-ended chain for the attacks in ``mask``: add (or
    subtract) d100s while ``goes_on`` the new die."""
    import numpy as np

    active = np.flatnonzero(mask)
    while active.size:
        dice = rng.integers(1, D100 + 1, active.size)
        total[active] += sign * dice
        active = active[goes_on[dice - 1]]


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
