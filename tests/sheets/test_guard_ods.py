"""LibreOffice workbooks (.ods): read as their .xlsx twins are, every layout
feature seen as in an .xlsx, hostile files refused with one line
(sheets/guard/ods.py; the files are written by hand, tests/ods_files.py)."""

from __future__ import annotations

import random
import re
import zipfile
from pathlib import Path

import pytest
from helpers import MINI_FUMBLE, build_workbook, counted_work, db_dump, error_lines, layout_workbook, refused
from helpers import workbook_problems as problems
from ods_files import MANIFEST, STYLES, content_xml, package, write_ods, xlsx_to_ods

from tables_app.errors import WorkbookInvalid
from tables_app.services.database_setup import bundled_workbooks, example_workbooks
from tables_app.sheets import guard
from tables_app.sheets.guard import ods
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

GOOD = {"F": [["Kind", "fumble"], ["Name", "Oops"], [], ["Roll", "Text"], ["1-50", "a"], ["51+", "b"]]}
BEYOND = "is beyond what the importer reads (5,000 rows, 64 columns)"




def attack(*rows):  # type: ignore[no-untyped-def]
    return [["Kind", "attack"], ["Name", "T"], [], ["Result", "NA", "HA"], *[list(r) for r in rows]]


@pytest.fixture
def good_xml() -> str:
    return content_xml(GOOD)


# -- the same database from either format ---------------------------------------

def _imported(tmp_path: Path, name: str, paths: list[Path], labels: list[str]) -> list[str]:
    """The database's rows after importing ``paths`` (known by ``labels``),
    import times, file hashes and sizes aside (an .ods is other bytes)."""
    from tables_app.services.database_setup import init_database
    from tables_app.services.importing import import_workbooks

    database = init_database(str(tmp_path / f"{name}.db"), bundled=False)
    try:
        report = import_workbooks(database, paths, replace=True, labels=labels)
    finally:
        database.dispose()
    assert report.problems == [] and report.written
    when = re.compile(r"'\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?(\+00:00)?'")
    file = re.compile(r"'[0-9a-f]{64}','TIME',\d+\)")
    return [file.sub("'SHA','TIME',SIZE)", when.sub("'TIME'", line))
            for line in db_dump(tmp_path / f"{name}.db") if line.startswith("INSERT")]


@pytest.mark.slow  # ~2 s each: every shipped workbook imported twice (`pytest -m slow`, and CI)
@pytest.mark.parametrize("workbooks", ["bundled", "printed"])
def test_every_shipped_workbook_as_ods_imports_the_same_database(tmp_path, workbooks):
    paths = bundled_workbooks() if workbooks == "bundled" else [example_workbooks()["printed"]]
    labels = [p.name for p in paths]
    converted = [xlsx_to_ods(p, tmp_path / f"{p.stem}.ods") for p in paths]
    from_xlsx = _imported(tmp_path, "xlsx", paths, labels)
    from_ods = _imported(tmp_path, "ods", converted, labels)
    assert from_ods == from_xlsx
    assert len(from_ods) > 100
    # the converted files hold what LibreOffice writes: content cells and rows as repeats, huge padding
    content = b"".join(zipfile.ZipFile(path).read("content.xml") for path in converted)
    assert re.search(rb'number-columns-repeated="\d+" office:value-type', content)
    assert b'table:number-rows-repeated="10485' in content


def test_the_test_workbooks_read_the_same_values_as_ods(tmp_path, mini_workbook):
    from test_calamine_read import ODD_VALUES

    repeated = build_workbook(tmp_path / "repeated.xlsx", {"R": [["Kind", "notes"], *[["a", "a", 7]] * 3, [None, 5, 5], ["end"]]})
    odd = build_workbook(tmp_path / "odd.xlsx", ODD_VALUES, hidden=("Hidden one",))
    for path in (mini_workbook, repeated, odd):
        xlsx = read_workbook(path)
        converted = read_workbook(xlsx_to_ods(path, path.with_suffix(".ods")))
        assert [(s.name, s.hidden, s.rows) for s in converted.sheets] == [(s.name, s.hidden, s.rows) for s in xlsx.sheets]
    assert [s.hidden for s in converted.sheets] == [False, True, False]
    content = zipfile.ZipFile(repeated.with_suffix(".ods")).read("content.xml")
    assert b'table:number-rows-repeated="3"><table:table-cell table:number-columns-repeated="2" office:value-type' in content


