"""Printed critical and fumble tables and weapons' columns (issue 15,
slice 2): `show` gives their columns, `export` writes them as printed, and
export → import → export is the identity, cell for cell.

Every table and every entry here is invented for these tests, in the
printed shape only.
"""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from helpers import Rows, ok, reexported, sheets_of

from tables_app.domain.ranges import parse_range
from tables_app.domain.tables import Entry
from tables_app.sheets.write import ENTRY_HEADER, WEAPON_HEADER, printed_cell

RULESET: Rows = [["Kind", "ruleset"], ["Name", "Inv"]]
RUNES: Rows = [
    ["Kind", "severities"], ["Name", "Runes"], [],
    ["Code", "Name", "Modifier"], ["A", "Faint", 0], ["B", "Dim", 5], ["C", "Bright", 10], ["D", "Blazing", 15],
    ["E", "Searing", 20],
]
# printed layouts: `Roll | A | B | C | D | E` (the severity's codes, here some by name and in another order);
# effects as printed and in their ASCII spellings; branches `With helm: ... Without helm: ...`, `w/ X` / `w/o X`,
# `if X` / `if not X`, a shared title before the branches, a lone `With shield:` branch (with and without text after)
SCORCH: Rows = [
    ["Kind", "critical"], ["Name", "Scorch"], ["Code", "Z"], ["Severities", "Runes"], [],
    ["Roll", "A", "B", "Bright", "D", "searing"],
    ["01-10", "Smoke in the eyes. 1∑", "+2 hits", "+3H – 1 stun", "+4H – 1∑∏", "Cloak smoulders. +5H – 2∑"],
    ["11-45", "+1H", "Singed brow. 2∏ – (+5)", "+4H – 2 no parry – 1 bleed",
     "Collar alight. With helm: +2H – 1∑. Without helm: +5H – 2∑∏ – 1∫.",
     "w/ chest armor: +3H – 1∑. w/o chest armor: +7H – 3∫ – (-15)."],
    ["46-90", "Sleeve burns. +2H – (-5)", "+5H – 1∫", "if leg armor: +2H. if not leg armor: +6H – 2∫.",
     "With shield: shield blackens.", "Lungs scorched. dies in 9 rounds"],
    ["91+", "+4H", "+6H – 2∑", "+9H – 2∑∏ – 2∫", "With shield: grip lost. +11H – 3∑∏.", "Ash. instant death"],
]
# printed layouts: `Roll | Normal | Magic | Mithril | Holy | Slaying` (columns chosen by the attack)
MAW: Rows = [
    ["Kind", "critical"], ["Name", "Wyrm Maw"], [],
    ["Roll", "Normal", "Magic", "Mithril", "Holy", "Slaying"],
    ["01-55", "Scale chipped. +2H", "+3H", "+4H – 1∑", "Glows. +5H – 1∑", "+9H – 3∑∏"],
    ["56+", "+5H – 1∑", "+7H – 2∑", "+8H – 2∑∏", "+9H – 3∑∏", "Heart split. instant death"],
]
# printed layouts: `Roll | 1HE | 1HC | 2H | PA | MIS | TH` (a column per weapon category)
MISHAPS: Rows = [
    ["Kind", "fumble"], ["Name", "Mishaps"], [],
    ["Roll", "1HE", "1HC", "2H", "PA", "MIS", "TH"],
    ["01-50", "Slips. 1∏", "Fumbles grip.", "Overreaches. (-5)", "Butt drags. 1∑", "Nocks badly.", "Loses aim."],
    ["51+", "Nicks self. +1H", "Elbow jarred. +2H – 1∑", "Spins round. 2∑∏", "Shaft cracks. +3H", "Bow slips. 1∑",
     "Hits a friend. +3H"],
]
BASH: Rows = [
    ["Kind", "attack"], ["Name", "Bash"], ["Severities", "Runes"], ["Automatic miss", "none"], [],
    ["Result", "1", "2"], ["01-40", "F", "—"], ["41-100", "5", "3"], ["101+", "14CZ", "10BZ"],
]
WEAPONS: Rows = [
    ["Kind", "weapons"], [],
    ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Secondary critical", "Fumble table",
     "Critical column", "Fumble column"],
    ["Torch", "Bash", None, 2, "Z", "Wyrm Maw", "Mishaps", "magic", "1he"],
    ["Firebrand", "Bash", 150, 3, "Scorch", None, "Mishaps", None, "2H"],
]
PRINTED = {"Ruleset": RULESET, "Runes": RUNES, "Scorch": SCORCH, "Maw": MAW, "Mishaps": MISHAPS, "Bash": BASH,
           "Weapons": WEAPONS}




