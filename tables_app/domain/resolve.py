"""Resolving one attack of the table system, in the order of docs/table-system.md.

Pure: compiled tables in, a dice source in, an immutable result out. Each
numbered step below is the step of the same number in docs/table-system.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from tables_app.domain.cells import AttackCell, Outcome
from tables_app.domain.dice import Dice, OpenEndedRoll, finish_open_ended
from tables_app.domain.severity import Severity
from tables_app.domain.tables import AttackTable, EffectTable, Entry, Rank, Weapon

AUTOMATIC_MISS = 10  # step 7: a modified result of 10 or less misses
SECONDARY_DEGREES = 2  # step 11: the secondary critical is two degrees lower


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

    @property
    def effective_cmb(self) -> int:
        return self.cmb + sum(value for _, value in self.modifiers)

    @property
    def reduction(self) -> int:
        """Degrees of critical reduction (step 9)."""
        if self.ignore_crit_reduction:
            return 0
        return self.rank.critical_reduction + self.crit_reduction


@dataclass(frozen=True)
class TableSet:
    """The compiled tables one weapon can reach."""

    attack: AttackTable
    criticals: Mapping[str, EffectTable]
    fumble: EffectTable | None = None


@dataclass(frozen=True)
class CellRead:
    table: str
    row: str
    armor: str
    cell: AttackCell


@dataclass(frozen=True)
class CriticalRoll:
    table: str
    severity: str  # after reduction
    rolled_severity: str  # as the cell (or the secondary rule) gave it
    reduction: int
    roll: int
    modified_roll: int
    entry: Entry
    other: Entry | None  # the branch not taken, if the range has two


@dataclass(frozen=True)
class FumbleRoll:
    table: str
    roll: int
    modified_roll: int
    entry: Entry


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
    steps: tuple[str, ...] = field(default=())

    @property
    def capped(self) -> bool:
        return self.result is not None and self.uncapped is not None and self.result < self.uncapped


def resolve_attack(attack: Attack, tables: TableSet, dice: Dice) -> AttackResult:
    steps: list[str] = []
    weapon = attack.weapon
    # 1. The first d100: the unmodified roll.
    first = dice.roll(100, "attack roll")
    # 2. Fumble: within the Clumsy Range, whatever the modifiers; no open-ended rerolls.
    if first <= weapon.clumsy:
        steps.append(f"Unmodified roll {first} is within the Clumsy Range 1-{weapon.clumsy}: the attack fumbles.")
        fumble = _roll_fumble(weapon, tables.fumble, dice, steps)
        return AttackResult(Outcome.FUMBLE, 0, OpenEndedRoll(first, (), first, 0), attack.effective_cmb, fumble=fumble, steps=tuple(steps))
    roll = finish_open_ended(first, weapon.roll, dice)
    steps.append(_describe_roll(roll))
    # 3. Effective CMB; 4. modified result.
    effective = attack.effective_cmb
    uncapped = roll.total + effective - attack.defense
    mods = "".join(f" {_signed(value)} ({name})" for name, value in attack.modifiers)
    cmb = f"CMB {attack.cmb}{mods} = {effective}" if attack.modifiers else f"CMB {effective}"
    steps.append(f"{cmb}; {roll.total} {_signed(effective)} - DEF {attack.defense} = {uncapped}.")
    # 5. Max Result, applied last.
    result = uncapped
    if weapon.max_result is not None and uncapped > weapon.max_result:
        result = weapon.max_result
        steps.append(f"Max Result {weapon.max_result} caps the result at {result}.")
    base = dict(roll=roll, effective_cmb=effective, result=result, uncapped=uncapped)
    cell = _read_cell(attack, tables.attack, result)
    # 6. Ineffective: a CMB below 0 does nothing, whatever the table says.
    if effective < 0:
        if cell is not None:
            steps.append(f"{_describe_cell(cell)}, but it does not count:")
        steps.append(f"Effective CMB {effective} is below 0: the attack is ineffective.")
        return AttackResult(Outcome.INEFFECTIVE, 0, cell=cell, steps=tuple(steps), **base)
    # 7. Automatic miss.
    if result <= AUTOMATIC_MISS:
        steps.append(f"Result {result} is {AUTOMATIC_MISS} or less: an automatic miss.")
        return AttackResult(Outcome.MISS, 0, steps=tuple(steps), **base)
    # 8. The cell.
    assert cell is not None  # tables cover 11 upward (import validation)
    steps.append(_describe_cell(cell) + ".")
    hits = cell.cell.hits
    if cell.cell.outcome is not Outcome.CRITICAL:
        return AttackResult(cell.cell.outcome, hits, cell=cell, steps=tuple(steps), **base)
    # 9. Critical reduction.
    scale = tables.attack.scale
    rolled = scale.get(cell.cell.severity)  # type: ignore[arg-type]
    reduction = attack.reduction
    severity = scale.lower(rolled, reduction)
    if reduction:
        steps.append(_describe_reduction(attack, rolled, severity))
    if severity is None:
        steps.append(f"Damage: {hits}.")
        cancelled = CancelledCritical(rolled.code, reduction)
        return AttackResult(Outcome.HIT, hits, cell=cell, cancelled_critical=cancelled, steps=tuple(steps), **base)
    # 10. The critical roll on the cell's own table, else the weapon's.
    critical_name = cell.cell.critical or weapon.critical
    critical = _roll_critical(tables.criticals[critical_name], severity, rolled, reduction, attack, dice, steps, "Critical")
    # 11. The secondary critical, two degrees lower.
    secondary = None
    if weapon.secondary_critical:
        lower = scale.lower(severity, SECONDARY_DEGREES)
        if lower is None:
            steps.append(f"Secondary critical ({weapon.secondary_critical}): none, {severity.code} is too light.")
        else:
            table = tables.criticals[weapon.secondary_critical]
            secondary = _roll_critical(table, lower, severity, 0, attack, dice, steps, "Secondary critical")
    # 12. Damage: the cell's hits plus every critical's extra hits.
    extras = [c.entry.hits for c in (critical, secondary) if c is not None]
    damage = hits + sum(extras)
    steps.append("Damage: " + " + ".join(str(n) for n in [hits, *extras]) + (f" = {damage}." if extras else "."))
    return AttackResult(Outcome.CRITICAL, damage, cell=cell, critical=critical, secondary_critical=secondary, steps=tuple(steps), **base)


def _read_cell(attack: Attack, table: AttackTable, result: int) -> CellRead | None:
    column = table.column(attack.armor)
    if column is None:
        raise ValueError(f"attack table {table.name!r} has no armor column {attack.armor!r} (columns: {', '.join(table.armors)})")
    if result <= AUTOMATIC_MISS:
        return None
    found = table.read(result, column)
    if found is None:
        return None
    row, cell = found
    return CellRead(table.name, row.label, table.armors[column], cell)


def _roll_critical(
    table: EffectTable, severity: Severity, rolled: Severity, reduction: int,
    attack: Attack, dice: Dice, steps: list[str], label: str,
) -> CriticalRoll:
    roll = dice.roll(100, f"{label.lower()} roll on {table.name}")
    modified = roll + severity.modifier
    choice = table.choose(modified, attack.features)
    entry = choice.entry
    steps.append(f"{label}: {severity.code} on {table.name}, {roll} {_signed(severity.modifier)} = {modified} ({_describe_entry(entry)}).")
    steps.append(f"  {entry.text}")
    if choice.other is not None:
        steps.append(f"  (if {choice.other.condition}: {_describe_entry(choice.other)})")
    return CriticalRoll(table.name, severity.code, rolled.code, reduction, roll, modified, entry, choice.other)


def _roll_fumble(weapon: Weapon, table: EffectTable | None, dice: Dice, steps: list[str]) -> FumbleRoll | None:
    if table is None:
        steps.append(f"{weapon.name} has no fumble table.")
        return None
    roll = dice.roll(100, f"fumble roll on {table.name}")
    modified = roll + weapon.fumble_modifier
    entry = table.choose(modified).entry
    steps.append(f"Fumble: {table.name}, {roll} {_signed(weapon.fumble_modifier)} = {modified} ({_describe_entry(entry)}).")
    steps.append(f"  {entry.text}")
    return FumbleRoll(table.name, roll, modified, entry)


def _signed(value: int) -> str:
    return f"+ {value}" if value >= 0 else f"- {-value}"


def _describe_roll(roll: OpenEndedRoll) -> str:
    if not roll.extra:
        return f"Roll {roll.unmodified}."
    sign = "+" if roll.direction > 0 else "-"
    chain = f" {sign} ".join(str(n) for n in (roll.unmodified, *roll.extra))
    return f"Roll {chain} = {roll.total} (open-ended {'high' if roll.direction > 0 else 'low'})."


def _describe_cell(read: CellRead) -> str:
    critical = f" on {read.cell.critical}" if read.cell.critical else ""
    return f"{read.table} {read.row} {read.armor}: {read.cell.text}{critical}"


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
    effects = [f"+{entry.hits} hits" if entry.hits else "", f"bleed {entry.bleed}" if entry.bleed else "",
               f"stun {entry.stun}" if entry.stun else "", f"penalty {entry.penalty}" if entry.penalty else "", *entry.effects]
    tail = "; " + ", ".join(e for e in effects if e) if any(effects) else ""
    return head + title + tail
