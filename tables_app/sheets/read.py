"""openpyxl in: a workbook file → raw sheets of cleaned values, bounded.

Only this module, raw.py and write.py import openpyxl, so commands that never
touch a spreadsheet never pay for it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from tables_app.errors import Problem, WorkbookInvalid
from tables_app.sheets import guard, workers
from tables_app.sheets.guard import MAX_COLUMNS, MAX_ROWS
from tables_app.sheets.raw import UNCACHED_FORMULA, RawSheet, RawWorkbook, attempt, guarded, open_book


def file_digest(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def read_workbook(path: str | Path, label: str | None = None, on_sheet=None) -> RawWorkbook:  # type: ignore[no-untyped-def]
    """Read a workbook; ``label`` is the name it is known by (default: its file
    name); ``on_sheet(done, total, title)`` is told after each sheet (progress).

    A big workbook's sheets are read in shares by helper processes too
    (sheets/workers.py); the result is the same as one process reading all.
    """
    path = Path(path)
    name = label or path.name
    inspection = guard.inspect(path, name)
    sha256, size = file_digest(path)
    shares = workers.plan(inspection.sheet_sizes)
    helpers = workers.start(path, name, shares[1:])  # before opening the book here: they start meanwhile
    try:
        book = open_book(path, name)
        try:
            titles = [sheet.title for sheet in book.worksheets]
            if sorted(titles) != sorted(title for title, _ in inspection.sheet_sizes):
                # openpyxl would read sheets the guard did not check: refuse, never read them unchecked
                raise WorkbookInvalid([Problem(name, None, None, "the workbook's sheet list does not read the same "
                                               "every way (a crafted file?); open and save it in a spreadsheet program")])
            outcomes = workers.collect(shares, helpers, lambda title: attempt(name, book[title]), on_sheet)
        finally:
            book.close()
    finally:
        workers.stop(helpers)
    sheets = []
    for title in titles:  # in workbook order, so the failure reported is the first, as in a lone read
        outcome = outcomes[title]
        if isinstance(outcome, WorkbookInvalid):
            raise outcome
        sheets.append(replace(outcome, layout=inspection.layouts.get(title, guard.SheetLayout())))
    sheets = [_mark_uncached(raw, raw.layout.uncached_formulas) for raw in sheets]
    if unlocated := {raw.name for raw in sheets if raw.layout.formulas_unlocated}:
        sheets = _locate_formulas(path, sheets, unlocated)
    return RawWorkbook(name, sha256, size, tuple(sheets))


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
