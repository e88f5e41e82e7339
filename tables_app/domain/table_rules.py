"""The table system's rules, each step of docs/table-system.md written once.

``resolve`` (one attack with dice), ``odds`` (exact) and ``simulate`` (numpy)
all take every rule from here, so a rule cannot drift between them. An attack
is a pure function of its dice:

- the first die: a fumble, or how the roll opens (``first_die``, steps 1-2);
- the dice of an opened roll: the chain goes on while ``chain_goes_on``;
- the total: the modified result, the cap, ineffective, automatic miss, the
  cell, critical reduction and the critical tables (``AttackRules.read_total``,
  steps 3-11, no dice);
- each critical or fumble die (``critical_read``, ``fumble_read``).

What one table reads without an attack (the row of a result, the column and
roll of a die) is in table_reads.py, which these rules and `tables query` share.

Odds weight these by exact probabilities; simulate builds look-up arrays from
them and indexes them with sampled dice.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property
from fractions import Fraction
from typing import TYPE_CHECKING, Mapping, TypeVar

from tables_app.domain.bounds import D100
from tables_app.domain.cells import AttackCell, Outcome
from tables_app.domain.severity import Severity, SeverityScale
from tables_app.domain.table_reads import critical_roll_at, fumble_roll, printed_column, result_runs
from tables_app.domain.tables import AttackTable, Choice, ColumnChoice, EffectTable, Rank, RollKind, Weapon, choose_branch

if TYPE_CHECKING:  # dice are rolled by resolve only: odds and lookups never load them
    import numpy as np
    from numpy.typing import NDArray

    from tables_app.domain.dice import Dice, OpenEndedRoll

OPEN_HIGH = 96  # "The open-ended d100": 96-100 rolls again and adds
OPEN_LOW = 5  # 1-5 rolls again and subtracts
SECONDARY_DEGREES = 2  # step 11: the secondary critical is two degrees lower
_OPEN_HIGH_KINDS = (RollKind.OE, RollKind.OEH)
_OPEN_LOW_KINDS = (RollKind.OE, RollKind.OEL)


@dataclass(frozen=True)
class Attack:
    """Everything about one attack except the dice."""

    weapon: Weapon
    cmb: int
    armor: str
    defense: int = 0
    modifiers: tuple[tuple[str, int], ...] = ()
    rank: Rank = Rank.NORMAL
    crit_reduction: int = 0
    ignore_crit_reduction: bool = False
    features: frozenset[str] = frozenset()
    critical_column: str | None = None  # overrides the weapon's (attack-chosen critical tables)

    @property
    def effective_cmb(self) -> int:
        """Step 3: CMB plus every named modifier."""
        return self.cmb + sum(value for _, value in self.modifiers)

    @property
    def reduction(self) -> int:
        """Degrees of critical reduction (step 9): rank plus extra, unless ignored."""
        if self.ignore_crit_reduction:
            return 0
        return self.rank.critical_reduction + self.crit_reduction

    @cached_property  # asked twice a served resolve (the kept rules' key, for_attack), of a frozen attack
    def shape(self) -> tuple[Attack, bool]:
        """What the rows read for this attack depend on (AttackRules): all of
        it but what only moves the result (CMB, DEF, modifiers; steps 3-4), and
        the side of 0 the effective CMB is on (step 6). Attacks of one shape
        read every row alike (AttackRules.for_attack)."""
        return replace(self, cmb=0, defense=0, modifiers=()), self.effective_cmb < 0


@dataclass(frozen=True)
class TableSet:
    """The compiled tables one weapon can reach."""

    attack: AttackTable
    criticals: Mapping[str, EffectTable]
    fumble: EffectTable | None = None


# ------------------------------------------------------------ steps 1-2: dice
class FirstDie(Enum):
    """What the unmodified roll does; ``sign`` is how an opened roll goes on."""

    FUMBLE = "fumble"
    CLOSED = "closed"
    OPENS_HIGH = "high"
    OPENS_LOW = "low"

    @property
    def sign(self) -> int:
        return 1 if self is FirstDie.OPENS_HIGH else -1 if self is FirstDie.OPENS_LOW else 0


def first_die(first: int, clumsy: int, kind: RollKind) -> FirstDie:
    """Step 2 before the open-ended roll: within the weapon's Clumsy Range
    (1-``clumsy``) the attack fumbles whatever the modifiers, and nothing opens."""
    if first <= clumsy:
        return FirstDie.FUMBLE
    if first >= OPEN_HIGH and kind in _OPEN_HIGH_KINDS:
        return FirstDie.OPENS_HIGH
    if first <= OPEN_LOW and kind in _OPEN_LOW_KINDS:
        return FirstDie.OPENS_LOW
    return FirstDie.CLOSED


def chain_goes_on(die: int) -> bool:
    """An opened roll rolls again after this die (either direction: 96+)."""
    return die >= OPEN_HIGH


def open_ended_roll(first: int, start: FirstDie, dice: Dice) -> OpenEndedRoll:
    """Finish a roll whose first die opened (or not): add or subtract dice
    while ``chain_goes_on``."""
    from tables_app.domain.dice import OpenEndedRoll

    if start.sign == 0:
        return OpenEndedRoll(first, (), first, 0)
    label = "open-ended roll, high" if start.sign > 0 else "open-ended roll, low"
    extra = []
    total = first
    while True:
        die = dice.roll(D100, label)
        extra.append(die)
        total += start.sign * die
        if not chain_goes_on(die):
            return OpenEndedRoll(first, tuple(extra), total, start.sign)


# ------------------------------------------------- steps 3-11: the total read
@dataclass(frozen=True)
class CellRead:
    """The attack-table cell a result read: table, row label, armor column and the cell."""

    table: str
    row: str
    armor: str
    cell: AttackCell


@dataclass(frozen=True)
class CriticalPlan:
    """A critical to roll: on ``table`` at ``severity`` (``rolled`` before
    the lowering, by ``reduction`` degrees)."""

    table: EffectTable
    severity: Severity
    rolled: Severity
    reduction: int
    column: int | None = None  # the printed column read (None: a one-column table)


@dataclass(frozen=True)
class Reading:
    """What a modified result gives before any critical die.

    ``cell`` is the cell shown (also when it does not count); ``row`` the
    index of the attack-table row whose cell decided the outcome (None when
    none did); ``cancelled`` the severity reduction cancelled; ``too_light``
    the severity too light for the weapon's secondary critical; ``lowered``
    the cell's severities the weapon's ``max_critical`` lowered to it (step 9).
    """

    outcome: Outcome
    hits: int = 0
    cell: CellRead | None = None
    row: int | None = None
    critical: CriticalPlan | None = None
    secondary: CriticalPlan | None = None
    cancelled: Severity | None = None
    too_light: Severity | None = None
    more: tuple[CriticalPlan, ...] = ()  # the cell's further criticals, rolled after the first
    max_critical: Severity | None = None
    lowered: tuple[Severity, ...] = ()

    @property
    def plans(self) -> tuple[CriticalPlan, ...]:
        """Every critical to roll, in order: the cell's (first, then further), then the secondary."""
        return tuple(p for p in (self.critical, *self.more, self.secondary) if p is not None)


