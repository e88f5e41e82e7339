"""Slice 1 of the printed layouts through the CLI: an invented attack sheet
in the shape of a printed Rolemaster table (`Automatic miss | none`, rows
from `1:8` up to `>150`, `UM 96-99` and `UM 100` rows, `F` cells, a weapon
with a blank Max result) imported, linted, looked up, resolved and its odds
given; and the import errors of its new header key and rows, with their cells."""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest
from helpers import error_lines

ARMORS = ["20", "10", "1"]
# Rows as a person transcribes them, top row first (row 6 of the sheet is the first below the header).
BLADE_ROWS = [
    ["UM 100", "30E", "25 E K", "25EK"],
    ["UM 96-99", "20E", "12D", "F"],
    [">150", "16E", "12D", "20ES"],
    ["121:150", "14D", "10C", "18E"],
    ["91-120", "9B", "5 A", "12C"],
    ["61-90", "6", "2", "8A"],
    ["31-60", "3", "—", "5"],
    ["09-30", "—", "—", "0"],
    ["1:8", "F", "—", "F"],
]
WEAPON = "PR:Printed blade"


def printed_sheets(automatic_miss: object = "none", rows: list | None = None, weapon: bool = True) -> dict:
    """Ruleset PR: an A-E scale, critical tables Slash (S) and Krush (K), a
    fumble table, the attack table and (``weapon``) a weapon with a blank Max result."""
    sheets = {
        "Ruleset": [["Kind", "ruleset"], ["Name", "PR"], ["Source", "invented for tests"]],
        "Severities": [["Kind", "severities"], ["Name", "PR letters"], [], ["Code", "Name", "Modifier"],
                       ["A", "A", 0], ["B", "B", 5], ["C", "C", 10], ["D", "D", 15], ["E", "E", 20]],
        # Mean extra hits over d100 + modifier: Slash B 4.3, D 5.5, E 6.1; Krush E 4.5.
        "Slash": [["Kind", "critical"], ["Name", "Slash"], ["Code", "S"], [], ["Roll", "Text", "Hits"],
                  ["01-20", "A graze.", 0], ["21-50", "A cut.", 2], ["51-80", "A gash.", 5], ["81-100", "A slash.", 8],
                  ["101+", "Severed.", 12]],
        "Krush": [["Kind", "critical"], ["Name", "Krush"], ["Code", "K"], [], ["Roll", "Text", "Hits"],
                  ["01-50", "A bruise.", 1], ["51+", "A crack.", 6]],
        "Fumbles": [["Kind", "fumble"], ["Name", "Blade fumbles"], [], ["Roll", "Text", "Hits"],
                    ["01-30", "Slip.", 0], ["31-70", "Drop the blade.", 0], ["71+", "Fall on it.", 3]],
        "Blade table": [["Kind", "attack"], ["Name", "Printed blade"], ["Automatic miss", automatic_miss], [],
                        ["Result", *ARMORS], *(BLADE_ROWS if rows is None else rows)],
        "Weapons": [["Kind", "weapons"], [],
                    ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble table", "Fumble modifier", "Roll"],
                    ["Printed blade", "Printed blade", None, 2, "S", "Blade fumbles", 15, "oe"]],
    }
    if not weapon:  # a broken attack table would also make the weapon's reference to it an error
        del sheets["Weapons"]
    return sheets


@pytest.fixture
def imported(run, write_workbook):  # type: ignore[no-untyped-def]
    result = run("import", str(write_workbook("printed.xlsx", printed_sheets())))
    assert result.exit_code == 0, result.output
    return run


def as_json(result):  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def rounded(value: F) -> float:
    return round(float(value), 12)  # docs/table-system.md "Odds": floats rounded to 12 decimal places


# ----------------------------------------------------------------- import, lint
def test_the_printed_sheet_imports_and_lints(run, write_workbook):
    path = write_workbook("printed.xlsx", printed_sheets())
    linted = run("lint", str(path))
    assert linted.exit_code == 0, linted.output
    assert linted.stdout.startswith("OK printed.xlsx: 1 severity scale (PR:PR letters); 1 attack table (PR:Printed blade); "
                                    "2 critical tables (PR:Slash, PR:Krush); 1 fumble table (PR:Blade fumbles); 1 weapon (PR:Printed blade)")
    assert error_lines(linted) == ""
    imported = run("import", str(path))
    assert imported.exit_code == 0 and error_lines(imported) == ""