def test_sheet_names_with_odd_characters_are_calamine_s_names(tmp_path):
    names = ["A&B <x>", "Ünïcødé ✓", "it's \"quoted\"", "  spaced  ", "line\nbreak", "tab\there"]
    path = write_ods(tmp_path / "names.ods", {n: MINI_FUMBLE for n in names})
    assert [s.name for s in read_workbook(path).sheets] == names
    assert [title for title, _ in guard.inspect(path, "names.ods").sheet_sizes] == names


# -- what calamine cannot see, seen as in an .xlsx ------------------------------

def test_hidden_rows_columns_and_merged_cells_in_a_grid(tmp_path):
    path = layout_workbook(tmp_path / "layout.xlsx")
    expected = [
        "layout.ods › Rows › A6: row 6 is hidden; unhide it (hidden rows are not imported silently)",
        "layout.ods › Cols › C1: column C is hidden; unhide it",
        "layout.ods › Merged › A5: merged cells A5:A6 take in the Roll column; unmerge them and write each row's range in its own cell",
    ]
    assert problems(xlsx_to_ods(path, tmp_path / "layout.ods")) == expected
    assert [p.replace(".xlsx", ".ods") for p in problems(path)] == expected


def test_rows_hidden_by_a_filter_in_groups_and_repeats_and_columns_in_groups(tmp_path, good_xml):
    xml = good_xml.replace('<table:table-row table:style-name="ro1"><table:table-cell office:value-type="string" '
                           'calcext:value-type="string"><text:p>1-50',
                           '<table:table-row-group><table:table-row table:style-name="ro1" table:visibility="filter">'
                           '<table:table-cell office:value-type="string" calcext:value-type="string"><text:p>1-50', 1)
    xml = xml.replace("<text:p>a</text:p></table:table-cell>", "<text:p>a</text:p></table:table-cell>", 1)
    xml = re.sub(r"(<text:p>1-50</text:p>.*?</table:table-row>)", r"\1</table:table-row-group>", xml, count=1)
    xml = xml.replace('table:number-rows-repeated="1048570"', 'table:number-rows-repeated="1048570" table:visibility="collapse"')
    xml, columns = re.subn(r"<table:table-column [^>]*/>",
                           '<table:table-header-columns><table:table-column table:style-name="co1"/></table:table-header-columns>'
                           '<table:table-column-group><table:table-column table:number-columns-repeated="2"/></table:table-column-group>'
                           '<table:table-column table:number-columns-repeated="1021" table:visibility="collapse"/>', xml)
    assert columns == 1
    path = package(tmp_path / "groups.ods", xml)
    layout = guard.inspect(path, "groups.ods").layouts["F"]
    assert layout.hidden_rows == {5, *range(7, 5001)}  # the padding's hidden rows, up to the bounds only
    assert layout.hidden_columns == set(range(4, 65))
    assert problems(path) == ["groups.ods › F › A5: row 5 is hidden; unhide it (hidden rows are not imported silently)"]


def test_a_hidden_sheet_is_skipped_with_a_warning(tmp_path):
    path = write_ods(tmp_path / "w.ods", {"Oops": MINI_FUMBLE, "Secret": MINI_FUMBLE}, hidden_sheets=("Secret",))
    result = interpret(read_workbook(path))
    assert result.problems == []
    assert [str(w) for w in result.warnings] == ["w.ods › Secret: hidden sheet skipped"]
    assert [s.hidden for s in read_workbook(path).sheets] == [False, True]


def test_a_sheet_hidden_by_a_style_in_styles_xml_is_hidden_though_calamine_does_not_look_there(tmp_path):
    xml = content_xml({"Oops": MINI_FUMBLE, "Secret": MINI_FUMBLE}).replace('table:name="Secret" table:style-name="ta1"',
                                                                            'table:name="Secret" table:style-name="Common"')
    styles = STYLES.replace("</office:styles>", '<style:style style:name="Common" style:family="table">'
                                                '<style:table-properties table:display="false"/></style:style></office:styles>')
    path = package(tmp_path / "w.ods", xml, styles=styles)
    assert [(s.name, s.hidden) for s in read_workbook(path).sheets] == [("Oops", False), ("Secret", True)]


