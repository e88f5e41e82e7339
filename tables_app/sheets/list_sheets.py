"""The list sheets, one thing per row: weapons, creatures, and the levels
of a severity scale (docs/workbook-format.md)."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import TypeVar

from tables_app.domain.bounds import CLUMSY, DEF, HP, MAX_RESULT, MODIFIER
from tables_app.domain.names import fold, shown
from tables_app.domain.ranges import DASHES, parse_range
from tables_app.domain.severity import Severity, SeverityScale
from tables_app.domain.creature_attacks import parse_attack, split_attacks
from tables_app.domain.tables import ColumnChoice, Creature, CreatureAttack, EffectTable, Rank, RollKind, Weapon
from tables_app.import_model import Defined
from tables_app.sheets.shape import Grid, Row
from tables_app.sheets.reading import Reading
from tables_app.sheets.values import as_int, as_tags, as_text, coordinate

E = TypeVar("E", bound=Enum)


def read_severities(reading: Reading, grid: Grid, ruleset: str) -> None:
    levels: list[Severity] = []
    seen: dict[str, str] = {}
    for row in grid.rows:
        code = reading.value(grid, row, "code", as_text, required=True)
        name = reading.value(grid, row, "name", as_text, required=True)
        modifier = reading.value(grid, row, "modifier", lambda v: as_int(v, "Modifier", MODIFIER), required=True)
        for label in {fold(x): x for x in (name, code) if x is not None}.values():  # code and name may be one (A, A)
            first = seen.get(fold(label))
            if first is not None:
                reading.problem(grid.sheet, reading.cell(grid, row, "code")[1], f"severity {label!r} is already defined in {first}")
            seen.setdefault(fold(label), reading.cell(grid, row, "code")[1])
        if code is not None and name is not None and modifier is not None:
            levels.append(Severity(code, name, modifier))
    if not grid.rows:
        reading.problem(grid.sheet, coordinate(grid.header_row + 1, 1), "a severities sheet needs at least one severity")
    name = grid.meta("name") or reading.raw.file_name.rsplit(".", 1)[0]
    cell = grid.cell_of("name")
    reading.out.scale = Defined(SeverityScale(name, tuple(levels)), name, grid.sheet, cell, grid.meta("source"), grid.meta("notes"), ruleset)


def read_weapons(reading: Reading, grid: Grid, ruleset: str) -> None:
    def table(kind: str) -> Callable[[str], str | None]:
        return lambda text: reading.table_named(kind, text, ruleset)

    def critical_table(text: str) -> str | None:
        return reading.critical_named(text, ruleset)

    for row in grid.rows:
        before = len(reading.out.problems)
        name = reading.value(grid, row, "name", as_text, required=True)
        attack = reading.reference(grid, row, "attack table", table("attack"), "attack table", True, ruleset)
        max_result = reading.value(grid, row, "max result", _max_result)  # blank: no cap (printed weapons)
        clumsy = reading.value(grid, row, "clumsy", _clumsy, required=True)
        critical = reading.reference(grid, row, "critical", critical_table, "critical table", True, ruleset)
        secondary = reading.reference(grid, row, "secondary critical", critical_table, "critical table", False, ruleset)
        fumble = reading.reference(grid, row, "fumble table", table("fumble"), "fumble table", False, ruleset)
        modifier = reading.value(grid, row, "fumble modifier", lambda v: as_int(v, "Fumble modifier", MODIFIER), default=0)
        roll = reading.value(grid, row, "roll", _roll_kind, default=RollKind.OE)
        notes = reading.value(grid, row, "notes", as_text)
        critical_column = reading.value(grid, row, "critical column", as_text)
        fumble_column = reading.value(grid, row, "fumble column", as_text)
        max_critical = reading.value(grid, row, "max critical", as_text)
        if len(reading.out.problems) > before:
            if name is not None:
                reading.failed_row("weapons", ruleset, name)
            continue
        # value() and reference() give None for a required or defaulted cell only with a problem: none was found
        assert name is not None and attack is not None and clumsy is not None and critical is not None
        assert modifier is not None and roll is not None
        _check_columns(reading, grid, row, ruleset, reading.out.critical_tables, (critical, secondary), "critical column", critical_column)
        _check_columns(reading, grid, row, ruleset, reading.out.fumble_tables, (fumble,), "fumble column", fumble_column)
        if max_critical is not None:
            max_critical = _max_critical(reading, grid, row, ruleset, attack, max_critical)
        if len(reading.out.problems) > before:
            reading.failed_row("weapons", ruleset, name)
            continue
        weapon = Weapon(name=name, attack_table=attack, max_result=max_result, clumsy=clumsy, critical=critical,
                        secondary_critical=secondary, fumble_table=fumble, fumble_modifier=modifier, roll=roll, notes=notes,
                        critical_column=critical_column, fumble_column=fumble_column, max_critical=max_critical)
        reading.out.weapons.append(Defined(weapon, name, grid.sheet, reading.cell(grid, row, "name")[1], grid.meta("source"), notes, ruleset))


def _check_columns(reading: Reading, grid: Grid, row: Row, ruleset: str, defined: list[Defined],
                   names: tuple[str | None, ...], column: str, given: str | None) -> None:
    """A weapon's Critical column or Fumble column against ``names``, its
    tables, where this workbook defines them (``defined``): a table read by
    the attack's column needs the weapon's, one of its own; a column given
    where no table is read that way is an error. Tables already in the
    database are checked when an attack is resolved (domain/table_rules.py):
    a later import may change them."""
    wanted = {fold(name) for name in names if name is not None}
    local = [d.value for d in reading.mine(defined, ruleset) if fold(d.name) in wanted]
    title = column.capitalize()
    if given is not None and not wanted:  # a Fumble column without a fumble table reads nothing
        reading.problem(grid.sheet, reading.cell(grid, row, column)[1], f"{title} {given!r} given, but the weapon has no "
                        f"{'fumble table' if column == 'fumble column' else 'critical table'}")
        return
    by_attack = [table for table in local if table.choice is ColumnChoice.ATTACK]
    problems = [problem for table in by_attack if (problem := _column_problem(table, given, title)) is not None]
    if given is not None and not by_attack and local and len(local) == len(wanted):
        problems.append(f"{title} {given!r} given, but " + "; ".join(f"{t.kind.value} table {t.name!r} {_how_read(t)}" for t in local))
    cell = reading.cell(grid, row, column)[1] or _table_cell(reading, grid, row, column)  # the column may be absent
    for problem in problems:
        reading.problem(grid.sheet, cell, problem)


def _max_critical(reading: Reading, grid: Grid, row: Row, ruleset: str, attack: str, given: str) -> str:
    """A weapon's Max critical: a severity of its attack table's scale, by code
    or name in any letter case, kept by its code, where this workbook defines
    the table. A table already in the database (or another workbook's) is
    checked when an attack is resolved (domain/table_rules.py): a later import
    may change its scale, and the weapon keeps the severity as written."""
    local = [d.value for d in reading.mine(reading.out.attack_tables, ruleset) if fold(d.name) == fold(attack)]
    if not local:
        return given
    scale = local[0].scale
    found = scale.find(given)
    if found is None:
        codes = ", ".join(level.code for level in scale.levels)
        reading.problem(grid.sheet, reading.cell(grid, row, "max critical")[1],
                        f"Max critical {given!r} is not a severity of attack table {local[0].name!r} (severities: {codes})")
        return given
    return found.code


def _table_cell(reading: Reading, grid: Grid, row: Row, column: str) -> str:
    """The cell naming the weapon's table, for a column the sheet lacks."""
    return reading.cell(grid, row, "critical" if column == "critical column" else "fumble table")[1]


def _column_problem(table: EffectTable, given: str | None, title: str) -> str | None:
    columns = ", ".join(table.columns)
    if given is None:
        return f"{table.kind.value} table {table.name!r} is read by column ({columns}): give the weapon its {title}"
    if table.column(given) is None:
        return f"{title} {given!r} is not a column of {table.kind.value} table {table.name!r} (columns: {columns})"
    return None


def _how_read(table: EffectTable) -> str:
    if table.choice is ColumnChoice.SEVERITY:
        return f"is read by severity ({', '.join(table.columns)})"
    return "has one column"


def read_creatures(reading: Reading, grid: Grid, ruleset: str) -> None:
    for row in grid.rows:
        before = len(reading.out.problems)
        name = reading.value(grid, row, "name", as_text, required=True)
        defense = reading.value(grid, row, "def", lambda v: as_int(v, "DEF", DEF), required=True)
        armor = reading.value(grid, row, "armor", as_text, required=True)
        rank = reading.value(grid, row, "rank", _rank, default=Rank.NORMAL)
        hp = reading.value(grid, row, "hp", lambda v: as_int(v, "HP", HP))
        features = reading.value(grid, row, "features", as_tags, default=())
        notes = reading.value(grid, row, "notes", as_text)
        written = reading.value(grid, row, "attacks", as_text)
        attacks = _attacks(reading, grid, row, ruleset, written) if written is not None else ()
        if len(reading.out.problems) > before:
            continue
        # value() gives None for a required or defaulted cell only with a problem: none was found
        assert name is not None and defense is not None and armor is not None and rank is not None and features is not None
        creature = Creature(name=name, defense=defense, armor=armor, rank=rank, hp=hp, features=features, notes=notes,
                            attacks=attacks)
        reading.out.creatures.append(Defined(creature, name, grid.sheet, reading.cell(grid, row, "name")[1], grid.meta("source"), notes, ruleset))


def _attacks(reading: Reading, grid: Grid, row: Row, ruleset: str, written: str) -> tuple[CreatureAttack, ...]:
    """A creature's Attacks cell (`Scimitar 55; Bite 40`, domain/creature_attacks.py):
    each a weapon of the creature's ruleset, this workbook's or the
    database's, in any letter case, kept as the weapon spells itself, and
    named once. Every bad piece is a problem on the cell."""
    cell = reading.cell(grid, row, "attacks")[1]
    try:
        pieces = split_attacks(written)
    except ValueError as exc:
        reading.problem(grid.sheet, cell, str(exc))
        return ()
    attacks: dict[str, CreatureAttack] = {}
    for piece in pieces:
        try:
            text, cmb = parse_attack(piece)
        except ValueError as exc:
            reading.problem(grid.sheet, cell, str(exc))
            continue
        weapon = reading.weapon_named(text, ruleset)
        if weapon is None:
            reading.problem(grid.sheet, cell, f"unknown weapon {shown(text)}{reading.hint('weapon', text, ruleset)}")
        elif fold(weapon) in attacks:
            reading.problem(grid.sheet, cell, f"weapon {weapon!r} is named twice: a creature has one attack with each weapon")
        else:
            attacks[fold(weapon)] = CreatureAttack(weapon, cmb)
    return tuple(attacks.values())


def _max_result(value: object) -> int:
    """A weapon's Max result, 1 to the bound (domain/bounds.py)."""
    return as_int(value, "Max result", MAX_RESULT, lambda n: "Max result must be at least 1" if n < MAX_RESULT[0] else None)


def _clumsy(value: object) -> int:
    """Clumsy Range `4` or `1-4` (1..N); 0 means the weapon never fumbles."""
    if isinstance(value, str) and any(dash in value.strip()[1:] for dash in DASHES):
        parsed = parse_range(value)
        if parsed.low != 1 or parsed.high is None:
            raise ValueError(f"Clumsy range {shown(value)} must start at 1 (write 4 or 1-4)")
        number = parsed.high
    else:
        number = as_int(value, "Clumsy", CLUMSY, lambda n: f"Clumsy {n} must be between {CLUMSY[0]} and {CLUMSY[1]}")
    if not CLUMSY[0] <= number <= CLUMSY[1]:  # a Clumsy Range is faces of the attack's d100
        raise ValueError(f"Clumsy {number} must be between {CLUMSY[0]} and {CLUMSY[1]}")
    return number


def _choice(enum: type[E], column: str, allowed: str) -> Callable[[object], E]:
    """A cell reader for a column whose values are an enum's, in any letter case."""
    def read(value: object) -> E:
        text = as_text(value).casefold()
        try:
            return enum(text)
        except ValueError:
            raise ValueError(f"{column} {shown(text)} must be {allowed}") from None
    return read


_roll_kind = _choice(RollKind, "Roll", "one of oe, oeh, oel, d100")
_rank = _choice(Rank, "Rank", "normal, heroic or epic")