@pytest.fixture
def exported(run, write_workbook, tmp_path) -> Path:  # type: ignore[no-untyped-def]
    """The printed workbook imported into its own ruleset; that ruleset exported."""
    ok(run("import", str(write_workbook("printed.xlsx", PRINTED))))
    out = tmp_path / "printed-export.xlsx"
    ok(run("export", "-o", str(out), "--ruleset", "Inv"))
    return out


# ------------------------------------------------------------------ export

def test_a_critical_table_by_severity_exports_as_printed(exported):
    # printed layouts: `Roll | A | B | C | D | E`, "each cell is the entry for that roll and severity";
    # the effects are written in the text as printed, branches inside their cell
    assert sheets_of(exported)["Scorch"] == [
        ("Kind", "critical", None, None, None, None), ("Name", "Scorch", None, None, None, None),
        ("Ruleset", "Inv", None, None, None, None), ("Code", "Z", None, None, None, None),
        ("Severities", "Runes", None, None, None, None), (None,) * 6,
        ("Roll", "A", "B", "C", "D", "E"),
        ("1-10", "Smoke in the eyes. 1∑", "+2 hits", "+3H – 1 stun", "+4H – 1∑∏", "Cloak smoulders. +5H – 2∑"),
        ("11-45", "+1H", "Singed brow. 2∏ – (+5)", "+4H – 2 no parry – 1 bleed",
         "Collar alight. With helm: +2H – 1∑. Without helm: +5H – 2∑∏ – 1∫.",
         "w/ chest armor: +3H – 1∑. w/o chest armor: +7H – 3∫ – (-15)."),
        ("46-90", "Sleeve burns. +2H – (-5)", "+5H – 1∫", "if leg armor: +2H. if not leg armor: +6H – 2∫.",
         "With shield: shield blackens.", "Lungs scorched. dies in 9 rounds"),
        ("91+", "+4H", "+6H – 2∑", "+9H – 2∑∏ – 2∫", "With shield: grip lost. +11H – 3∑∏.", "Ash. instant death"),
    ]


def test_a_critical_table_by_attack_and_a_fumble_table_by_category_export_as_printed(exported):
    # printed layouts: `Roll | Normal | Magic | Mithril | Holy | Slaying`; `Roll | 1HE | 1HC | 2H | PA | MIS | TH`
    sheets = sheets_of(exported)
    assert sheets["Wyrm Maw"] == [  # the workbook's scale, as every critical table of it without Severities
        ("Kind", "critical", None, None, None, None), ("Name", "Wyrm Maw", None, None, None, None),
        ("Ruleset", "Inv", None, None, None, None), ("Severities", "Runes", None, None, None, None), (None,) * 6,
        ("Roll", "Normal", "Magic", "Mithril", "Holy", "Slaying"),
        ("1-55", "Scale chipped. +2H", "+3H", "+4H – 1∑", "Glows. +5H – 1∑", "+9H – 3∑∏"),
        ("56+", "+5H – 1∑", "+7H – 2∑", "+8H – 2∑∏", "+9H – 3∑∏", "Heart split. instant death"),
    ]
    assert sheets["Mishaps"] == [
        ("Kind", "fumble", None, None, None, None, None), ("Name", "Mishaps", None, None, None, None, None),
        ("Ruleset", "Inv", None, None, None, None, None), (None,) * 7,
        ("Roll", "1HE", "1HC", "2H", "PA", "MIS", "TH"),
        ("1-50", "Slips. 1∏", "Fumbles grip.", "Overreaches. (-5)", "Butt drags. 1∑", "Nocks badly.", "Loses aim."),
        ("51+", "Nicks self. +1H", "Elbow jarred. +2H – 1∑", "Spins round. 2∑∏", "Shaft cracks. +3H", "Bow slips. 1∑",
         "Hits a friend. +3H"),
    ]