@pytest.mark.parametrize("style", ["string", "float", "legacy"])
@pytest.mark.parametrize("shown, named", [("#DIV/0!", "#DIV/0!"), ("#N/A", "#N/A"), ("Err:532", "#DIV/0!"), ("Err:502", "#VALUE!")])
def test_error_cells_are_named_at_their_cell(tmp_path, style, shown, named):
    path = write_ods(tmp_path / "w.ods", {"T": attack(("11-20", 3, 1), ("21+", 4, 2))},
                     errors={"T": {(5, 2): shown, (6, 3): shown}}, error_style=style)
    assert problems(path) == [f"w.ods › T › B5: error value {named} (fix the formula or paste values)",
                              f"w.ods › T › C6: error value {named} (fix the formula or paste values)"]


def test_formulas_without_a_value_are_named_and_with_one_read_as_their_value(tmp_path):
    uncached = write_ods(tmp_path / "w.ods", {"T": attack(("11-20", None, 1), ("21+", 4, None))},
                         formulas={"T": {(5, 2): "of:=1+1", (6, 3): "of:=[.B5]"}})
    message = "a formula without a cached value: open and save the file in a spreadsheet program, or paste values"
    assert problems(uncached) == [f"w.ods › T › B5: {message}", f"w.ods › T › C6: {message}"]
    cached = write_ods(tmp_path / "cached.ods", {"T": attack(("11-20", 2, 1), ("21+", 4, "1"))},
                       formulas={"T": {(5, 2): "of:=1+1", (6, 3): 'of:="1"'}})
    assert problems(cached) == []
    assert dict(read_workbook(cached).sheets[0].rows)[5] == ("11-20", 2, 1)


def test_positions_count_every_repeat_of_rows_and_cells(tmp_path):
    path = write_ods(tmp_path / "r.ods", {"S": [["a", "a", "a"], ["a", "a", "a"], ["a", "a", "a"], [], [], [], [None, None, None, "b"]]},
                     hidden_rows={"S": {6}}, errors={"S": {(7, 5): "#N/A"}}, formulas={"S": {(8, 3): "of:=1"}})
    content = zipfile.ZipFile(path).read("content.xml")
    assert b'table:number-rows-repeated="3"><table:table-cell table:number-columns-repeated="3"' in content
    assert b'table:number-rows-repeated="2"' in content
    layout = guard.inspect(path, "r.ods").layouts["S"]
    assert (layout.hidden_rows, layout.errors, layout.uncached_formulas) == ({6}, {(7, 5): "#N/A"}, {(8, 3)})
    assert dict(read_workbook(path).sheets[0].rows)[7] == (None, None, None, "b", "#N/A")


def test_repeated_error_cells_and_merges_are_noted_at_every_position_within_the_bounds(tmp_path, good_xml):
    xml = good_xml.replace('<table:table-cell office:value-type="string" calcext:value-type="string"><text:p>a</text:p>',
                           '<table:table-cell table:number-columns-repeated="3" table:formula="of:=NA()" office:value-type="string" '
                           'office:string-value="" calcext:value-type="error"><text:p>#N/A</text:p>')
    xml = xml.replace('<table:table-cell office:value-type="string" calcext:value-type="string"><text:p>Roll',
                      '<table:table-cell table:number-columns-spanned="2" office:value-type="string" calcext:value-type="string"><text:p>Roll')
    layout = guard.inspect(package(tmp_path / "e.ods", xml), "e.ods").layouts["F"]
    assert layout.errors == {(5, 2): "#N/A", (5, 3): "#N/A", (5, 4): "#N/A"}
    assert layout.merged == [(4, 1, 4, 2)]


# -- hostile files, each refused with one line ----------------------------------

def test_a_zip_bomb_part(tmp_path, good_xml):
    path = package(tmp_path / "bomb.ods", good_xml, extra={"Pictures/padding.xml": b" " * (8 << 20)})
    info = zipfile.ZipFile(path).getinfo("Pictures/padding.xml")
    assert refused(path) == f"bomb.ods: part Pictures/padding.xml unpacks {info.file_size // info.compress_size:,} times its size (a zip bomb?)"


