"""Legacy Excel 97–2003 workbooks (.xls): read by calamine once the guard
(sheets/guard/xls.py) has checked them; hostile ones refused in one line."""

from __future__ import annotations

import random
import re
import struct
from pathlib import Path

import pytest
from helpers import (MINI_ATTACK, MINI_CREATURES, MINI_CRITICAL, MINI_FUMBLE, MINI_SEVERITIES, MINI_WEAPONS, Work, build_workbook,
                     counted_work, db_dump, error_lines, refused)
from helpers import workbook_problems as problems
from xls_files import (ErrorValue, error_formula, insert_in_sheet, number, read_stream, records, replace_in_sheet, replace_stream,
                       write_records, write_xls, xlsx_to_xls)

from tables_app.errors import WorkbookInvalid
from tables_app.sheets import guard
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

BUNDLED = sorted((Path(__file__).resolve().parents[2] / "table_sources").glob("*.xlsx"))
FUMBLE = [["Kind", "fumble"], ["Name", "Oops"], [], ["Roll", "Text"], ["1-50", "a"], ["51+", "b"]]
PASSWORD = "the workbook is password-protected; remove the password (save a copy without it) and import that"
BEYOND = "is beyond what the importer reads (5,000 rows, 64 columns)"




@pytest.fixture
def small(tmp_path: Path) -> Path:
    return write_xls(tmp_path / "bad.xls", {"F": FUMBLE})


# -- the same tables as the .xlsx ------------------------------------------------------------------

def _imported(tmp_path: Path, paths: list[Path], name: str) -> list[str]:
    from tables_app.services.database_setup import init_database
    from tables_app.services.importing import import_workbooks

    database = init_database(str(tmp_path / f"{name}.db"), bundled=False)
    try:  # known by the same labels, so only the files' hashes and sizes differ
        report = import_workbooks(database, paths, replace=True, labels=[f"bundled/{p.stem}.xlsx" for p in paths])
    finally:
        database.dispose()
    assert report.problems == [] and report.written
    when = re.compile(r"'\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?(\+00:00)?'")
    lines = [when.sub("'TIME'", line) for line in db_dump(tmp_path / f"{name}.db") if line.startswith("INSERT")]
    return [re.sub(r"'[0-9a-f]{64}','TIME',\d+\)", "'SHA256','TIME',SIZE)", line) if line.startswith('INSERT INTO "workbook"') else line
            for line in lines]


@pytest.mark.slow  # ~3 s: every bundled workbook imported twice (`pytest -m slow`, and CI)
def test_every_bundled_workbook_as_xls_imports_the_same_database(tmp_path):
    # xlwt writes text of up to 32,767 characters and sheet names of up to 31: every bundled workbook fits
    converted = tmp_path / "xls"
    converted.mkdir()
    xls = [xlsx_to_xls(path, converted / f"{path.stem}.xls") for path in BUNDLED]
    assert len(xls) == 4 and all(read_workbook(path).sheets for path in xls)
    assert [guard.inspect(path, path.name).format for path in xls] == ["xls"] * 4
    from_xls = _imported(tmp_path, xls, "xls")
    assert from_xls == _imported(tmp_path, BUNDLED, "xlsx")
    assert sum('INSERT INTO "attack_table"' in line for line in from_xls) >= 6
    assert sum('INSERT INTO "workbook"' in line and "SHA256" in line for line in from_xls) == 4


# -- layouts, seen as in an .xlsx --------------------------------------------------------------------

def test_hidden_rows_columns_and_merged_cells_in_a_grid(tmp_path):
    def layout(title, sheet):  # type: ignore[no-untyped-def]
        if title == "Rows":
            sheet.row(5).hidden = True
        elif title == "Cols":
            sheet.col(2).hidden = True
        else:
            sheet.write_merge(4, 5, 0, 0, "1-50")  # over the Roll column: refused

    path = write_xls(tmp_path / "layout.xls", {
        "Rows": [["Kind", "fumble"], ["Name", "A"], [], ["Roll", "Text"], ["1-50", "a"], ["51+", "b"]],
        "Cols": [["Kind", "fumble"], ["Name", "B"], [], ["Roll", "Text", "Hits"], ["1-50", "a", 1], ["51+", "b", 2]],
        "Merged": [["Kind", "fumble"], ["Name", "C"], [], ["Roll", "Text"], [None, "a"], [None, "b"]],
    }, each=layout)
    assert problems(path) == [
        "layout.xls › Rows › A6: row 6 is hidden; unhide it (hidden rows are not imported silently)",
        "layout.xls › Cols › C1: column C is hidden; unhide it",
        "layout.xls › Merged › A5: merged cells A5:A6 take in the Roll column; unmerge them and write each row's range in its own cell",
    ]