def test_weapons_export_their_columns_as_written(exported):
    # printed layouts: weapons' "New optional columns: `Fumble column`, `Critical column`"
    weapons = sheets_of(exported)["Weapons Inv"]
    assert weapons[3] == (*WEAPON_HEADER, "Critical column", "Fumble column")
    assert weapons[4:] == [
        ("Firebrand", "Bash", 150, 3, "Scorch", None, "Mishaps", 0, "oe", None, None, "2H"),
        ("Torch", "Bash", None, 2, "Scorch", "Wyrm Maw", "Mishaps", 0, "oe", None, "magic", "1he"),
    ]


def test_export_import_export_is_the_identity(run, exported, tmp_path):
    # printed layouts: `export` "round trip to the same layout"
    again = reexported(run, exported, tmp_path, "Inv")
    assert sheets_of(again) == sheets_of(exported)
    for kind, name in (("critical", "Scorch"), ("critical", "Wyrm Maw"), ("fumble", "Mishaps"), ("weapon", "Torch"),
                       ("weapon", "Firebrand")):
        before = json.loads(ok(run("show", kind, f"Inv:{name}", "--json")))
        after = json.loads(ok(run("show", kind, f"Inv:{name}", "--json", db=tmp_path / "fresh.db")))
        assert {k: v for k, v in after.items() if k not in ("workbook", "sheet")} == \
            {k: v for k, v in before.items() if k not in ("workbook", "sheet")}


def test_weapons_export_only_the_columns_some_weapon_sets(run, write_workbook, tmp_path):
    # version 1 weapons sheets stay as they were; a sheet where only a fumble column is set gains only that column
    arms = [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble table",
                                      "Fumble column"], ["Firebrand", "Bash", 150, 3, "Scorch", "Mishaps", "2H"]]
    ok(run("import", str(write_workbook("p.xlsx", {**PRINTED, "Weapons": arms}))))
    out = tmp_path / "out.xlsx"
    ok(run("export", "-o", str(out), "Inv:Firebrand"))
    assert sheets_of(out)["Weapons Inv"][3] == (*WEAPON_HEADER, "Fumble column")
    bundled = tmp_path / "bundled.xlsx"
    ok(run("export", "-o", str(bundled), "Longsword", "Impact"))
    sheets = sheets_of(bundled)
    assert sheets["Weapons"][2] == WEAPON_HEADER
    assert ENTRY_HEADER in sheets["Impact"]  # a one-column table keeps its one-column layout


def test_an_open_ended_critical_table_exports_its_roll_kind(run, write_workbook, tmp_path):
    # printed layouts: "Header key `Roll kind | oeh` (default `d100`)"
    maw = [*MAW[:2], ["Roll kind", "oeh"], *MAW[2:]]
    ok(run("import", str(write_workbook("p.xlsx", {**PRINTED, "Maw": maw}))))
    out = tmp_path / "out.xlsx"
    ok(run("export", "-o", str(out), "Inv:Wyrm Maw", "Inv:Scorch"))
    sheets = sheets_of(out)
    assert sheets["Wyrm Maw"][3:6] == [("Severities", "Runes", None, None, None, None),
                                       ("Roll kind", "oeh", None, None, None, None), (None,) * 6]
    assert [row[0] for row in sheets["Scorch"][:7]] == ["Kind", "Name", "Ruleset", "Code", "Severities", None, "Roll"]
    assert json.loads(ok(run("show", "critical", "Inv:Wyrm Maw", "--json")))["roll_kind"] == "oeh"
    assert json.loads(ok(run("show", "critical", "Inv:Scorch", "--json")))["roll_kind"] == "d100"
    assert ok(run("show", "critical", "Inv:Wyrm Maw")).splitlines()[0] == "Inv:Wyrm Maw (critical table, rolled oeh)"


