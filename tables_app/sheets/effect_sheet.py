"""A critical or fumble sheet: one entry per roll range, or two branches
of a range under a condition (docs/workbook-format.md, "critical", "fumble")."""

from __future__ import annotations

from collections import defaultdict

from tables_app.domain.bounds import D100
from tables_app.domain.names import fold, same_name
from tables_app.domain.ranges import Range, RangeTable
from tables_app.domain.severity import SeverityScale
from tables_app.domain.tables import EffectTable, Entry, TableKind, condition_feature
from tables_app.import_model import Defined
from tables_app.sheets.shape import Grid
from tables_app.sheets.reading import Reading
from tables_app.sheets.values import as_int, as_tags, as_text, coordinate


def read_effect_table(reading: Reading, grid: Grid, kind: TableKind, scale: SeverityScale, ruleset: str) -> None:
    name = grid.meta("name")
    located = _read_entries(reading, grid)
    groups: dict[Range, list[tuple[Entry, str]]] = defaultdict(list)
    for entry, cell, _ in located:
        groups[entry.range].append((entry, cell))
    rows: list[tuple[Range, tuple[Entry, ...]]] = []
    for table_range, members in groups.items():
        if _check_branches(reading, grid.sheet, members):
            rows.append((table_range, tuple(entry for entry, _ in members)))
    top = D100 + (scale.max_modifier if kind is TableKind.CRITICAL else 0)
    cells = [members[0][1] for members in groups.values()]
    reading.check_ranges(grid.sheet, list(groups), cells, must_cover_from=1, must_cover_to=top)
    sound = sum(1 for _, _, ok in located if ok)
    if name is None or sound != len(grid.rows) or not rows:
        if not grid.rows:
            reading.problem(grid.sheet, coordinate(grid.header_row + 1, 1), "the grid has no rows")
        return
    code = grid.meta("code") if kind is TableKind.CRITICAL else None
    if kind is TableKind.CRITICAL:
        _check_critical_name(reading, grid, name, ruleset)
    if code is not None:
        _check_code(reading, grid, name, code, ruleset)
    for key in ("code", "severities"):
        if kind is TableKind.FUMBLE and key in grid.header:
            reading.problem(grid.sheet, grid.header[key][1], f"only critical and attack tables have {key.title()} in the header block")
    table = EffectTable(kind, name, RangeTable(rows), code, scale)
    target = reading.out.critical_tables if kind is TableKind.CRITICAL else reading.out.fumble_tables
    target.append(Defined(table, name, grid.sheet, grid.cell_of("name"), grid.meta("source"), grid.meta("notes"), ruleset))


def _read_entries(reading: Reading, grid: Grid) -> list[tuple[Entry, str, bool]]:
    """Every row with a readable range, its range cell, and whether it is sound."""
    entries = []
    for row in grid.rows:
        range_value, range_cell = reading.cell(grid, row, "roll")
        parsed_range = reading.read_range(grid, range_value, range_cell)
        text = reading.value(grid, row, "text", as_text, required=True)
        numbers = {
            column: reading.value(grid, row, column, lambda v, c=column: _count(v, c.title()) if c != "penalty" else as_int(v, "Penalty"), default=0)
            for column in ("hits", "bleed", "stun", "penalty")
        }
        effects = reading.value(grid, row, "effects", as_tags, default=())
        condition = reading.value(grid, row, "condition", lambda v: fold(as_text(v)))
        title = reading.value(grid, row, "title", as_text)
        if parsed_range is None:
            continue
        if text is None or None in numbers.values() or effects is None:
            # keep the range so coverage is judged on what the author wrote
            entries.append((Entry(parsed_range, "", condition=condition), range_cell, False))
            continue
        entries.append((Entry(parsed_range, text, title, effects=effects, condition=condition, **numbers), range_cell, True))
    return entries


def _check_code(reading: Reading, grid: Grid, name: str, code: str, ruleset: str) -> None:
    """A code names one critical table of its ruleset and is nobody else's name or code there."""
    cell = grid.header["code"][1]
    key = fold(code)
    for other in reading.mine(reading.out.critical_tables, ruleset):
        if key in (fold(other.name), fold(other.value.code or "")):
            reading.problem(grid.sheet, cell, f"critical code {code!r} already names {other.name!r} ({other.sheet})")
            return
    if key == fold(name):
        return
    found = reading.catalog.shelf(ruleset).critical.get(key)
    if found and not same_name(found[0], name) and not reading.catalog.owned_by("critical", ruleset, found[0], reading.raw.file_name):
        reading.problem(grid.sheet, cell, f"critical code {code!r} already names critical table {found[0]!r}")


def _check_critical_name(reading: Reading, grid: Grid, name: str, ruleset: str) -> None:
    """A table's name must not be another table's code in its ruleset (`S` would be ambiguous)."""
    key = fold(name)
    for other in reading.mine(reading.out.critical_tables, ruleset):
        if other.value.code and fold(other.value.code) == key:
            reading.problem(grid.sheet, grid.cell_of("name"), f"name {name!r} is the code of critical table {other.name!r}")
            return
    found = reading.catalog.shelf(ruleset).critical.get(key)
    if found and fold(found[0]) != key and not reading.catalog.owned_by("critical", ruleset, found[0], reading.raw.file_name):
        reading.problem(grid.sheet, grid.cell_of("name"), f"name {name!r} is the code of critical table {found[0]!r}")


def _check_branches(reading: Reading, sheet: str, members: list[tuple[Entry, str]]) -> bool:
    conditions = [entry.condition for entry, _ in members]
    cell = members[-1][1]
    label = members[0][0].range.label
    if len(members) == 1:
        if conditions[0] is not None:
            feature, _ = condition_feature(conditions[0])
            reading.problem(sheet, cell, f"condition {conditions[0]!r} needs a second row {label} for the other branch ({feature!r} / 'not {feature}')")
            return False
        return True
    if len(members) > 2:
        reading.problem(sheet, cell, f"roll {label} appears {len(members)} times; a range has one row or two conditional branches")
        return False
    if None in conditions:
        reading.problem(sheet, cell, f"roll {label} appears twice; give both rows a Condition (e.g. 'helm' and 'not helm')")
        return False
    (f1, p1), (f2, p2) = (condition_feature(c) for c in conditions)  # type: ignore[arg-type]
    if f1 != f2 or p1 == p2:
        reading.problem(sheet, cell, f"the branches of {label} must be a feature and its negation ('helm' / 'not helm'), not {conditions[0]!r} / {conditions[1]!r}")
        return False
    return True


def _count(value: object, what: str) -> int:
    number = as_int(value, what)
    if number < 0:
        raise ValueError(f"{what} must not be negative, not {number}")
    return number