def test_hidden_and_very_hidden_sheets_are_skipped_with_a_warning(tmp_path):
    def very(title, sheet):  # type: ignore[no-untyped-def]
        if title == "Deep":
            sheet.visibility = 2

    path = write_xls(tmp_path / "w.xls", {"Oops": MINI_FUMBLE, "Secret": FUMBLE, "Deep": FUMBLE}, hidden=("Secret",), each=very)
    inspection = guard.inspect(path, "w.xls")
    assert [(t, inspection.layouts[t].hidden) for t, _ in inspection.sheet_sizes] == [("Oops", False), ("Secret", True), ("Deep", True)]
    result = interpret(read_workbook(path))
    assert result.problems == []
    assert [str(w) for w in result.warnings] == ["w.xls › Secret: hidden sheet skipped", "w.xls › Deep: hidden sheet skipped"]
    assert [t.value.name for t in result.fumble_tables] == ["Oops"]


def test_error_values_are_named_at_their_cells(tmp_path):
    # calamine reads an .xls error (a BOOLERR record, or a formula's cached error) as a blank
    path = write_xls(tmp_path / "w.xls", {"T": [["Kind", "attack"], ["Name", "T"], [], ["Result", "NA", "HA"],
                                                ["11-20", ErrorValue(0x2A), 1], ["21+", 2, 2]]})
    insert_in_sheet(path, 0, [error_formula(5, 2, 0x07)])  # C6: =1/0, cached #DIV/0!
    assert guard.inspect(path, "w.xls").layouts["T"].errors == {(5, 2): "#N/A", (6, 3): "#DIV/0!"}
    assert problems(path) == [
        "w.xls › T › B5: error value #N/A (fix the formula or paste values)",
        "w.xls › T › C6: error value #DIV/0! (fix the formula or paste values)",
    ]


def test_dates_and_sheet_names_beyond_latin_1_read_as_from_an_xlsx(tmp_path):
    import datetime

    rows = [["Kind", "attack"], ["Name", "T"], [], ["Result", "NA", "HA"], [datetime.date(2024, 1, 11), 1, 1]]
    path = write_xls(tmp_path / "w.xls", {"Ñandú — Крит": rows})  # the title as UTF-16: calamine's list matches the guard's
    assert problems(path) == ["w.xls › Ñandú — Крит › A5: 2024-01-11 00:00:00 is a date; format the column as text"]


def test_a_cell_at_the_bounds_is_read(tmp_path):
    path = write_xls(tmp_path / "edge.xls", {"F": FUMBLE})
    insert_in_sheet(path, 0, [number(4999, 63, 7)])  # BL5000: the last cell the importer reads
    sheet = read_workbook(path).sheets[0]
    assert sheet.rows[-1] == (5000, (None,) * 63 + (7,))


# -- hostile files ---------------------------------------------------------------------------------------

def _globals_insert(path: Path, record: tuple[int, bytes]) -> Path:
    found = records(path)
    return write_records(path, found[:1] + [record] + found[1:])


def _boundsheet_offset(path: Path, offset: int) -> Path:
    found = [(k, struct.pack("<I", offset) + d[4:]) if k == 0x0085 else (k, d) for k, d in records(path)]
    return write_records(path, found, fix_offsets=False)


def _dimensions(path: Path, rows: int, columns: int) -> Path:
    return replace_in_sheet(path, 0, 0x0200, lambda d: struct.pack("<IIHH", 0, rows, 0, columns) + d[12:])


def _long_record(path: Path) -> tuple[Path, int]:
    """The sheet's WINDOW2 record claims 60,000 bytes; where it starts."""
    found = records(path)
    stream = b"".join(struct.pack("<HH", k, len(d)) + d for k, d in found)
    at = stream.rfind(b"\x3e\x02\x12\x00")
    replace_stream(path, stream[:at + 2] + struct.pack("<H", 60000) + stream[at + 4:])
    return path, at


def _directory_name(path: Path, new: str) -> Path:
    raw = bytearray(path.read_bytes())
    at = raw.find("Workbook".encode("utf-16-le"))
    name = (new + "\0").encode("utf-16-le")
    raw[at:at + 64] = name.ljust(64, b"\0")
    raw[at + 64:at + 66] = struct.pack("<H", len(name))
    path.write_bytes(bytes(raw))
    return path