# ------------------------------------------------------------------ one cell

def entries(*pairs: tuple[str | None, str]) -> tuple[Entry, ...]:
    return tuple(Entry(parse_range("1-5"), text, condition=condition, column="E") for condition, text in pairs)


@pytest.mark.parametrize("cell, pairs", [
    # printed layouts: "Branches inside one cell, as printed: `With helm: +3H – 2∑. Without helm: +6H – 3∑∏ – 1∫.`"
    ("With helm: +2H. Without helm: +5H – 1∑.", [("helm", "With helm: +2H."), ("not helm", "Without helm: +5H – 1∑.")]),
    # a title before the branches belongs to both: written once
    ("Reels. w/ helm: +2H. w/o helm: 2∑.", [("helm", "Reels. w/ helm: +2H."), ("not helm", "Reels. w/o helm: 2∑.")]),
    # "A branch may stand alone (`With shield: ...` and plain text for everyone else)"
    ("With shield: +2H. +6H – 2∑∏.", [("shield", "With shield: +2H."), ("not shield", "+6H – 2∑∏.")]),
    ("Staggers. if not shield: +4H. 1∑.", [("not shield", "Staggers. if not shield: +4H."), ("shield", "Staggers. 1∑.")]),
    ("Dazed. With shield: +2H.", [("shield", "Dazed. With shield: +2H."), ("not shield", "Dazed.")]),
    # a title without a full stop opens the branches on a new line, else they would be prose
    ("Dazed\nWith helm: +1H. Without helm: 1∑", [("helm", "Dazed With helm: +1H."), ("not helm", "Dazed Without helm: 1∑")]),
    ("With shield: +2H\n+6H", [("shield", "With shield: +2H"), ("not shield", "+6H")]),
    # prose that looks like a marker inside the shared text
    ("Struck with helm: ouch. With helm: +1H. Without helm: +3H.",
     [("helm", "Struck with helm: ouch. With helm: +1H."), ("not helm", "Struck with helm: ouch. Without helm: +3H.")]),
])
def test_a_cell_is_written_from_its_branches(cell, pairs):
    assert printed_cell(entries(*pairs)) == cell


def test_branches_no_cell_reads_back_as_are_refused():
    with pytest.raises(ValueError) as caught:
        printed_cell(entries(("helm", "+1H."), ("not helm", "+3H.")))
    assert str(caught.value) == ("the branches of roll 1-5 in column E ('+1H.', '+3H.') cannot be written as one "
                                 "printed cell")


def test_an_export_that_cannot_write_a_cell_names_the_table(tmp_path):
    from tables_app.domain.ranges import RangeTable
    from tables_app.domain.tables import ColumnChoice, EffectTable, TableKind
    from tables_app.sheets.write import Export, Named, write_export

    rows = RangeTable([(parse_range("1-100"), entries(("helm", "+1H."), ("not helm", "+3H.")))])
    table = EffectTable(TableKind.FUMBLE, "Broken", rows, choice=ColumnChoice.ATTACK, columns=("E",), column_rows=(rows,))
    with pytest.raises(ValueError) as caught:
        write_export(tmp_path / "x.xlsx", Export(fumble=[Named(table)]))
    assert str(caught.value) == ("fumble table 'Broken': the branches of roll 1-5 in column E ('+1H.', '+3H.') cannot "
                                 "be written as one printed cell")


# ------------------------------------------------------------------ show

