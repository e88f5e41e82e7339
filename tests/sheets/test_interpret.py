"""The importer's reading of docs/workbook-format.md, without a database."""

from pathlib import Path

import pytest
from helpers import MINI_FUMBLE

from tables_app.domain.cells import AttackCell, Outcome
from tables_app.domain.table_reads import result_row
from tables_app.domain.tables import AttackTable, Rank, RollKind
from tables_app.errors import WorkbookInvalid
from tables_app.import_model import Catalog
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook


def read(table: AttackTable, result: int, column: int):  # type: ignore[no-untyped-def]
    """The row and cell a modified result reads (docs/table-system.md, steps 7-8), or None: a miss."""
    row = result_row(table, result)
    return None if row is None else (table.rows.ranges[row], table.rows.values[row][column])


def parsed(path: Path, catalog: Catalog | None = None):
    return interpret(read_workbook(path), catalog)


def errors(path: Path) -> list[str]:
    return [str(p) for p in parsed(path).problems]


def test_a_foreign_workbook_reads_right(mini_workbook):
    result = parsed(mini_workbook)
    assert result.problems == [] and result.warnings == []
    assert [s.code for s in result.scale.value.levels] == ["A", "B", "C"]
    poke = result.attack_tables[0].value
    assert poke.armors == ("Cloth", "Plate")
    assert [r.label for r in poke.rows.ranges] == ["1-10", "11-20", "21-30", "31-40", "41+"]
    assert read(poke, 45, 0)[1] == AttackCell(Outcome.CRITICAL, 9, "C", "Slash")  # `9CX`
    assert read(poke, 45, 1)[1] == AttackCell(Outcome.CRITICAL, 6, "B")  # `6 Bravo`
    assert read(poke, 35, 0)[1] == AttackCell(Outcome.CRITICAL, 7, "A", "Slash")
    assert read(poke, 35, 1)[1] == AttackCell(Outcome.CRITICAL, 4, "A")
    assert read(poke, 25, 0)[1] == AttackCell(Outcome.HIT, 5)
    assert read(poke, 25, 1)[1] == AttackCell(Outcome.NO_DAMAGE)
    assert read(poke, 15, 1)[1] == AttackCell(Outcome.MISS)
    assert read(poke, 999, 0)[0].label == "41+"
    slash = result.critical_tables[0].value
    assert slash.code == "X"
    assert slash.choose(60, frozenset({"helm"})).entry.title == "Helm ring"
    bare = slash.choose(60).entry
    assert (bare.hits, bare.bleed, bare.stun, bare.penalty, bare.effects) == (4, 2, 1, -10, ("dazed", "bleeding"))
    weapons = {w.name: w.value for w in result.weapons}
    assert weapons["Needle"].clumsy == 3 and weapons["Needle"].critical == "Slash"
    assert weapons["Needle"].roll is RollKind.OEH and weapons["Needle"].fumble_modifier == -5
    assert weapons["Pin"].attack_table == "Poke" and weapons["Pin"].max_result == 45
    assert weapons["Pin"].roll is RollKind.OE and weapons["Pin"].fumble_table is None
    creatures = {c.name: c.value for c in result.creatures}
    assert creatures["Tin Man"].rank is Rank.HEROIC and creatures["Tin Man"].features == ("helm", "metal armor")
    assert creatures["Scarecrow"].rank is Rank.NORMAL and creatures["Scarecrow"].hp is None


def test_sheets_without_header_block_or_hidden_are_skipped_with_a_warning(write_workbook):
    path = write_workbook(
        "w.xlsx",
        {"Readme": [["just some notes"]], "Blank": [], "Oops": MINI_FUMBLE, "Secret": MINI_FUMBLE},
        hidden=("Secret",),
    )
    result = parsed(path)
    assert result.problems == []
    assert [str(w) for w in result.warnings] == [
        "w.xlsx › Readme: the header block has no Kind: sheet skipped",
        "w.xlsx › Blank: no header block in A1 (Kind, Name, ...): sheet skipped",
        "w.xlsx › Secret: hidden sheet skipped",
    ]


def attack(*rows, header=("Result", "NA", "HA")):
    return [["Kind", "attack"], ["Name", "T"], [], list(header), *[list(r) for r in rows]]