class AttackRules:
    """Steps 3-11 for one attack against one table set.

    Every row the modified result can read is read once, when the rules are
    built (``readings_by_result``: the runs of ``result_runs``, each with its
    reading); ``read`` looks a result up in them, and odds weighs them whole.
    """

    def __init__(self, attack: Attack, tables: TableSet):
        self.attack, self.tables = attack, tables
        # the attack table as this weapon reads it: a printed `XX-33` row begins above its Clumsy Range
        self.table = table = tables.attack.for_clumsy(attack.weapon.clumsy)
        column = table.column(attack.armor)
        if column is None:
            raise ValueError(f"attack table {table.name!r} has no armor column {attack.armor!r} (columns: {', '.join(table.armors)})")
        self.column = column
        self.shift = attack.effective_cmb - attack.defense
        self.cap = attack.weapon.max_result
        self.max_critical = max_critical(attack.weapon, table)  # step 9; checked here, before any die
        self.readings_by_result = self._readings_by_result()
        self._lows = [low for low, _ in self.readings_by_result if low is not None]  # the first runs from below
        self._unmodified = self._unmodified_readings()

    @classmethod
    def given_or_built(cls, attack: Attack, tables: TableSet, given: AttackRules | None) -> AttackRules:
        """``given`` when it is this attack's on these tables (check_columns
        built it), else the rules built anew."""
        if given is not None and given.attack is attack and given.tables is tables:
            return given
        return cls(attack, tables)

    def for_attack(self, attack: Attack) -> AttackRules:
        """These rules for ``attack`` (a sweep's next CMB, the next request of
        an attacker): the rows, read once, are shared when it has the same
        ``shape``, as only its result moves; otherwise the rules are built anew."""
        if attack.shape != self.attack.shape:
            return AttackRules(attack, self.tables)
        moved = object.__new__(type(self))  # copy(self), without copy's protocol (a served resolve's)
        moved.__dict__.update(self.__dict__)
        moved.attack, moved.shift = attack, attack.effective_cmb - attack.defense
        return moved

    def unmodified_read(self, first: int) -> Reading | None:
        """Step 2, after the Clumsy check: the reading of a `UM` row that the
        unmodified first die falls in (the result whatever the modifiers), or None."""
        return self._unmodified.get(first)

    @property
    def unmodified_faces(self) -> dict[int, Reading]:
        """Every face of the first die that a `UM` row reads, with its reading."""
        return dict(self._unmodified)

    def modified_result(self, total: int) -> tuple[int, int]:
        """Steps 4-5: (uncapped, result) — DEF first, the Max Result last."""
        uncapped = total + self.shift
        if self.cap is not None and uncapped > self.cap:
            return uncapped, self.cap
        return uncapped, uncapped

    def lowest_total(self, result: int) -> int | None:
        """The least total whose modified (capped) result is ``result`` or
        more; None when no total's is (the Max Result is below it). The result
        never falls as the total rises, and rises by one with it until the cap:
        the total that reaches ``result`` uncapped is the least, unless
        ``modified_result`` (the steps, written once) caps it below. Odds bisect
        the sorted totals at this one."""
        total = result - self.shift
        return total if self.modified_result(total)[1] >= result else None

    def read(self, result: int) -> Reading:
        """Steps 6-11 for a modified (capped) result."""
        return self.readings_by_result[bisect_right(self._lows, result)][1]

    def read_total(self, total: int) -> Reading:
        return self.read(self.modified_result(total)[1])

    def _readings_by_result(self) -> list[tuple[int | None, Reading]]:
        """(lowest result, reading) of each run of ``result_runs``, ascending."""
        ineffective = self.attack.effective_cmb < 0  # step 6: the cell is shown but does not count
        below = Reading(Outcome.INEFFECTIVE) if ineffective else Reading(Outcome.MISS)
        return [(low, below if row is None else
                 Reading(Outcome.INEFFECTIVE, cell=self._cell(row)) if ineffective else self._read_row(row))
                for low, row in result_runs(self.table)]

    def _unmodified_readings(self) -> dict[int, Reading]:
        rows = self.table.unmodified
        if rows is None:
            return {}
        found = {}
        for row, span in enumerate(rows.ranges):
            reading = self._read_row(row, unmodified=True)
            for face in range(max(span.low, 1), min(span.high if span.high is not None else D100, D100) + 1):
                found[face] = reading
        return found

    def _cell(self, row: int, unmodified: bool = False) -> CellRead:
        table = self.table
        rows = table.unmodified if unmodified else table.rows
        assert rows is not None
        label = f"UM {rows.ranges[row].label}" if unmodified else rows.ranges[row].label
        return CellRead(table.name, label, table.armors[self.column], rows.values[row][self.column])

    def _read_row(self, row: int, unmodified: bool = False) -> Reading:
        read = self._cell(row, unmodified)
        cell = read.cell
        if cell.outcome is not Outcome.CRITICAL:  # step 8; an `F` cell fumbles (step 2's fumble table)
            return Reading(cell.outcome, cell.hits, read, row)
        scale = self.table.scale
        reduction = self.attack.reduction
        weapon = self.attack.weapon
        plans, lowered = [], []
        for code, table in cell.criticals:  # a printed cell may call several (`36 E Heat + A Impact`): each is rolled
            rolled = scale.get(code)
            delivered = lowered_to(scale, rolled, self.max_critical)  # step 9: the weapon's Max critical, then the target's reduction
            if delivered != rolled:
                lowered.append(rolled)
            severity = scale.lower(delivered, reduction)
            if severity is not None:  # step 10 on the cell's table, else the weapon's
                plans.append(self._plan(self.tables.criticals[table or weapon.critical], severity, rolled, reduction))
        # step 9's cap is shown only where it lowered a severity of this cell
        cap, capped = (self.max_critical, tuple(lowered)) if lowered else (None, ())
        if not plans:  # every critical cancelled: a hit with the cell's damage
            assert cell.severity is not None  # a critical cell has its first severity (cells.py builds it so)
            return Reading(Outcome.HIT, cell.hits, read, row, cancelled=scale.get(cell.severity), max_critical=cap, lowered=capped)
        critical = plans[0]
        secondary = too_light = None
        if weapon.secondary_critical:  # step 11: lowered from the (first) severity after reduction
            lower = scale.lower(critical.severity, SECONDARY_DEGREES)
            if lower is None:
                too_light = critical.severity
            else:
                secondary = self._plan(self.tables.criticals[weapon.secondary_critical], lower, critical.severity, 0)
        return Reading(Outcome.CRITICAL, cell.hits, read, row, critical, secondary, too_light=too_light, more=tuple(plans[1:]),
                       max_critical=cap, lowered=capped)

    def _plan(self, table: EffectTable, severity: Severity, rolled: Severity, reduction: int) -> CriticalPlan:
        """A critical to roll, with the printed column it reads: the
        severity's (`Roll | A | B | C | D | E`), or the attack's
        (`Normal | Magic | ...`), or none (one column, modified roll)."""
        return CriticalPlan(table, severity, rolled, reduction, critical_column(table, severity, self.attack))


