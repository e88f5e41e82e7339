"""The child process of sheets/calamine_read.py: read every worksheet of one
workbook with python-calamine and print its values as one JSON document.

It runs under an address-space limit and a timeout set by its parent, so a
file that makes calamine allocate without bound (cells at A1 and XFD1048576)
kills this process, never the import. It also cleans and bounds the rows
(sheets/rows.py, as the openpyxl reader does in-process): that
work runs here, on the other core, while the parent's guard checks the file.

Input, one JSON line on stdin: [sys.path, path, max_rows, max_columns] (the
command line sets sys.path from it, then calls main with the rest).
Output on stdout: {"sheets": [[title, hidden, too_big, [[row number, [values]], ...]], ...],
"special": [[sheet, row, column, {"datetime": ...}], ...]} (the values JSON has
no type for, and texts with line breaks as {"lines": ...}, by index, None in their place), or {"error": "Kind: first line"}.
"""

from __future__ import annotations

import datetime as dt
import json
import sys
from collections.abc import Sequence
from typing import Any

# JSON-ready: [title, hidden, too_big, [[row number, [values]], ...]] per sheet, and
# [sheet, row, column, tagged value] per value JSON has no type for (the module's docstring).
Sheet = list[object]
Special = list[object]

EXACT_FLOAT = 2**53  # an integral float below this is the int a spreadsheet shows


def encode(value: object) -> object:
    """A value JSON has no type for, as a tagged object."""
    if isinstance(value, dt.datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, dt.time):
        return {"time": value.isoformat()}
    if isinstance(value, dt.timedelta):
        return {"timedelta": value.total_seconds()}
    if lines := getattr(value, "lines", None):  # sheets/values.py's LinedText: the text with its line breaks
        return {"lines": lines}
    return str(value)


def read(path: str, max_rows: int, max_columns: int) -> tuple[list[Sheet], list[Special]]:
    from python_calamine import CalamineWorkbook, SheetTypeEnum, SheetVisibleEnum

    from tables_app.sheets.rows import collect  # not raw.py's collect_rows: its imports would slow the child's start

    with open(path, "rb") as handle:  # by its bytes, not its name: .xlsx, .ods and .xls alike
        book = CalamineWorkbook.from_filelike(handle)
    sheets: list[Sheet] = []
    special: list[Special] = []
    for meta in book.sheets_metadata:
        if meta.typ != SheetTypeEnum.WorkSheet:
            continue  # chart sheets hold no cells; openpyxl's worksheets leave them out too
        values = book.get_sheet_by_name(meta.name).to_python(skip_empty_area=False, nrows=max_rows + 1)
        # one past the bounds, so crossing them is seen; "" is calamine's blank
        rows = ((number, [v if type(v) is str and v else _typed(v) for v in row[:max_columns + 1]])
                for number, row in enumerate(values, start=1))
        collected, too_big = collect(rows, max_rows, max_columns)
        kept: list[list[object]] = []
        for number, cells in collected:
            row: Sequence[object] = cells
            if not _JSON.issuperset(map(type, cells)):
                row = listed = list(cells)
                for column, value in enumerate(listed):
                    if type(value) not in _JSON:
                        special.append([len(sheets), len(kept), column, encode(value)])
                        listed[column] = None
            kept.append([number, row])
        sheets.append([meta.name, meta.visible != SheetVisibleEnum.Visible, too_big, kept])
    return sheets, special


_JSON = frozenset({str, int, float, bool, type(None)})


def _typed(value: object) -> object:
    """A value as openpyxl gives it: blanks None, integral numbers int (as
    openpyxl reads `7`), dates as datetimes (midnight for a date)."""
    if value == "" or value is None:
        return None
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < EXACT_FLOAT else value
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return dt.datetime(value.year, value.month, value.day)
    return value


def main(request: list[Any]) -> None:
    path, max_rows, max_columns = request
    try:
        sheets, special = read(path, max_rows, max_columns)
        result: dict[str, object] = {"sheets": sheets, "special": special}
    except Exception as exc:  # calamine raises its own kinds and ValueError; all mean "cannot read"
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        result = {"error": f"{type(exc).__name__}: {text}" if text else type(exc).__name__}
    sys.stdout.write(json.dumps(result, ensure_ascii=False, separators=(",", ":")))  # one write: json.dump writes piece by piece