@pytest.mark.parametrize(
    "rows, expected",
    [
        ([("11-20", "—", None)], "w.xlsx › T › C5: empty cell (write a dash — for a miss)"),
        ([("11-20", "7.5", "1")], "w.xlsx › T › B5: hits must be a whole number, not '7.5'"),
        ([("11-20", 7.5, "1")], "w.xlsx › T › B5: hits must be a whole number, not 7.5"),
        ([("11-20", "16 Huge", "1")], "w.xlsx › T › B5: '16 Huge': unknown severity or critical table in 'Huge' (severities: Sup, Lig, Mod, Gri, Let)"),
        ([("11-20", "#N/A", "1")], "w.xlsx › T › B5: error value #N/A (fix the formula or paste values)"),
        ([("11-20", 1, 1), ("22-30", 2, 2)], "w.xlsx › T › A6: gap between 11-20 and 22-30: 21 is missing (rows A5 and A6)"),
        ([("21-30", 2, 2), ("11-21", 1, 1)], "w.xlsx › T › A5: 11-21 and 21-30 overlap (rows A6 and A5)"),
        ([("eleven", 1, 1)], "w.xlsx › T › A5: 'eleven' is not a range (write 11-35, 36 or 176+)"),
        ([("11-20", "7 Mod Ice", 1)], "w.xlsx › T › B5: '7 Mod Ice': unknown severity or critical table in 'Mod Ice' (severities: Sup, Lig, Mod, Gri, Let)"),
    ],
)
def test_attack_errors_name_the_cell(write_workbook, rows, expected):
    assert errors(write_workbook("w.xlsx", {"T": attack(*rows)})) == [expected]


def test_rows_may_start_above_11_and_results_below_them_miss(write_workbook):
    # printed layouts: "Rows may start at 1 (`01-02`). Results below the lowest row miss."
    parsed = interpret(read_workbook(write_workbook("w.xlsx", {"T": attack(("12-30", 1, 1), ("31+", 2, 2))})))
    assert parsed.problems == []
    table = parsed.attack_tables[0].value
    assert (table.automatic_miss, read(table, 11, 0), read(table, 12, 0)[1].hits) == (10, None, 1)


def test_dates_get_a_hint(write_workbook):
    import datetime

    path = write_workbook("w.xlsx", {"T": attack((datetime.datetime(2024, 1, 11), 1, 1))})
    assert errors(path) == ["w.xlsx › T › A5: 2024-01-11 00:00:00 is a date; format the column as text"]