def test_the_valid_printed_sheet_gives_no_other_warning(run, write_workbook):
    """No flood: `F` cells (0 hits) low in the table, rows from 1, UM rows and
    a blank Max result warn of nothing."""
    linted = run("lint", str(write_workbook("printed.xlsx", printed_sheets())))
    warnings = [line for line in linted.stderr.splitlines() if line.startswith("Warning:")]
    assert warnings == []


def test_a_critical_table_named_only_in_um_rows_is_used(run, write_workbook):
    # printed layouts: "a range written `UM 96-100` or `UM 100` ... its cell is the result": its critical is used.
    linted = run("lint", str(write_workbook("printed.xlsx", printed_sheets())))
    assert "no weapon or attack cell uses critical table 'Krush'" not in linted.stderr


def test_a_dip_in_hits_that_gains_a_critical_is_no_fall(run, write_workbook):
    """Printed tables have legitimate non-monotone cells (`7` above `5 A`: the
    critical outweighs two hits; `4D` above `5A`: a worse critical): a cell is
    worth its critical's severity first, then its hits. A real fall still warns."""
    rows = [list(row) for row in BLADE_ROWS]
    rows[4] = ["91-120", "5A", "5 A", "12C"]  # column 20: 6 (61-90) then 5A; column 10: 7 (below) then 5 A
    rows[5] = ["61-90", "6", "7", "8A"]
    rows[3] = ["121:150", "4D", "10C", "18E"]
    linted = run("lint", str(write_workbook("printed.xlsx", printed_sheets(rows=rows))))
    assert linted.exit_code == 0
    assert [line for line in linted.stderr.splitlines() if "damage falls" in line] == []
    rows[3] = ["121:150", "4D", "10C", "7C"]  # column 1: 12C (91-120) then 7C: the same critical, fewer hits
    linted = run("lint", str(write_workbook("printed.xlsx", printed_sheets(rows=rows))))
    assert [line for line in linted.stderr.splitlines() if "damage falls" in line] == [
        "Warning: printed.xlsx › Blade table › D9: damage falls in column 1: 91-120 gives 12 C, 121-150 gives 7 C"]


def test_a_switch_of_critical_table_is_no_fall(run, write_workbook):
    """Printed weapons alternate critical tables row by row (`22ES` below `20EK`) and
    creature tables move from one table to another (`10 E Tiny` below `11 A Puncture`):
    a critical is judged against the best one on its own table so far."""
    rows = [list(row) for row in BLADE_ROWS]
    rows[3] = ["121:150", "14DK", "10AK", "18E"]  # columns 20 and 10: Krush, below them Slash D and C
    rows[4] = ["91-120", "9BS", "5 A", "12C"]
    linted = run("lint", str(write_workbook("printed.xlsx", printed_sheets(rows=rows))))
    assert linted.exit_code == 0
    assert [line for line in linted.stderr.splitlines() if "damage falls" in line] == []
    rows[2] = [">150", "16AS", "12D", "20ES"]  # column 20: Slash B (91-120), Krush D, then Slash A: a fall on Slash
    linted = run("lint", str(write_workbook("printed.xlsx", printed_sheets(rows=rows))))
    assert [line for line in linted.stderr.splitlines() if "damage falls" in line] == [
        "Warning: printed.xlsx › Blade table › B8: damage falls in column 20: 91-120 gives 9 B Slash, 151+ gives 16 A Slash"]


def test_cells_naming_a_broken_critical_table_are_no_second_problem(run, write_workbook):
    """One bad critical sheet is one problem, not one more on every attack cell naming its code."""
    sheets = printed_sheets()
    sheets["Krush"] = [["Kind", "critical"], ["Name", "Krush"], ["Code", "K"], [], ["Roll", "Text", "Hits"],
                       ["01-50", "A bruise.", "lots"], ["51+", "A crack.", 6]]
    linted = run("lint", str(write_workbook("printed.xlsx", sheets)))
    assert linted.exit_code == 1
    assert error_lines(linted) == "Error: printed.xlsx › Krush › C6: Hits must be a whole number, not 'lots'\n"


