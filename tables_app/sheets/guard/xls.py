"""Legacy Excel 97–2003 workbooks (.xls, BIFF8 in an OLE compound file),
checked before calamine reads them.

olefile parses the compound file (imported here only: other commands never
pay for it); the `Workbook` stream it finds is the one calamine reads (the
first directory entry of that name). Its BIFF records are walked linearly,
each length checked against the stream's end, exactly as calamine walks them:
the globals up to their first EOF record, then each sheet's records from the
offset its BOUNDSHEET record gives up to its first EOF. The walk refuses what
calamine cannot be trusted with (a password, BIFF5, a DIMENSIONS record or a
cell past the bounds, sheets whose records overlap) and notes what it reads
as blanks or cannot see: error values, hidden rows and columns, merged cells.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Protocol, cast

from tables_app.errors import WorkbookInvalid
from tables_app.sheets.guard.common import MAX_COLUMNS, MAX_FILE_BYTES, MAX_ROWS, Inspection, SheetLayout, refuse
from tables_app.sheets.values import column_letter

PASSWORD = "the workbook is password-protected; remove the password (save a copy without it) and import that"
BIFF5 = "an Excel 5.0/95 workbook; save it as .xlsx"
ENCRYPTED_MARK = "EncryptionInfo".encode("utf-16-le")
ENCRYPTED_STREAMS = ("encryptioninfo", "encryptedpackage")  # an encrypted .xlsx is an OLE file holding these
MAX_MERGED = 50_000  # merged ranges within the bounds, per sheet

BOF, EOF, FILEPASS, BOUNDSHEET = 0x0809, 0x000A, 0x002F, 0x0085
DIMENSIONS, ROW, COLINFO, MERGEDCELLS = 0x0200, 0x0208, 0x007D, 0x00E5
LABELSST, LABEL, RSTRING, NUMBER, RK, MULRK, BOOLERR, FORMULA = 0x00FD, 0x0204, 0x00D6, 0x0203, 0x027E, 0x00BD, 0x0205, 0x0006
# a cell record with content → the shortest record calamine accepts (MULRK is checked on its own)
CELL_RECORDS = {LABELSST: 10, LABEL: 6, RSTRING: 6, NUMBER: 14, RK: 10, BOOLERR: 8, FORMULA: 20}
ERROR_TEXTS = {0x00: "#NULL!", 0x07: "#DIV/0!", 0x0F: "#VALUE!", 0x17: "#REF!", 0x1D: "#NAME?", 0x24: "#NUM!",
               0x2A: "#N/A", 0x2B: "#GETTING_DATA"}
VISIBILITY = {0: False, 1: True, 2: True}  # BOUNDSHEET hsState: visible, hidden, very hidden
WORKSHEET, SHEET_TYPES = 0x00, (0x00, 0x01, 0x02, 0x06)  # worksheet, macro sheet, chart, VBA module


class _Entry(Protocol):
    """What this module reads of an olefile directory entry (olefile's stubs declare none of it)."""

    name: str
    sid: int
    size: int
    isectStart: int  # olefile's name: the first sector
    entry_type: int
    kids_dict: dict[str, _Entry]  # a storage's children by lower-case name


class _CompoundFile(Protocol):
    """What this module reads of an olefile.OleFileIO: the header fields and tables
    olefile keeps from parsing (its stubs declare few of them)."""

    num_fat_sectors: int
    num_mini_fat_sectors: int
    num_difat_sectors: int
    nb_sect: int
    root: _Entry
    minisectorcutoff: int
    minisectorsize: int
    sectorsize: int
    fat: Sequence[int]
    minifat: Sequence[int]
    directory_fp: IO[bytes]

    def openstream(self, filename: str) -> IO[bytes]: ...


class _Corrupt(Exception):
    """A structural problem in the BIFF records: the file is truncated or corrupt."""

    def __init__(self, why: str, sheet: str | None = None):
        super().__init__(why)
        self.sheet = sheet


def inspect(path: Path, name: str) -> Inspection:
    stream = _workbook_stream(path, name)
    try:
        return _inspect_stream(stream, name)
    except _Corrupt as exc:
        raise refuse(name, f"the file is truncated or corrupt ({exc})", exc.sheet) from None


def _workbook_stream(path: Path, name: str) -> bytes:
    """The bytes of the stream calamine reads, from a compound file olefile
    parsed whole; any failure is one refusal."""
    import olefile

    size = path.stat().st_size
    try:
        with path.open("rb") as handle:
            ole = olefile.OleFileIO(handle, raise_defects=olefile.DEFECT_INCORRECT)
            try:
                # an OleFileIO that parsed without a defect has every field _CompoundFile names
                return _find_stream(cast(_CompoundFile, ole), name, size)
            finally:
                ole.close()
    except WorkbookInvalid:
        raise
    except Exception as exc:  # olefile raises OSError, struct.error, IndexError, ValueError, … on bad bytes
        if _looks_encrypted(path):
            raise refuse(name, PASSWORD) from None
        raise refuse(name, f"the file is truncated or corrupt ({_why(exc)})") from None


def _find_stream(ole: _CompoundFile, name: str, file_size: int) -> bytes:
    import olefile

    for count, what in ((ole.num_fat_sectors, "FAT"), (ole.num_mini_fat_sectors, "mini FAT"),
                        (ole.num_difat_sectors, "DIFAT")):
        if count > ole.nb_sect:
            raise refuse(name, f"the file is truncated or corrupt (its header claims {count:,} {what} sectors; "
                               f"the file holds {ole.nb_sect:,})")
    kids = ole.root.kids_dict
    if any(stream in kids for stream in ENCRYPTED_STREAMS):
        raise refuse(name, PASSWORD)
    # calamine takes the first directory entry named exactly "Workbook" (else
    # "Book"), reachable or not: that entry must be the stream olefile opens.
    first = _first_entries(ole)
    sid = first.get("Workbook")
    if sid is None:
        if "Book" in first:
            raise refuse(name, BIFF5)
        raise refuse(name, "an OLE file without a Workbook stream: not an Excel workbook; save it as .xlsx")
    entry = kids.get("workbook")
    if entry is None or entry.sid != sid or entry.name != "Workbook" or entry.entry_type != olefile.STGTY_STREAM:
        raise refuse(name, "the file is truncated or corrupt (its directory names the Workbook stream twice or "
                           "outside the root)")
    if ole.minisectorcutoff != 4096:
        raise refuse(name, f"the file is truncated or corrupt (mini stream cutoff {ole.minisectorcutoff}, not 4096)")
    if entry.size > min(file_size, MAX_FILE_BYTES):
        raise refuse(name, f"the file is truncated or corrupt (its Workbook stream claims {entry.size:,} bytes; "
                           f"the file has {file_size:,})")
    stream = ole.openstream("Workbook").read()
    if len(stream) != entry.size:
        raise refuse(name, "the file is truncated or corrupt (the Workbook stream is shorter than it claims)")
    mini = entry.size < ole.minisectorcutoff
    _check_chain(name, entry.isectStart, ole.minifat if mini else ole.fat,
                 -(-entry.size // (ole.minisectorsize if mini else ole.sectorsize)))
    return stream


def _check_chain(name: str, sector: int, table: Sequence[int], count: int) -> None:
    """olefile follows a stream's sector chain for as many sectors as its size
    needs, looping or not: a chain that meets itself is refused."""
    seen = set()
    for _ in range(count):
        if sector in seen or not 0 <= sector < len(table):
            raise refuse(name, "the file is truncated or corrupt (the Workbook stream's sector chain loops or "
                               "leaves the file)")
        seen.add(sector)
        sector = table[sector]


def _first_entries(ole: _CompoundFile) -> dict[str, int]:
    """Each name's first directory entry (its index), over every entry, as
    calamine lists them: the name up to its first NUL."""
    ole.directory_fp.seek(0)
    directory = ole.directory_fp.read()
    first: dict[str, int] = {}
    for sid, start in enumerate(range(0, len(directory) - 127, 128)):
        entry_name = directory[start:start + 64].decode("utf-16-le", "ignore").split("\0", 1)[0]
        first.setdefault(entry_name, sid)
    return first


def _looks_encrypted(path: Path) -> bool:
    """A damaged encrypted .xlsx still names its EncryptionInfo stream."""
    with path.open("rb") as handle:
        return ENCRYPTED_MARK in handle.read(4 * 1024 * 1024)


def _why(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0].strip() if str(exc).strip() else ""
    return (text[:120] if text and not isinstance(exc, (MemoryError, RecursionError)) else type(exc).__name__)


def _records(stream: bytes, start: int, sheet: str | None = None) -> Iterator[tuple[int, int, bytes]]:
    """(offset, type, data) of each record from ``start`` up to and with the
    first EOF, or the stream's end; a record cut by the end is corrupt."""
    position, end = start, len(stream)
    while position < end:
        if position + 4 > end:
            raise _Corrupt("a record header runs past the end of the Workbook stream", sheet)
        kind, length = struct.unpack_from("<HH", stream, position)
        if position + 4 + length > end:
            raise _Corrupt(f"a record of {length:,} bytes at offset {position:,} runs past the end of the Workbook stream", sheet)
        yield position, kind, stream[position + 4:position + 4 + length]
        position += 4 + length
        if kind == EOF:
            return


class _Sheet:
    def __init__(self, title: str, offset: int, hidden: bool, kind: int):
        self.title, self.offset, self.kind = title, offset, kind
        self.layout = SheetLayout(hidden=hidden)
        self.size = 0


def _inspect_stream(stream: bytes, name: str) -> Inspection:
    sheets, globals_end = _globals(stream, name)
    inspection = Inspection(format="xls")
    ordered = sorted(sheets, key=lambda sheet: sheet.offset)
    for index, sheet in enumerate(ordered):
        limit = ordered[index + 1].offset if index + 1 < len(ordered) else len(stream)
        if sheet.offset < globals_end or sheet.offset >= len(stream):
            raise _Corrupt(f"the sheet's records start at offset {sheet.offset:,}, outside the Workbook stream's "
                           f"sheet data ({globals_end:,} to {len(stream):,})", sheet.title)
        end = _walk_sheet(stream, sheet, name)
        if end > limit:  # each record is walked once: linear whatever the offsets say
            raise _Corrupt("the sheet's records overlap another sheet's", sheet.title)
        sheet.size = end - sheet.offset
    for sheet in sheets:
        if sheet.kind == WORKSHEET:
            inspection.layouts[sheet.title] = sheet.layout
            inspection.sheet_sizes.append((sheet.title, sheet.size))
    return inspection


def _globals(stream: bytes, name: str) -> tuple[list[_Sheet], int]:
    """The sheets the globals substream lists (BOUNDSHEET), and where it ends."""
    sheets: list[_Sheet] = []
    titles: set[str] = set()
    end = 0
    for position, kind, data in _records(stream, 0):
        end = position + 4 + len(data)
        if position == 0 and kind != BOF:
            raise _Corrupt("the Workbook stream does not start with a BOF record")
        if kind == BOF:
            if len(data) < 4:
                raise _Corrupt("a BOF record is too short")
            version, part = struct.unpack_from("<HH", data)
            if version in (0x0500, 0x0400, 0x0300, 0x0200) or (version == 0 and part == 0x1000):
                raise refuse(name, BIFF5)
            if version != 0x0600:
                raise _Corrupt(f"BIFF version 0x{version:04X}, not BIFF8")
        elif kind == FILEPASS:
            raise refuse(name, PASSWORD)
        elif kind == BOUNDSHEET:
            sheet = _boundsheet(data)
            if sheet.title in titles:
                raise refuse(name, f"two sheets are named '{sheet.title}' (a crafted file?); rename one")
            titles.add(sheet.title)
            sheets.append(sheet)
    return sheets, end


def _boundsheet(data: bytes) -> _Sheet:
    if len(data) < 8:
        raise _Corrupt("a BOUNDSHEET record is too short")
    offset, state, kind, count, flags = struct.unpack_from("<IBBBB", data)
    if state & 0x3F not in VISIBILITY:
        raise _Corrupt(f"unknown sheet visibility {state & 0x3F}")
    if kind not in SHEET_TYPES:
        raise _Corrupt(f"unknown sheet type {kind}")
    raw = data[8:]
    if flags & 1:  # UTF-16LE, as calamine decodes it (unpaired surrogates replaced)
        if len(raw) < 2 * count:
            raise _Corrupt("a sheet name runs past its record")
        title = raw[:2 * count].decode("utf-16-le", "replace")
    else:  # compressed: one byte per character, U+0000 to U+00FF
        if len(raw) < count:
            raise _Corrupt("a sheet name runs past its record")
        title = raw[:count].decode("latin-1")
    return _Sheet(title.replace("\0", ""), offset, VISIBILITY[state & 0x3F], kind)


def _walk_sheet(stream: bytes, sheet: _Sheet, name: str) -> int:
    """Walk one sheet's records (calamine's walk: to the first EOF); for a
    worksheet, check the bounds and note its layout. Where the walk ended."""
    layout, title, end = sheet.layout, sheet.title, sheet.offset
    worksheet = sheet.kind == WORKSHEET
    merged: set[tuple[int, int, int, int]] = set()
    for position, kind, data in _records(stream, sheet.offset, title):
        end = position + 4 + len(data)
        if position == sheet.offset and kind != BOF:
            raise _Corrupt(f"no BOF record where the sheet's records start (offset {position:,})", title)
        if not worksheet:
            continue
        if kind in CELL_RECORDS:
            if len(data) < CELL_RECORDS[kind]:
                raise _Corrupt(f"a cell record of {len(data)} bytes is too short", title)
            row, column = struct.unpack_from("<HH", data)
            _check_cell(name, title, row + 1, column + 1)
            if kind == BOOLERR and data[7] == 1:
                layout.errors[(row + 1, column + 1)] = _error_text(data[6], title, row, column)
            elif kind == FORMULA and data[12:14] == b"\xff\xff" and data[6] == 2:
                layout.errors[(row + 1, column + 1)] = _error_text(data[8], title, row, column)
        elif kind == MULRK:
            if len(data) < 6:
                raise _Corrupt("a MULRK record is too short", title)
            row, first = struct.unpack_from("<HH", data)
            (last,) = struct.unpack_from("<H", data, len(data) - 2)
            if last < first or len(data) != 6 + 6 * (last - first + 1):
                raise _Corrupt("a MULRK record's length does not match its columns", title)
            _check_cell(name, title, row + 1, last + 1)
        elif kind == DIMENSIONS:
            _dimensions(data, name, title)
        elif kind == ROW:
            if len(data) < 16:
                raise _Corrupt("a ROW record is too short", title)
            (row,) = struct.unpack_from("<H", data)
            (flags,) = struct.unpack_from("<H", data, 12)
            if flags & 0x20 and row < MAX_ROWS:  # fDyZero: the row is hidden
                layout.hidden_rows.add(row + 1)
        elif kind == COLINFO:
            if len(data) < 10:
                raise _Corrupt("a COLINFO record is too short", title)
            first, last, _, _, flags = struct.unpack_from("<HHHHH", data)
            if flags & 1:  # fHidden
                layout.hidden_columns.update(range(first + 1, min(last, MAX_COLUMNS - 1) + 2))
        elif kind == MERGEDCELLS:
            _merged_cells(data, name, title, merged)
    layout.merged = sorted(merged)
    return end


def _check_cell(name: str, title: str, row: int, column: int) -> None:
    if row > MAX_ROWS or column > MAX_COLUMNS:
        where = f"{column_letter(column)}{row}"
        raise refuse(name, f"a cell at {where} is beyond what the importer reads ({MAX_ROWS:,} rows, {MAX_COLUMNS} columns)",
                     title, where)


def _error_text(code: int, title: str, row: int, column: int) -> str:
    if code not in ERROR_TEXTS:
        raise _Corrupt(f"unknown error code 0x{code:02X} at {column_letter(column + 1)}{row + 1}", title)
    return ERROR_TEXTS[code]


def _dimensions(data: bytes, name: str, title: str) -> None:
    if len(data) == 14:
        first_row, last_row, first_column, last_column = struct.unpack_from("<IIHH", data)
    elif len(data) == 10:
        first_row, last_row, first_column, last_column = struct.unpack_from("<HHHH", data)
    else:
        raise _Corrupt(f"a DIMENSIONS record of {len(data)} bytes", title)
    # the last row and column are stored one past the used area: 0-based + 1 is the 1-based number
    if last_row > MAX_ROWS or last_column > MAX_COLUMNS:
        corner = f"{column_letter(max(last_column, 1))}{max(last_row, 1)}"
        raise refuse(name, f"the sheet claims cells up to {corner}; the importer reads at most {MAX_ROWS:,} rows and "
                           f"{MAX_COLUMNS} columns", title)
    if first_row > last_row or first_column > last_column:
        raise _Corrupt("a DIMENSIONS record ends before it starts", title)


def _merged_cells(data: bytes, name: str, title: str, merged: set[tuple[int, int, int, int]]) -> None:
    if len(data) < 2:
        raise _Corrupt("a MERGEDCELLS record is too short", title)
    (count,) = struct.unpack_from("<H", data)
    if len(data) < 2 + 8 * count:
        raise _Corrupt("a MERGEDCELLS record is shorter than its count", title)
    for first_row, last_row, first_column, last_column in struct.iter_unpack("<HHHH", data[2:2 + 8 * count]):
        low_row, high_row = sorted((first_row + 1, last_row + 1))
        low_column, high_column = sorted((first_column + 1, last_column + 1))
        if low_row > MAX_ROWS or low_column > MAX_COLUMNS:
            continue  # wholly past the bounds: no grid reaches it
        merged.add((low_row, low_column, high_row, high_column))
        if len(merged) > MAX_MERGED:
            raise refuse(name, f"more than {MAX_MERGED:,} merged ranges; unmerge them", title)