def max_critical(weapon: Weapon, table: AttackTable) -> Severity | None:
    """Step 9's cap: the weapon's Max critical on its attack table's scale (None:
    no cap). ValueError when the scale has no such severity: a weapon imported
    apart from its attack table is checked here, before any die (as its columns are)."""
    if weapon.max_critical is None:
        return None
    found = table.scale.find(weapon.max_critical)
    if found is None:
        codes = ", ".join(level.code for level in table.scale.levels)
        raise ValueError(f"{weapon.name}'s Max critical {weapon.max_critical!r} is not a severity of attack table "
                         f"{table.name!r} (severities: {codes})")
    return found


def lowered_to(scale: SeverityScale, severity: Severity, cap: Severity | None) -> Severity:
    """Step 9, first: a severity above the weapon's Max critical is lowered to it."""
    return cap if cap is not None and scale.degree(severity) > scale.degree(cap) else severity


def critical_column(table: EffectTable, severity: Severity, attack: Attack) -> int | None:
    """Step 10's column; ValueError when the table has none for this attack."""
    named = attack.critical_column or attack.weapon.critical_column
    column = printed_column(table, severity, named)
    if column is not None or table.choice is ColumnChoice.NONE:
        return column
    if table.choice is ColumnChoice.SEVERITY:
        whose = f"severity {severity.code}"
    elif named is None:
        raise ValueError(f"critical table {table.name!r} is read by column ({', '.join(table.columns)}): "
                         f"give {attack.weapon.name} a Critical column, or --critical-column")
    else:
        whose = f"--critical-column {named!r}" if attack.critical_column else f"{attack.weapon.name}'s critical column {named!r}"
    raise ValueError(f"critical table {table.name!r} has no column for {whose} (columns: {', '.join(table.columns)})")