# ---------------------------------------------------------------- query attack
@pytest.mark.parametrize("result, armor, line", [
    # printed layouts: UM rows are "matched against the unmodified first die"; a looked-up RESULT is a modified
    # result, so 97 reads the result rows (91-120), never `UM 96-99`.
    ("97", "20", "Printed blade 91-120 20: 9 B  (critical)"),
    ("100", "1", "Printed blade 91-120 1: 12 C  (critical)"),
    # printed layouts: `Automatic miss | none` (every row is read): 5 reads `1:8`; `F`: the attack fumbles.
    ("5", "1", "Printed blade 1-8 1: F  (fumble)"),
    # "Results below the lowest row miss."
    ("0", "1", "Printed blade 0 1: below the first row  (miss)"),
    # `>150` (= `151+`): above it reads it (docs/table-system.md step 8).
    ("400", "1", "Printed blade 151+ 1: 20 E Slash  (critical on Slash)"),
    ("121", "10", "Printed blade 121-150 10: 10 C  (critical)"),
])
def test_query_attack_reads_the_result_rows(imported, result, armor, line):
    answer = imported("query", "attack", "PR:Printed blade", result, armor)
    assert answer.exit_code == 0, answer.output
    assert answer.stdout.strip() == line


def test_query_attack_json_of_an_f_cell(imported):
    data = as_json(imported("query", "attack", "PR:Printed blade", "8", "20", "--json"))
    assert (data["row"], data["text"], data["outcome"], data["hits"], data["severity"]) == ("1-8", "F", "fumble", 0, None)


# --------------------------------------------------------------- resolve table
def resolved(run, *args: str) -> str:  # type: ignore[no-untyped-def]
    result = run("resolve", "table", "--weapon", WEAPON, *args)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_resolve_a_um_row_whatever_the_modifiers(imported):
    # printed layouts: "its cell is the result whatever the modifiers": CMB −40 is not ineffective here.
    assert resolved(imported, "--cmb", "-40", "--armor", "20", "--dice", "97,40") == (
        "PR:Printed blade (Printed blade, clumsy 1-2) vs DEF 0, AT 20\n"
        "Unmodified roll 97 reads row UM 96-99, whatever the modifiers.\n"
        "Printed blade UM 96-99 20: 20 E.\n"
        "Critical: E on Slash, 40 + 20 = 60 (51-80; +5 hits).\n"
        "  A gash.\n"
        "Damage: 20 + 5 = 25.\n"
        "CRITICAL, 25 damage.  Dice: 97, 40 (given)\n"
    )


def test_resolve_an_opened_low_roll_that_reads_an_f_cell(imported):
    # printed layouts: "`F`: ... roll on the weapon's fumble table with its modifier".
    assert resolved(imported, "--cmb", "0", "--armor", "1", "--dice", "4,2,10") == (
        "PR:Printed blade (Printed blade, clumsy 1-2) vs DEF 0, AT 1\n"
        "Roll 4 - 2 = 2 (open-ended low).\n"
        "CMB 0; 2 + 0 - DEF 0 = 2.\n"
        "Printed blade 1-8 1: F.\n"
        "The cell fumbles.\n"
        "Fumble: Blade fumbles, 10 + 15 = 25 (1-30).\n"
        "  Slip.\n"
        "FUMBLE, 0 damage.  Dice: 4, 2, 10 (given)\n"
    )


def test_resolve_below_the_lowest_row(imported):
    # printed layouts: "Results below the lowest row miss."
    assert resolved(imported, "--cmb", "0", "--def", "10", "--armor", "20", "--dice", "7") == (
        "PR:Printed blade (Printed blade, clumsy 1-2) vs DEF 10, AT 20\n"
        "Roll 7.\n"
        "CMB 0; 7 + 0 - DEF 10 = -3.\n"
        "Result -3 is below the lowest row (1-8): a miss.\n"
        "MISS, 0 damage.  Dice: 7 (given)\n"
    )


