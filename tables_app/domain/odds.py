"""Exact odds of one attack of the table system (docs/table-system.md, "Odds").

The open-ended roll's distribution is computed once per roll kind and
Clumsy Range (chains cut only where the mass still to come is below 1e-15);
the modified result depends only on CMB − DEF and the cap, so every row of
the attack table gets its probability from two prefix-sum look-ups. Critical
extra hits are averaged exactly over the closed d100 critical roll.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate, compress
from operator import add

from tables_app.domain.cells import Outcome
from tables_app.domain.dice import OPEN_HIGH, OPEN_LOW
from tables_app.domain.distributions import TAIL_CUT
from tables_app.domain.resolve import AUTOMATIC_MISS, SECONDARY_DEGREES, Attack, TableSet
from tables_app.domain.severity import Severity
from tables_app.domain.ranges import Range
from tables_app.domain.tables import EffectTable, Entry, RollKind, choose_branch

D100 = 100
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
    levels = 1
    while Fraction(D100 - OPEN_HIGH + 1, D100) ** levels >= TAIL_CUT:
        levels += 1
    size = levels * D100 + 1
    difference = [0] * (size + 1)
    prefix = {0: 1}  # sum of the dice that went on → ways, at the current depth
    for depth in range(levels):
        last = depth == levels - 1
        scale = D100 ** (levels - depth - 1)
        stop_top = D100 if last else OPEN_HIGH - 1
        going: dict[int, int] = {}
        for base, ways in prefix.items():
            difference[base + 1] += ways * scale  # faces 1..stop_top stop here
            difference[base + stop_top + 1] -= ways * scale
            if not last:
                for face in range(OPEN_HIGH, D100 + 1):
                    going[base + face] = going.get(base + face, 0) + ways
        prefix = going
    weights, running = [], 0
    for delta in difference[:size]:
        running += delta
        weights.append(running)
    return weights, D100**levels


@lru_cache(maxsize=64)
def attack_roll(kind: RollKind, clumsy: int) -> RollDistribution:
    """The first die within the Clumsy Range fumbles (step 2, no rerolls);
    otherwise 96+ opens high and 1-5 opens low as the roll kind allows.

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
        if first <= clumsy:
            fumbles += 1
        elif first >= OPEN_HIGH and kind in (RollKind.OE, RollKind.OEH):
            weights[offset + 1:offset + reach + 1] = map(add, weights[offset + 1:offset + reach + 1], upward)
        elif first <= OPEN_LOW and kind in (RollKind.OE, RollKind.OEL):
            weights[offset - reach:offset] = map(add, weights[offset - reach:offset], downward)
        else:
            weights[offset] += tail_denominator
    totals = tuple(map(lowest.__add__, compress(range(len(weights)), weights)))
    cumulative = tuple(accumulate(compress(weights, weights)))
    return RollDistribution(Fraction(fumbles, D100), totals, cumulative, D100 * tail_denominator)


def d100_spread(table: EffectTable, modifier: int) -> list[tuple[Range, tuple[Entry, ...], int]]:
    """How many of the 100 faces of d100 + ``modifier`` read each row (rolls
    beyond either end read the end row, as ``EffectTable.row`` does)."""
    low, high = 1 + modifier, D100 + modifier
    ranges, values = table.rows.ranges, table.rows.values
    spread = []
    for i, (span, entries) in enumerate(zip(ranges, values)):
        row_low = span.low if i else low
        row_high = high if i == len(ranges) - 1 or span.high is None else span.high
        count = min(high, row_high) - max(low, row_low) + 1
        if count > 0:
            spread.append((span, entries, count))
    return spread


@lru_cache(maxsize=4096)
def expected_critical_hits(table: EffectTable, modifier: int, features: frozenset[str]) -> Fraction:
    """Mean extra hits of a closed d100 + ``modifier`` on ``table`` (step 10)."""
    hits = sum(count * choose_branch(entries, features).entry.hits for _, entries, count in d100_spread(table, modifier))
    return Fraction(hits, D100)


