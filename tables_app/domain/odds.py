"""Exact odds of one attack of the table system (docs/table-system.md, "Odds").

The rules come from domain/table_rules.py, as for resolve and simulate: the
first die's distribution is built face by face with ``first_die`` and the
opened roll's tail die by die with ``chain_goes_on`` (chains cut only where
the mass still to come is below 1e-15). The rules read the modified result
in a few runs (``AttackRules.readings_by_result``); each is weighted by the
exact probability of the totals whose ``modified_result`` lands in it.
Critical extra hits are averaged exactly over the 100 faces of the critical die,
read row by row (``critical_faces``), once per critical table, severity and
column of one computation (``CriticalHits``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, lru_cache
from itertools import accumulate, compress
from operator import add, sub
from typing import Callable, Iterable, Iterator, TypeVar

from tables_app.domain.bounds import D100
from tables_app.domain.cells import Outcome
from tables_app.domain.distributions import TAIL_CUT
from tables_app.domain.table_rules import (
    Attack, AttackRules, CriticalPlan, FirstDie, Reading, TableSet, chain_goes_on, critical_faces, critical_read, critical_totals, damage,
    first_die, fumble_faces, fumble_read, fumble_totals,
)
from tables_app.domain.tables import Choice, EffectTable, RollKind, Weapon

OUTCOME_ORDER = tuple(o.value for o in Outcome)
T = TypeVar("T")
# What a reading adds (_contribution): its outcome, the row read, the final severity, the damage over the die.
Contribution = tuple[str, "str | None", "str | None", "int | Fraction"]
# _weighed's integer weights over the roll's denominator: of each outcome, each final severity, the damage, each row read.
Weighed = tuple["RollDistribution", dict[str, int], dict[str, int], "int | Fraction", list[tuple[str, int]]]


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
    return list(accumulate(difference[:size])), D100**levels


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
def attack_roll(kind: RollKind, clumsy: int, unmodified: frozenset[int] = frozenset()) -> RollDistribution:
    """The first die as ``first_die`` reads it: fumbles, closed totals, or
    the tail added above (opened high) or taken below (opened low). Faces a
    `UM` row reads (``unmodified``) are left out of the totals: their
    reading does not depend on them (table_odds weighs them face by face).

    Totals are a dense list from the lowest to the highest reachable value.
    Faces that ``first_die`` reads alike come in runs (96-100 open high); a
    run of opening faces adds the tail once per face, shifted by the face,
    which is a sliding sum over the tail's prefix sums: a few passes over the
    ~1,200 weights per run, in C (map over slices), instead of one per face.
    """
    tail, tail_denominator = open_ended_tail()
    reach = len(tail) - 1
    lowest = 1 - reach  # the first die 1, then the longest chain subtracted
    weights = [0] * (D100 + reach - lowest + 1)  # index v - lowest
    upward, downward = tail[1:], tail[reach:0:-1]  # the tail added above a die, and below it (nearest last)
    fumbles = 0
    for start, first, last in _runs_of(lambda face: None if face in unmodified and face > clumsy else first_die(face, clumsy, kind)):
        faces = last - first + 1
        if start is None:  # read by a `UM` row
            continue
        if start is FirstDie.FUMBLE:
            fumbles += faces
        elif start.sign == 0:
            weights[first - lowest:last - lowest + 1] = [w + tail_denominator for w in weights[first - lowest:last - lowest + 1]]
        else:  # the tail above each face (first + 1 ..) or below it (.. first - 1)
            kernel, begin = (upward, first + 1) if start.sign > 0 else (downward, first - reach)
            sums = _sliding_sums(kernel, faces)
            at = begin - lowest
            weights[at:at + len(sums)] = map(add, weights[at:at + len(sums)], sums)
    totals = tuple(map(lowest.__add__, compress(range(len(weights)), weights)))
    cumulative = tuple(accumulate(compress(weights, weights)))
    return RollDistribution(Fraction(fumbles, D100), totals, cumulative, D100 * tail_denominator)


def _runs_of(read: Callable[[int], T]) -> list[tuple[T, int, int]]:
    """The faces 1-100 as runs read alike: (reading, first face, last face)."""
    runs: list[tuple[T, int, int]] = []
    for face in range(1, D100 + 1):
        reading = read(face)
        if runs and runs[-1][0] == reading:
            runs[-1] = (reading, runs[-1][1], face)
        else:
            runs.append((reading, face, face))
    return runs


def _sliding_sums(kernel: list[int], width: int) -> list[int]:
    """``kernel`` added ``width`` times, each copy one place further on:
    out[i] = kernel[i - width + 1] + ... + kernel[i] (outside the kernel, 0)."""
    prefix = [0, *accumulate(kernel)]
    highs = prefix[1:] + [prefix[-1]] * (width - 1)
    lows = [0] * (width - 1) + prefix[:-1]
    return list(map(sub, highs, lows))


@cache
def _tail_prefix() -> list[int]:
    """prefix[k]: the weight of the tail's first k values (open_ended_tail), for sums over runs of it."""
    return [0, *accumulate(open_ended_tail()[0])]