def _header(path: Path, offset: int, value: int) -> Path:
    raw = bytearray(path.read_bytes())
    struct.pack_into("<I", raw, offset, value)
    path.write_bytes(bytes(raw))
    return path


def _fat_loop(path: Path) -> Path:
    """The Workbook stream's first sector is followed by itself."""
    raw = bytearray(path.read_bytes())
    fat_sector = struct.unpack_from("<I", raw, 76)[0]  # the first FAT sector, from the header's DIFAT
    at = raw.find("Workbook".encode("utf-16-le"))
    first = struct.unpack_from("<I", raw, at + 116)[0]
    struct.pack_into("<I", raw, 512 + 512 * fat_sector + 4 * first, first)
    path.write_bytes(bytes(raw))
    return path


def _truncated(path: Path) -> Path:
    path.write_bytes(path.read_bytes()[:3000])
    return path


def _two_sheets_one_offset(path: Path) -> Path:
    write_xls(path, {"F": FUMBLE, "G": FUMBLE})
    found = records(path)
    first = next(d for k, d in found if k == 0x0085)[:4]
    found = [(k, first + d[4:]) if k == 0x0085 else (k, d) for k, d in found]
    return write_records(path, found, fix_offsets=False)


CORRUPT = "bad.xls: the file is truncated or corrupt"


@pytest.mark.parametrize("make, message", [
    (lambda p: _globals_insert(p, (0x002F, b"\x01\x00\x01\x00\x01\x00" + bytes(48))), f"bad.xls: {PASSWORD}"),
    (lambda p: _globals_insert(p, (0x002F, b"\x00\x00" + bytes(4))), f"bad.xls: {PASSWORD}"),  # XOR obfuscation, which calamine reads as garbage
    (lambda p: _dimensions(p, 65536, 2), "bad.xls › F: the sheet claims cells up to B65536; the importer reads at most 5,000 rows and 64 columns"),
    (lambda p: _dimensions(p, 6, 65), "bad.xls › F: the sheet claims cells up to BM6; the importer reads at most 5,000 rows and 64 columns"),
    (lambda p: insert_in_sheet(p, 0, [number(59999, 0, 1)]), f"bad.xls › F › A60000: a cell at A60000 {BEYOND}"),
    (lambda p: insert_in_sheet(p, 0, [number(4, 255, 1)]), f"bad.xls › F › IV5: a cell at IV5 {BEYOND}"),
    (lambda p: insert_in_sheet(p, 0, [error_formula(5000, 0, 0x2A)]), f"bad.xls › F › A5001: a cell at A5001 {BEYOND}"),
    (lambda p: insert_in_sheet(p, 0, [(0x00BD, struct.pack("<HH", 6, 63) + bytes(12) + struct.pack("<H", 64))]),
     f"bad.xls › F › BM7: a cell at BM7 {BEYOND}"),  # MULRK: BK7 to BM7
    (_truncated, f"{CORRUPT} (incomplete OLE sector)"),
    (_fat_loop, f"{CORRUPT} (the Workbook stream's sector chain loops or leaves the file)"),
    (lambda p: _header(p, 0x2C, 0x7FFFFFFF), f"{CORRUPT} (its header claims 2,147,483,647 FAT sectors; the file holds 10)"),
    (lambda p: _header(p, 0x30, 0x7FFFFF00), f"{CORRUPT} (incorrect OLE FAT, sector index out of range)"),
    (lambda p: _boundsheet_offset(p, 1 << 20),
     "bad.xls › F: the file is truncated or corrupt (the sheet's records start at offset 1,048,576, outside the Workbook "
     "stream's sheet data (1,001 to 4,096))"),
    (lambda p: _boundsheet_offset(p, 4), "bad.xls › F: the file is truncated or corrupt (the sheet's records start at offset 4, "
                                         "outside the Workbook stream's sheet data (1,001 to 4,096))"),
    (_two_sheets_one_offset, "bad.xls › F: the file is truncated or corrupt (the sheet's records overlap another sheet's)"),
    (lambda p: _directory_name(p, "Sheets"), "bad.xls: an OLE file without a Workbook stream: not an Excel workbook; save it as .xlsx"),
    (lambda p: _directory_name(p, "Book"), "bad.xls: an Excel 5.0/95 workbook; save it as .xlsx"),
    (lambda p: _directory_name(p, "EncryptionInfo"), f"bad.xls: {PASSWORD}"),  # how an encrypted .xlsx looks
    (lambda p: p.write_bytes(p.read_bytes()[:8] + bytes(100)), f"{CORRUPT} (not an OLE2 structured storage file)"),
])
def test_hostile_xls_files_are_refused_in_one_line(small, make, message, reading_work):
    """Each refused in one line and in bounded work, not time (helpers.counted_work):
    no more lines of Python than reading the whole file unharmed (~4,400; twice
    that, for what runs only once, as a pattern compiled the first time), little memory."""
    make(small)
    with counted_work(max_lines=2 * reading_work.lines) as work:
        assert refused(small) == message
    assert work.peak < 16 << 20  # ~4 MB at most