def test_resolve_a_um_f_cell_and_a_clumsy_face(imported):
    data = as_json(imported("resolve", "table", "--weapon", WEAPON, "--cmb", "80", "--armor", "1", "--dice", "98,70", "--json"))
    assert (data["outcome"], data["damage"], data["cell"]["row"], data["cell"]["text"]) == ("fumble", 0, "UM 96-99", "F")
    assert (data["fumble"]["modified_roll"], data["roll"]["open_ended"], data["result"]) == (85, [], None)
    clumsy = as_json(imported("resolve", "table", "--weapon", WEAPON, "--cmb", "80", "--armor", "1", "--dice", "2,70", "--json"))
    assert (clumsy["outcome"], clumsy["cell"], clumsy["steps"][0]) == (
        "fumble", None, "Unmodified roll 2 is within the Clumsy Range 1-2: the attack fumbles.")


def test_a_weapon_with_a_blank_max_result_caps_nothing(imported):
    # printed layouts: "`Max result` may be blank (no cap)".
    data = as_json(imported("resolve", "table", "--weapon", WEAPON, "--cmb", "300", "--armor", "20", "--dice", "90,30", "--json"))
    assert data["attack"]["max_result"] is None
    assert (data["result"], data["uncapped_result"], data["capped"]) == (390, 390, False)
    assert data["steps"][:3] == ["Roll 90.", "CMB 300; 90 + 300 - DEF 0 = 390.", "Printed blade 151+ 20: 16 E."]
    assert data["damage"] == 16 + 2  # E on Slash: 30 + 20 = 50 reads 21-50 (+2)


# ------------------------------------------------------------------ odds table
def test_odds_with_f_cells_and_um_rows(imported):
    """Open-ended, CMB 0, column 20. Fumbles: Clumsy faces 1-2, `F` faces 6-8,
    and faces 3-5 opened low that stay at 1 or more (3 − 1..2, 4 − 1..3,
    5 − 1..4: 9 in 10,000); the rest of the low openings miss below the lowest
    row. UM rows read faces 96-100 whole (no chain): 4 + 1 in 100."""
    data = as_json(imported("odds", "table", "--weapon", WEAPON, "--cmb", "0", "--armor", "20", "--json"))
    fumble = F(2, 100) + F(3, 100) + F(9, 10_000)
    miss = F(22, 100) + F(3, 100) - F(9, 10_000)
    assert data["outcomes"] == {"fumble": rounded(fumble), "miss": rounded(miss), "ineffective": 0.0, "no_damage": 0.0,
                                "hit": 0.6, "critical": 0.1}
    assert data["critical_severity"] == {"A": 0.0, "B": 0.05, "C": 0.0, "D": 0.0, "E": 0.05}
    # d100 + 15 on the fumble table: 1-30 on 15 faces, 31-70 on 40, 71+ on 45; `F` cells' fumbles included
    assert data["fumble_rows"] == {"1-30": rounded(fumble * F(15, 100)), "31-70": rounded(fumble * F(40, 100)),
                                   "71+": rounded(fumble * F(45, 100))}
    # 30 × 3 + 30 × 6 + 5 × (9 + 4.3) + 4 × (20 + 6.1) + 1 × (30 + 6.1), over 100
    assert data["expected_damage"] == float(F(477, 100))
    assert data["rows"] == [{"row": "1-8", "probability": rounded(F(3, 100) + F(9, 10_000))},
                            {"row": "9-30", "probability": 0.22}, {"row": "31-60", "probability": 0.3},
                            {"row": "61-90", "probability": 0.3}, {"row": "91-120", "probability": 0.05},
                            {"row": "UM 96-99", "probability": 0.04}, {"row": "UM 100", "probability": 0.01}]


def test_odds_of_um_rows_under_a_negative_cmb(imported):
    # Step 6 makes every modified result ineffective; UM faces 96-100 read their cells whatever the modifiers.
    # Column 10: UM 96-99 "12D" (Slash D: 16-115, 5.5), UM 100 "25 E K" (Krush E 4.5).
    data = as_json(imported("odds", "table", "--weapon", WEAPON, "--cmb", "-20", "--armor", "10", "--json"))
    assert data["outcomes"] == {"fumble": 0.02, "miss": 0.0, "ineffective": 0.93, "no_damage": 0.0, "hit": 0.0, "critical": 0.05}
    assert data["critical_severity"] == {"A": 0.0, "B": 0.0, "C": 0.0, "D": 0.04, "E": 0.01}
    assert data["expected_damage"] == float((4 * (12 + F(55, 10)) + 25 + F(45, 10)) / 100)