def fumble_column(table: EffectTable, weapon: Weapon) -> int | None:
    """Step 2's column of a fumble table by weapon category (`1HE | 2H | ...`)."""
    column = printed_column(table, None, weapon.fumble_column)
    if column is None and table.choice is not ColumnChoice.NONE:
        named = f"has fumble column {weapon.fumble_column!r}" if weapon.fumble_column else "has no Fumble column"
        raise ValueError(f"fumble table {table.name!r} is read by weapon category ({', '.join(table.columns)}), "
                         f"and {weapon.name} {named}")
    return column


def check_columns(attack: Attack, tables: TableSet, rules: AttackRules | None = None) -> AttackRules:
    """Every printed column the attack can read exists (ValueError naming the
    table and the columns otherwise): checked once, before any die. Returns
    the attack's rules, which resolve and odds then use rather than build
    anew: ``rules`` when they are the attack's on these tables (kept by the
    caller, storage/compiled.py), else built here."""
    rules = AttackRules.given_or_built(attack, tables, rules)  # built, they read every row, so every critical's column
    if tables.fumble is not None:
        fumble_column(tables.fumble, attack.weapon)
    if attack.critical_column and not any(t.choice is ColumnChoice.ATTACK for t in tables.criticals.values()):
        read = ", ".join(f"{t.name} {'by severity' if t.choice is ColumnChoice.SEVERITY else 'in one column'}"
                         for t in tables.criticals.values())
        raise ValueError(f"--critical-column {attack.critical_column!r} given, but no critical table of this attack is "
                         f"read by the attack's column ({read})")
    return rules


# ------------------------------------------------------- steps 2, 10: d100 reads
def critical_roll(plan: CriticalPlan, die: int) -> int:
    """Step 10: the critical die plus the (reduced) severity's modifier; a
    table with printed columns is read by the die alone (critical_roll_at)."""
    return critical_roll_at(die, plan.severity, plan.column)