@pytest.fixture(scope="module")
def reading_work(tmp_path_factory: pytest.TempPathFactory) -> Work:
    """The work of reading the unharmed small file (the modules it needs loaded first)."""
    path = write_xls(tmp_path_factory.mktemp("unharmed") / "good.xls", {"F": FUMBLE})
    read_workbook(path)
    with counted_work() as work:
        read_workbook(path)
    return work


def test_a_record_running_past_the_stream_end_is_refused(small):
    _, at = _long_record(small)
    assert refused(small) == (f"bad.xls › F: the file is truncated or corrupt (a record of 60,000 bytes at offset {at:,} "
                              "runs past the end of the Workbook stream)")


def test_an_encrypted_xlsx_is_password_protected_even_when_damaged(tmp_path):
    path = tmp_path / "secret.xlsx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "EncryptedPackage EncryptionInfo".encode("utf-16-le") + bytes(600))
    assert refused(path) == f"secret.xlsx: {PASSWORD}"


def test_the_cli_imports_an_xls_and_refuses_a_hostile_one(run, tmp_path, db_path, dump):
    mini = build_workbook(tmp_path / "mini.xlsx", {"Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Oops": MINI_FUMBLE,
                                                   "Poke": MINI_ATTACK, "Weapons": MINI_WEAPONS, "Creatures": MINI_CREATURES})
    result = run("import", str(xlsx_to_xls(mini, tmp_path / "mini.xls")))
    assert result.exit_code == 0, result.output
    assert "Imported mini.xls:" in result.output
    assert run("show", "weapon", "needle", "--json").exit_code == 0
    before = dump(db_path)
    hostile = _dimensions(write_xls(tmp_path / "huge.xls", {"F": FUMBLE}), 65536, 2)
    result = run("import", str(hostile))
    assert result.exit_code == 1
    assert error_lines(result) == ("Error: huge.xls › F: the sheet claims cells up to B65536; the importer reads at most "
                                   "5,000 rows and 64 columns\n")
    assert "Traceback" not in result.output and len(result.stderr.strip().splitlines()) == 1
    assert dump(db_path) == before


# -- mutations --------------------------------------------------------------------------------------------

def test_mutated_files_are_read_or_refused_never_an_exception(tmp_path):
    source = write_xls(tmp_path / "source.xls", {"F": FUMBLE, "G": [["x", 1, 2.5, True], [ErrorValue(0x2A)]]}, hidden=("G",),
                       each=lambda title, sheet: sheet.write_merge(6, 7, 0, 1, "m"))
    original = source.read_bytes()
    stream_at = original.find(read_stream(source))
    rng = random.Random(20261201)
    target = tmp_path / "mutant.xls"
    outcomes = {"read": 0, "refused": 0}
    guard.inspect(source, source.name)  # the modules it needs are loaded now, not while counting
    with counted_work() as unmutated:
        guard.inspect(source, source.name)
    for _ in range(150):
        data = bytearray(original)
        choice = rng.random()
        if choice < 0.15:
            data = data[:rng.randrange(8, len(data))]
        else:  # flip bytes, mostly in the records, some in the OLE header and directory
            for _ in range(rng.randint(1, 4)):
                at = rng.randrange(stream_at, stream_at + 1200) if choice < 0.7 else rng.randrange(len(data))
                data[at] = rng.randrange(256)
        target.write_bytes(bytes(data))
        # bounded work, not time (helpers.counted_work): a mutant costs what the file
        # itself costs (~3,500 lines of Python, ~4 MB at most); twice that stops it at once
        with counted_work(max_lines=2 * unmutated.lines) as work:
            try:
                guard.inspect(target, "mutant.xls")
                outcomes["read"] += 1
            except WorkbookInvalid as exc:
                assert len(str(exc).splitlines()) == 1
                outcomes["refused"] += 1
        assert work.peak < 16 << 20, work.peak
    assert outcomes["read"] > 10 and outcomes["refused"] > 10, outcomes