def _over_tail(runs: list[tuple[int, T]]) -> Iterator[tuple[int, T]]:
    """Runs of consecutive totals of an opened die, from the face that opened
    it up (``critical_totals``, ``fumble_totals``), each with the weight of the
    tail values that reach it, over the tail's denominator."""
    prefix, added = _tail_prefix(), 0
    for count, value in runs:
        yield prefix[added + count] - prefix[added], value
        added += count


def critical_hits_over_die(plan: CriticalPlan, features: frozenset[str]) -> int | Fraction:
    """The extra hits of the critical die (step 10) summed over its 100 faces
    (an int); on a `Roll kind | oeh` table each face of 96-100 is weighed
    over the open-ended tail it opens (a Fraction, exact to the tail's cut),
    row by row of the totals it reaches."""
    if plan.table.roll is not RollKind.OEH:
        return sum(faces * choice.entry.hits for faces, choice in critical_faces(plan, features))
    tail, denominator = open_ended_tail()
    closed = sum(critical_read(plan, face, features)[1].entry.hits for face in range(1, D100 + 1) if not chain_goes_on(face))
    opened = sum(weight * choice.entry.hits for face in range(1, D100 + 1) if chain_goes_on(face)
                 for weight, choice in _over_tail(critical_totals(plan, face, len(tail), features)))
    return closed + Fraction(opened, denominator)


class CriticalHits:
    """``critical_hits_over_die`` for the target's features, worked out once
    per critical read (its table, severity and column) over one computation:
    the rows of an attack table deal a few criticals many times, and the
    rows of a sweep's armor columns the same ones again."""

    def __init__(self, features: frozenset[str]):
        self.features = features
        self._summed: dict[tuple[int, str, int | None], tuple[EffectTable, int | Fraction]] = {}

    def over_die(self, plan: CriticalPlan) -> int | Fraction:
        # what the sum depends on (not the severity before reduction); the table by its identity, kept
        # in the value so that the id stays its own (hashing a table by value costs more than a d100 sum)
        read = (id(plan.table), plan.severity.code, plan.column)
        found = self._summed.get(read)
        if found is None:
            found = self._summed[read] = (plan.table, critical_hits_over_die(plan, self.features))
        return found[1]


@dataclass(frozen=True)
class TableOdds:
    """The exact odds of one attack: outcomes, final severities, fumble rows, expected damage, rows read."""

    outcomes: dict[str, Fraction]
    critical_severity: dict[str, Fraction]
    fumble_rows: dict[str, Fraction]
    expected_damage: Fraction
    rows: list[tuple[str, Fraction]] = field(default_factory=list)  # attack-table rows read, with their probability