LAUGHS = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
          + "".join(f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10 if i > 1 else "&lol;" * 10}">' for i in range(1, 10)) + "]>")


def test_an_entity_bomb_in_content_xml(tmp_path, good_xml):
    path = package(tmp_path / "bomb.ods", LAUGHS + good_xml.split("?>", 1)[1])
    assert refused(path) == "bomb.ods: part content.xml declares a DOCTYPE or entities (an XML bomb?); refused"


@pytest.mark.parametrize("part", ["styles.xml", "META-INF/manifest.xml", "meta.xml", "settings.xml"])
def test_an_external_entity_in_any_other_part(tmp_path, good_xml, part):
    xxe = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>'
    path = package(tmp_path / "xxe.ods", good_xml, extra={part: xxe.encode()})
    assert refused(path) == f"xxe.ods: part {part} declares a DOCTYPE or entities (an XML bomb?); refused"


def test_utf16_parts_are_read_as_utf16(tmp_path, good_xml):
    declared = '<?xml version="1.0" encoding="UTF-16"?>'
    bomb = package(tmp_path / "bomb16.ods", (LAUGHS.replace('<?xml version="1.0"?>', declared) + good_xml.split("?>", 1)[1]).encode("utf-16"))
    assert refused(bomb) == ("bomb16.ods: part content.xml is encoded in UTF-16; the reader reads only UTF-8 "
                             "(save the workbook from a spreadsheet program)")
    styles = package(tmp_path / "styles16.ods", good_xml, styles=(LAUGHS + STYLES.split("?>", 1)[1]).encode("utf-16"))
    assert refused(styles) == "styles16.ods: part styles.xml declares a DOCTYPE or entities (an XML bomb?); refused"
    quiet = package(tmp_path / "quiet16.ods", (declared + good_xml.split("?>", 1)[1]).encode("utf-16"))
    assert refused(quiet).startswith("quiet16.ods: part content.xml is encoded in UTF-16;")  # calamine would find no sheet
    latin = package(tmp_path / "latin.ods", good_xml.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'))
    assert refused(latin) == ("latin.ods: part content.xml is encoded in ISO-8859-1; the reader reads only UTF-8 "
                              "(save the workbook from a spreadsheet program)")
    empty = package(tmp_path / "empty.ods", good_xml.replace('encoding="UTF-8"', 'encoding=""'))  # found by the fuzzer
    assert refused(empty) == ("empty.ods: part content.xml is encoded in ''; the reader reads only UTF-8 "
                              "(save the workbook from a spreadsheet program)")


ROW_5 = '<table:table-row table:style-name="ro1"><table:table-cell office:value-type="string" calcext:value-type="string"><text:p>1-50'


@pytest.mark.parametrize("change, expected", [
    (lambda x: x.replace('<table:table-cell office:value-type="string" calcext:value-type="string"><text:p>1-50',
                         '<table:table-cell table:number-columns-repeated="70" office:value-type="string" calcext:value-type="string"><text:p>1-50'),
     f"far.ods › F › BM5: a cell at BM5 {BEYOND}: the cell at A5 is repeated 70 times"),
    (lambda x: x.replace(ROW_5, ROW_5.replace('"ro1"', '"ro1" table:number-rows-repeated="1000000"')),
     f"far.ods › F › A5001: a cell at A5001 {BEYOND}: row 5 is repeated 1,000,000 times"),
    (lambda x: x.replace('table:number-columns-repeated="1022"/></table:table-row>',
                         'table:number-columns-repeated="1000"/><table:table-cell office:value-type="float" office:value="1"/></table:table-row>', 1),
     f"far.ods › F › ALO1: a cell at ALO1 {BEYOND}"),
    (lambda x: x.replace('table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/>',
                         'table:number-rows-repeated="1048570"><table:table-cell table:formula="of:=1"/>'),
     f"far.ods › F › A5001: a cell at A5001 {BEYOND}: row 7 is repeated 1,048,570 times"),
    (lambda x: x.replace(ROW_5, ROW_5.replace('"ro1"', '"ro1" table:number-rows-repeated="' + "1" + "0" * 30 + '"')),
     "far.ods › F: row 5: table:number-rows-repeated='1000000000000000000000000000000' is absurd (a crafted file?)"),
    (lambda x: x.replace('table:number-columns-repeated="1022"', 'table:number-columns-repeated="-1"', 1),
     "far.ods › F › C1: the cell at C1: table:number-columns-repeated='-1' is not a count (a crafted file?)"),
    (lambda x: x.replace('table:number-columns-repeated="1022"', 'table:number-columns-repeated="1e3"', 1),
     "far.ods › F › C1: the cell at C1: table:number-columns-repeated='1e3' is not a count (a crafted file?)"),
    (lambda x: x.replace(ROW_5, ROW_5.replace('"ro1"', '"ro1" table:number-rows-repeated="0"')),
     "far.ods › F: row 5: table:number-rows-repeated is 0 (a crafted file?)"),
    (lambda x: x.replace('table:number-columns-repeated="1024"/></table:table-row></table:table>',
                         'table:number-columns-repeated="1024"/></table:table-row></table:table><table:table table:name="F"/>'),
     "far.ods › F: two sheets are named 'F' (a crafted file?)"),
    (lambda x: x.replace(' table:name="F"', ''), "far.ods: sheet 1 has no name (a crafted file?)"),
    (lambda x: x.replace("<text:p>a</text:p>", '<text:p>a</text:p><table:table table:name="N"><table:table-row/></table:table>'),
     "far.ods › F › B5: a table inside a cell (table:table); refused (a crafted file?)"),
    (lambda x: x.replace('<table:table-cell office:value-type="string" calcext:value-type="string"><text:p>a', '<table:table-cell><text:p>a'),
     "far.ods › F › B5: the cell shows text but holds no value (no office:value-type): calamine would read it blank "
     "(a crafted file?)"),
    (lambda x: x.replace('xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
                         'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:t="urn:oasis:names:tc:opendocument:xmlns:table:1.0"'),
     "far.ods: content.xml binds the prefix 't' to 'urn:oasis:names:tc:opendocument:xmlns:table:1.0'; the readers would see "
     "different sheets (a crafted file?)"),
    (lambda x: x.replace('table:display="false"', 'table:display="0"'),
     "far.ods: table style 'ta2' has table:display='0', neither true nor false (a crafted file?)"),
    (lambda x: x.replace("<office:spreadsheet>", "<office:text>").replace("</office:spreadsheet>", "</office:text>"),
     "far.ods: a sheet outside the spreadsheet (a crafted file?)"),
    (lambda x: x.replace('<table:table-row table:style-name="ro1">', '<table:table-row table:style-name="ro1"><table:table-cell', 1),
     "far.ods › F: part content.xml is not well-formed XML (not well-formed (invalid token), line 2)"),
    (lambda x: x.replace('<table:table-row table:style-name="ro1">', '<table:table-row table:style-name="ro1"><table:table-row/>', 1),
     "far.ods › F: a row inside row 1 (a crafted file?)"),
    (lambda x: "this is not XML at all", "far.ods: part content.xml is not well-formed XML (syntax error, line 1)"),
])
def test_crafted_content_is_refused_with_one_line(tmp_path, good_xml, change, expected):
    assert refused(package(tmp_path / "far.ods", change(good_xml))) == expected


def test_a_text_document_that_says_it_is_a_spreadsheet(tmp_path):
    text = ('<?xml version="1.0" encoding="UTF-8"?><office:document-content '
            'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0">'
            '<office:body><office:text><text:p>Hello</text:p></office:text></office:body></office:document-content>')
    assert refused(package(tmp_path / "liar.ods", text)) == (
        "liar.ods: the file says it is an OpenDocument spreadsheet, but content.xml holds no spreadsheet (a crafted file?)")
    other = package(tmp_path / "odt.ods", content_xml(GOOD), mimetype="application/vnd.oasis.opendocument.text")
    assert refused(other).startswith("odt.ods: a zip file, but not a spreadsheet workbook")


def test_broken_and_incomplete_files(tmp_path, good_xml):
    path = package(tmp_path / "good.ods", good_xml)
    truncated = tmp_path / "truncated.ods"
    truncated.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    assert re.fullmatch(r"truncated\.ods: the file is truncated or corrupt \((BadZipFile: )?File is not a zip file\)", refused(truncated))
    assert refused(package(tmp_path / "nocontent.ods", good_xml, omit=("content.xml",))) == (
        "nocontent.ods: the sheets (content.xml) are missing; the file is corrupt")
    assert refused(package(tmp_path / "nomanifest.ods", good_xml, omit=("META-INF/manifest.xml",))) == (
        "nomanifest.ods: the part list (META-INF/manifest.xml) is missing; the file is corrupt")
    encrypted = MANIFEST.replace('manifest:media-type="text/xml"/>', 'manifest:media-type="text/xml"><manifest:encryption-data '
                                 'manifest:checksum-type="SHA1/1K" manifest:checksum="x"/></manifest:file-entry>', 1)
    assert refused(package(tmp_path / "secret.ods", good_xml, manifest=encrypted)) == (
        "secret.ods: the workbook is password-protected; save it without a password and import that")


def test_a_name_calamine_reads_otherwise_than_expat_is_refused(tmp_path, good_xml):
    """A raw newline in an attribute is a space to expat (XML's rule), a newline to calamine."""
    path = package(tmp_path / "raw.ods", good_xml.replace('table:name="F"', 'table:name="F\nG"'))
    assert refused(path) == ("raw.ods: the workbook's sheet list does not read the same every way (a crafted file?); "
                             "open and save it in a spreadsheet program")


def test_huge_repeats_of_empty_rows_and_cells_cost_nothing(tmp_path, good_xml):
    """Padded with 999,999,999 empty rows and columns, a file is read with the
    work (lines of Python, memory: helpers.counted_work) of one padded as
    LibreOffice pads (1,048,570 rows, 1,024 columns) and of one not padded at
    all: nothing is done per repeat."""
    def padded(rows: int, columns: int) -> Path:
        xml = good_xml.replace('table:number-rows-repeated="1048570"', f'table:number-rows-repeated="{rows}"').replace(
            'table:number-columns-repeated="1024"', f'table:number-columns-repeated="{columns}"')
        return package(tmp_path / f"padded-{rows}.ods", xml)

    assert problems(padded(1, 1)) == []  # the modules it needs are loaded now, not while counting
    works = []
    for rows, columns in ((1, 1), (1_048_570, 1_024), (999_999_999, 999_999_999)):
        path = padded(rows, columns)
        with counted_work(max_lines=100_000) as work:
            assert problems(path) == []
        works.append(work)
    fewest = min(work.lines for work in works)
    assert all(work.lines <= fewest * 1.05 for work in works), [work.lines for work in works]  # ~5,600 each
    assert all(work.peak < 16 << 20 for work in works), [work.peak for work in works]  # ~1 MB each


def test_many_marks_are_refused_before_they_take_memory(tmp_path, monkeypatch, good_xml):
    monkeypatch.setattr(ods, "MAX_MARKS", 1000)
    xml = good_xml.replace('table:number-rows-repeated="1048570"', 'table:number-rows-repeated="1048570" table:visibility="collapse"')
    assert refused(package(tmp_path / "marks.ods", xml)) == (
        "marks.ods › F: more than 1,000 hidden rows, merged cells, error cells and formulas to note; refused")


# -- through the command line ---------------------------------------------------

def test_the_cli_imports_an_ods_and_refuses_a_hostile_one_leaving_the_database_as_it_was(run, mini_workbook, tmp_path, db_path):
    before = db_dump(db_path)
    hostile = package(tmp_path / "hostile.ods", LAUGHS + content_xml(GOOD).split("?>", 1)[1])
    result = run("import", str(hostile))
    assert result.exit_code == 1
    assert error_lines(result) == "Error: hostile.ods: part content.xml declares a DOCTYPE or entities (an XML bomb?); refused\n"
    assert "Traceback" not in result.output
    assert db_dump(db_path) == before
    mini = xlsx_to_ods(mini_workbook, tmp_path / "mini.ods")
    result = run("import", str(mini))
    assert result.exit_code == 0, result.output
    assert "Imported mini.ods:" in result.output
    assert db_dump(db_path) != before


# -- mutations ------------------------------------------------------------------

def _mutated(data: bytes, rng: random.Random, flips: int = 4) -> bytes:
    """Some bytes overwritten (often by a digit or a letter: XML that stays
    well-formed but means something else), or the end cut off."""
    mutated = bytearray(data)
    if rng.random() < 0.15:
        del mutated[rng.randrange(len(mutated)):]
    else:
        for _ in range(rng.randint(1, flips)):
            mutated[rng.randrange(len(mutated))] = rng.choice([rng.randrange(256), *b'<>&"=:/ -+0123456789aexy'])
    return bytes(mutated)


@pytest.mark.slow  # ~3 s: a read per mutant (`pytest -m slow`, and CI)
def test_mutated_files_are_read_or_refused_never_anything_else(tmp_path):
    """150 mutants of a small .ods: of the file's bytes (the zip's checks
    catch most), and of content.xml's, styles.xml's and the manifest's bytes
    zipped again (a valid zip of broken or odd XML): each is read, or refused
    with one line, by the guard or the reader, in no more work than twice the
    unmutated file's; nothing else ever happens."""
    sheets = {"F": GOOD["F"], "T": attack(("11-20", 3, 1), ("21+", 4, 2))}
    options = {"errors": {"T": {(5, 3): "#N/A"}}, "hidden_rows": {"F": {9}}, "merged": {"F": [(8, 1, 8, 2)]}, "padding": False}
    seed = write_ods(tmp_path / "seed.ods", sheets, **options)
    parts = {"content.xml": content_xml(sheets, **options).encode(), "styles.xml": STYLES.encode(), "META-INF/manifest.xml": MANIFEST.encode()}
    rng = random.Random(20240607)
    outcomes = {"read": 0, "refused by the guard": 0, "refused by the reader": 0}
    read_workbook(seed)  # the modules it needs are loaded now, not while counting
    with counted_work() as unmutated:
        guard.inspect(seed, seed.name)
        read_workbook(seed)
    for attempt in range(150):
        path = tmp_path / f"m{attempt}.ods"
        if attempt < 50:
            path.write_bytes(_mutated(seed.read_bytes(), rng))
        else:
            part = rng.choice([*["content.xml"] * 6, "styles.xml", "META-INF/manifest.xml"])
            package(path, parts["content.xml"], styles=parts["styles.xml"], manifest=parts["META-INF/manifest.xml"],
                    extra={part: _mutated(parts[part], rng, flips=1)})
        # bounded work, not time (helpers.counted_work): a mutant costs what the file
        # itself costs (~10,000 lines of Python, ~1 MB); twice that stops it at once
        with counted_work(max_lines=2 * unmutated.lines) as work:
            outcomes[_read_or_refused(path)] += 1
        assert work.peak < 16 << 20, (attempt, work.peak)
    assert sum(outcomes.values()) == 150
    assert outcomes["read"] > 10 and outcomes["refused by the guard"] > 50, outcomes


def _read_or_refused(path: Path) -> str:
    try:
        guard.inspect(path, path.name)
    except WorkbookInvalid as exc:
        assert "\n" not in str(exc) and str(exc).startswith(path.name)
        return "refused by the guard"
    try:
        read_workbook(path)
    except WorkbookInvalid as exc:
        assert "\n" not in str(exc) and str(exc).startswith(path.name)
        return "refused by the reader"
    return "read"


def test_a_file_calamine_cannot_read_at_all_is_said_so_plainly(tmp_path):
    """Whitespace between a row's cells (pretty-printed XML, as some writers
    save it) makes calamine give up on every format it knows: one line that
    says what to do, not only calamine's "Cannot detect file format"."""
    content = content_xml({"F": [["Kind", "fumble"], ["Name", "Oops"]]})
    content = content.replace("</table:table-cell><table:table-cell", "</table:table-cell>\n  <table:table-cell")
    path = package(tmp_path / "pretty.ods", content)
    with pytest.raises(WorkbookInvalid) as refused:
        read_workbook(path)
    assert str(refused.value) == ("pretty.ods: cannot read the workbook: CalamineError: Cannot detect file format "
                                  "(calamine reads none of it; open and save it in a spreadsheet program)")