# ------------------------------------------------------------ import errors
@pytest.mark.parametrize("written, shown", [("maybe", "'maybe'"), (-5, "'-5'"), ("-5", "'-5'"), (1001, "'1001'")])
def test_a_bad_automatic_miss(run, write_workbook, written, shown):
    # printed layouts: "Header key `Automatic miss | 10` ... or `none`".
    result = run("import", str(write_workbook("printed.xlsx", printed_sheets(automatic_miss=written, weapon=False))))
    assert result.exit_code == 1
    assert error_lines(result) == (
        f"Error: printed.xlsx › Blade table › B3: Automatic miss {shown} must be a whole number from 0 to 1000, or none\n")


@pytest.mark.parametrize("written", ["none", "None", "NONE", 10, "10", 20])
def test_good_automatic_misses(run, write_workbook, written):
    result = run("lint", str(write_workbook("printed.xlsx", printed_sheets(automatic_miss=written))))
    assert result.exit_code == 0 and error_lines(result) == ""


def test_automatic_miss_20_reads_from_21(run, write_workbook):
    assert run("import", str(write_workbook("printed.xlsx", printed_sheets(automatic_miss=20)))).exit_code == 0
    data = as_json(run("resolve", "table", "--weapon", WEAPON, "--cmb", "0", "--armor", "1", "--dice", "20", "--json"))
    assert (data["outcome"], data["cell"], data["steps"][-1]) == ("miss", None, "Result 20 is 20 or less: an automatic miss.")
    data = as_json(run("resolve", "table", "--weapon", WEAPON, "--cmb", "0", "--armor", "1", "--dice", "21", "--json"))
    assert (data["outcome"], data["cell"]["row"]) == ("no_damage", "9-30")


def _with_um(*um_rows: list) -> list:
    return [*um_rows, *BLADE_ROWS[2:]]


@pytest.mark.parametrize("rows, expected", [
    # printed layouts: "`UM 96-100` ... is matched against the **unmodified** first die": faces 1-100 only.
    (_with_um(["UM 95-101", "30E", "25 E K", "25EK"]),
     "Error: printed.xlsx › Blade table › A6: UM 95-101: a UM row reads the unmodified d100, so it lies within 1-100\n"),
    (_with_um(["UM 0-3", "30E", "25 E K", "25EK"], BLADE_ROWS[1]),
     "Error: printed.xlsx › Blade table › A6: UM 0-3: a UM row reads the unmodified d100, so it lies within 1-100\n"),
    (_with_um(["UM 99-100", "30E", "25 E K", "25EK"], BLADE_ROWS[1]),
     "Error: printed.xlsx › Blade table › A6: UM rows 96-99 and 99-100 overlap\n"),
    (BLADE_ROWS[:2],
     "Error: printed.xlsx › Blade table › A6: every row is a UM row; the result needs rows too\n"),
    (_with_um(["UM", "30E", "25 E K", "25EK"]),
     "Error: printed.xlsx › Blade table › A6: 'UM' has no range after UM (write UM 96-100 or UM 100)\n"),
    (_with_um(["UM 96-x", "30E", "25 E K", "25EK"]),
     "Error: printed.xlsx › Blade table › A6: 'UM 96-x': '96-x' is not a range (write 11-35, 36 or 176+)\n"),
], ids=["above 100", "below 1", "overlapping", "all UM", "no range", "bad range"])
def test_bad_um_rows(run, write_workbook, rows, expected):
    result = run("import", str(write_workbook("printed.xlsx", printed_sheets(rows=rows, weapon=False))))
    assert result.exit_code == 1
    assert error_lines(result) == expected


def test_um_rows_may_be_written_in_any_case_and_spacing(run, write_workbook):
    # parse_row_label: "`UM 96-100`, `UM 100`, `um96-100` (any case, space optional)".
    rows = _with_um(["um100", "30E", "25 E K", "25EK"], ["Um 96:99", "20E", "12D", "F"])
    assert run("import", str(write_workbook("printed.xlsx", printed_sheets(rows=rows)))).exit_code == 0
    data = as_json(run("resolve", "table", "--weapon", WEAPON, "--cmb", "0", "--armor", "20", "--dice", "100,1", "--json"))
    assert (data["cell"]["row"], data["cell"]["text"], data["damage"]) == ("UM 100", "30 E", 30 + 2)