def test_show_gives_the_column_choice_and_columns(run, exported):
    # printed layouts: the column "is chosen by" the severity, or by the attack (`Critical column`, `Fumble column`)
    scorch = json.loads(ok(run("show", "critical", "Inv:Scorch", "--json")))
    assert (scorch["choice"], scorch["columns"], scorch["code"]) == ("severity", ["A", "B", "C", "D", "E"], "Z")
    assert [(e["range"], e["column"], e["condition"]) for e in scorch["entries"] if e["column"] == "D"] == [
        ("1-10", "D", None), ("11-45", "D", "helm"), ("11-45", "D", "not helm"), ("46-90", "D", "shield"),
        ("46-90", "D", "not shield"), ("91+", "D", "shield"), ("91+", "D", "not shield")]
    # `2∑∏` stunned and unable to parry · `2∏` must parry · `(+10)` the attacker's bonus · `dies in 6 rounds`
    by_place = {(e["range"], e["column"], e["condition"]): e for e in scorch["entries"]}
    picked = {key: by_place[("11-45", *key)] for key in (("C", None), ("B", None))}
    assert {k: (e["stun"], e["no_parry"], e["bleed"], e["hits"]) for k, e in picked.items()} == {
        ("C", None): (2, 2, 1, 4), ("B", None): (0, 0, 0, 0)}
    assert (by_place[("11-45", "B", None)]["must_parry"], by_place[("11-45", "B", None)]["attacker_bonus"]) == (2, 5)
    assert by_place[("46-90", "E", None)]["death_in"] == 9
    assert by_place[("91+", "E", None)]["death_in"] == 0
    maw = json.loads(ok(run("show", "critical", "Inv:Wyrm Maw", "--json")))
    assert (maw["choice"], maw["columns"]) == ("attack", ["Normal", "Magic", "Mithril", "Holy", "Slaying"])
    mishaps = json.loads(ok(run("show", "fumble", "Inv:Mishaps", "--json")))
    assert (mishaps["choice"], mishaps["columns"], len(mishaps["entries"])) == (
        "attack", ["1HE", "1HC", "2H", "PA", "MIS", "TH"], 12)


def test_a_one_column_table_shows_choice_none(run):
    shown = json.loads(ok(run("show", "critical", "Impact", "--json")))
    assert (shown["choice"], shown["columns"]) == ("none", [])
    assert {e["column"] for e in shown["entries"]} == {None}


def test_show_weapon_gives_its_columns(run, exported):
    # printed layouts: weapons' `Critical column`, `Fumble column`
    torch = json.loads(ok(run("show", "weapon", "Inv:Torch", "--json")))
    assert (torch["critical_column"], torch["fumble_column"]) == ("magic", "1he")
    assert list(torch)[-4:] == ["critical_column", "fumble_column", "workbook", "sheet"]
    assert fields_shown(ok(run("show", "weapon", "Inv:Torch")))[-4:] == [
        ["critical column", "magic"], ["fumble column", "1he"], ["workbook", "printed.xlsx"], ["sheet", "Weapons"]]
    longsword = json.loads(ok(run("show", "weapon", "Longsword", "--json")))
    assert (longsword["critical_column"], longsword["fumble_column"]) == (None, None)
    assert [field for field, _ in fields_shown(ok(run("show", "weapon", "Longsword")))] == [  # unset: not listed for people
        "attack table", "max result", "clumsy", "critical", "secondary critical", "fumble table", "fumble modifier",
        "roll", "workbook", "sheet"]


def fields_shown(out: str) -> list[list[str]]:
    """The `field | value` rows of a weapon shown to people."""
    return [[cell.strip() for cell in line.strip("│").split("│")] for line in out.splitlines() if line.startswith("│")]


