"""A workbook file → raw sheets of cleaned values, bounded.

Only this module, raw.py and write.py import openpyxl, and only when they
need it, so commands that never touch a spreadsheet never pay for it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from tables_app.errors import Problem, WorkbookInvalid
from tables_app.sheets import calamine_read, guard
from tables_app.sheets.guard import MAX_COLUMNS, MAX_ROWS
from tables_app.sheets.raw import UNCACHED_FORMULA, RawSheet, RawWorkbook, guarded, open_book, read_sheet

if TYPE_CHECKING:  # openpyxl is imported only when it reads
    from openpyxl.worksheet._read_only import ReadOnlyWorksheet

# ``on_sheet(done, total, title)``: told after each sheet is read (progress).
SheetDone = Callable[[int, int, str], None]


def file_digest(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def read_workbook(path: str | Path, label: str | None = None, on_sheet: SheetDone | None = None, *,
                  reader: str = "calamine", meanwhile: Callable[[], object] | None = None) -> RawWorkbook:
    """Read a workbook; ``label`` is the name it is known by (default: its file
    name); ``on_sheet(done, total, title)`` is told after each sheet (progress).

    The guard checks the file first (sheets/guard/): .xlsx, .ods or .xls, told
    by its bytes. Values come from python-calamine in a sandboxed child
    (sheets/calamine_read.py); what calamine cannot see (error values, which it
    reads as blanks, formulas without a value, hidden rows) the guard notes
    and ``_with_layout`` applies. Where no child can be started (or with
    ``reader="openpyxl"``: the tests compare the two), openpyxl reads an
    .xlsx. ``meanwhile()``, if given, runs while the child is still reading
    (the caller's own preparations).
    """
    path = Path(path)
    name = label or path.name
    _check_name(name)
    guard.check_file(path, name)  # before the child opens it: a named pipe would block it
    # The sandboxed child reads while this process checks the file on the other
    # core: nothing it sends is used unless the guard passes the file.
    child = calamine_read.start(path, name, MAX_ROWS, MAX_COLUMNS) if reader == "calamine" and calamine_read.available() else None
    try:
        inspection = guard.inspect(path, name)
        sha256, size = file_digest(path)
        if meanwhile is not None:
            meanwhile()
        if child is not None:
            sheets = _read_with_calamine(child, name, inspection, on_sheet)
        elif inspection.format == "xlsx":
            sheets = _read_with_openpyxl(path, name, inspection, on_sheet)
        else:
            raise WorkbookInvalid([Problem(name, None, None, f"an .{inspection.format} workbook is read in a sandboxed "
                                           "process, which cannot be started here; save it as .xlsx")])
    finally:
        if child is not None:
            child.stop()
    sheets = [_with_layout(raw, inspection.layouts.get(raw.name, guard.SheetLayout())) for raw in sheets]
    return RawWorkbook(name, sha256, size, tuple(sheets))


def _check_name(name: str) -> None:
    """A workbook is kept in the database by its file name: one of bytes that
    are not UTF-8 (lone surrogates, from the command line) cannot be."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise WorkbookInvalid([Problem(name, None, None, "its file name is not UTF-8 text, and the database keeps a "
                                       "workbook by its name; rename the file")]) from None


def _with_layout(raw: RawSheet, layout: guard.SheetLayout) -> RawSheet:
    """The sheet with what the guard saw in it: its layout, its hidden state
    where the guard knows better, and the cells calamine reads as blanks that
    are not (error values, formulas without a value) marked."""
    raw = replace(raw, layout=layout, hidden=raw.hidden if layout.hidden is None else layout.hidden)
    raw = _mark(raw, dict.fromkeys(layout.uncached_formulas, UNCACHED_FORMULA))
    return _mark(raw, layout.errors, over_values=True)  # calamine may read an error as 0 (.ods): the error stands


def _read_with_calamine(child: calamine_read.SandboxedRead, name: str, inspection: guard.Inspection,
                        on_sheet: SheetDone | None) -> list[RawSheet]:
    sheets = child.result()  # cleaned and bounded by the child (raw.collect_rows)
    titles = [raw.name for raw in sheets]
    _check_sheet_list(name, titles, inspection)
    in_order = iter(sheets)
    return _each_sheet(titles, lambda _title: next(in_order), on_sheet)


def _read_with_openpyxl(path: Path, name: str, inspection: guard.Inspection,
                        on_sheet: SheetDone | None) -> list[RawSheet]:
    book = open_book(path, name)
    try:
        titles = [sheet.title for sheet in book.worksheets]
        _check_sheet_list(name, titles, inspection)
        # the first unreadable sheet, in workbook order, stops the read; each title is a
        # worksheet's, and a workbook opened read-only has ReadOnlyWorksheets
        return _each_sheet(titles, lambda title: guarded(name, cast("ReadOnlyWorksheet", book[title]), read_sheet),
                           on_sheet)
    finally:
        book.close()


def _each_sheet(titles: list[str], read: Callable[[str], RawSheet], on_sheet: SheetDone | None) -> list[RawSheet]:
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


def _mark(raw: RawSheet, marks: Mapping[tuple[int, int], object], over_values: bool = False) -> RawSheet:
    """Replace the blanks at these (row, column) positions by their marks
    (``over_values``: whatever is there)."""
    if not marks:
        return raw
    rows = {number: list(values) for number, values in raw.rows}
    for (number, column), mark in marks.items():
        values = rows.setdefault(number, [])
        values.extend([None] * (column - len(values)))
        if over_values or values[column - 1] is None or values[column - 1] == "":
            values[column - 1] = mark
    return replace(raw, rows=tuple((n, tuple(v)) for n, v in sorted(rows.items())))
