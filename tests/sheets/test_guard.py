"""Hostile and broken files are refused before parsing (issue 7, docs/security.md)."""

import re
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from helpers import build_workbook, layout_workbook, refused, rewrite

from tables_app.errors import WorkbookInvalid
from tables_app.sheets import guard
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

GOOD = {"F": [["Kind", "fumble"], ["Name", "Oops"], [], ["Roll", "Text"], ["1-50", "a"], ["51+", "b"]]}



@pytest.fixture
def good(tmp_path):
    return build_workbook(tmp_path / "good.xlsx", GOOD)


def test_xml_entity_bomb(good, tmp_path):
    laughs = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
              + b"".join(b'<!ENTITY lol%d "%s">' % (i, b"&lol%d;" % (i - 1) * 10 if i > 1 else b"&lol;" * 10) for i in range(1, 10))
              + b"]>")
    bomb = rewrite(good, tmp_path / "bomb.xlsx", "xl/worksheets/sheet1.xml", lambda d: laughs + d.split(b"?>", 1)[-1])
    assert refused(bomb) == "bomb.xlsx › F: part xl/worksheets/sheet1.xml declares a DOCTYPE or entities (an XML bomb?); refused"


def test_external_entity(good, tmp_path):
    xxe = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
    path = rewrite(good, tmp_path / "xxe.xlsx", "xl/styles.xml", lambda d: xxe + d.split(b"?>", 1)[-1])
    assert refused(path) == "xxe.xlsx: part xl/styles.xml declares a DOCTYPE or entities (an XML bomb?); refused"


def test_a_zip_bomb_by_compression_ratio(tmp_path, good):
    path = tmp_path / "zipbomb.xlsx"
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            zout.writestr(item.filename, zin.read(item.filename))
        with zout.open("xl/media/padding.xml", "w") as padding:
            for _ in range(40):
                padding.write(b" " * (1 << 20))
    assert refused(path).startswith("zipbomb.xlsx: part xl/media/padding.xml unpacks ")


def test_a_part_that_unpacks_to_more_than_it_declares(good, tmp_path):
    data = bytearray(good.read_bytes())
    name = b"xl/worksheets/sheet1.xml"
    for signature, size_offset, name_offset in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
        start = 0
        while (start := data.find(signature, start)) != -1:
            if data[start + name_offset: start + name_offset + len(name)] == name:
                struct.pack_into("<I", data, start + size_offset, 10)  # claims 10 bytes
            start += 4
    path = tmp_path / "liar.xlsx"
    path.write_bytes(bytes(data))
    # zipfile stops at the declared size and the CRC then fails; either way the part is refused
    assert refused(path).startswith("liar.xlsx: part xl/worksheets/sheet1.xml ")


def test_a_cell_at_the_last_cell_of_a_sheet(tmp_path):
    import openpyxl

    book = openpyxl.Workbook()
    book.active.title = "Far"
    book.active["A1"] = "Kind"
    book.active["XFD1048576"] = 1
    book.save(tmp_path / "far.xlsx")
    message = refused(tmp_path / "far.xlsx")
    assert message.startswith("far.xlsx › Far")
    assert "XFD1048576" in message


def test_a_sheet_that_claims_a_million_rows(good, tmp_path):
    path = rewrite(good, tmp_path / "claims.xlsx", "xl/worksheets/sheet1.xml",
                   lambda d: d.replace(b'<dimension ref="A1:B6"', b'<dimension ref="A1:C1048576"'))
    assert refused(path) == ("claims.xlsx › F: the sheet claims cells up to C1048576; "
                             "the importer reads at most 5,000 rows and 64 columns")


def test_too_many_rows(tmp_path):
    rows = [["Kind", "fumble"], ["Name", "Long"], [], ["Roll", "Text"]] + [[str(n), "x"] for n in range(1, 5000)]
    path = build_workbook(tmp_path / "long.xlsx", {"L": rows})
    assert refused(path) == "long.xlsx › L: the sheet claims cells up to B5003; the importer reads at most 5,000 rows and 64 columns"
    unclaimed = rewrite(path, tmp_path / "unclaimed.xlsx", "xl/worksheets/sheet1.xml",
                        lambda d: re.sub(rb"<dimension[^>]*/>", b"", d))
    assert refused(unclaimed) == "unclaimed.xlsx › L › A5001: a cell at A5001 is beyond what the importer reads (5,000 rows, 64 columns)"


