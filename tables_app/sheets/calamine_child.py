"""The child process of sheets/calamine_read.py: read every worksheet of one
workbook with python-calamine and print its values as one JSON document.

It runs under an address-space limit and a timeout set by its parent, so a
file that makes calamine allocate without bound (cells at A1 and XFD1048576)
kills this process, never the import. It imports nothing of tables_app and
cleans nothing: the parent turns the values into RawSheets exactly as the
openpyxl reader does (sheets/raw.py).

Input, one JSON line on stdin: [sys.path, path, max_rows, max_columns] (the
command line sets sys.path from it, then calls main with the rest).
Output on stdout: {"sheets": [[title, hidden, [[row number, [values]], ...]], ...]}
or {"error": "Kind: first line"}.
"""

from __future__ import annotations

import datetime as dt
import json
import sys

EXACT_FLOAT = 2**53  # an integral float below this is the int a spreadsheet shows


def encode(value: object) -> object:
    """A cell's value as JSON: blanks None, integral numbers int (as openpyxl
    reads `7`), dates as openpyxl gives them (a datetime, midnight for a date)."""
    if isinstance(value, str):
        return value if value else None
    if isinstance(value, bool) or isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < EXACT_FLOAT else value
    if isinstance(value, dt.datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, dt.date):
        return {"datetime": dt.datetime(value.year, value.month, value.day).isoformat()}
    if isinstance(value, dt.time):
        return {"time": value.isoformat()}
    if isinstance(value, dt.timedelta):
        return {"timedelta": value.total_seconds()}
    return str(value)


def read(path: str, max_rows: int, max_columns: int) -> list:
    from python_calamine import CalamineWorkbook, SheetTypeEnum, SheetVisibleEnum

    book = CalamineWorkbook.from_path(path)
    sheets = []
    for meta in book.sheets_metadata:
        if meta.typ != SheetTypeEnum.WorkSheet:
            continue  # chart sheets hold no cells; openpyxl's worksheets leave them out too
        values = book.get_sheet_by_name(meta.name).to_python(skip_empty_area=False, nrows=max_rows + 1)
        rows = []
        for number, row in enumerate(values, start=1):
            row = row[:max_columns + 1]  # one past the bounds, so crossing them is seen
            end = len(row)
            while end and row[end - 1] == "":  # calamine's blank
                end -= 1
            if end:  # text passes as it is (most cells); anything else is encoded
                rows.append([number, [v if type(v) is str and v else encode(v) for v in row[:end]]])
        sheets.append([meta.name, meta.visible != SheetVisibleEnum.Visible, rows])
    return sheets


def main(request: list) -> None:
    path, max_rows, max_columns = request
    try:
        result: dict = {"sheets": read(path, max_rows, max_columns)}
    except Exception as exc:  # calamine raises its own kinds and ValueError; all mean "cannot read"
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        result = {"error": f"{type(exc).__name__}: {text}" if text else type(exc).__name__}
    sys.stdout.write(json.dumps(result, ensure_ascii=False, separators=(",", ":")))  # one write: json.dump writes piece by piece
