"""Exact odds of one attack of the table system (docs/table-system.md, "Odds").

The rules come from domain/table_rules.py, as for resolve and simulate: the
first die's distribution is built face by face with ``first_die`` and the
opened roll's tail die by die with ``chain_goes_on`` (chains cut only where
the mass still to come is below 1e-15). The rules read the modified result
in a few pieces (``AttackRules.pieces``); each is weighted by the exact
probability of the totals whose ``modified_result`` lands in it.
Critical extra hits are averaged exactly over the 100 faces of the critical die.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate, compress
from operator import add

from tables_app.domain.bounds import D100
from tables_app.domain.cells import Outcome
from tables_app.domain.distributions import TAIL_CUT
from tables_app.domain.severity import Severity
from tables_app.domain.table_rules import (
    Attack, AttackRules, CriticalPlan, FirstDie, Reading, TableSet, chain_goes_on, critical_hits_by_die, damage, first_die, fumble_read,
)
from tables_app.domain.tables import EffectTable, RollKind, Weapon

OUTCOME_ORDER = tuple(o.value for o in Outcome)


@dataclass(frozen=True)
class RollDistribution:
    """The attack roll: P(fumble) and the distribution of the total T otherwise.

    Weights are integers over one common ``denominator`` (a power of 100), so
    sums stay exact and fast; probabilities come out as Fractions.
    """

    fumble: Fraction
    totals: tuple[int, ...]  # sorted
    cumulative: tuple[int, ...]  # cumulative[i] * denominator⁻¹ = P(T <= totals[i]), fumbles excluded
    denominator: int

    def _p(self, weight: int) -> Fraction:
        return Fraction(weight, self.denominator)

    def at_most(self, value: int) -> Fraction:
        i = bisect_right(self.totals, value)
        return self._p(self.cumulative[i - 1] if i else 0)

    def at_least(self, value: int) -> Fraction:
        i = bisect_left(self.totals, value)
        return self._p(self.cumulative[-1] - (self.cumulative[i - 1] if i else 0))

    def between(self, low: int, high: int | None) -> Fraction:
        """P(low <= T <= high); ``high`` None is unbounded."""
        if high is None:
            return self.at_least(low)
        if high < low:
            return Fraction(0)
        return self.at_most(high) - self.at_most(low - 1)


@lru_cache(maxsize=None)
def open_ended_tail() -> tuple[list[int], int]:
    """What an opened roll adds (or subtracts): d100, again while 96+.

    ``weights[x]`` over one common ``denominator`` (a power of 100) is
    P(X = x). Cut where the mass still to come is below 1e-15: the last die
    then stops whatever it shows. Each level adds the stopping faces 1-95 as
    a run of equal weights, via a difference array (no loop over faces).
    """
    going = [face for face in range(1, D100 + 1) if chain_goes_on(face)]
    stopping_runs = _runs([face for face in range(1, D100 + 1) if not chain_goes_on(face)])
    levels = 1
    while Fraction(len(going), D100) ** levels >= TAIL_CUT:
        levels += 1
    size = levels * D100 + 1
    difference = [0] * (size + 1)
    prefix = {0: 1}  # sum of the dice that went on → ways, at the current depth
    for depth in range(levels):
        last = depth == levels - 1
        scale = D100 ** (levels - depth - 1)
        runs = [(1, D100)] if last else stopping_runs  # the last die stops whatever it shows
        next_prefix: dict[int, int] = {}
        for base, ways in prefix.items():
            for low, high in runs:
                difference[base + low] += ways * scale
                difference[base + high + 1] -= ways * scale
            if not last:
                for face in going:
                    next_prefix[base + face] = next_prefix.get(base + face, 0) + ways
        prefix = next_prefix
    weights, running = [], 0
    for delta in difference[:size]:
        running += delta
        weights.append(running)
    return weights, D100**levels


def _runs(faces: list[int]) -> list[tuple[int, int]]:
    """Sorted faces as runs of consecutive faces: [1..95] → [(1, 95)]."""
    runs: list[tuple[int, int]] = []
    for face in faces:
        if runs and runs[-1][1] == face - 1:
            runs[-1] = (runs[-1][0], face)
        else:
            runs.append((face, face))
    return runs


@lru_cache(maxsize=64)
def attack_roll(kind: RollKind, clumsy: int) -> RollDistribution:
    """The first die as ``first_die`` reads it: fumbles, closed totals, or
    the tail added above (opened high) or taken below (opened low).

    Totals are a dense list from the lowest to the highest reachable value;
    each opening die adds the tail, shifted by the die.
    """
    tail, tail_denominator = open_ended_tail()
    reach = len(tail) - 1
    lowest = 1 - reach  # the first die 1, then the longest chain subtracted
    weights = [0] * (D100 + reach - lowest + 1)  # index v - lowest
    upward, downward = tail[1:], tail[reach:0:-1]  # the tail added above a die, and below it (nearest last)
    fumbles = 0
    # Slices added with map(add, ...) run the ~800-long inner loops in C.
    for first in range(1, D100 + 1):
        offset = first - lowest
        start = first_die(first, clumsy, kind)
        if start is FirstDie.FUMBLE:
            fumbles += 1
        elif start.sign > 0:  # the tail added: first + 1 .. first + reach
            weights[offset + 1:offset + reach + 1] = map(add, weights[offset + 1:offset + reach + 1], upward)
        elif start.sign < 0:  # the tail taken: first - reach .. first - 1
            weights[offset - reach:offset] = map(add, weights[offset - reach:offset], downward)
        else:
            weights[offset] += tail_denominator
    totals = tuple(map(lowest.__add__, compress(range(len(weights)), weights)))
    cumulative = tuple(accumulate(compress(weights, weights)))
    return RollDistribution(Fraction(fumbles, D100), totals, cumulative, D100 * tail_denominator)


@lru_cache(maxsize=4096)
def expected_critical_hits(table: EffectTable, severity: Severity, features: frozenset[str]) -> Fraction:
    """Mean extra hits of the critical die (step 10), over its 100 faces."""
    return Fraction(sum(critical_hits_by_die(CriticalPlan(table, severity, severity, 0), features)), D100)


def _expected_hits(plan: CriticalPlan | None, features: frozenset[str]) -> Fraction:
    return Fraction(0) if plan is None else expected_critical_hits(plan.table, plan.severity, features)


@dataclass(frozen=True)
class TableOdds:
    outcomes: dict[str, Fraction]
    critical_severity: dict[str, Fraction]
    fumble_rows: dict[str, Fraction]
    expected_damage: Fraction
    rows: list[tuple[str, Fraction]] = field(default_factory=list)  # attack-table rows read, with their probability


def table_odds(attack: Attack, tables: TableSet) -> TableOdds:
    rules = AttackRules(attack, tables)
    weapon = attack.weapon
    roll = attack_roll(weapon.roll, weapon.clumsy)
    outcomes = {word: Fraction(0) for word in OUTCOME_ORDER}
    severities = {level.code: Fraction(0) for level in tables.attack.scale.levels}
    outcomes[Outcome.FUMBLE.value] = roll.fumble
    fumble_rows = _fumble_rows(weapon, tables.fumble, roll.fumble)
    expected = Fraction(0)
    rows_read = []
    for reading, weight in _readings(rules, roll):
        p = Fraction(weight, roll.denominator)
        outcomes[reading.outcome.value] += p
        if reading.row is not None:
            rows_read.append((reading.cell.row, p))  # type: ignore[union-attr]
        if reading.critical is not None:
            severities[reading.critical.severity.code] += p
        extras = [_expected_hits(plan, attack.features) for plan in (reading.critical, reading.secondary)]
        expected += p * damage(reading.hits, extras)
    return TableOdds(outcomes, severities, fumble_rows, expected, rows_read)


def _readings(rules: AttackRules, roll: RollDistribution) -> list[tuple[Reading, int]]:
    """Every piece the result can read, with its weight over ``roll.denominator``.

    The modified result never falls as the total rises, so the totals whose
    result lands in a piece are one run of the sorted totals, found by bisection.
    """
    def result(total: int) -> int:
        return rules.modified_result(total)[1]

    found = []
    start = 0  # the first total whose result reaches the piece
    pieces = rules.pieces
    for i, (_, reading) in enumerate(pieces):
        end = len(roll.totals) if i + 1 == len(pieces) else bisect_left(roll.totals, pieces[i + 1][0], lo=start, key=result)
        weight = (roll.cumulative[end - 1] if end else 0) - (roll.cumulative[start - 1] if start else 0)
        if weight:
            found.append((reading, weight))
        start = end
    return found


def _fumble_rows(weapon: Weapon, table: EffectTable | None, fumble: Fraction) -> dict[str, Fraction]:
    if table is None or not fumble:
        return {}
    return {label: fumble * count / D100 for label, count in fumble_faces(table, weapon).items()}


@lru_cache(maxsize=256)
def fumble_faces(table: EffectTable, weapon: Weapon) -> dict[str, int]:
    """How many faces of the fumble die read each row (in table order)."""
    counts: dict[str, int] = {}
    for die in range(1, D100 + 1):
        label = fumble_read(table, die, weapon)[1].entry.range.label  # an entry's range is its row's
        counts[label] = counts.get(label, 0) + 1
    return counts
