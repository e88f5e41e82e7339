"""Merged cells inside a grid: a box of empty cells merged under one value
reads as that value in every cell it covers, as a reader sees it, in .xlsx,
.ods and .xls alike; a merge that hides a value, or that takes in the grid's
header row, its range (or name) column, or cells outside the grid, is refused
(docs/workbook-format.md, "Sheet layout", merged cells)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import MINI_ATTACK, MINI_CRITICAL, MINI_SEVERITIES, build_workbook, rewrite
from helpers import workbook_problems as problems
from ods_files import write_ods, xlsx_to_ods
from xls_files import write_xls

from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

FUMBLE = [["Kind", "fumble"], ["Name", "Boxed"], [], ["Roll", "Text", "Hits"],
          ["01-40", "Slips.", 1], ["41-80", None, None], ["81+", "Falls.", 3]]
ATTACK = [["Kind", "attack"], ["Name", "Wide"], ["Automatic miss", "none"], [], ["Result", "1", "2", "3"],
          ["21+", "9", "7", "5"], ["01-20", "—", None, None]]
FORMATS = ("xlsx", "ods", "xls")


def _merged_xlsx(path: Path, sheets: dict, merges: dict[str, list[str]]) -> Path:
    import openpyxl

    build_workbook(path, sheets)
    book = openpyxl.load_workbook(path)
    for title, ranges in merges.items():
        for cells in ranges:
            book[title].merge_cells(cells)
    book.save(path)
    return path


def _with_hidden_value(path: Path, target: Path, merge: str) -> Path:
    """The .xlsx with ``merge`` added over cells that keep their values (a
    file Excel would not write, but a transcriber's tool may)."""
    return rewrite(path, target, "xl/worksheets/sheet1.xml",
                   lambda xml: re.sub(rb"</sheetData>", f'</sheetData><mergeCells count="1"><mergeCell ref="{merge}"/>'
                                                        "</mergeCells>".encode(), xml, count=1))


def _box(numbers: str) -> tuple[int, int, int, int]:
    from openpyxl.utils.cell import range_boundaries

    min_col, min_row, max_col, max_row = range_boundaries(numbers)
    return min_row, min_col, max_row, max_col


def _in_format(tmp_path: Path, fmt: str, sheets: dict, merges: dict[str, list[str]]) -> Path:
    """The sheets with these merges, written as ``fmt`` (each format's own way of merging)."""
    xlsx = _merged_xlsx(tmp_path / "boxes.xlsx", sheets, merges)
    if fmt == "xlsx":
        return xlsx
    if fmt == "ods":
        return xlsx_to_ods(xlsx, tmp_path / "boxes.ods")

    def merge(title, sheet):  # type: ignore[no-untyped-def]
        for cells in merges.get(title, []):
            r1, c1, r2, c2 = _box(cells)
            sheet.merge(r1 - 1, r2 - 1, c1 - 1, c2 - 1)  # xlwt blanks the covered cells, as Excel does

    return write_xls(tmp_path / "boxes.xls", sheets, each=merge)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_merged_box_of_empty_cells_reads_as_its_value_in_every_cell(tmp_path, fmt):
    # docs/workbook-format.md, "Sheet layout": B5:C6 merged, its value in B5 (Arms Law prints such boxes)
    sheets = {"F": [*FUMBLE[:4], ["01-40", "Slips.", 1], ["41-80", None, None], ["81+", "Falls.", 3]]}
    path = _in_format(tmp_path, fmt, sheets, {"F": ["B5:B6", "C5:C6"]})
    result = interpret(read_workbook(path))
    assert result.problems == []
    (fumble,) = result.fumble_tables
    entries = [(entry.range.label, entry.text, entry.hits) for (entry,) in fumble.value.rows.values]
    assert entries == [("1-40", "Slips.", 1), ("41-80", "Slips.", 1), ("81+", "Falls.", 3)]


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_box_across_armor_columns_reads_in_each_column(tmp_path, fmt):
    # docs/workbook-format.md, "Sheet layout": B7:D7 merged under one dash: a miss in every armor column
    path = _in_format(tmp_path, fmt, {"Wide": ATTACK}, {"Wide": ["B7:D7"]})
    result = interpret(read_workbook(path))
    assert result.problems == []
    (table,) = result.attack_tables
    assert [[cell.text for cell in cells] for cells in table.value.rows.values] == [["—", "—", "—"], ["9", "7", "5"]]


def test_a_merge_that_hides_a_value_is_refused(tmp_path):
    # docs/workbook-format.md, "Sheet layout": the value under the box is not what a reader sees
    sheets = {"F": [*FUMBLE[:4], ["01-40", "Slips.", 1], ["41-80", "Trips.", 2], ["81+", "Falls.", 3]]}
    plain = build_workbook(tmp_path / "plain.xlsx", sheets)
    hidden = _with_hidden_value(plain, tmp_path / "hidden.xlsx", "B5:B6")
    expected = "› F › B6: merged cells B5:B6 hide a value in B6 ('Trips.'): unmerge them, or clear the cells under the merge"
    assert problems(hidden) == ["hidden.xlsx " + expected]
    ods = write_ods(tmp_path / "hidden.ods", sheets, merged={"F": [(5, 2, 6, 2)]})  # the covered cell keeps its value
    assert problems(ods) == ["hidden.ods " + expected]

    def merge_then_write(title, sheet):  # type: ignore[no-untyped-def]
        sheet.merge(4, 5, 1, 1)
        sheet.write(5, 1, "Trips.")

    xls = write_xls(tmp_path / "hidden.xls", {"F": [*FUMBLE[:4], ["01-40", "Slips.", 1], ["41-80", None, 2],
                                                   ["81+", "Falls.", 3]]}, each=merge_then_write)
    assert problems(xls) == ["hidden.xls " + expected]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("merge, expected", [
    ("B4:B5", "B4: merged cells B4:B5 take in the grid's header row 4; unmerge them (each column is named in its own cell)"),
    ("A5:A6", "A5: merged cells A5:A6 take in the Roll column; unmerge them and write each row's range in its own cell"),
    ("A7:B7", "A7: merged cells A7:B7 take in the Roll column; unmerge them and write each row's range in its own cell"),
    ("C7:C9", "C7: merged cells C7:C9 reach below the grid (its last row is 7); unmerge them"),
    ("C6:D6", "C6: merged cells C6:D6 reach past the grid's last column (C); unmerge them"),
    ("B2:C2", "B2: merged cells B2:C2 are in the header block; unmerge them (a key and its value have a cell each)"),
])
def test_merges_outside_the_cells_of_the_grid_are_refused(tmp_path, fmt, merge, expected):
    # docs/workbook-format.md, "Sheet layout": the header row, the range column and cells outside the grid are never filled
    path = _in_format(tmp_path, fmt, {"F": FUMBLE}, {"F": [merge]})
    assert problems(path) == [f"boxes.{fmt} › F › {expected}"]


def test_an_attack_grid_names_its_result_column(tmp_path):
    # docs/workbook-format.md, "Sheet layout": an attack grid's range column is Result
    path = _merged_xlsx(tmp_path / "boxes.xlsx", {"Wide": ATTACK}, {"Wide": ["A6:A7"]})
    assert problems(path) == ["boxes.xlsx › Wide › A6: merged cells A6:A7 take in the Result column; unmerge them and write "
                              "each row's range in its own cell"]


def test_a_list_sheet_reads_a_box_too_but_not_over_its_names(tmp_path):
    # docs/workbook-format.md, "Sheet layout": a weapons sheet's boxes read in every cell; its Name column is refused
    weapons = [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"],
               ["Pin", "Poke", 60, 2, "X"], ["Awl", None, None, None, "X"]]
    sheets = {"Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Poke": MINI_ATTACK, "W": weapons}
    path = _merged_xlsx(tmp_path / "w.xlsx", sheets, {"W": ["B4:B5", "C4:C5", "D4:D5"]})
    result = interpret(read_workbook(path))
    assert result.problems == []
    assert [(w.value.name, w.value.attack_table, w.value.max_result, w.value.clumsy) for w in result.weapons] == [
        ("Pin", "Poke", 60, 2), ("Awl", "Poke", 60, 2)]
    names = _merged_xlsx(tmp_path / "n.xlsx", sheets, {"W": ["A4:A5"]})
    assert problems(names) == ["n.xlsx › W › A4: merged cells A4:A5 take in the Name column; unmerge them and write each "
                               "row's name in its own cell"]


# Against the Darkmaster prints an attack table's first row as `Up to 10` and one box across every armor column
# (docs/workbook-format.md, "Sheet layout" and "attack": the miss words). Every value invented.
DARKMASTER = [["Kind", "attack"], ["Name", "Club"], ["Automatic miss", "none"], [], ["Result", "NA", "LA", "MA", "HA"],
              ["Up to 10", "Attack automatically misses.", None, None, None], ["11-15", "2", "1", "—", "—"],
              ["16+", "5", "3", "2", "1"]]


@pytest.mark.parametrize("fmt, reader", [("xlsx", "calamine"), ("xlsx", "openpyxl"), ("ods", "calamine"),
                                         ("xls", "calamine")])
def test_a_first_row_printed_as_one_miss_box_misses_in_every_armor_column(tmp_path, fmt, reader):
    # "Sheet layout": B6:E6 merged under its top-left value; "attack": `Attack automatically misses.` is a miss
    path = _in_format(tmp_path, fmt, {"Club": DARKMASTER}, {"Club": ["B6:E6"]})
    result = interpret(read_workbook(path, reader=reader))
    assert result.problems == []
    (table,) = result.attack_tables
    assert [r.label for r in table.value.rows.ranges] == ["<11", "11-15", "16+"]
    assert [cell.outcome.value for cell in table.value.rows.values[0]] == ["miss"] * 4
    assert [cell.text for cell in table.value.rows.values[1]] == ["2", "1", "—", "—"]


def test_a_miss_box_still_refuses_what_any_box_refuses(tmp_path):
    # "Sheet layout": a box over the Result column, or one that hides a value, stays an error as before
    over_result = _merged_xlsx(tmp_path / "a.xlsx", {"Club": DARKMASTER}, {"Club": ["A6:E6"]})
    assert problems(over_result) == ["a.xlsx › Club › A6: merged cells A6:E6 take in the Result column; unmerge them "
                                     "and write each row's range in its own cell"]
    rows = [list(row) for row in DARKMASTER]
    rows[5][3] = "—"
    hidden = _with_hidden_value(build_workbook(tmp_path / "plain.xlsx", {"Club": rows}), tmp_path / "b.xlsx", "B6:E6")
    assert problems(hidden) == ["b.xlsx › Club › D6: merged cells B6:E6 hide a value in D6 ('—'): unmerge them, or clear "
                                "the cells under the merge"]
