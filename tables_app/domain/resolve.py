"""Resolving one attack of the table system, in the order of docs/table-system.md.

Pure: compiled tables in, a dice source in, an immutable result out. The
rules themselves are in domain/table_rules.py (shared with odds and
simulate); here each die is rolled as they ask, and each step is told.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TypedDict

from tables_app.domain.bounds import D100
from tables_app.domain.cells import Outcome
from tables_app.domain.dice import Dice, OpenEndedRoll
from tables_app.domain.effects import effect_words
from tables_app.domain.severity import Severity
from tables_app.domain.table_rules import (  # noqa: F401  (Attack, TableSet, CellRead: re-exported)
    SECONDARY_DEGREES, Attack, AttackRules, CellRead, CriticalPlan, critical_dice, FirstDie, Reading, TableSet, critical_read,
    damage, first_die,
    fumble_column, fumble_read, open_ended_roll, table_die,
)
from tables_app.domain.tables import EffectTable, Entry, Weapon


@dataclass(frozen=True)
class CriticalRoll:
    table: str
    severity: str  # after reduction
    rolled_severity: str  # as the cell (or the secondary rule) gave it
    reduction: int
    roll: int
    modified_roll: int
    entry: Entry
    other: Entry | None  # the branch not taken, if the range has two (of several, the first not taken)
    open_ended: tuple[int, ...] = ()  # dice added on a `Roll kind | oeh` table
    others: tuple[Entry, ...] = ()  # every branch not taken, in printed order
    why: str | None = None  # why ``severity`` is not ``rolled_severity``: `2 degrees below the critical's Let` (None: it is)


@dataclass(frozen=True)
class FumbleRoll:
    table: str
    roll: int
    modified_roll: int
    entry: Entry
    open_ended: tuple[int, ...] = ()  # dice added on a `Roll kind | oeh` table


@dataclass(frozen=True)
class CancelledCritical:
    rolled_severity: str
    reduction: int


@dataclass(frozen=True)
class AttackResult:
    outcome: Outcome
    damage: int
    roll: OpenEndedRoll
    effective_cmb: int
    result: int | None = None  # after the cap; None when the attack fumbled
    uncapped: int | None = None
    cell: CellRead | None = None
    critical: CriticalRoll | None = None
    secondary_critical: CriticalRoll | None = None
    cancelled_critical: CancelledCritical | None = None
    fumble: FumbleRoll | None = None
    more_criticals: tuple[CriticalRoll, ...] = ()  # a printed cell's further criticals (`36 E Heat + A Impact`)
    steps: tuple[str, ...] = field(default=())

    @property
    def capped(self) -> bool:
        return self.result is not None and self.uncapped is not None and self.result < self.uncapped


class _Rolled(TypedDict):
    """The attack roll's fields of an AttackResult, common to every outcome after it."""

    roll: OpenEndedRoll
    effective_cmb: int
    result: int | None
    uncapped: int | None


def resolve_attack(attack: Attack, tables: TableSet, dice: Dice, rules: AttackRules | None = None) -> AttackResult:
    """Roll each die the rules ask for (docs/table-system.md steps 1-12) and say what it did.
    ``rules``: this attack's, when already built (check_columns)."""
    rules = AttackRules.given_or_built(attack, tables, rules)
    steps: list[str] = []
    weapon = attack.weapon
    first = dice.roll(D100, "attack roll")
    start = first_die(first, weapon.clumsy, weapon.roll)
    if start is FirstDie.FUMBLE:
        steps.append(f"Unmodified roll {first} is within the Clumsy Range 1-{weapon.clumsy}: the attack fumbles.")
        fumble = _roll_fumble(weapon, tables.fumble, dice, steps)
        return AttackResult(Outcome.FUMBLE, 0, OpenEndedRoll(first, (), first, 0), attack.effective_cmb, fumble=fumble, steps=tuple(steps))
    effective = attack.effective_cmb
    unmodified = rules.unmodified_read(first)
    if unmodified is not None:
        assert unmodified.cell is not None
        steps.append(f"Unmodified roll {first} reads row {unmodified.cell.row}, whatever the modifiers.")
        base = _Rolled(roll=OpenEndedRoll(first, (), first, 0), effective_cmb=effective, result=None, uncapped=None)
        return _finish(unmodified, attack, tables, dice, steps, base)
    roll = open_ended_roll(first, start, dice)
    steps.append(_describe_roll(roll))
    uncapped, result = rules.modified_result(roll.total)
    mods = "".join(f" {_signed(value)} ({name})" for name, value in attack.modifiers)
    cmb = f"CMB {attack.cmb}{mods} = {effective}" if attack.modifiers else f"CMB {effective}"
    steps.append(f"{cmb}; {roll.total} {_signed(effective)} - DEF {attack.defense} = {uncapped}.")
    if result < uncapped:
        steps.append(f"Max Result {weapon.max_result} caps the result at {result}.")
    base = _Rolled(roll=roll, effective_cmb=effective, result=result, uncapped=uncapped)
    reading = rules.read(result)
    cell = reading.cell
    if reading.outcome is Outcome.INEFFECTIVE:
        if cell is not None:
            steps.append(f"{_describe_cell(cell)}, but it does not count:")
        steps.append(f"Effective CMB {effective} is below 0: the attack is ineffective.")
        return AttackResult(Outcome.INEFFECTIVE, 0, cell=cell, steps=tuple(steps), **base)
    if cell is None:
        automatic = tables.attack.automatic_miss
        if automatic is not None and result <= automatic:
            steps.append(f"Result {result} is {automatic} or less: an automatic miss.")
        else:
            steps.append(f"Result {result} is below the lowest row ({rules.table.rows.ranges[0].label}): a miss.")
        return AttackResult(Outcome.MISS, 0, steps=tuple(steps), **base)
    return _finish(reading, attack, tables, dice, steps, base)


