"""Merged cells inside a grid (docs/workbook-format.md, "Sheet layout").

Books print boxes spanning many rows (Arms Law), and transcribers merge the
cells of such a box. A spreadsheet keeps the box's value in its top-left
cell and shows it over the whole box, so a merged box whose other cells are
empty is read as its value in every cell, as a reader sees it. What a
reader cannot see, or what would change the grid's shape, is refused: a
merge over a value (the cell under the box still holds something), a merge
taking in the grid's header row or the column that labels each row (Result,
Roll, Name, Code), one reaching outside the grid, and any merge in the
header block.
"""

from __future__ import annotations

from tables_app.sheets.reading import Reading
from tables_app.sheets.shape import Row
from tables_app.sheets.values import coordinate, is_blank

# The column that labels each row of a grid, by kind: never merged, each row has its own.
ROW_LABELS = {"attack": ("result", "range"), "critical": ("roll", "range"), "fumble": ("roll", "range"),
              "weapons": ("name", "name"), "creatures": ("name", "name"), "severities": ("code", "code")}


def filled(reading: Reading, sheet: str, kind: str, merges: list[tuple[int, int, int, int]], header_row: int,
           header: tuple[object, ...], rows: list[Row], width: int) -> list[Row] | None:
    """The grid's data rows with each merged box's value in every cell it
    covers; None (with a problem for each merge refused) if any is refused.
    ``merges`` are (min_row, min_col, max_row, max_col); those wholly outside
    the grid's rows and columns are not the grid's (stray cells are told apart)."""
    if not merges:
        return rows  # the common case: nothing to copy
    last_row = rows[-1][0] if rows else header_row
    values = {number: list(cells) for number, cells in rows}
    label, what = ROW_LABELS.get(kind, ("", ""))
    label_column = next((c for c, v in enumerate(header, start=1) if isinstance(v, str) and v.strip().casefold() == label), None)
    ok = True
    for box in sorted(merges):
        min_row, min_col, max_row, max_col = box
        if min_row > last_row or min_col > width:
            continue
        problem = _refusal(box, header_row, last_row, width, label_column, label.title(), what, values)
        if problem is not None:
            reading.problem(sheet, *problem)
            ok = False
            continue
        top_left = _value(values, min_row, min_col)
        for number in range(min_row, max_row + 1):
            cells = values[number]
            cells.extend([None] * (max_col - len(cells)))
            cells[min_col - 1:max_col] = [top_left] * (max_col - min_col + 1)
    return [(number, tuple(cells)) for number, cells in sorted(values.items())] if ok else None


def _refusal(box: tuple[int, int, int, int], header_row: int, last_row: int, width: int, label_column: int | None,
             label: str, what: str, values: dict[int, list[object]]) -> tuple[str, str] | None:
    """(cell, message) when a merge is not a box of the grid's data cells over empty cells."""
    min_row, min_col, max_row, max_col = box
    corner = coordinate(min_row, min_col)
    span = f"{corner}:{coordinate(max_row, max_col)}"
    if min_row < header_row:
        return corner, f"merged cells {span} are in the header block; unmerge them (a key and its value have a cell each)"
    if min_row == header_row:
        return corner, f"merged cells {span} take in the grid's header row {header_row}; unmerge them (each column is named in its own cell)"
    if label_column is not None and min_col <= label_column <= max_col:
        return corner, f"merged cells {span} take in the {label} column; unmerge them and write each row's {what} in its own cell"
    if max_row > last_row:
        return corner, f"merged cells {span} reach below the grid (its last row is {last_row}); unmerge them"
    if max_col > width:
        return corner, f"merged cells {span} reach past the grid's last column ({coordinate(1, width)[:-1]}); unmerge them"
    for number in range(min_row, max_row + 1):
        for column in range(min_col, max_col + 1):
            hidden = _value(values, number, column)
            if (number, column) != (min_row, min_col) and not is_blank(hidden):
                shown = hidden if isinstance(hidden, str) else str(hidden)
                return (coordinate(number, column), f"merged cells {span} hide a value in {coordinate(number, column)} "
                        f"({shown[:40]!r}): unmerge them, or clear the cells under the merge")
    return None


def _value(values: dict[int, list[object]], number: int, column: int) -> object:
    cells = values.get(number, [])
    return cells[column - 1] if column <= len(cells) else None
