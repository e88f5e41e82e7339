"""Rows of one sheet → a RawSheet of cleaned values, bounded.

Both readers, python-calamine (calamine_read.py, the usual one) and openpyxl
(for sheets calamine cannot see into, and where no sandboxed child can be
started), hand their rows to ``collect_rows``, so a sheet reads the same
whichever reader read it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from tables_app.errors import Problem, WorkbookInvalid
from tables_app.sheets import guard
from tables_app.sheets.guard import MAX_COLUMNS, MAX_ROWS
from tables_app.sheets.rows import collect

if TYPE_CHECKING:  # openpyxl is imported only when it reads
    from openpyxl import Workbook
    from openpyxl.worksheet._read_only import ReadOnlyWorksheet


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


def open_book(path: Path, name: str) -> Workbook:
    """The workbook in openpyxl's read-only mode; WorkbookInvalid if it cannot be opened."""
    import openpyxl  # deferred: a heavy import

    assert openpyxl.DEFUSEDXML, "defusedxml must be installed so openpyxl parses XML safely"
    try:
        return openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds; all mean "cannot read"
        raise WorkbookInvalid([Problem(name, None, None, f"cannot open the workbook: {reason(exc)}")]) from None


def guarded(name: str, sheet: ReadOnlyWorksheet, read: Callable[[ReadOnlyWorksheet], RawSheet]) -> RawSheet:
    """Run ``read(sheet)``, turning whatever openpyxl raises into a located problem."""
    try:
        return read(sheet)
    except Exception as exc:  # openpyxl raises many kinds while streaming rows
        raise WorkbookInvalid([Problem(name, sheet.title, None, f"cannot read the sheet: {reason(exc)}")]) from None


def read_sheet(sheet: ReadOnlyWorksheet) -> RawSheet:
    # The guard has refused sheets with cells beyond the bounds, so rows come
    # at the width the sheet's dimension gives (padding every row to the bound
    # would triple the work). openpyxl is still held to the bounds, one past
    # them so that crossing them is seen, in case a file got something by the
    # guard: without a dimension, or with a wider one, rows are cut at the
    # bound, and no row past it is ever produced (nor the empty ones before it).
    width = sheet.max_column  # from the sheet's <dimension>; None without one
    columns = MAX_COLUMNS + 1 if width is None or width > MAX_COLUMNS else None
    values = sheet.iter_rows(  # type: ignore[misc]  # the stubs lend it Worksheet's, self type and all
        max_row=MAX_ROWS + 1, max_col=columns, values_only=True)
    rows = enumerate(values, start=1)
    return collect_rows(sheet.title, sheet.sheet_state != "visible", rows)


def collect_rows(title: str, hidden: bool, rows: Iterable[tuple[int, Sequence[object]]]) -> RawSheet:
    """A sheet from its (row number, values from column A) in order, read by
    either reader, cleaned and bounded (rows.py)."""
    kept, too_big = collect(rows, MAX_ROWS, MAX_COLUMNS)
    return RawSheet(title, hidden, tuple(kept), too_big)


def reason(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