def _finish(reading: Reading, attack: Attack, tables: TableSet, dice: Dice, steps: list[str], base: _Rolled) -> AttackResult:
    """Steps 8-12 for a cell read (by the modified result, or by a `UM` row)."""
    weapon, cell = attack.weapon, reading.cell
    assert cell is not None
    steps.append(_describe_cell(cell) + ".")
    if reading.outcome is Outcome.FUMBLE:  # an `F` cell: the attack fumbles, as in the Clumsy Range
        steps.append("The cell fumbles.")
        fumble = _roll_fumble(weapon, tables.fumble, dice, steps)
        return AttackResult(Outcome.FUMBLE, 0, cell=cell, fumble=fumble, steps=tuple(steps), **base)
    if reading.critical is None and reading.cancelled is None:
        return AttackResult(reading.outcome, reading.hits, cell=cell, steps=tuple(steps), **base)
    # Below: a cell's severities are lowered only to the weapon's Max critical, and a cell
    # with no critical left had one the reduction cancelled (else it returned above).
    max_critical = reading.max_critical
    if reading.lowered:  # step 9: the weapon's Max critical, before the target's reduction
        assert max_critical is not None
        cap = max_critical.code
        steps.append(f"Max critical {cap} lowers {_and(dict.fromkeys(s.code for s in reading.lowered))} to {cap}.")
    if attack.reduction:
        if reading.cancelled is not None:
            rolled = reading.cancelled
        else:
            assert reading.critical is not None
            rolled = reading.critical.rolled
        if rolled in reading.lowered:
            assert max_critical is not None
            rolled = max_critical  # the reduction lowers what the weapon delivers
        steps.append(_describe_reduction(attack, rolled, None if reading.critical is None else reading.critical.severity))
    if reading.critical is None:
        steps.append(f"Damage: {reading.hits}.")
        assert reading.cancelled is not None
        cancelled = CancelledCritical(reading.cancelled.code, attack.reduction)
        return AttackResult(Outcome.HIT, reading.hits, cell=cell, cancelled_critical=cancelled, steps=tuple(steps), **base)
    def why(plan: CriticalPlan) -> str | None:  # steps 9's Max critical and the target's reduction, in the JSON
        if plan.severity == plan.rolled:
            return None
        lowered = [f"lowered to the weapon's Max critical {max_critical.code}"] if (
            max_critical is not None and plan.rolled in reading.lowered) else []
        reduced = [f"reduced {plan.reduction} degree{'' if plan.reduction == 1 else 's'}"] if plan.reduction else []
        return ", ".join([f"rolled {plan.rolled.code}", *lowered, *reduced])

    critical = _roll_critical(reading.critical, attack, dice, steps, "Critical", why(reading.critical))
    more = tuple(_roll_critical(plan, attack, dice, steps, f"Critical {i}", why(plan))
                 for i, plan in enumerate(reading.more, start=2))
    secondary = None
    if reading.too_light is not None:
        steps.append(f"Secondary critical ({weapon.secondary_critical}): none, {reading.too_light.code} is too light.")
    elif reading.secondary is not None:  # step 11: two degrees below the (first) critical, after step 9
        below = f"{SECONDARY_DEGREES} degrees below the critical's {reading.secondary.rolled.code}"
        secondary = _roll_critical(reading.secondary, attack, dice, steps, "Secondary critical", below, shown=True)
    extras = [c.entry.hits for c in (critical, *more, secondary) if c is not None]
    total = damage(reading.hits, extras)
    steps.append("Damage: " + " + ".join(str(n) for n in [reading.hits, *extras]) + (f" = {total}." if extras else "."))
    return AttackResult(Outcome.CRITICAL, total, cell=cell, critical=critical, secondary_critical=secondary,
                        more_criticals=more, steps=tuple(steps), **base)


