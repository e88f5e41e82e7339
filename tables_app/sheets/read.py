"""openpyxl in: a workbook file → raw sheets of cleaned values, bounded.

Only this module (and write.py) imports openpyxl, so commands that never
touch a spreadsheet never pay for it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from tables_app.errors import Problem, WorkbookInvalid
from tables_app.sheets import guard, workers
from tables_app.sheets.guard import MAX_COLUMNS, MAX_ROWS
from tables_app.sheets.values import clean


class UncachedFormula:
    """A formula cell saved without its computed value (e.g. written by a script)."""

    def __str__(self) -> str:
        return "a formula without a cached value"


UNCACHED_FORMULA = UncachedFormula()


@dataclass(frozen=True)
class RawSheet:
    """One sheet: its non-empty rows as (row number, values from column A)."""

    name: str
    hidden: bool
    rows: tuple[tuple[int, tuple[object, ...]], ...]
    too_big: bool = False
    layout: guard.SheetLayout = field(default_factory=guard.SheetLayout)  # hidden rows/columns, merged cells


@dataclass(frozen=True)
class RawWorkbook:
    file_name: str
    sha256: str
    size_bytes: int
    sheets: tuple[RawSheet, ...]


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


def open_book(path: Path, name: str):  # type: ignore[no-untyped-def]
    """The workbook in openpyxl's read-only mode; WorkbookInvalid if it cannot be opened."""
    import openpyxl  # deferred: a heavy import

    assert openpyxl.DEFUSEDXML, "defusedxml must be installed so openpyxl parses XML safely"
    try:
        return openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds; all mean "cannot read"
        raise WorkbookInvalid([Problem(name, None, None, f"cannot open the workbook: {_reason(exc)}")]) from None


def attempt(name: str, sheet) -> RawSheet | WorkbookInvalid:  # type: ignore[no-untyped-def]
    """The sheet read, or why it cannot be."""
    try:
        return _guarded(name, sheet, _read_sheet)
    except WorkbookInvalid as exc:
        return exc


def _guarded(name: str, sheet, read):  # type: ignore[no-untyped-def]
    """Run ``read(sheet)``, turning whatever openpyxl raises into a located problem."""
    try:
        return read(sheet)
    except Exception as exc:  # openpyxl raises many kinds while streaming rows
        raise WorkbookInvalid([Problem(name, sheet.title, None, f"cannot read the sheet: {_reason(exc)}")]) from None


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
        return [_mark_uncached(raw, _guarded(raw.name, book[raw.name], _formula_positions)) if raw.name in titles else raw
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


STRAY_BLOCK = 3  # header block, grid, then anything at all is stray


def _read_sheet(sheet) -> RawSheet:  # type: ignore[no-untyped-def]
    """The sheet's non-empty rows, up to the first row of a third block of
    rows (header block, grid, stray cells): the read stops at once there."""
    rows: list[tuple[int, tuple[object, ...]]] = []
    too_big = False
    blocks = 0
    # The guard has refused sheets with cells beyond the bounds, so rows come
    # at the width the sheet's dimension gives (padding every row to the bound
    # would triple the work). openpyxl is still held to the bounds, one past
    # them so that crossing them is seen, in case a file got something by the
    # guard: without a dimension, or with a wider one, rows are cut at the
    # bound, and no row past it is ever produced (nor the empty ones before it).
    width = sheet.max_column  # from the sheet's <dimension>; None without one
    columns = MAX_COLUMNS + 1 if width is None or width > MAX_COLUMNS else None
    for number, values in enumerate(sheet.iter_rows(max_row=MAX_ROWS + 1, max_col=columns, values_only=True), start=1):
        cleaned = tuple(map(clean, values))
        end = len(cleaned)
        while end and (cleaned[end - 1] is None or cleaned[end - 1] == ""):
            end -= 1
        if not end:
            continue
        cleaned = cleaned[:end]
        if number > MAX_ROWS or len(cleaned) > MAX_COLUMNS:
            too_big = True
            break
        if not rows or number > rows[-1][0] + 1:
            blocks += 1
        rows.append((number, cleaned))
        if blocks == STRAY_BLOCK:
            break
    return RawSheet(sheet.title, sheet.sheet_state != "visible", tuple(rows), too_big)


def _reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
