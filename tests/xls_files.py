"""Legacy .xls workbooks for the tests: written with xlwt, converted from an
.xlsx, and patched record by record where xlwt cannot write something
(error formulas, FILEPASS, cells or dimensions past the bounds).

xlwt pads a small Workbook stream with zeros to 4,096 bytes and stores it in
one run of sectors, so records can be inserted and the stream written back
in place, the same length, without rewriting the compound file around it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from helpers import Rows

BOF, EOF, BOUNDSHEET = 0x0809, 0x000A, 0x0085
XLS_TEXT_LIMIT = 32_767  # characters in one .xls text cell
XLS_TITLE_LIMIT = 31


@dataclass(frozen=True)
class ErrorValue:
    """A cell holding an error value (BOOLERR), by its BIFF code: 0x2A is #N/A."""

    code: int


def write_xls(path: Path, sheets: dict[str, Rows], hidden: tuple[str, ...] = (),
              each: Callable[[str, object], None] | None = None) -> Path:
    """Write an .xls with one sheet per entry (as helpers.build_workbook
    writes an .xlsx); ``each(title, sheet)`` may change each xlwt sheet."""
    import datetime

    import xlwt

    book = xlwt.Workbook(encoding="utf-8")
    dates = xlwt.easyxf(num_format_str="yyyy-mm-dd")
    for title, rows in sheets.items():
        sheet = book.add_sheet(title, cell_overwrite_ok=True)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                if value is None:
                    continue
                if isinstance(value, ErrorValue):
                    sheet.row(r).set_cell_error(c, value.code)
                elif isinstance(value, str) and value.startswith("'"):  # 'text: text, as in build_workbook
                    sheet.write(r, c, value[1:])
                elif isinstance(value, (datetime.date, datetime.datetime)):
                    sheet.write(r, c, value, dates)
                else:
                    sheet.write(r, c, value)
        if title in hidden:
            sheet.visibility = 1
        if each is not None:
            each(title, sheet)
    book.save(str(path))
    return path


def xlsx_to_xls(xlsx: Path, xls: Path) -> Path:
    """The .xlsx's worksheets (their cached values, as openpyxl reads them
    with data_only) written as an .xls; refuses what .xls cannot hold."""
    import openpyxl

    book = openpyxl.load_workbook(xlsx, data_only=True)
    try:
        sheets: dict[str, Rows] = {}
        hidden = []
        for sheet in book.worksheets:
            if len(sheet.title) > XLS_TITLE_LIMIT:
                raise ValueError(f"{xlsx.name}: sheet name '{sheet.title}' is longer than {XLS_TITLE_LIMIT} characters")
            rows = [list(values) for values in sheet.iter_rows(values_only=True)]
            for values in rows:
                for value in values:
                    if isinstance(value, str) and len(value) > XLS_TEXT_LIMIT:
                        raise ValueError(f"{xlsx.name}: a text of {len(value):,} characters in {sheet.title}")
            sheets[sheet.title] = rows
            if sheet.sheet_state != "visible":
                hidden.append(sheet.title)
    finally:
        book.close()
    return write_xls(xls, sheets, hidden=tuple(hidden))


# -- the Workbook stream, record by record ---------------------------------

Record = tuple[int, bytes]  # (type, data)


def read_stream(path: Path) -> bytes:
    import olefile

    with olefile.OleFileIO(str(path)) as ole:
        return ole.openstream("Workbook").read()


def records(path: Path) -> list[Record]:
    """The Workbook stream's records, up to where only zero padding is left."""
    stream = read_stream(path)
    found, position = [], 0
    while position + 4 <= len(stream) and stream[position:].strip(b"\0"):
        kind, length = struct.unpack_from("<HH", stream, position)
        found.append((kind, stream[position + 4:position + 4 + length]))
        position += 4 + length
    return found


def sheet_records(found: list[Record], index: int) -> tuple[int, int]:
    """Where sheet ``index`` (0-based) starts and ends (its EOF, included) in a record list."""
    bofs = [i for i, (kind, _) in enumerate(found) if kind == BOF][1:]
    start = bofs[index]
    end = next(i for i in range(start, len(found)) if found[i][0] == EOF)
    return start, end + 1


def write_records(path: Path, found: list[Record], fix_offsets: bool = True) -> Path:
    """Write the records back as the Workbook stream, in place, its length
    kept (zero padding absorbs the difference); with ``fix_offsets`` each
    BOUNDSHEET points at its sheet's BOF again."""
    found = list(found)
    if fix_offsets:
        offsets, position = [], 0
        for kind, data in found:
            if kind == BOF:
                offsets.append(position)
            position += 4 + len(data)
        sheets = iter(offsets[1:])
        found = [(kind, struct.pack("<I", next(sheets)) + data[4:]) if kind == BOUNDSHEET else (kind, data)
                 for kind, data in found]
    new = b"".join(struct.pack("<HH", kind, len(data)) + data for kind, data in found)
    return replace_stream(path, new)


def replace_stream(path: Path, new: bytes) -> Path:
    old = read_stream(path)
    assert len(new) <= len(old), f"no room: {len(new)} bytes for a {len(old)}-byte stream"
    raw = path.read_bytes()
    at = raw.find(old)
    assert at >= 0 and raw.find(old, at + 1) < 0, "the Workbook stream is not stored in one run"
    path.write_bytes(raw[:at] + new.ljust(len(old), b"\0") + raw[at + len(old):])
    assert read_stream(path) == new.ljust(len(old), b"\0")
    return path


def cell(kind: int, row: int, column: int, rest: bytes) -> Record:
    """A cell record at 0-based (row, column), style 0x0F."""
    return kind, struct.pack("<HHH", row, column, 0x0F) + rest


def number(row: int, column: int, value: float) -> Record:
    return cell(0x0203, row, column, struct.pack("<d", value))


def error_formula(row: int, column: int, code: int) -> Record:
    """A FORMULA record whose cached result is the error ``code`` (=NA() for #N/A)."""
    result = bytes([2, 0, code, 0, 0, 0]) + b"\xff\xff"
    tokens = b"\x41\x0a\x00" if code == 0x2A else b"\x1c" + bytes([code])  # NA() or the error constant
    return cell(0x0006, row, column, result + struct.pack("<HI", 0, 0) + struct.pack("<H", len(tokens)) + tokens)


def insert_in_sheet(path: Path, index: int, new: list[Record], before: int = 0x023E) -> Path:
    """Insert records into sheet ``index`` before its first record of type
    ``before`` (default: WINDOW2, after the cells)."""
    found = records(path)
    start, end = sheet_records(found, index)
    at = next(i for i in range(start, end) if found[i][0] == before)
    return write_records(path, found[:at] + new + found[at:])


def replace_in_sheet(path: Path, index: int, kind: int, change: Callable[[bytes], bytes]) -> Path:
    """Pass the data of sheet ``index``'s first record of type ``kind`` through ``change``."""
    found = records(path)
    start, end = sheet_records(found, index)
    at = next(i for i in range(start, end) if found[i][0] == kind)
    found[at] = (kind, change(found[at][1]))
    return write_records(path, found)
