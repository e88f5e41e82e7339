"""An attack sheet: a Result column of ranges, then one column per armor,
every cell an attack cell (docs/workbook-format.md, "attack")."""

from __future__ import annotations

from tables_app.domain.bounds import AUTOMATIC_MISS, AUTOMATIC_MISS_BOUND, D100, HITS
from tables_app.domain.cells import (AttackCell, Critical, ExtraLetters, Outcome, check_extra_letter, parse_attack_cell,
                                     parse_letter_definition)
from tables_app.domain.names import fold, shown
from tables_app.domain.ranges import Range, RangeTable
from tables_app.domain.severity import SeverityScale
from tables_app.domain.tables import AttackTable
from tables_app.import_model import Defined
from tables_app.sheets.grid import ATTACK_FIRST_COLUMN, is_letter_key
from tables_app.sheets.shape import Grid
from tables_app.sheets.reading import Reading
from tables_app.sheets.values import as_int, as_text, check_value, coordinate, is_blank


def read_attack_table(reading: Reading, grid: Grid, scale: SeverityScale, ruleset: str) -> None:
    name = grid.meta("name")
    armors = [(key, column) for key, column in grid.column_order if key != ATTACK_FIRST_COLUMN]
    automatic_miss, read = _automatic_miss(reading, grid, ruleset)
    broken = not read
    rows: list[tuple[Range, tuple[AttackCell, ...]]] = []
    unmodified: list[tuple[Range, tuple[AttackCell, ...]]] = []  # printed `UM 96-100` rows
    range_cells: list[str] = []
    unmodified_cells: list[str] = []
    row_numbers: list[int] = []  # the sheet row of each of ``rows``
    unmodified_numbers: list[int] = []  # and of each of ``unmodified``
    letters, letters_read = _extra_letters(reading, grid, scale, ruleset)
    broken = broken or not letters_read
    known, generation = reading.attack_cells, _generation(reading, scale, ruleset, letters)
    columns = [column for _, column in armors]
    for row in grid.rows:
        range_value, range_cell = reading.cell(grid, row, ATTACK_FIRST_COLUMN)
        label = reading.read_row_label(grid, range_value, range_cell)
        number, values = row
        width = len(values)
        row_values = [values[column - 1] if column <= width else None for column in columns]
        # the common case, every cell read before, without a call; else cell by cell in order (problems in order)
        found = [known.get((type(value), value, generation)) for value in row_values]
        cells = [parsed for parsed in found if parsed is not None]  # (`None in found` would call each cell's __eq__)
        if len(cells) != len(found):
            found = [parsed if parsed is not None else
                     _read_attack_cell(reading, grid.sheet, value, (number, column), scale, ruleset, letters)
                     for parsed, value, column in zip(found, row_values, columns)]
            cells = [parsed for parsed in found if parsed is not None]
        if label is not None:  # a row with a bad cell still covers its range
            row_range, by_die = label
            (unmodified if by_die else rows).append((row_range, tuple(cells)))
            (unmodified_numbers if by_die else row_numbers).append(number)
            (unmodified_cells if by_die else range_cells).append(range_cell)
        if label is None or len(cells) != len(armors):
            broken = True
    if not grid.rows:
        reading.problem(grid.sheet, coordinate(grid.header_row + 1, 1), "the grid has no rows")
        return
    if not rows:
        if unmodified:
            reading.problem(grid.sheet, unmodified_cells[0], "every row is a UM row; the result needs rows too")
        return  # else every range was unreadable, and said so
    # Rows may start anywhere (printed tables start at 01, or above 11): results below the lowest row miss.
    covered = reading.check_ranges(grid.sheet, [r for r, _ in rows], range_cells, must_cover_from=min(r.low for r, _ in rows))
    covered = _check_unmodified(reading, grid.sheet, unmodified, unmodified_cells) and covered
    covered = _check_clumsy_rows(reading, grid.sheet, rows, range_cells, unmodified, unmodified_cells, unmodified_numbers,
                                 [column for _, column in armors]) and covered
    if rows and covered and automatic_miss is not None and all(r.high is not None and r.high <= automatic_miss for r, _ in rows):
        reading.problem(grid.sheet, range_cells[0], f"every row is at or below the automatic miss ({automatic_miss}): "
                                                   "no result reads the table")
        return
    if broken or not covered or name is None:
        return
    table = AttackTable(name, tuple(a for a, _ in armors), RangeTable(rows), scale, automatic_miss=automatic_miss,
                        unmodified=RangeTable(unmodified) if unmodified else None)
    reading.out.attack_tables.append(Defined(table, name, grid.sheet, grid.cell_of("name"), grid.meta("source"), grid.meta("notes"),
                                             ruleset, rows_at=tuple(zip((r for r, _ in rows), row_numbers)),
                                             columns_at=tuple(column for _, column in armors), header_at=grid.header_row))