def test_show_prints_a_printed_table_column_by_column(run, exported):
    out = ok(run("show", "critical", "Inv:Scorch")).splitlines()
    assert out[:4] == [
        "Inv:Scorch (critical table, code Z)",
        "A column per severity (A, B, C, D, E): the severity picks the column, the roll is not modified.",
        "1-10",
        "  A: Smoke in the eyes. 1∑",
    ]
    at = out.index("  C: +4H – 2 no parry – 1 bleed")
    assert out[at:at + 8] == [
        "  C: +4H – 2 no parry – 1 bleed",
        "    +4 hits, bleed 1/rnd, stun 2 rnd, no parry 2",
        "  D: Collar alight. With helm: +2H – 1∑.",
        "    +2 hits, stun 1 rnd",
        "  D: Collar alight. Without helm: +5H – 2∑∏ – 1∫.",
        "    +5 hits, bleed 1/rnd, stun 2 rnd, no parry 2",
        "  E: w/ chest armor: +3H – 1∑.",
        "    +3 hits, stun 1 rnd",
    ]
    # the new effects in words: must parry, the attacker's bonus, death
    assert out[out.index("  B: Singed brow. 2∏ – (+5)") + 1] == "    must parry 2, attacker +5"
    assert out[out.index("  E: Lungs scorched. dies in 9 rounds") + 1] == "    dies in 9 rounds"
    assert out[out.index("  E: Ash. instant death") + 1] == "    instant death"
    # a lone branch's other entry does not say its condition: the head line does
    assert "  D (not shield): (nothing happens)" in out  # `With shield: shield blackens.` and nothing after
    assert ok(run("query", "critical", "Inv:Scorch", "50", "--severity", "D")).splitlines() == [
        "Scorch 50 (46-90, column D, not shield)", "(nothing happens)", "(With shield: shield blackens.)"]
    assert "  D (not shield): +11H – 3∑∏." in out[out.index("91+"):]
    assert "  D: With shield: grip lost." in out[out.index("91+"):]


def test_show_prints_a_fumble_table_by_category(run, exported):
    out = ok(run("show", "fumble", "Inv:Mishaps")).splitlines()
    assert out[:5] == ["Inv:Mishaps (fumble table)",
                       "Columns 1HE, 1HC, 2H, PA, MIS, TH: the weapon's Fumble column picks the column.",
                       "1-50", "  1HE: Slips. 1∏", "    must parry 1"]


# ------------------------------------------------------------------ query and template

def test_query_names_the_column_it_read(run, exported):
    # printed layouts: `query fumble TABLE ROLL --column 2H`; a critical read in the severity's column
    assert ok(run("query", "fumble", "Inv:Mishaps", "70", "--column", "2h")).splitlines()[0] == "Mishaps 70 (51+, column 2H)"
    assert ok(run("query", "critical", "Inv:Scorch", "30", "--severity", "D", "--has", "helm")).splitlines()[0] == \
        "Scorch 30 (11-45, column D, helm)"
    assert ok(run("query", "critical", "Impact", "30", "--severity", "Lig")).splitlines()[0].startswith("Impact 30 → ")


@pytest.mark.parametrize("kind, line", [
    ("critical", "One row per roll range, 1 up to 100 + the largest severity modifier (150 by default). Hits, Bleed, Stun "
                 "and Penalty are numbers; Effects are comma-separated tags; a range may appear twice with Condition "
                 "'helm' and 'not helm'. A printed layout is also read: Roll | A | B | C | D | E (a column per severity, "
                 "rows 1-100) or Roll | Normal | Magic | ... (the weapon's Critical column picks it), each cell an entry "
                 "in printed notation (Foe reels. +5H – 2∑ – 1∫ – (-10); With helm: +3H. Without helm: +6H – 3∑∏.)."),
    ("fumble", "One row per roll range from 1 up; the last row may be open (121+) to catch large fumble modifiers. A "
               "printed layout is also read: Roll | 1HE | 1HC | 2H | ... (a column per weapon category, the weapon's "
               "Fumble column picks it), each cell an entry in printed notation (Trips. +2H – 1∑)."),
    ("weapons", "One weapon per row. Attack table, Critical and Fumble table name tables in this workbook or already "
                "imported; Clumsy is 4 or 1-4; Roll is oe (default), oeh, oel or d100. Optional columns may follow "
                "Notes: Critical column and Fumble column, the column the weapon reads in printed critical and fumble "
                "tables (Magic, 2H), and Max critical, the highest severity its criticals reach (C)."),
])
def test_templates_tell_of_the_printed_layouts(run, tmp_path, kind, line):
    # printed layouts: `template` knows the critical and fumble layouts and the weapons' columns
    out = tmp_path / "blank.xlsx"
    ok(run("template", kind, "-o", str(out)))
    lines = [row[0] for row in openpyxl.load_workbook(out)["Instructions"].iter_rows(values_only=True)]
    assert lines[4] == line