def table_odds(attack: Attack, tables: TableSet, rules: AttackRules | None = None) -> TableOdds:
    """``rules``: this attack's, when already built (check_columns)."""
    rules = AttackRules.given_or_built(attack, tables, rules)
    roll, outcomes, severities, damage_weight, rows_read = _weighed(attack, rules, CriticalHits(attack.features))

    def p(weight: int) -> Fraction:
        return Fraction(weight, roll.denominator)

    chances = _chances(roll, outcomes)
    fumbles = chances[Outcome.FUMBLE.value]
    return TableOdds(chances, {code: p(w) for code, w in severities.items()}, _fumble_rows(attack.weapon, tables.fumble, fumbles),
                     Fraction(damage_weight, roll.denominator * D100), _merged(rows_read, p))


def sweep_odds(attacks: Iterable[Attack], tables: TableSet) -> Iterator[tuple[dict[str, Fraction], Fraction]]:
    """For each of ``attacks`` in turn, the outcomes and the expected damage
    of ``table_odds`` (the same values, without its other parts), for
    attacks that differ only in CMB, DEF, modifiers and armor (a sweep):
    each armor column's rows are read once (``AttackRules.for_attack``), each
    row's contribution (its critical extra hits over the die) worked out once,
    and each attack then only weighs the runs of results at its own shift (_SweepColumn)."""
    columns: dict[tuple[Attack, bool], _SweepColumn] = {}  # by the attack's shape: its armor, the side of 0 its CMB is on
    hits: dict[frozenset[str], CriticalHits] = {}
    for attack in attacks:
        shape = attack.shape
        column = columns.get(shape)
        if column is None:
            if attack.features not in hits:
                hits[attack.features] = CriticalHits(attack.features)
            column = columns[shape] = _SweepColumn(AttackRules(attack, tables), hits[attack.features])
        yield column.odds(column.rules.for_attack(attack))


class _SweepColumn:
    """One shape of a sweep's attacks (an armor column, a side of CMB 0): the roll, and what each run of results
    and each `UM` face adds (_contribution), worked out once. An attack of the shape then weighs the runs alone:
    each run's weight is the weight of the totals from its least total (``lowest_total``, at the attack's shift)
    to the next run's, read in a prefix sum over every total (``below``) rather than by bisection."""

    def __init__(self, rules: AttackRules, hits: CriticalHits):
        weapon = rules.attack.weapon
        unmodified = {face: reading for face, reading in rules.unmodified_faces.items() if face > weapon.clumsy}  # clumsy first
        self.rules = rules
        self.roll = roll = attack_roll(weapon.roll, weapon.clumsy, frozenset(unmodified))
        runs = rules.readings_by_result
        self.lows = [low for low, _ in runs[1:] if low is not None]
        assert len(self.lows) == len(runs) - 1  # only the first run, from below, has no lowest result
        self.adds = [(word, damage_over_die) for word, _, _, damage_over_die in (_contribution(reading, hits) for _, reading in runs)]
        # what the `UM` faces add whatever the shift: each face's weight
        one_face = roll.denominator // D100
        self.fixed = dict.fromkeys(OUTCOME_ORDER, 0)
        self.fixed_damage: int | Fraction = 0
        for word, _, _, damage_over_die in (_contribution(reading, hits) for reading in unmodified.values()):
            self.fixed[word] += one_face
            self.fixed_damage += one_face * damage_over_die
        # below[k]: the weight of the totals under roll.totals[0] + k, for k up to one past the highest total
        self.first, self.total = (roll.totals[0], roll.cumulative[-1]) if roll.totals else (0, 0)  # no totals: all fumble
        dense = [0] * (roll.totals[-1] - self.first + 1 if roll.totals else 0)
        for total, weight in zip(roll.totals, map(sub, roll.cumulative, (0, *roll.cumulative[:-1]))):
            dense[total - self.first] = weight
        self.below = [0, *accumulate(dense)]

    def odds(self, rules: AttackRules) -> tuple[dict[str, Fraction], Fraction]:
        """The outcomes and expected damage of the attack ``rules`` (this shape's, moved to its shift) are for."""
        below, first, total = self.below, self.first, self.total
        past = first + len(below) - 1  # past the highest total: every total is under it
        reached = [total if at is None or at >= past else 0 if at <= first else below[at - first]
                   for at in map(rules.lowest_total, self.lows)]
        outcomes = dict(self.fixed)
        damage_weight = self.fixed_damage
        for (word, damage_over_die), start, end in zip(self.adds, (0, *reached), (*reached, self.total)):
            weight = end - start
            outcomes[word] += weight
            damage_weight += weight * damage_over_die
        return _chances(self.roll, outcomes), Fraction(damage_weight, self.roll.denominator * D100)