def test_hidden_rows_columns_and_merged_cells_in_a_grid(tmp_path):
    path = layout_workbook(tmp_path / "layout.xlsx")
    assert [str(p) for p in interpret(read_workbook(path)).problems] == [
        "layout.xlsx › Rows › A6: row 6 is hidden; unhide it (hidden rows are not imported silently)",
        "layout.xlsx › Cols › C1: column C is hidden; unhide it",
        "layout.xlsx › Merged › A5: merged cells A5:A6 take in the Roll column; unmerge them and write each row's range in its own cell",
    ]


def test_control_characters_are_located_errors():
    # openpyxl will not write a control character, so the sheet is built as read.py hands it over
    from tables_app.sheets.raw import RawSheet, RawWorkbook

    rows = ((1, ("Kind", "fumble")), (2, ("Name", "Oops")), (4, ("Roll", "Text")), (5, ("1+", "bell\x07")))
    raw = RawWorkbook("ctl.xlsx", "0" * 64, 1, (RawSheet("F", False, rows),))
    assert [str(p) for p in interpret(raw).problems] == [
        "ctl.xlsx › F › B5: the text holds the control character U+0007; retype the cell"
    ]


def test_duplicate_and_blank_headers(tmp_path):
    path = build_workbook(tmp_path / "h.xlsx", {"F": [["Kind", "fumble"], ["Name", "Oops"], [], ["Roll", "Text", "text", None],
                                                      ["1+", "a", "b", "c"]]})
    assert [str(p) for p in interpret(read_workbook(path)).problems] == [
        "h.xlsx › F › C4: column 'text' appears twice",
        "h.xlsx › F › D4: blank column header above data",
    ]