@dataclass(frozen=True)
class TableOdds:
    outcomes: dict[str, Fraction]
    critical_severity: dict[str, Fraction]
    fumble_rows: dict[str, Fraction]
    expected_damage: Fraction
    rows: list[tuple[str, Fraction]] = field(default_factory=list)  # attack-table rows read, with their probability


def table_odds(attack: Attack, tables: TableSet) -> TableOdds:
    weapon = attack.weapon
    roll = attack_roll(weapon.roll, weapon.clumsy)
    outcomes = {word: Fraction(0) for word in OUTCOME_ORDER}
    scale = tables.attack.scale
    severities = {level.code: Fraction(0) for level in scale.levels}
    outcomes[Outcome.FUMBLE.value] = roll.fumble
    fumble_rows = _fumble_rows(weapon.fumble_modifier, tables.fumble, roll.fumble)
    reached = 1 - roll.fumble
    if attack.effective_cmb < 0:  # step 6: ineffective whatever the table says
        outcomes[Outcome.INEFFECTIVE.value] = reached
        return TableOdds(outcomes, severities, fumble_rows, Fraction(0))
    shift = attack.effective_cmb - attack.defense
    cap = weapon.max_result
    column = tables.attack.column(attack.armor)
    if column is None:
        raise ValueError(f"attack table {tables.attack.name!r} has no armor column {attack.armor!r}")
    # Step 7: R = min(T + shift, cap) <= 10 misses.
    if cap is not None and cap <= AUTOMATIC_MISS:
        outcomes[Outcome.MISS.value] += reached
        return TableOdds(outcomes, severities, fumble_rows, Fraction(0))
    outcomes[Outcome.MISS.value] += roll.at_most(AUTOMATIC_MISS - shift)
    expected = Fraction(0)
    rows_read = []
    ranges = tables.attack.rows.ranges
    for i, (row_range, cells) in enumerate(zip(ranges, tables.attack.rows.values)):
        low = max(row_range.low, AUTOMATIC_MISS + 1)
        high = None if i == len(ranges) - 1 else row_range.high  # above the top reads the top row
        p = _row_probability(roll, shift, cap, low, high)
        if not p:
            continue
        rows_read.append((row_range.label, p))
        cell = cells[column]
        if cell.outcome is not Outcome.CRITICAL:
            outcomes[cell.outcome.value] += p
            expected += p * cell.hits
            continue
        rolled = scale.get(cell.severity)  # type: ignore[arg-type]
        severity = scale.lower(rolled, attack.reduction)
        if severity is None:  # step 9: cancelled → a hit with the cell's damage
            outcomes[Outcome.HIT.value] += p
            expected += p * cell.hits
            continue
        outcomes[Outcome.CRITICAL.value] += p
        severities[severity.code] += p
        primary = tables.criticals[cell.critical or weapon.critical]
        extra = expected_critical_hits(primary, severity.modifier, attack.features)
        extra += _secondary_hits(attack, tables, severity)
        expected += p * (cell.hits + extra)
    return TableOdds(outcomes, severities, fumble_rows, expected, rows_read)


def _row_probability(roll: RollDistribution, shift: int, cap: int | None, low: int, high: int | None) -> Fraction:
    """P(min(T + shift, cap) in [low, high])."""
    if cap is not None:
        if cap < low:
            return Fraction(0)
        if high is None or cap <= high:  # the cap lands in this row: everything at or above it reads here
            return roll.at_least(low - shift)
    return roll.between(low - shift, None if high is None else high - shift)


def _secondary_hits(attack: Attack, tables: TableSet, severity: Severity) -> Fraction:
    name = attack.weapon.secondary_critical
    if not name:
        return Fraction(0)
    lower = tables.attack.scale.lower(severity, SECONDARY_DEGREES)
    if lower is None:
        return Fraction(0)
    return expected_critical_hits(tables.criticals[name], lower.modifier, attack.features)


def _fumble_rows(modifier: int, table: EffectTable | None, fumble: Fraction) -> dict[str, Fraction]:
    if table is None or not fumble:
        return {}
    return {span.label: fumble * count / D100 for span, _, count in d100_spread(table, modifier)}