def critical_dice(plan: CriticalPlan, dice: Dice, label: str) -> OpenEndedRoll:
    """Step 10's die (``table_die``)."""
    return table_die(plan.table, dice, label)


def table_die(table: EffectTable, dice: Dice, label: str) -> OpenEndedRoll:
    """The die of a critical (step 10) or fumble (step 2) table: a d100,
    open-ended high on a `Roll kind | oeh` table (96-100 rolls again and adds,
    as large-creature criticals are rolled)."""
    from tables_app.domain.dice import OpenEndedRoll

    first = dice.roll(D100, label)
    if table.roll is RollKind.OEH:
        return open_ended_roll(first, first_die(first, 0, RollKind.OEH), dice)
    return OpenEndedRoll(first, (), first, 0)


def critical_read(plan: CriticalPlan, die: int, features: frozenset[str]) -> tuple[int, Choice]:
    """Step 10 for one die: the modified roll, and the entry it reads
    (branches by the target's features)."""
    modified = critical_roll(plan, die)
    return modified, plan.table.choose(modified, features, plan.column)


def critical_faces(plan: CriticalPlan, features: frozenset[str]) -> list[tuple[int, Choice]]:
    """Step 10 over the whole die: each entry read, with how many of the 100
    faces read it (the faces' modified rolls, row by row, not face by face)."""
    return critical_totals(plan, 1, D100, features)


def critical_totals(plan: CriticalPlan, lowest: int, count: int, features: frozenset[str]) -> list[tuple[int, Choice]]:
    """Step 10 over ``count`` totals of the die from ``lowest`` up: each entry
    read, with how many of those totals read it, in order (the modified roll
    rises with the total, so each row reads a run of them; odds weigh the
    tail an opened die adds with it)."""
    rows = plan.table.rows_of(plan.column).counts(critical_roll(plan, lowest), critical_roll(plan, lowest + count - 1))
    return [(totals, choose_branch(entries, features)) for totals, entries in rows]


def fumble_read(table: EffectTable, die: int, weapon: Weapon) -> tuple[int, Choice]:
    """Step 2 for one die (its total, on a `Roll kind | oeh` table): the modified roll and the entry it reads."""
    modified = fumble_roll(die, weapon.fumble_modifier)
    return modified, table.choose(modified, column=fumble_column(table, weapon))


def fumble_faces(table: EffectTable, weapon: Weapon) -> list[tuple[int, Choice]]:
    """Step 2 over the whole (closed) die: each entry read, with how many faces read it."""
    return fumble_totals(table, weapon, 1, D100)


def fumble_totals(table: EffectTable, weapon: Weapon, lowest: int, count: int) -> list[tuple[int, Choice]]:
    """Step 2 over ``count`` totals of the die from ``lowest`` up, as critical_totals."""
    modifier = weapon.fumble_modifier
    rows = table.rows_of(fumble_column(table, weapon)).counts(fumble_roll(lowest, modifier), fumble_roll(lowest + count - 1, modifier))
    return [(totals, choose_branch(entries, frozenset())) for totals, entries in rows]


OPEN_CRITICAL_REACH = 13 * D100  # totals read for an open-ended critical die: 12 more 96+ dice are rarer than 1e-15


def critical_hits_by_total(plan: CriticalPlan, features: frozenset[str], reach: int = OPEN_CRITICAL_REACH) -> list[int]:
    """The extra hits of every total 1..``reach`` of an open-ended critical
    die (`Roll kind | oeh`), read one by one (simulate indexes it by total)."""
    return [critical_read(plan, total, features)[1].entry.hits for total in range(1, reach + 1)]


def critical_hits_by_die(plan: CriticalPlan, features: frozenset[str]) -> list[int]:
    """The extra hits of each face 1-100 of the critical die, in face order."""
    return [choice.entry.hits for faces, choice in critical_faces(plan, features) for _ in range(faces)]


# Ints for one attack, Fractions for means (odds), numpy arrays for many (simulate).
Hits = TypeVar("Hits", int, "int | Fraction", "NDArray[np.int64]")


def damage(hits: Hits, extra_hits: Iterable[Hits]) -> Hits:
    """Step 12: the cell's hits plus every critical's extra hits. Ints for one
    attack, Fractions for means (odds), numpy arrays for many (simulate)."""
    return hits + sum(extra_hits)