# VmHWM is this process's own peak (ru_maxrss would carry the parent's peak
# across fork and exec on Linux).
MEMORY_PROBE = """
import sys
from tables_app.errors import WorkbookInvalid
from tables_app.sheets.read import read_workbook
try:
    read_workbook(sys.argv[1])
except WorkbookInvalid:
    pass
print(next(line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_a_big_bomb_is_refused_in_bounded_memory(tmp_path, good):
    """150 MB of declared XML that compresses to a sliver: refused without unpacking it."""
    path = tmp_path / "big.xlsx"
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            if item.filename != "xl/worksheets/sheet1.xml":
                zout.writestr(item.filename, zin.read(item.filename))
        with zout.open("xl/worksheets/sheet1.xml", "w") as sheet:
            for _ in range(150):
                sheet.write(b"<!-- padding -->" * (1 << 16))
    done = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(path)], capture_output=True, text=True, timeout=60, check=True)
    peak_kb = int(done.stdout.strip().splitlines()[-1])
    assert peak_kb < 200 * 1024, peak_kb


# The scan is expat's, element by element: namespaced elements count (by local
# name, as calamine matches them), look-alike cell text and attribute values
# do not, and no block seam can cut a tag.
NS = b'xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'


@pytest.fixture(scope="module")
def one_sheet(tmp_path_factory):
    return build_workbook(tmp_path_factory.mktemp("guard") / "book.xlsx", {"S": [["Kind", "fumble"]]})


def scan(xml: bytes, one_sheet) -> guard.SheetLayout:
    """The guard's view of one worksheet part made of ``xml`` (wrapped in a
    root element unless it is a whole part)."""
    if not xml.lstrip().startswith((b"<?xml", b"<worksheet", b"<x:worksheet", b"\xff\xfe", b"\xfe\xff")):
        xml = b"<worksheet>" + xml + b"</worksheet>"
    path = rewrite(one_sheet, one_sheet.with_name(f"scan{abs(hash(xml))}.xlsx"), "xl/worksheets/sheet1.xml", lambda _: xml)
    try:
        return guard.inspect(path, "book.xlsx").layouts["S"]
    finally:
        path.unlink()


def test_a_far_cell_in_a_namespaced_element_is_refused(one_sheet):
    with pytest.raises(WorkbookInvalid) as caught:
        scan(b'<x:worksheet ' + NS + b'><x:sheetData><x:row r="1"><x:c\tr="BM1"><x:v>1</x:v></x:c></x:row></x:sheetData></x:worksheet>',
             one_sheet)
    assert str(caught.value) == "book.xlsx › S › BM1: a cell at BM1 is beyond what the importer reads (5,000 rows, 64 columns)"


def test_text_that_looks_like_a_far_cell_or_a_hidden_row_is_not_one(one_sheet):
    layout = scan(b'<sheetData><row r="2"><c r="A2" t="inlineStr"><is><t> r="ZZZ99999" &lt;row r="7" hidden="1"&gt;</t></is></c>'
                  b'<c r="B2" t="inlineStr"><is><t>row r="8" hidden="1"&gt;</t></is></c></row></sheetData>', one_sheet)
    assert layout.hidden_rows == set()


def test_a_namespaced_dimension_hidden_row_column_and_merge_are_seen(one_sheet):
    with pytest.raises(WorkbookInvalid, match="claims cells up to C9999"):
        scan(b'<x:worksheet ' + NS + b'><x:dimension ref="A1:C9999"/></x:worksheet>', one_sheet)
    layout = scan(b'<x:cols><x:col min="2" max="3" hidden="true"/></x:cols><x:sheetData><x:row r="6" hidden="1"><x:c r="A6"/></x:row>'
                  b'<row r="7" spans="1:2" hidden="true"/></x:sheetData><x:mergeCells><x:mergeCell ref="B6:A5"/></x:mergeCells>',
                  one_sheet)
    assert (layout.hidden_rows, layout.hidden_columns, layout.merged) == ({6, 7}, {2, 3}, [(5, 1, 6, 2)])


def test_formulas_with_and_without_cached_values(one_sheet):
    """Cached means a non-empty <v>, or any <v> in a text cell (t="str"); a
    cell without `r` is placed as openpyxl places it; a conditional format's
    <xm:f> is no cell's formula."""
    layout = scan(
        b'<row r="2"><c r="A2"><f>1+1</f><v>2</v></c><c r="B2"><f>1+1</f><v /></c><c r="C2" t="str"><f>""</f><v></v></c>'
        b'<c r="D2"><f>""</f><v></v></c><c r="E2" s="1"><f t="shared" si="0"/></c><c r="F2"><f t="shared" si="0"/><v>4</v></c>'
        b'<x:c r="G2"><x:f>1</x:f></x:c><c r="H2" t="s"><v>3</v></c></row>'
        b'<row><c><v>1</v></c><c><f>1+1</f></c></row>'  # row 3, no r anywhere: B3
        b'<row r="4"><c r="A4"><!-- note --><f>1</f></c><c r="B4"><v/><f>1</f></c><c r="C4" p="' + b"x" * 5000 + b'"><f>1</f></c></row>'
        b'<extLst><x14:cfRule type="expression"><xm:f>A1&gt;0</xm:f></x14:cfRule></extLst>', one_sheet)
    assert layout.uncached_formulas == {(2, 2), (2, 4), (2, 5), (2, 7), (3, 2), (4, 1), (4, 2), (4, 3)}


def test_error_cells_are_noted_with_their_text_at_their_cell(one_sheet):
    layout = scan(b'<sheetData><row r="5"><c r="B5" t="e"><v>#N/A</v></c><c t="e"><f>1/0</f><v>#div/0!</v></c>'
                  b'<c t="e"><v>nonsense</v></c><c r="F5" t="e"/></row></sheetData>', one_sheet)
    assert layout.errors == {(5, 2): "#N/A", (5, 3): "#DIV/0!", (5, 4): "#VALUE!", (5, 6): "#VALUE!"}
    assert layout.uncached_formulas == set()


