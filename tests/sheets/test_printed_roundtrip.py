"""Printed attack tables (issue 15, slice 1): `show` and `export` carry
everything they hold, and export → import → export is the identity.

Every table here is invented for these tests, in the printed shape only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import Rows, ok, reexported, sheets_of

RULESET: Rows = [["Kind", "ruleset"], ["Name", "Inv"]]
LETTERS: Rows = [
    ["Kind", "severities"], ["Name", "Inv letters"], [],
    ["Code", "Name", "Modifier"], ["A", "A", 0], ["B", "B", 5], ["C", "C", 10], ["D", "D", 15], ["E", "E", 20],
]


def critical(name: str, code: str, words: str) -> Rows:
    return [
        ["Kind", "critical"], ["Name", name], ["Code", code], ["Severities", "Inv letters"], [],
        ["Roll", "Text", "Hits"],
        ["01-50", f"A light {words}.", 2], ["51-100", f"A hard {words}.", 6], ["101+", f"A dreadful {words}.", 11],
    ]


BLUNDERS: Rows = [["Kind", "fumble"], ["Name", "Blunders"], [], ["Roll", "Text", "Hits"],
                  ["01-60", "The spell sputters.", 0], ["61+", "The caster singes a sleeve.", 3]]
# printed layouts: `Automatic miss | none`; ranges `<71`, `1:5`, `>250`; `UM 96-100` rows; cells `F`,
# `36 EH + AK`, `36 E Heat + A Impact`; extra letters `Severity F | E Heat + A Impact` (exported in full).
FIREBOLT: Rows = [
    ["Kind", "attack"], ["Name", "Firebolt"], ["Severities", "Inv letters"], ["Automatic miss", "none"],
    ["Severity F", "E Heat + A Impact"], [],
    ["Result", "1", "2", "3"],
    ["UM 100", "41F", "38 EH + AK", "33 E Heat"],
    ["UM 97:99", "27DH", "24 D Heat", "20CH"],
    [">140", "36 E Heat + A Impact", "31 EH + BK", "26 D Heat"],
    ["111-140", "19CH", "16 C Heat", "13BH"],
    ["81-110", "11AH", 8, "5 A Heat"],
    ["51:80", 4, 2, "0"],
    ["21-50", "—", "-", "F"],
    ["<21", "F", "F", "f"],
]
CLUB: Rows = [
    ["Kind", "attack"], ["Name", "Club"], ["Severities", "Inv letters"], ["Automatic miss", 5], [],
    ["Result", "1", "2"],
    ["01-40", "—", "—"], ["41-90", 3, "7AK"], ["91+", "15 C Impact", "12BK"],
]
WEAPONS: Rows = [
    ["Kind", "weapons"], [],
    ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble table"],
    ["Fire Staff", "Firebolt", None, 2, "Heat", "Blunders"],
    ["Cudgel", "Club", 140, 4, "K", "Blunders"],
]
PRINTED = {"Ruleset": RULESET, "Letters": LETTERS, "Heat": critical("Heat", "H", "scorch"),
           "Impact": critical("Impact", "K", "knock"), "Blunders": BLUNDERS, "Firebolt": FIREBOLT, "Club": CLUB,
           "Weapons": WEAPONS}




@pytest.fixture
def printed(run, write_workbook, tmp_path) -> Path:  # type: ignore[no-untyped-def]
    """The printed-shaped workbook imported into an empty ruleset of a fresh database; its export."""
    source = write_workbook("printed.xlsx", PRINTED)
    ok(run("import", str(source)))
    out = tmp_path / "printed-export.xlsx"
    ok(run("export", "-o", str(out), "--ruleset", "Inv"))
    return out


def test_export_writes_every_printed_notation(printed):
    sheets = sheets_of(printed)
    # printed layouts: `Automatic miss | 10` (default) or `none`; rows as printed, UM rows by the unmodified die
    assert sheets["Firebolt"] == [
        ("Kind", "attack", None, None), ("Name", "Firebolt", None, None), ("Ruleset", "Inv", None, None),
        ("Severities", "Inv letters", None, None), ("Automatic miss", "none", None, None), (None, None, None, None),
        ("Result", "1", "2", "3"),
        ("<21", "F", "F", "F"),
        ("21-50", "—", "—", "F"),
        ("51-80", 4, 2, 0),
        ("81-110", "11 A Heat", 8, "5 A Heat"),
        ("111-140", "19 C Heat", "16 C Heat", "13 B Heat"),
        ("141+", "36 E Heat + A Impact", "31 E Heat + B Impact", "26 D Heat"),
        ("UM 97-99", "27 D Heat", "24 D Heat", "20 C Heat"),
        ("UM 100", "41 E Heat + A Impact", "38 E Heat + A Impact", "33 E Heat"),
    ]
    assert sheets["Club"][:5] == [("Kind", "attack", None), ("Name", "Club", None), ("Ruleset", "Inv", None),
                                  ("Severities", "Inv letters", None), ("Automatic miss", 5, None)]
    assert sheets["Club"][6:] == [("Result", "1", "2"), ("1-40", "—", "—"), ("41-90", 3, "7 A Impact"),
                                  ("91+", "15 C Impact", "12 B Impact")]
    # printed layouts: `Max result` may be blank (no cap)
    weapons = sheets["Weapons Inv"]
    assert weapons[3][:3] == ("Name", "Attack table", "Max result")
    assert [row[:4] for row in weapons[4:]] == [("Cudgel", "Club", 140, 4), ("Fire Staff", "Firebolt", None, 2)]


def test_export_import_export_is_the_identity(run, printed, tmp_path):
    # printed layouts: `export` "round trip to the same layout"
    again = reexported(run, printed, tmp_path, "Inv")
    assert sheets_of(again) == sheets_of(printed)
    for kind, name in (("attack", "Firebolt"), ("attack", "Club"), ("weapon", "Fire Staff")):
        before = json.loads(ok(run("show", kind, f"Inv:{name}", "--json")))
        after = json.loads(ok(run("show", kind, f"Inv:{name}", "--json", db=tmp_path / "fresh.db")))
        assert {k: v for k, v in after.items() if k not in ("workbook", "sheet")} == \
            {k: v for k, v in before.items() if k not in ("workbook", "sheet")}


def test_show_gives_unmodified_rows_fumble_cells_and_the_automatic_miss(run, printed):
    shown = json.loads(ok(run("show", "attack", "Inv:Firebolt", "--json")))
    # printed layouts: `Automatic miss | none` (Rolemaster: every row is read)
    assert shown["automatic_miss"] is None
    assert [(r["range"], r["unmodified"], r["cells"]) for r in shown["rows"]] == [
        ("<21", False, ["F", "F", "F"]),
        ("21-50", False, ["—", "—", "F"]),
        ("51-80", False, ["4", "2", "0"]),
        ("81-110", False, ["11 A Heat", "8", "5 A Heat"]),
        ("111-140", False, ["19 C Heat", "16 C Heat", "13 B Heat"]),
        ("141+", False, ["36 E Heat + A Impact", "31 E Heat + B Impact", "26 D Heat"]),
        ("UM 97-99", True, ["27 D Heat", "24 D Heat", "20 C Heat"]),
        ("UM 100", True, ["41 E Heat + A Impact", "38 E Heat + A Impact", "33 E Heat"]),
    ]
    assert json.loads(ok(run("show", "attack", "Inv:Club", "--json")))["automatic_miss"] == 5
    assert json.loads(ok(run("show", "weapon", "Inv:Fire Staff", "--json")))["max_result"] is None


def test_a_version_one_table_shows_and_exports_as_before(run, tmp_path):
    shown = json.loads(ok(run("show", "attack", "Edged", "--json")))
    assert shown["automatic_miss"] == 10
    assert {r["unmodified"] for r in shown["rows"]} == {False}
    assert all(not r["range"].startswith("UM") for r in shown["rows"])
    out = tmp_path / "edged.xlsx"
    ok(run("export", "-o", str(out), "Edged"))
    keys = [row[0] for row in sheets_of(out)["Edged"][:5]]
    # version 1: no `Automatic miss` key where the table misses at 10 or less, as every VsD table does
    assert keys == ["Kind", "Name", "Source", "Notes", None]


def test_the_attack_template_tells_of_fumbles_unmodified_rows_and_the_automatic_miss(run, tmp_path):
    import openpyxl

    out = tmp_path / "blank.xlsx"
    ok(run("template", "attack", "-o", str(out)))
    lines = [row[0] for row in openpyxl.load_workbook(out)["Instructions"].iter_rows(values_only=True)]
    # printed layouts: `F` cells, `UM 96-100` rows, `Automatic miss | 10|none`; rows may start at 1
    assert lines[4] == (
        "Fill every cell: a dash (—) misses, 0 connects for no damage, 7 is 7 hits, 16 Mod is 16 hits and a Moderate critical, "
        "16 Mod Cut names the critical table, F fumbles. Rows may be ascending or descending, without gaps; results below "
        "the lowest row miss; the last row may be open (176+). UM 96-100 rows are read by the unmodified die, whatever "
        "the modifiers; Automatic miss | none in the header block reads every row (by default 10 or less misses).")