def _weighed(attack: Attack, rules: AttackRules, hits: CriticalHits) -> Weighed:
    """The roll's distribution, and integer weights over its denominator: of
    each outcome, each final severity, the damage (over 100 times it, for the
    critical die's faces) and each row read, until the one division at the end."""
    weapon = attack.weapon
    unmodified = {face: reading for face, reading in rules.unmodified_faces.items() if face > weapon.clumsy}  # clumsy first
    roll = attack_roll(weapon.roll, weapon.clumsy, frozenset(unmodified))
    outcomes = dict.fromkeys(OUTCOME_ORDER, 0)
    severities = {level.code: 0 for level in rules.tables.attack.scale.levels}
    damage_weight: int | Fraction = 0  # a Fraction once an open-ended critical die's mean is in it
    rows_read: list[tuple[str, int]] = []
    one_face = roll.denominator // D100
    for reading, weight in [*_readings(rules, roll), *((reading, one_face) for reading in unmodified.values())]:
        word, row, severity, damage_over_die = _contribution(reading, hits)
        outcomes[word] += weight
        if row is not None:
            rows_read.append((row, weight))
        if severity is not None:
            severities[severity] += weight
        damage_weight += weight * damage_over_die
    return roll, outcomes, severities, damage_weight, rows_read


def _contribution(reading: Reading, hits: CriticalHits) -> Contribution:
    """What a reading adds: its outcome, the row read (its label), the final
    severity, and the damage (over 100: the cell's hits and the mean extra
    hits of every critical, each summed over the critical die's 100 faces)."""
    extras = [hits.over_die(plan) for plan in reading.plans]
    row: str | None = None
    if reading.row is not None:
        assert reading.cell is not None  # the cell of the row that decided is always shown (Reading)
        row = reading.cell.row
    return (reading.outcome.value, row,
            None if reading.critical is None else reading.critical.severity.code, damage(reading.hits * D100, extras))


def _chances(roll: RollDistribution, outcomes: dict[str, int]) -> dict[str, Fraction]:
    chances = {word: Fraction(weight, roll.denominator) for word, weight in outcomes.items()}
    chances[Outcome.FUMBLE.value] += roll.fumble  # the Clumsy Range's, beside `F` cells'
    return chances


def _merged(rows_read: list[tuple[str, int]], p: Callable[[int], Fraction]) -> list[tuple[str, Fraction]]:
    """Rows with their probability; a `UM` row read by several faces once."""
    merged: dict[str, int] = {}
    for label, weight in rows_read:
        merged[label] = merged.get(label, 0) + weight
    return [(label, p(weight)) for label, weight in merged.items()]


def _readings(rules: AttackRules, roll: RollDistribution) -> list[tuple[Reading, int]]:
    """Every run of results the rules read alike, with its weight over ``roll.denominator``.

    The modified result never falls as the total rises, so the totals whose
    result lands in a run of results are one run of the sorted totals, found
    by bisection at the least total that reaches the next run.
    """
    found = []
    start = 0  # the first total whose result reaches the run
    runs = rules.readings_by_result
    totals = roll.totals
    for i, (_, reading) in enumerate(runs):
        following = None if i + 1 == len(runs) else runs[i + 1][0]
        assert i + 1 == len(runs) or following is not None  # only the first run, from below, has no lowest result
        lowest = None if following is None else rules.lowest_total(following)
        end = len(totals) if lowest is None else bisect_left(totals, lowest, lo=start)
        weight = (roll.cumulative[end - 1] if end else 0) - (roll.cumulative[start - 1] if start else 0)
        if weight:
            found.append((reading, weight))
        start = end
    return found


