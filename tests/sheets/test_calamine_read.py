"""python-calamine in a sandboxed child (sheets/calamine_read.py): it reads
what openpyxl reads, value for value, and whatever happens to the child the
importing process refuses the file with one line and lives on."""

from __future__ import annotations

import datetime as dt
import re
import zipfile
from pathlib import Path

import pytest
from helpers import build_workbook, db_dump

from tables_app.errors import WorkbookInvalid
from tables_app.services.database_setup import bundled_workbooks, example_workbooks
from tables_app.sheets import calamine_read
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

ODD_VALUES = {
    "Values": [
        ["Kind", "notes"],
        ["ints and floats", 7, 7.5, -3, 0, 1e15, 2.0],
        ["text", "  spaced   out  ", "ﬁne ligature", "zero\u200bwidth", "'0042", "", "—"],
        ["booleans", True, False],
        ["dates", dt.datetime(2020, 1, 2), dt.datetime(2020, 1, 2, 13, 45), dt.date(1999, 12, 31), dt.time(6, 30)],
        [None, None, "gap before"],
        [],
        ["after a blank row", "x"],
        [],
        ["a third block", "stray"],
        ["never read", "past the stray block"],
    ],
    "Hidden one": [["Kind", "notes"], ["x", 1]],
    "Empty": [],
}


def both(path: Path):  # type: ignore[no-untyped-def]
    return read_workbook(path, reader="openpyxl"), read_workbook(path)


@pytest.mark.parametrize("path", [*bundled_workbooks(), *example_workbooks().values()], ids=lambda p: p.name)
def test_the_shipped_workbooks_read_the_same_by_either_reader(path):
    old, new = both(path)
    assert new == old


def test_odd_values_read_the_same_by_either_reader(tmp_path):
    path = build_workbook(tmp_path / "odd.xlsx", ODD_VALUES, hidden=("Hidden one",))
    old, new = both(path)
    assert new == old
    values = dict(new.sheets[0].rows)
    assert values[2] == ("ints and floats", 7, 7.5, -3, 0, 1000000000000000, 2)
    assert values[5][2:4] == (dt.datetime(2020, 1, 2, 13, 45), dt.datetime(1999, 12, 31))
    assert [s.hidden for s in new.sheets] == [False, True, False]
    assert max(dict(new.sheets[0].rows)) == 10  # the read stops at the third block, as openpyxl's does


def _strip_dimensions(path: Path, out: Path) -> Path:
    """The workbook as scripts write it: no <dimension> in any sheet."""
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename.startswith("xl/worksheets/"):
                data = re.sub(rb"<dimension[^>]*/>", b"", data)
            target.writestr(item, data)
    return out


def test_a_workbook_without_dimensions_reads_the_same(tmp_path):
    path = _strip_dimensions(bundled_workbooks()[0], tmp_path / "no-dimensions.xlsx")
    old, new = both(path)
    assert new == old
    assert new.sheets == read_workbook(bundled_workbooks()[0]).sheets


def test_error_cells_are_not_read_as_blanks(tmp_path):
    """calamine reads `#N/A` as an empty string; the guard sees the error cell
    and openpyxl reads that sheet, so the error is named, never imported as a blank."""
    path = build_workbook(tmp_path / "errors.xlsx", {"Fumbles": [
        ["Kind", "fumble"], ["Name", "Oops"], [], ["Roll", "Text", "Hits"], ["1-50", "Slip.", "#N/A"], ["51+", "Fall.", 2]]})
    problems = [str(p) for p in interpret(read_workbook(path)).problems]
    assert problems == ["errors.xlsx › Fumbles › C5: error value #N/A (fix the formula or paste values)"]


def _imported_dump(tmp_path: Path, name: str, run_import) -> list[str]:  # type: ignore[no-untyped-def]
    from tables_app.services.database_setup import init_database

    database = init_database(str(tmp_path / f"{name}.db"), bundled=False)
    run_import(database)
    when = re.compile(r"'\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?(\+00:00)?'")
    # the rows, import times aside (the schema's DDL may list constraints in another order)
    return [when.sub("'TIME'", line) for line in db_dump(tmp_path / f"{name}.db") if line.startswith("INSERT")]


def test_a_database_imported_by_either_reader_is_the_same(tmp_path, monkeypatch):
    from tables_app.services.database_setup import import_bundled

    def bundled(database):  # type: ignore[no-untyped-def]
        import_bundled(database)

    new = _imported_dump(tmp_path, "calamine", bundled)
    monkeypatch.setattr(calamine_read, "available", lambda: False)
    old = _imported_dump(tmp_path, "openpyxl", bundled)
    assert new == old
    assert any("INSERT INTO \"attack_table\"" in line for line in new)


@pytest.mark.parametrize("child, timeout, message", [
    ("import os; os.abort()", None, "it needs more than 1,024 MB to read (a crafted file?)"),
    ("import sys; sys.exit(3)", None, "the reader stopped (exit 3)"),
    ("import time; time.sleep(30)", 0.5, "reading it took longer than 0.5 s (a crafted file?)"),
    ("import json; print(json.dumps({'error': 'XmlError: bad'}))", None, "XmlError: bad"),
])
def test_whatever_happens_to_the_child_is_one_line(tmp_path, monkeypatch, child, timeout, message):
    monkeypatch.setattr(calamine_read, "CHILD_ARGUMENTS", ["-c", child])
    if timeout is not None:  # only where the timeout is what is tested: on a loaded machine a child may take 0.5 s to start
        monkeypatch.setattr(calamine_read, "TIMEOUT_SECONDS", timeout)
    path = build_workbook(tmp_path / "book.xlsx", {"F": [["Kind", "notes"]]})
    with pytest.raises(WorkbookInvalid) as refused:
        read_workbook(path)
    assert str(refused.value) == f"book.xlsx: cannot read the workbook: {message}"
