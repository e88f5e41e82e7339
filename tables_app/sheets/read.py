"""A workbook file → raw sheets of cleaned values, bounded.

Only this module, raw.py and write.py import openpyxl, and only when they
need it, so commands that never touch a spreadsheet never pay for it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from tables_app.errors import Problem, WorkbookInvalid
from tables_app.sheets import calamine_read, guard
from tables_app.sheets.guard import MAX_COLUMNS, MAX_ROWS
from tables_app.sheets.raw import UNCACHED_FORMULA, RawSheet, RawWorkbook, collect_rows, guarded, open_book, read_sheet


def file_digest(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def read_workbook(path: str | Path, label: str | None = None, on_sheet=None, *,  # type: ignore[no-untyped-def]
                  reader: str = "calamine", meanwhile=None) -> RawWorkbook:
    """Read a workbook; ``label`` is the name it is known by (default: its file
    name); ``on_sheet(done, total, title)`` is told after each sheet (progress).

    The guard checks the file first (sheets/guard.py). Values come from
    python-calamine in a sandboxed child (sheets/calamine_read.py); sheets with
    error cells, which calamine reads as blanks, from openpyxl, as does every
    sheet where no child can be started (or ``reader="openpyxl"``: the tests
    compare the two). ``meanwhile()``, if given, runs while the child is still
    reading (the caller's own preparations).
    """
    path = Path(path)
    name = label or path.name
    # The sandboxed child reads while this process checks the file on the other
    # core: nothing it sends is used unless the guard passes the file.
    child = calamine_read.start(path, name, MAX_ROWS, MAX_COLUMNS) if reader == "calamine" and calamine_read.available() else None
    try:
        inspection = guard.inspect(path, name)
        sha256, size = file_digest(path)
        if meanwhile is not None:
            meanwhile()
        if child is not None:
            sheets = _read_with_calamine(child, path, name, inspection, on_sheet)
        else:
            sheets = _read_with_openpyxl(path, name, inspection, on_sheet)
    finally:
        if child is not None:
            child.stop()
    sheets = [replace(raw, layout=inspection.layouts.get(raw.name, guard.SheetLayout())) for raw in sheets]
    sheets = [_mark_uncached(raw, raw.layout.uncached_formulas) for raw in sheets]
    if unlocated := {raw.name for raw in sheets if raw.layout.formulas_unlocated}:
        sheets = _locate_formulas(path, sheets, unlocated)
    return RawWorkbook(name, sha256, size, tuple(sheets))


def _read_with_calamine(child: calamine_read.Reading, path: Path, name: str, inspection: guard.Inspection,  # type: ignore[no-untyped-def]
                        on_sheet) -> list[RawSheet]:
    titles, values = child.result()
    _check_sheet_list(name, titles, inspection)
    # calamine reads an error cell (#N/A) as a blank, which would import as one:
    # the guard saw which sheets have them, and openpyxl reads those.
    with_errors = [t for t in titles if inspection.layouts.get(t, guard.SheetLayout()).error_cells]
    by_openpyxl = {}
    if with_errors:
        book = open_book(path, name)
        try:
            by_openpyxl = {title: guarded(name, book[title], read_sheet) for title in with_errors}
        finally:
            book.close()
    return _each_sheet(titles, lambda title: by_openpyxl.get(title) or collect_rows(title, *values[title]), on_sheet)


def _read_with_openpyxl(path: Path, name: str, inspection: guard.Inspection, on_sheet) -> list[RawSheet]:  # type: ignore[no-untyped-def]
    book = open_book(path, name)
    try:
        titles = [sheet.title for sheet in book.worksheets]
        _check_sheet_list(name, titles, inspection)
        # the first unreadable sheet, in workbook order, stops the read
        return _each_sheet(titles, lambda title: guarded(name, book[title], read_sheet), on_sheet)
    finally:
        book.close()


def _each_sheet(titles: list[str], read, on_sheet) -> list[RawSheet]:  # type: ignore[no-untyped-def]
    """Every sheet in workbook order, telling ``on_sheet`` (progress) after each."""
    sheets = []
    for done, title in enumerate(titles, start=1):
        sheets.append(read(title))
        if on_sheet is not None:
            on_sheet(done, len(titles), title)
    return sheets


def _check_sheet_list(name: str, titles: list[str], inspection: guard.Inspection) -> None:
    if sorted(titles) != sorted(title for title, _ in inspection.sheet_sizes):
        # the reader would read sheets the guard did not check: refuse, never read them unchecked
        raise WorkbookInvalid([Problem(name, None, None, "the workbook's sheet list does not read the same "
                                       "every way (a crafted file?); open and save it in a spreadsheet program")])


def _mark_uncached(raw: RawSheet, positions: Iterable[tuple[int, int]]) -> RawSheet:
    """Replace the blanks that are really formulas without a value by a marker."""
    if not positions:
        return raw
    rows = {number: list(values) for number, values in raw.rows}
    for number, column in positions:
        values = rows.setdefault(number, [])
        values.extend([None] * (column - len(values)))
        if values[column - 1] is None or values[column - 1] == "":
            values[column - 1] = UNCACHED_FORMULA
    return replace(raw, rows=tuple((n, tuple(v)) for n, v in sorted(rows.items())))


def _locate_formulas(path: Path, sheets: list[RawSheet], titles: set[str]) -> list[RawSheet]:
    """Where the guard could not locate every formula (cells without `r="…"`),
    openpyxl finds them in a second pass over those sheets only."""
    import openpyxl

    book = openpyxl.load_workbook(path, read_only=True, data_only=False)
    try:
        return [_mark_uncached(raw, guarded(raw.name, book[raw.name], _formula_positions)) if raw.name in titles else raw
                for raw in sheets]
    finally:
        book.close()


def _formula_positions(sheet) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    positions = []
    for number, values in enumerate(
        sheet.iter_rows(min_row=1, max_row=MAX_ROWS, max_col=MAX_COLUMNS, values_only=True), start=1
    ):
        for column, value in enumerate(values, start=1):
            if (isinstance(value, str) and value.startswith("=")) or type(value).__name__ in ("ArrayFormula", "DataTableFormula"):
                positions.append((number, column))
    return positions