def test_uncached_formulas_are_found_where_openpyxl_finds_them_whatever_the_block_size(tmp_path, monkeypatch):
    from tables_app.sheets.guard import parts

    rows = [["Kind", "fumble"], ["Name", "F"], [], ["Roll", "Text", "Hits"]]
    rows += [[f"{n}-{n}", f"t{n}", f"={n}+1" if n % 3 else n] for n in range(1, 101)]
    path = build_workbook(tmp_path / "formulas.xlsx", {"F": rows})
    whole = read_workbook(path)
    marked = [(number, values) for number, values in whole.sheets[0].rows if len(values) > 2 and str(values[2]).startswith("a formula")]
    assert len(marked) == 67
    assert read_workbook(path, reader="openpyxl") == whole
    monkeypatch.setattr(parts, "CHUNK", 97)  # many a formula cell straddles a block's end
    assert read_workbook(path) == whole


LONG = b"a-very-long-namespace-prefix-of-forty:"  # 38 characters, a hyphen in it


@pytest.mark.parametrize("cell", [
    b"<c r='BM1'>", b'<c r = "BM1">', b'<c\nr="bm1">', b'<c r="&#66;M1">', b'<c s="1" t="n" r="A5001">',
    b'<c foo="a>b" r="BM1">', b"<" + LONG + b'c r="BM1">', b'<a-b:c r="XFD1048576">', b'<c r=" BM01 ">',
])
def test_far_cells_in_every_legal_spelling_are_refused(cell, one_sheet):
    end = b"</" + cell[1:cell.index(b" ") if b" " in cell else -1].split(b"\n")[0] + b">"
    with pytest.raises(WorkbookInvalid, match="beyond what the importer reads"):
        scan(b'<sheetData><row r="1">' + cell + b"<v>1</v>" + end + b"</row></sheetData>", one_sheet)


@pytest.mark.parametrize("dimension", [
    b"<dimension ref='A1:XFD5000'/>", b'<dimension ref = "A1:C9999" />', b"<" + LONG + b'dimension ref="A1:C9999"/>',
    b'<dimension x="a>b" ref="a1:c9999"/>', b'<a-b:dimension ref="A1:&#67;9999"/>',
])
def test_a_claimed_size_in_every_legal_spelling_is_refused(dimension, one_sheet):
    with pytest.raises(WorkbookInvalid, match="the sheet claims cells up to"):
        scan(dimension, one_sheet)


def test_hidden_rows_columns_and_merges_with_long_prefixes_and_single_quotes(one_sheet):
    layout = scan(b"<" + LONG + b"col min='2' max = '2' hidden='1'/><" + LONG + b"row r='6' hidden='true'/>"
                  b"<" + LONG + b"mergeCell ref='C2:D3'/>", one_sheet)
    assert (layout.hidden_rows, layout.hidden_columns, layout.merged) == ({6}, {2}, [(2, 3, 3, 4)])


@pytest.mark.parametrize("xml, message", [
    (b'<sheetData><row r="1"><c r="1A"><v>1</v></c></row></sheetData>', "a cell at '1A', which is not a cell reference"),
    (b'<sheetData><row r="x"/></sheetData>', "a row numbered 'x'"),
    (b'<sheetData><row r="1"><c r="A1"><f>1</f><c r="B1"/></c></row></sheetData>', "a cell inside the cell at A1"),
    (b'<sheetData><row r="1"><c r="A1"><v>1</c></row></sheetData>', "is not well-formed XML (mismatched tag, line 1)"),
    (b'<sheetData>&bogus;</sheetData>', "is not well-formed XML (undefined entity, line 1)"),
])
def test_malformed_sheets_are_refused_by_name(xml, message, one_sheet):
    with pytest.raises(WorkbookInvalid, match=re.escape(message)):
        scan(xml, one_sheet)


