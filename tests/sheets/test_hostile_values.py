"""Reliability under hostile input (issue #17, items 1, 5 and 6): long
cells, absurd numbers and headers that are no text end in one located
problem each, never a traceback, an overflow or minutes of work."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

import pytest
from helpers import MINI_ATTACK, MINI_CREATURES, MINI_CRITICAL, MINI_FUMBLE, MINI_SEVERITIES, MINI_WEAPONS, error_lines

from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook
from tables_app.sheets.values import coordinate

LONG_CELLS = 4_000
MINUTES_AGO = 60  # seconds: a return to quadratic reading takes minutes (issue #17: 10-17)


def shared_strings_workbook(path: Path, rows: list[list[object]]) -> Path:
    """An .xlsx whose text cells are shared strings, as Excel saves them: a
    text repeated in 4,000 cells is stored once (openpyxl would write it
    4,000 times, which the guard refuses as a zip bomb)."""
    strings: dict[str, int] = {}
    cells = []
    for r, row in enumerate(rows, start=1):
        found = []
        for c, value in enumerate(row, start=1):
            if isinstance(value, str):
                found.append(f'<c r="{coordinate(r, c)}" t="s"><v>{strings.setdefault(value, len(strings))}</v></c>')
            elif value is not None:
                found.append(f'<c r="{coordinate(r, c)}"><v>{value}</v></c>')
        if found:
            cells.append(f'<row r="{r}">{"".join(found)}</row>')
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rels = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    package = "http://schemas.openxmlformats.org/package/2006/"
    kind = "application/vnd.openxmlformats-officedocument.spreadsheetml."
    parts = {
        "[Content_Types].xml": f'<Types xmlns="{package}content-types"><Default Extension="rels" ContentType="application/'
                               'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
                               f'<Override PartName="/xl/workbook.xml" ContentType="{kind}sheet.main+xml"/>'
                               f'<Override PartName="/xl/worksheets/sheet1.xml" ContentType="{kind}worksheet+xml"/>'
                               f'<Override PartName="/xl/sharedStrings.xml" ContentType="{kind}sharedStrings+xml"/></Types>',
        "_rels/.rels": f'<Relationships xmlns="{package}relationships"><Relationship Id="rId1" Type="{rels}/officeDocument" '
                       'Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<workbook xmlns="{main}" xmlns:r="{rels}"><sheets><sheet name="Long" sheetId="1" r:id="rId1"/></sheets></workbook>',
        "xl/_rels/workbook.xml.rels": f'<Relationships xmlns="{package}relationships">'
                                      f'<Relationship Id="rId1" Type="{rels}/worksheet" Target="worksheets/sheet1.xml"/>'
                                      f'<Relationship Id="rId2" Type="{rels}/sharedStrings" Target="sharedStrings.xml"/></Relationships>',
        "xl/worksheets/sheet1.xml": f'<worksheet xmlns="{main}"><sheetData>{"".join(cells)}</sheetData></worksheet>',
        "xl/sharedStrings.xml": f'<sst xmlns="{main}" count="{len(strings)}" uniqueCount="{len(strings)}">'
                                + "".join(f"<si><t>{escape(text)}</t></si>" for text in strings) + "</sst>",
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, text in parts.items():
            archive.writestr(member, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' + text)
    return path


@pytest.mark.slow  # ~2 s (`pytest -m slow`, and CI)
def test_4000_long_attack_cells_are_refused_at_once_in_one_line(tmp_path, db_path):
    # issue #17, item 1: 4,000 cells of "1" and 20,000 letters took 10-17 minutes
    # (a second each: every cut tried as severity + critical table), holding
    # the write lock, and printed each cell whole, twice, 4,000 times.
    long = "1" + "a" * 20_000
    rows = [["Kind", "attack"], ["Name", "Long"], [], ["Result", "1", "2", "3", "4"]]
    rows += [[f"{n}"] + [long] * 4 for n in range(1, LONG_CELLS // 4 + 1)]
    path = shared_strings_workbook(tmp_path / "long.xlsx", rows)
    linted = subprocess.run([sys.executable, "-m", "tables_app", "--db", str(db_path), "lint", str(path)],
                            capture_output=True, text=True, timeout=MINUTES_AGO)
    assert linted.returncode == 1 and "Traceback" not in linted.stderr
    assert linted.stderr.splitlines() == [
        "Error: long.xlsx › Long › B5:E1004: 4000 cells with the same text (the cell holds 20,001 characters, more than "
        "a cell's 10,000 (it starts '1aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'))"]


def test_long_attack_cells_below_the_cell_limit_are_read_once(write_workbook):
    # 2,000 < 5,000 < 10,000: refused as an attack cell, each distinct text once, repeats summarised
    rows = [["Kind", "attack"], ["Name", "T"], [], ["Result", "A", "B"]]
    rows += [[f"{n}", "1" + "a" * 5_000, "1" + "b" * 5_000] for n in range(11, 16)]
    problems = [str(p) for p in interpret(read_workbook(write_workbook("w.xlsx", {"T": rows}))).problems]
    starts = "the cell holds 5,001 characters, more than an attack cell's 2,000 (it starts '1{}')"
    assert problems == [f"w.xlsx › T › B5:B9: 5 cells with the same text ({starts.format('a' * 39)})",
                        f"w.xlsx › T › C5:C9: 5 cells with the same text ({starts.format('b' * 39)})"]


def errors(write_workbook, sheets):  # type: ignore[no-untyped-def]
    return [str(p) for p in interpret(read_workbook(write_workbook("w.xlsx", sheets))).problems]


def attack(*rows, header=("Result", "NA", "HA"), head=()):  # type: ignore[no-untyped-def]
    return [["Kind", "attack"], ["Name", "T"], *[list(h) for h in head], [], list(header), *[list(r) for r in rows]]


def critical(column, value):  # type: ignore[no-untyped-def]
    return [["Kind", "critical"], ["Name", "C"], [], ["Roll", "Text", column], ["1-100", "x", value], ["101+", "y", None]]


def changed(rows, row, column, value):  # type: ignore[no-untyped-def]
    copy = [list(r) for r in rows]
    copy[row][column] = value
    return copy


MINI = {"S": MINI_SEVERITIES, "C": MINI_CRITICAL, "F": MINI_FUMBLE, "A": MINI_ATTACK}
SUPERSCRIPT_TWOS = "\u00b2" * 30  # NFKC: thirty 2s


@pytest.mark.parametrize("sheets, expected", [
    # attack: cells, ranges, Automatic miss
    ({"T": attack(("1-100", 1e308, 1))}, "T › B5: hits must be a whole number from 0 to 1,000,000, not 1e+308"),
    ({"T": attack(("1-100", "18446744073709551616", 1))}, "T › B5: hits '18446744073709551616' are more than 1,000,000"),
    ({"T": attack(("1-100", SUPERSCRIPT_TWOS, 1))}, "T › B5: hits '22222222222222222222'… (10 more characters) are more than 1,000,000"),
    ({"T": attack(("1-100", "18446744073709551616 Mod", 1))}, "T › B5: hits '18446744073709551616' are more than 1,000,000"),
    ({"T": attack(("1-99999999999999999999", 1, 1))}, "T › A5: range '1-99999999999999999999' goes beyond 10,000 (rolls run from 0 to 10,000)"),
    ({"T": attack((1e308, 1, 1))}, "T › A5: range must be a whole number from 0 to 10,000, not 1e+308"),
    ({"T": attack(("1-100", 1, 1), head=[("Automatic miss", "99999999999999999999")])},
     "T › B3: Automatic miss '99999999999999999999' must be a whole number from 0 to 1000, or none"),
    # critical and fumble: one-column counts, printed effects
    ({"C": critical("Hits", 1e308)}, "C › C5: Hits must be a whole number from 0 to 1,000,000, not 1e+308"),
    ({"C": critical("Bleed", "18446744073709551616")}, "C › C5: Bleed must be a whole number from 0 to 1,000,000, not '18446744073709551616'"),
    ({"C": critical("Stun", SUPERSCRIPT_TWOS)}, f"C › C5: Stun must be a whole number from 0 to 1,000,000, not '{'2' * 30}'"),
    ({"C": critical("Penalty", -1e30)}, "C › C5: Penalty must be a whole number from -1,000,000 to 1,000,000, not -1e+30"),
    ({"C": [["Kind", "critical"], ["Name", "C"], [], ["Roll", "A", "B"], ["1-100", "+99999999999999999999H", "x"]]},
     "C › B5: '+99999999999999999999H': 20 digits are more than 1,000,000"),
    ({"F": [["Kind", "fumble"], ["Name", "F"], [], ["Roll", "Text", "Hits"], ["1+", "x", 1e308]]},
     "F › C5: Hits must be a whole number from 0 to 1,000,000, not 1e+308"),
    # weapons
    ({**MINI, "W": changed(MINI_WEAPONS, 3, 2, "1e308")}, "W › C4: Max result must be a whole number from 1 to 10,000, not '1e308'"),
    ({**MINI, "W": changed(MINI_WEAPONS, 3, 3, 1e30)}, "W › D4: Clumsy must be a whole number from 0 to 100, not 1e+30"),
    ({**MINI, "W": changed(MINI_WEAPONS, 3, 3, "1-150")}, "W › D4: Clumsy 150 must be between 0 and 100"),
    ({**MINI, "W": changed(MINI_WEAPONS, 3, 7, "18446744073709551616")},
     "W › H4: Fumble modifier must be a whole number from -1,000 to 1,000, not '18446744073709551616'"),
    # creatures, severities
    ({"K": changed(MINI_CREATURES, 3, 1, 1e30)}, "K › B4: DEF must be a whole number from -500 to 500, not 1e+30"),
    ({"K": changed(MINI_CREATURES, 3, 4, SUPERSCRIPT_TWOS)}, f"K › E4: HP must be a whole number from 0 to 1,000,000, not '{'2' * 30}'"),
    ({"S": changed(MINI_SEVERITIES, 4, 2, 1e308)}, "S › C5: Modifier must be a whole number from -1,000 to 1,000, not 1e+308"),
])
def test_absurd_numbers_are_errors_naming_the_cell(write_workbook, sheets, expected):
    # issue #17, item 5: these reached SQLite (OverflowError) or read as nonsense
    assert errors(write_workbook, sheets) == [f"w.xlsx › {expected}"]


def test_numbers_at_their_bounds_import(write_workbook, run):
    creatures = changed(changed(MINI_CREATURES, 3, 1, 500), 3, 4, 1_000_000)
    path = write_workbook("edge.xlsx", {**MINI, "A": attack(("10000+", "1000000 B", 0), ("1-9999", "-", "-"), header=("Result", "Cloth", "Plate")),
                                        "K": creatures})
    imported = run("import", str(path))
    assert imported.exit_code == 0, imported.stderr


@pytest.mark.parametrize("header, expected", [
    (("Result", dt.datetime(2024, 1, 1), "\u1369"), ["T › B4: column header: 2024-01-01 00:00:00 is a date; format the column as text"]),
    (("Result", "#N/A", "1"), ["T › B4: column header: error value #N/A (fix the formula or paste values)"]),
    (("Result", "\u1369", "2"), []),  # isdigit(), but no int(): an armor named as written
    (("Result", "1" * 5_000, "2"), []),
])
def test_headers_that_are_no_text_are_errors_and_digits_no_traceback(write_workbook, run, header, expected):
    # issue #17, item 6: a traceback from `tables lint` (read_columns, and quality._armor_order's int())
    path = write_workbook("w.xlsx", {"T": attack(("1-100", 1, 2), header=header)})
    linted = run("lint", str(path))  # catch_exceptions=False: a traceback fails the test
    assert error_lines(linted).splitlines() == [f"Error: w.xlsx › {line}" for line in expected]
    assert linted.exit_code == (1 if expected else 0)