def _automatic_miss(reading: Reading, grid: Grid, ruleset: str) -> tuple[int | None, bool]:
    """`Automatic miss | 10` (the default, as VsD) or `none` (Rolemaster reads
    every row), on the sheet or its ruleset sheet; and whether it read."""
    written, sheet, cell = reading.setting(grid, "automatic miss", ruleset)
    if written is None:
        return AUTOMATIC_MISS, True
    if fold(written) in ("none", "no", "-", "\u2014"):
        return None, True
    try:
        value = as_int(written, "Automatic miss")
    except ValueError:
        value = -1
    low, high = AUTOMATIC_MISS_BOUND
    if not low <= value <= high:
        reading.problem(sheet, cell, f"Automatic miss {shown(written)} must be a whole number from {low} to {high}, or none")
        return None, False
    return value, True


def _check_unmodified(reading: Reading, sheet: str, rows: list[tuple[Range, tuple[AttackCell, ...]]], cells: list[str]) -> bool:
    """`UM` rows are faces of the first d100: within 1-100, none overlapping.
    (`UM 01-XX` is the weapon's Clumsy Range, whose faces fumble before any
    `UM` row is read: _check_clumsy_rows.)"""
    ok = True
    rows, cells = [r for r in rows if not r[0].clumsy], [c for r, c in zip(rows, cells) if not r[0].clumsy]
    for (span, _), cell in zip(rows, cells):
        if span.low < 1 or span.high is None or span.high > D100:
            reading.problem(sheet, cell, f"UM {span.label}: a UM row reads the unmodified d100, so it lies within 1-{D100}")
            ok = False
    ordered = sorted(zip(rows, cells), key=lambda item: item[0][0].low)
    for ((a, _), _), ((b, _), cell) in zip(ordered, ordered[1:]):
        if a.high is not None and b.low <= a.high:
            reading.problem(sheet, cell, f"UM rows {a.label} and {b.label} overlap")
            ok = False
    return ok