def test_a_utf16_part_is_read_as_utf16(one_sheet):
    """A part in UTF-16 is parsed in its encoding, not scanned as bytes: its
    hidden rows are seen and its DOCTYPE refused (issue 17, item 9)."""
    body = '<?xml version="1.0" encoding="UTF-16"?><worksheet><sheetData><row r="6" hidden="1"/></sheetData></worksheet>'
    assert scan(body.encode("utf-16"), one_sheet).hidden_rows == {6}
    bomb = '<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE x [<!ENTITY a "a">]><worksheet/>'
    with pytest.raises(WorkbookInvalid, match="declares a DOCTYPE or entities"):
        scan(bomb.encode("utf-16"), one_sheet)


def test_a_sheet_reached_through_dot_dot_is_still_a_sheet(tmp_path):
    path = build_workbook(tmp_path / "dots.xlsx", {"F": GOOD["F"]})
    path = rewrite(path, tmp_path / "dotted.xlsx", "xl/_rels/workbook.xml.rels",
                   lambda d: d.replace(b'Target="/xl/worksheets/sheet1.xml"', b'Target="../xl/worksheets/sheet1.xml"'))
    assert b"../xl/worksheets" in __import__("zipfile").ZipFile(path).read("xl/_rels/workbook.xml.rels")
    far = rewrite(path, tmp_path / "far.xlsx", "xl/worksheets/sheet1.xml",
                  lambda d: d.replace(b'<dimension ref="A1:B6"', b'<dimension ref="A1:XFD5000"'))
    assert refused(far) == "far.xlsx › F: the sheet claims cells up to XFD5000; the importer reads at most 5,000 rows and 64 columns"


HOSTILE_PARTS = """
import sys, time
sys.path.insert(0, sys.argv[1])
from helpers import rewrite
from pathlib import Path
from tables_app.sheets import guard
from tables_app.errors import WorkbookInvalid
parts = [
    b'<row r="1"><c r="A1" t="inlineStr"><is><t>hidden= ' + b"row " * 60000 + b"</t></is></c></row>",
    b"<t>hidden= " + b"a:row x='1' " * 30000 + b"dimension " * 20000 + b"mergeCell " * 20000 + b"</t>",
    b'<row r="1">' + b'<c r="A1"><f>1</f></c>' * 50000 + b"</row>",
    b"<t>" + b' r="A1000"' * 90000 + b"</t>",
    b'<row a="' * 100000 + b"<row a='" * 100000 + b"<row" + b' a="1"' * 100000 + b" <",
    (b"<c " + b" ".join(b'a%d="1"' % i for i in range(190)) + b' q="' + b" r='XY12'" * 180 + b'" r="A1"/>') * 200,
    b"<row>" * 200000 + b"</row>" * 200000,
]
for n, xml in enumerate(parts):
    path = rewrite(Path(sys.argv[2]), Path(sys.argv[2]).with_name(f"hostile{n}.xlsx"), "xl/worksheets/sheet1.xml",
                   lambda _: b"<worksheet>" + xml + b"</worksheet>")
    try:
        guard.inspect(path, "b")
    except WorkbookInvalid:
        pass
print("done")
"""


