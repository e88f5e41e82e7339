"""An attack sheet: a Result column of ranges, then one column per armor,
every cell an attack cell (docs/workbook-format.md, "attack")."""

from __future__ import annotations

from tables_app.domain.bounds import LOWEST_ATTACK_RESULT
from tables_app.domain.cells import AttackCell, parse_attack_cell
from tables_app.domain.names import fold
from tables_app.domain.ranges import Range, RangeTable
from tables_app.domain.severity import SeverityScale
from tables_app.domain.tables import AttackTable
from tables_app.import_model import Defined
from tables_app.sheets.grid import ATTACK_FIRST_COLUMN
from tables_app.sheets.shape import Grid
from tables_app.sheets.reading import Reading
from tables_app.sheets.values import as_int, as_text, check_value, coordinate, is_blank


def read_attack_table(reading: Reading, grid: Grid, scale: SeverityScale, ruleset: str) -> None:
    name = grid.meta("name")
    armors = [(key, column) for key, column in grid.column_order if key != ATTACK_FIRST_COLUMN]
    rows: list[tuple[Range, tuple[AttackCell, ...]]] = []
    range_cells: list[str] = []
    broken = False
    known, generation = reading.attack_cells, _generation(reading, scale, ruleset)
    for row in grid.rows:
        range_value, range_cell = reading.cell(grid, row, ATTACK_FIRST_COLUMN)
        row_range = reading.read_range(grid, range_value, range_cell)
        cells: list[AttackCell] = []
        number, values = row
        for _, column in armors:
            value = values[column - 1] if column <= len(values) else None
            parsed = known.get((type(value), value, generation))  # the common case, without a call
            if parsed is None:
                parsed = _read_attack_cell(reading, grid.sheet, value, (number, column), scale, ruleset)
            if parsed is not None:
                cells.append(parsed)
        if row_range is not None:  # a row with a bad cell still covers its range
            rows.append((row_range, tuple(cells)))
            range_cells.append(range_cell)
        if row_range is None or len(cells) != len(armors):
            broken = True
    if not grid.rows:
        reading.problem(grid.sheet, coordinate(grid.header_row + 1, 1), "the grid has no rows")
        return
    covered = reading.check_ranges(
        grid.sheet, [r for r, _ in rows], range_cells, must_cover_from=LOWEST_ATTACK_RESULT
    )
    if rows and covered and all(r.high is not None and r.high < LOWEST_ATTACK_RESULT for r, _ in rows):
        reading.problem(grid.sheet, range_cells[0], f"rows must cover {LOWEST_ATTACK_RESULT} upward")
        return
    if broken or not covered or name is None:
        return
    table = AttackTable(name, tuple(a for a, _ in armors), RangeTable(rows), scale)
    reading.out.attack_tables.append(Defined(table, name, grid.sheet, grid.cell_of("name"), grid.meta("source"), grid.meta("notes"), ruleset))


def _generation(reading: Reading, scale: SeverityScale, ruleset: str) -> tuple[str, str, int]:
    """What a cell's reading depends on besides its value: the ruleset, the
    scale, and the critical tables known so far (a cell may name one read since)."""
    return fold(ruleset), scale.name, len(reading.out.critical_tables)


def _read_attack_cell(reading: Reading, sheet: str, value: object, where: tuple[int, int], scale: SeverityScale,
                      ruleset: str) -> AttackCell | None:
    # Printed tables repeat the same few hundred cell texts: read each once.
    key = (type(value), value, _generation(reading, scale, ruleset))
    if key in reading.attack_cells:
        return reading.attack_cells[key]
    cell = coordinate(*where)  # only cells read for the first time need their name
    if (reason := check_value(value)) is not None:
        reading.problem(sheet, cell, reason)
        return None
    if is_blank(value):
        reading.empty(sheet, where, "empty cell (write a dash — for a miss)", "empty cells (write a dash — for a miss)")
        return None
    def critical_named(text: str) -> str | None:  # inside the sheet's ruleset only
        return reading.critical_named(text, ruleset)

    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            parsed = parse_attack_cell(as_int(value, "hits"), scale, critical_named)
        else:
            parsed = parse_attack_cell(as_text(value), scale, critical_named)
    except ValueError as exc:
        reading.problem(sheet, cell, str(exc))
        return None
    reading.attack_cells[key] = parsed
    return parsed