def _check_clumsy_rows(reading: Reading, sheet: str, rows: list[tuple[Range, tuple[AttackCell, ...]]], cells: list[str],
                       unmodified: list[tuple[Range, tuple[AttackCell, ...]]], unmodified_cells: list[str],
                       unmodified_numbers: list[int], columns: list[int]) -> bool:
    """Arms Law's rows bounded by the weapon's Clumsy Range (docs/workbook-format.md,
    "attack"): `UM 01-XX` once, `F` in every column (the Clumsy Range fumbles,
    whatever a cell would say); `XX-33` the lowest row, with rows above it."""
    ok = True
    seen: str | None = None
    for (span, row_cells), cell, number in zip(unmodified, unmodified_cells, unmodified_numbers):
        if not span.clumsy:
            continue
        if seen is not None:
            reading.problem(sheet, cell, f"UM {span.label} appears twice (rows {seen} and {cell})")
            ok = False
        seen = seen or cell
        if len(row_cells) != len(columns):
            continue  # a cell that did not read has said so
        for column, read in zip(columns, row_cells):
            if read.outcome is not Outcome.FUMBLE:
                reading.problem(sheet, coordinate(number, column), "UM 01-XX is the weapon's Clumsy Range, which fumbles "
                                f"before any row is read: write F in every column (not {read.text!r})")
                ok = False
    for (span, _), cell in zip(rows, cells):
        if not span.clumsy:
            continue
        # a row overlapping it is the coverage check's; one wholly below it would be read where the weapon's XX lies
        for (other, _), at in zip(rows, cells):
            if not other.clumsy and other.high is not None and other.high < span.low:
                reading.problem(sheet, at, f"{span.label} is the lowest row (it begins above the weapon's Clumsy Range), "
                                           f"but {other.label} is below it (rows {cell} and {at})")
                ok = False
        if all(other.clumsy for other, _ in rows):
            reading.problem(sheet, cell, f"{span.label} is the only row read by the result; add the rows above it (a weapon "
                                         f"whose Clumsy Range reaches {span.high} would read none)")
            ok = False
    return ok


def _generation(reading: Reading, scale: SeverityScale, ruleset: str, letters: ExtraLetters) -> tuple:
    """What a cell's reading depends on besides its value: the ruleset, the
    scale, the sheet's extra letters, and the critical tables known so far
    (a cell may name one read since, or one whose sheet failed)."""
    return fold(ruleset), scale.name, tuple(sorted(letters.items())), len(reading.out.critical_tables), reading.failed_count()


def _extra_letters(reading: Reading, grid: Grid, scale: SeverityScale, ruleset: str) -> tuple[ExtraLetters, bool]:
    """`Severity F | E Heat + A Impact`: letters beyond the scale that stand
    for several criticals (printed spell tables), and whether every one read
    (the others still serve their cells, so one bad letter is one problem)."""
    letters: dict[str, tuple[Critical, ...]] = {}
    ok = True
    for key, (value, cell) in grid.header.items():
        if not is_letter_key(key):
            continue
        letter = key.split()[1].upper()
        try:
            check_extra_letter(letter, scale)
            if is_blank(value):
                raise ValueError(f"extra letter {letter!r} needs its criticals (write Severity {letter} | E Heat + A Impact)")
            letters[letter] = parse_letter_definition(as_text(value), scale, lambda text: reading.critical_named(text, ruleset))
        except ValueError as exc:
            reading.problem(grid.sheet, cell, str(exc))
            ok = False
    return letters, ok


def _read_attack_cell(reading: Reading, sheet: str, value: object, where: tuple[int, int], scale: SeverityScale,
                      ruleset: str, letters: ExtraLetters) -> AttackCell | None:
    # Printed tables repeat the same few hundred cell texts: read each once.
    key = (type(value), value, _generation(reading, scale, ruleset, letters))
    if key in reading.attack_cells:
        return reading.attack_cells[key]
    if (failed := reading.attack_failures.get(key)) is not None:  # the same bad text is read once
        reading.same_text(sheet, where, failed)
        return None
    if (reason := check_value(value)) is not None:
        reading.attack_failures[key] = reason
        reading.same_text(sheet, where, reason)
        return None
    if is_blank(value):
        reading.empty(sheet, where, "empty cell (write a dash — for a miss)", "empty cells (write a dash — for a miss)")
        return None
    def critical_named(text: str) -> str | None:  # inside the sheet's ruleset only
        return reading.critical_named(text, ruleset)

    try:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            parsed = parse_attack_cell(as_int(value, "hits", HITS), scale, critical_named, letters)
        else:
            parsed = parse_attack_cell(as_text(value), scale, critical_named, letters)
    except ValueError as exc:
        reading.attack_failures[key] = str(exc)
        reading.same_text(sheet, where, str(exc))
        return None
    reading.attack_cells[key] = parsed
    return parsed