def test_parts_built_to_make_the_scan_slow_do_not(one_sheet):
    """Each of these took the old regex scan from 3 s to over 2 minutes when
    its patterns could rescan the same bytes (review of 2026-11-29); expat
    reads each once. The timeout only catches a return to quadratic time."""
    tests = str(Path(__file__).resolve().parents[1])
    done = subprocess.run([sys.executable, "-c", HOSTILE_PARTS, tests, str(one_sheet)], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "done", done.stderr[-800:]


# Reads with the guard blinded to a sheet's cells: the readers must still
# hold to the bounds themselves, and calamine's sandbox to its memory limit.
BLIND_READ = """
import sys
from tables_app.errors import WorkbookInvalid
from tables_app.sheets.guard import SheetLayout, xlsx
from tables_app.sheets.read import read_workbook
xlsx._scan_sheet = lambda *arguments: SheetLayout()
try:
    sheet = read_workbook(sys.argv[1], reader=sys.argv[2]).sheets[0]
except WorkbookInvalid as exc:
    print(exc)
else:
    print(len(sheet.rows), max(len(values) for _, values in sheet.rows))
"""


def wide_row(good, tmp_path):  # type: ignore[no-untyped-def]
    """A row 16,384 cells wide, in cells without an `r`, and no <dimension>."""
    def hostile(data: bytes) -> bytes:
        data = re.sub(rb"<dimension[^>]*/>", b"", data)
        wide = b"<row r='7'>" + b"<c t='inlineStr'><is><t></t></is></c>" * 16383 + b"<c><v>1</v></c></row>"
        return data.replace(b"</sheetData>", wide + b"</sheetData>")

    return rewrite(good, tmp_path / "wide-row.xlsx", "xl/worksheets/sheet1.xml", hostile)


def test_a_row_wider_than_the_bounds_is_refused_at_its_first_cell_beyond_them(good, tmp_path):
    assert refused(wide_row(good, tmp_path)) == (
        "wide-row.xlsx › F › BM7: a cell at BM7 is beyond what the importer reads (5,000 rows, 64 columns)")


def test_rows_and_columns_the_guard_misses_are_still_bounded_while_reading(good, tmp_path):
    """Both readers hold to the bounds themselves, so the read neither hangs
    nor builds huge rows if a file ever got past the guard."""
    for reader in ("openpyxl", "calamine"):
        done = subprocess.run([sys.executable, "-c", BLIND_READ, str(wide_row(good, tmp_path)), reader],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr[-500:]
        assert done.stdout.split() == ["5", "2"], reader  # header block and grid; the wide row is blank up to the bound


def test_a_row_past_the_bounds_with_cells_is_refused_by_the_guard(good, tmp_path):
    """Row 10^12 with a cell without `r`: the cell is placed in that row and named."""
    path = rewrite(good, tmp_path / "far-row.xlsx", "xl/worksheets/sheet1.xml", lambda d: d.replace(
        b"</sheetData>", b'<row r="1000000000000"><c><v>1</v></c></row></sheetData>'))
    with pytest.raises(WorkbookInvalid) as refused_file:
        guard.inspect(path, "far-row.xlsx")
    assert str(refused_file.value) == ("far-row.xlsx › F › A1000000000000: a cell at A1000000000000 is beyond what the importer "
                                       "reads (5,000 rows, 64 columns)")
    empty = rewrite(good, tmp_path / "far-empty-row.xlsx", "xl/worksheets/sheet1.xml", lambda d: d.replace(
        b"</sheetData>", b'<row r="9000" ht="20" customHeight="1"/></sheetData>'))  # formatting only, as Excel writes
    guard.inspect(empty, "far-empty-row.xlsx")


def calamine_bomb(good, tmp_path):  # type: ignore[no-untyped-def]
    path = tmp_path / "calamine-bomb.xlsx"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(path, "w") as target:  # stored: no ratio to refuse
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = re.sub(rb"<dimension[^>]*/>", b"", data).replace(
                    b"</sheetData>", b"<row r='4000'>" + b"<c><v>1</v></c>" * 300_000 + b"</row>"
                    b'<row r="5000"><c r="A5000"><v>1</v></c></row></sheetData>')
            target.writestr(item.filename, data, zipfile.ZIP_STORED)
    return path


def test_a_sheet_that_makes_calamine_allocate_without_bound_is_refused_and_the_importer_lives(good, tmp_path):
    """300,000 cells without an `r` in one row and a cell at A5000: calamine
    reserves 5,000 × 300,000 cells. The guard refuses the row at its 65th
    cell; blinded, calamine's child hits the address-space limit and dies,
    and the importing process refuses the file with one line and goes on."""
    path = calamine_bomb(good, tmp_path)
    assert refused(path) == (
        "calamine-bomb.xlsx › F › BM4000: a cell at BM4000 is beyond what the importer reads (5,000 rows, 64 columns)")
    done = subprocess.run([sys.executable, "-c", BLIND_READ, str(path), "calamine"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == "calamine-bomb.xlsx: cannot read the workbook: it needs more than 1,024 MB to read (a crafted file?)"


@pytest.mark.parametrize("xml, expected", [
    ("<ñ:row r='5' hidden='1'/>", {5}),
    ('<row r="6" hidden="1" é="x"/>', {6}),
])
def test_non_ascii_names_do_not_hide_elements(xml, expected, one_sheet):
    assert scan(xml.encode(), one_sheet).hidden_rows == expected
    with pytest.raises(WorkbookInvalid, match="beyond what the importer reads"):
        scan('<ñ:c é="1" r="BM6"><ñ:v>1</ñ:v></ñ:c>'.encode(), one_sheet)
    assert scan('<ñ:c r="A1"><ñ:f>1</ñ:f><ñ:v/></ñ:c>'.encode(), one_sheet).uncached_formulas == {(1, 1)}


def test_attributes_that_merely_contain_look_alikes_are_not_taken_for_them(one_sheet):
    assert scan(b'<c q:note=" r=\'B9\' t=\'str\'" r="A1"><f>1</f><v/></c>', one_sheet).uncached_formulas == {(1, 1)}
    scan(b'<row r="1"><c q:note=" r=\'XY9999\'" r="A1"><v>1</v></c></row>', one_sheet)  # not refused: the far one is a value


def test_a_tag_cut_by_a_block_seam_is_read_whole(tmp_path, monkeypatch):
    from tables_app.sheets.guard import parts

    rows = [["Kind", "fumble"], ["Name", "F"], [], ["Roll", "Text"], ["1-50", "a"], ["51+", "b"]]
    path = build_workbook(tmp_path / "seam.xlsx", {"F": rows})
    pad = b'xmlns:p="urn:p" p:pad="' + b"x" * 5000 + b'"'
    path = rewrite(path, tmp_path / "padded.xlsx", "xl/worksheets/sheet1.xml", lambda d: re.sub(
        rb'<row r="6"[^>]*>', b'<row r="6" ' + pad + b' hidden="1">', d).replace(
        b"</sheetData>", b"</sheetData><mergeCells><mergeCell " + pad + b' ref="A5:B6"/></mergeCells>'))
    whole = guard.inspect(path, "padded.xlsx").layouts["F"]
    assert (whole.hidden_rows, whole.merged) == ({6}, [(5, 1, 6, 2)])
    for chunk in (2000, 3001, 4999):  # block ends inside the padded tags
        monkeypatch.setattr(parts, "CHUNK", chunk)
        cut = guard.inspect(path, "padded.xlsx").layouts["F"]
        assert (cut.hidden_rows, cut.merged) == ({6}, [(5, 1, 6, 2)])


HIDDEN_5 = "crafted.xlsx › F › A5: row 5 is hidden; unhide it (hidden rows are not imported silently)"
# calamine matches sheet elements by local name, whatever their namespace: a decoy `<z:sheet>` is a
# sheet to it but not to the guard, and the lists differ; refused, never read unchecked
SHEET_LIST = ("crafted.xlsx: the workbook's sheet list does not read the same every way (a crafted file?); "
              "open and save it in a spreadsheet program")


@pytest.mark.parametrize("change, expected", [
    (lambda d: d.replace(b'r:id="rId1"', b'xmlns:z="urn:z" z:id="rId2" r:id="rId1"'), HIDDEN_5),
    (lambda d: d.replace(b"</sheets>", b'</sheets><extLst><z:sheet xmlns:z="urn:z" name="Decoy" r:id="rId1"/></extLst>'),
     SHEET_LIST),
    (lambda d: d.replace(b"</sheets>", b'<z:sheet xmlns:z="urn:z" name="Decoy" r:id="rId1"/></sheets>'), SHEET_LIST),
])
def test_the_guard_checks_the_sheets_openpyxl_reads(tmp_path, change, expected):
    import openpyxl

    path = build_workbook(tmp_path / "book.xlsx", {"F": GOOD["F"]})
    book = openpyxl.load_workbook(path)
    book["F"].row_dimensions[5].hidden = True
    book.save(path)
    crafted = rewrite(path, tmp_path / "crafted.xlsx", "xl/workbook.xml", change)
    try:
        problems = [str(p) for p in interpret(read_workbook(crafted)).problems]
    except WorkbookInvalid as refusal:
        problems = [str(refusal)]
    assert problems == [expected]