def weighed_readings(attack: Attack, rules: AttackRules) -> tuple[RollDistribution, list[tuple[Reading, int]]]:
    """The attack roll's distribution, and every reading of it with its weight
    over ``roll.denominator`` (the runs of results, then the `UM` rows' faces);
    the Clumsy Range's fumbles are ``roll.fumble``. What table_odds weighs,
    for whoever needs the readings themselves (a fight's blows)."""
    weapon = attack.weapon
    unmodified = {face: reading for face, reading in rules.unmodified_faces.items() if face > weapon.clumsy}
    roll = attack_roll(weapon.roll, weapon.clumsy, frozenset(unmodified))
    one_face = roll.denominator // D100
    return roll, [*_readings(rules, roll), *((reading, one_face) for reading in unmodified.values())]


def critical_choices(plan: CriticalPlan, features: frozenset[str]) -> list[tuple[Fraction, Choice]]:
    """Every entry the critical die reads, with its exact probability (an
    open-ended `Roll kind | oeh` die weighed over its tail, as critical_hits_over_die)."""
    return _die_choices(plan.table.roll is RollKind.OEH, lambda: critical_faces(plan, features),
                        lambda face: critical_read(plan, face, features)[1],
                        lambda face, count: critical_totals(plan, face, count, features))


def fumble_choices(table: EffectTable, weapon: Weapon) -> list[tuple[Fraction, Choice]]:
    """Every entry the fumble die reads, with its exact probability (as critical_choices)."""
    return _die_choices(table.roll is RollKind.OEH, lambda: fumble_faces(table, weapon),
                        lambda face: fumble_read(table, face, weapon)[1],
                        lambda face, count: fumble_totals(table, weapon, face, count))


def _die_choices(opens: bool, faces: Callable[[], list[tuple[int, Choice]]], read: Callable[[int], Choice],
                 totals: Callable[[int, int], list[tuple[int, Choice]]]) -> list[tuple[Fraction, Choice]]:
    """A critical's or fumble's die: each entry with its probability; ``faces`` of a closed
    die, or face by face (``read``) with the tail each 96+ face opens (``totals``)."""
    if not opens:
        return [(Fraction(count, D100), choice) for count, choice in faces()]
    tail, denominator = open_ended_tail()
    found: list[tuple[Fraction, Choice]] = []
    for face in range(1, D100 + 1):
        if chain_goes_on(face):
            found += [(Fraction(weight, denominator * D100), choice) for weight, choice in _over_tail(totals(face, len(tail)))]
        else:
            found.append((Fraction(1, D100), read(face)))
    return found


def _fumble_rows(weapon: Weapon, table: EffectTable | None, fumble: Fraction) -> dict[str, Fraction]:
    if table is None or not fumble:
        return {}
    return {label: fumble * count / D100 for label, count in fumble_row_faces(table, weapon).items()}


def fumble_row_faces(table: EffectTable, weapon: Weapon) -> dict[str, int | Fraction]:
    """How many faces of the fumble die read each row (in table order); on a
    `Roll kind | oeh` table each face of 96-100 is weighed over the open-ended
    tail it opens (Fractions of a face, exact to the tail's cut), as the
    critical die is (critical_hits_over_die)."""
    counts: dict[str, int | Fraction] = {}
    if table.roll is not RollKind.OEH:
        for faces, choice in fumble_faces(table, weapon):
            label = choice.entry.range.label  # an entry's range is its row's
            counts[label] = counts.get(label, 0) + faces
        return counts
    tail, denominator = open_ended_tail()
    weights: dict[str, int] = {}
    for face in range(1, D100 + 1):
        read = (_over_tail(fumble_totals(table, weapon, face, len(tail))) if chain_goes_on(face)
                else [(denominator, fumble_read(table, face, weapon)[1])])
        for weight, choice in read:
            label = choice.entry.range.label
            weights[label] = weights.get(label, 0) + weight
    return {label: Fraction(weight, denominator) for label, weight in sorted(weights.items(), key=lambda item: _row_order(table, item[0]))}


def _row_order(table: EffectTable, label: str) -> int:
    return next(i for i, span in enumerate(table.rows.ranges) if span.label == label)