def test_all_errors_are_collected(write_workbook):
    path = write_workbook("w.xlsx", {
        "T": attack(("11-20", "x", "y"), ("21-30", 1, None)),
        "W": [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"], ["Stick", "Nope", "high", 3, "Cut"]],
    })
    assert errors(path) == [
        "w.xlsx › T › B5: 'x' is not a cell: write a dash, 0, hits (7) or hits and severity (16 Mod)",
        "w.xlsx › T › C5: 'y' is not a cell: write a dash, 0, hits (7) or hits and severity (16 Mod)",
        "w.xlsx › T › C6: empty cell (write a dash — for a miss)",
        "w.xlsx › W › B4: unknown attack table 'Nope'",
        "w.xlsx › W › C4: Max result must be a whole number, not 'high'",
        "w.xlsx › W › E4: unknown critical table 'Cut'",
    ]


def test_structure_errors(write_workbook):
    path = write_workbook("w.xlsx", {
        "Kinds": [["Kind", "potion"]],
        "Stray": attack(("11-20", 1, 1)) + [[], [None, None, "note"]],
        "NoName": [["Kind", "fumble"], [], ["Roll", "Text"], ["1-100", "x"]],
        "Cols": [["Kind", "fumble"], ["Name", "F"], [], ["Roll", "Txt"], ["1-100", "x"]],
        "Key": [["Kind", "fumble"], ["Nmae", "F"], [], ["Roll", "Text"], ["1-100", "x"]],
    })
    assert errors(path) == [
        "w.xlsx › Kinds › B1: unknown Kind 'potion' (expected one of attack, critical, fumble, weapons, creatures, severities, ruleset)",
        "w.xlsx › Stray › C7: stray cells after the grid (the grid ends at the first blank row)",
        "w.xlsx › NoName › B1: a fumble table needs a Name in its header block",
        "w.xlsx › Cols › B4: unknown column 'Txt' for a fumble sheet (columns: Roll, Text, Title, Hits, Bleed, Stun, Penalty, Effects, Condition)",
        "w.xlsx › Cols › A4: missing column 'Text'",
        "w.xlsx › Key › A2: unknown header key 'Nmae' (expected one of Kind, Name, Code, Source, Notes, Severities, Ruleset, Automatic miss, Roll kind, Legend, Conditions, Death at)",
        "w.xlsx › Key › B1: a fumble table needs a Name in its header block",
    ]


def critical(*rows):
    return [["Kind", "critical"], ["Name", "C"], [], ["Roll", "Text", "Condition"], *[list(r) for r in rows]]


def test_critical_tables_must_reach_100_plus_the_largest_modifier(write_workbook):
    path = write_workbook("w.xlsx", {"C": critical(("1-100", "x", None), ("101-140", "y", None))})
    assert errors(path) == ["w.xlsx › C › A6: rows stop at 140; they must reach 150 (or end with an open top like 101+)"]
    assert errors(write_workbook("v.xlsx", {"C": critical(("1-100", "x", None), ("101+", "y", None))})) == []


@pytest.mark.parametrize(
    "rows, expected",
    [
        ([("1-50", "a", "helm"), ("51+", "b", None)], "w.xlsx › C › A5: condition 'helm' needs a second row 1-50 for the other branch ('helm' / 'not helm')"),
        ([("1-50", "a", "helm"), ("1-50", "b", "not shield"), ("51+", "c", None)], "w.xlsx › C › A6: the branches of 1-50 must be a feature and its negation ('helm' / 'not helm'), not 'helm' / 'not shield'"),
        ([("1-50", "a", None), ("1-50", "b", None), ("51+", "c", None)], "w.xlsx › C › A6: roll 1-50 appears twice; give both rows a Condition (e.g. 'helm' and 'not helm')"),
    ],
)
def test_branch_errors(write_workbook, rows, expected):
    assert errors(write_workbook("w.xlsx", {"C": critical(*rows)})) == [expected]


def test_weapon_clumsy_and_roll(write_workbook):
    head = ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Roll"]
    path = write_workbook("w.xlsx", {
        "T": attack(("11+", 1, 1)), "C": critical(("1+", "x", None)),
        "W": [["Kind", "weapons"], [], head, ["A", "T", 100, "2-4", "C", None], ["B", "T", 100, 101, "C", "oee"], ["C", "T", 0, 3, "C", "D100"]],
    })
    assert errors(path) == [
        "w.xlsx › W › D4: Clumsy range '2-4' must start at 1 (write 4 or 1-4)",
        "w.xlsx › W › D5: Clumsy 101 must be between 0 and 100",
        "w.xlsx › W › F5: Roll 'oee' must be one of oe, oeh, oel, d100",
        "w.xlsx › W › C6: Max result must be at least 1",
    ]


def test_text_is_normalised(write_workbook):
    # full-width digits, a no-break space, a zero-width space
    path = write_workbook("w.xlsx", {"T": attack(("１１\u00a0-\u200b２０", "１６ Ｍｏｄ", "3"), ("21+", 4, 4))})
    result = parsed(path)
    assert result.problems == []
    assert read(result.attack_tables[0].value, 12, 0)[1] == AttackCell(Outcome.CRITICAL, 16, "Mod")


@pytest.mark.parametrize(
    "content, message",
    [
        (b"", "the file is empty"),
        (b"Name,DEF\nOrc,20\n", "not a spreadsheet workbook (a text file (CSV?)); save it from a spreadsheet program as .xlsx"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 100, "the file is truncated or corrupt (not an OLE2 structured storage file)"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + "EncryptionInfo".encode("utf-16-le") + b"\0" * 100,
         "the workbook is password-protected; remove the password (save a copy without it) and import that"),
        (b"PK\x03\x04 truncated", "the file is truncated or corrupt (File is not a zip file)"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not a spreadsheet workbook (not a zip or OLE file); save it from a spreadsheet program as .xlsx"),
    ],
)
def test_not_workbooks_are_refused(tmp_path, content, message):
    path = tmp_path / "bad.xlsx"
    path.write_bytes(content)
    with pytest.raises(WorkbookInvalid) as caught:
        read_workbook(path)
    assert str(caught.value) == f"bad.xlsx: {message}"


def test_a_zip_that_is_not_a_workbook(tmp_path):
    import zipfile

    path = tmp_path / "z.xlsx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("hello.txt", "hi")
    with pytest.raises(WorkbookInvalid, match=r"^z.xlsx: a zip file, but not a spreadsheet workbook \(no xl/workbook.xml, not an OpenDocument spreadsheet\)"):
        read_workbook(path)


def test_openpyxl_reads_xml_safely():
    import openpyxl

    assert openpyxl.DEFUSEDXML is True


def test_formulas_use_their_cached_value_and_uncached_ones_are_errors(write_workbook):
    # openpyxl writes formulas without cached values, as scripts do
    path = write_workbook("w.xlsx", {"T": attack(("11-20", "=1+1", 1), ("21+", 4, "=B5"))})
    assert errors(path) == [
        "w.xlsx › T › B5: a formula without a cached value: open and save the file in a spreadsheet program, or paste values",
        "w.xlsx › T › C6: a formula without a cached value: open and save the file in a spreadsheet program, or paste values",
    ]


def test_a_formula_with_a_cached_value_reads_as_its_value(tmp_path):
    """Build the sheet XML by hand: a formula `<f>` with its cached `<v>`."""
    import zipfile

    source = tmp_path / "plain.xlsx"
    from helpers import build_workbook

    build_workbook(source, {"T": attack(("11-20", 3, 1), ("21+", 4, 2))})
    target = tmp_path / "cached.xlsx"
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                data = data.replace(b'<c r="B5" t="n"><v>3</v></c>', b'<c r="B5"><f>1+2</f><v>3</v></c>')
                assert b"<f>1+2</f>" in data
            zout.writestr(item, data)
    result = interpret(read_workbook(target))
    assert result.problems == []
    assert read(result.attack_tables[0].value, 15, 0)[1] == AttackCell(Outcome.HIT, 3)