def _roll_critical(plan: CriticalPlan, attack: Attack, dice: Dice, steps: list[str], label: str, why: str | None = None,
                   shown: bool = False) -> CriticalRoll:
    """``why``: why its severity is not the one rolled, said in its step when ``shown`` (the secondary's:
    `Secondary critical: Mod (2 degrees below the critical's Let) on Pierce, ...`; the others' own steps say theirs)."""
    table, severity = plan.table, plan.severity
    rolled = critical_dice(plan, dice, f"{label.lower()} roll on {table.name}")
    roll = rolled.unmodified
    modified, choice = critical_read(plan, rolled.total, attack.features)
    entry = choice.entry
    chain = _chain(rolled)
    code = f"{severity.code} ({why})" if shown and why else severity.code
    if plan.column is None:
        steps.append(f"{label}: {code} on {table.name}, {chain} {_signed(severity.modifier)} = {modified} "
                     f"({_describe_entry(entry)}).")
    else:  # a printed table: the column is chosen, the roll is read as it fell
        steps.append(f"{label}: {code} on {table.name}, column {table.columns[plan.column]}, roll {chain} "
                     f"({_describe_entry(entry)}).")
    steps.append(f"  {entry.text}")
    for other in choice.others:  # the branches not taken: one of two, or each of several features' and everyone else's
        steps.append(f"  ({f'if {other.condition}' if other.condition else 'otherwise'}: {_describe_entry(other)})")
    return CriticalRoll(table.name, severity.code, plan.rolled.code, plan.reduction, roll, modified, entry, choice.other,
                        rolled.extra, choice.others, why)


def _roll_fumble(weapon: Weapon, table: EffectTable | None, dice: Dice, steps: list[str]) -> FumbleRoll | None:
    if table is None:
        steps.append(f"{weapon.name} has no fumble table.")
        return None
    rolled = table_die(table, dice, f"fumble roll on {table.name}")  # open-ended high on a `Roll kind | oeh` table
    modified, choice = fumble_read(table, rolled.total, weapon)
    entry = choice.entry
    column = fumble_column(table, weapon)
    where = f"{table.name}, column {table.columns[column]}" if column is not None else table.name
    steps.append(f"Fumble: {where}, {_chain(rolled)} {_signed(weapon.fumble_modifier)} = {modified} ({_describe_entry(entry)}).")
    steps.append(f"  {entry.text}")
    return FumbleRoll(table.name, rolled.unmodified, modified, entry, rolled.extra)


def _chain(rolled: OpenEndedRoll) -> str:
    """A critical or fumble die as it fell: `40`, or opened `97 + 99 + 12 = 208 (open-ended)`."""
    if not rolled.extra:
        return str(rolled.unmodified)
    return f"{' + '.join(map(str, (rolled.unmodified, *rolled.extra)))} = {rolled.total} (open-ended)"


def _and(words: Iterable[str]) -> str:
    """`E`, `E and D`, `E, D and B`."""
    listed = list(words)
    return listed[0] if len(listed) == 1 else f"{', '.join(listed[:-1])} and {listed[-1]}"


def _signed(value: int) -> str:
    return f"+ {value}" if value >= 0 else f"- {-value}"


def _describe_roll(roll: OpenEndedRoll) -> str:
    if not roll.extra:
        return f"Roll {roll.unmodified}."
    sign = "+" if roll.direction > 0 else "-"
    chain = f" {sign} ".join(str(n) for n in (roll.unmodified, *roll.extra))
    return f"Roll {chain} = {roll.total} (open-ended {'high' if roll.direction > 0 else 'low'})."


def _describe_cell(read: CellRead) -> str:
    # A cell that names its critical table says so in its text (`25 E Krush`): no "on Krush" after it.
    return f"{read.table} {read.row} {read.armor}: {read.cell.text}"


def _describe_reduction(attack: Attack, rolled: Severity, severity: Severity | None) -> str:
    why = []
    if attack.rank.critical_reduction:
        why.append(f"{attack.rank.value} -{attack.rank.critical_reduction}")
    if attack.crit_reduction:
        why.append(f"reduction -{attack.crit_reduction}")
    after = severity.code if severity else "cancelled"
    return f"Critical {rolled.code} reduced to {after} ({', '.join(why)})."


def _describe_entry(entry: Entry) -> str:
    head = f"{entry.range.label}"
    if entry.condition:
        head += f", {entry.condition}"
    title = f": {entry.title}" if entry.title else ""
    said = effect_words(entry)  # the one wording of an entry's effects (show, query, a fight's account, Foundry)
    return head + title + (f"; {said}" if said else "")
