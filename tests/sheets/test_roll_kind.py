"""`Roll kind | oeh` on a critical sheet (docs/workbook-format.md, "Open-ended
critical rolls"): read, stored, rolled open-ended high; refused elsewhere."""

from __future__ import annotations

import json

from helpers import error_lines, rm_sheets


def huge_sheets(roll_kind: str = "oeh") -> dict:
    sheets = rm_sheets()
    sheets["Huge"] = [["Kind", "critical"], ["Name", "Huge"], ["Code", "H"], ["Roll kind", roll_kind], [],
                      ["Roll", "Normal", "Slaying"],
                      ["1-100", "+1H", "+10H"], ["101-150", "+5H – 2∑", "+50H"], ["151+", "instant death", "+99H"]]
    sheets["Weapons"] = [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Critical column"],
                         ["Stomp", "Broadsword", None, 1, "Huge", "Normal"]]
    return sheets


def test_an_open_ended_critical_table_imports_and_keeps_its_roll_kind(run, write_workbook):
    assert run("import", str(write_workbook("huge.xlsx", huge_sheets()))).exit_code == 0
    shown = json.loads(run("show", "critical", "RM:Huge", "--json").stdout)
    assert (shown["roll_kind"], shown["choice"], shown["columns"]) == ("oeh", "attack", ["Normal", "Slaying"])
    assert json.loads(run("show", "critical", "RM:Slash", "--json").stdout)["roll_kind"] == "d100"


def test_the_open_ended_die_reads_past_100(run, write_workbook):
    sheets = huge_sheets()
    sheets["Broadsword table"] = [["Kind", "attack"], ["Name", "Broadsword"], [], ["Result", "5"], ["11+", "9 A Huge"]]
    assert run("import", str(write_workbook("huge.xlsx", sheets))).exit_code == 0
    data = json.loads(run("resolve", "table", "--weapon", "RM:Stomp", "--cmb", "20", "--armor", "5",
                          "--dice", "40,97,99,60", "--json").stdout)
    # critical die 97 opens: 97 + 99 + 60 = 256 reads 151+ in column Normal: instant death
    assert (data["critical"]["roll"], data["critical"]["modified_roll"]) == (97, 256)
    assert (data["critical"]["entry"]["text"], data["critical"]["entry"]["death_in"]) == ("instant death", 0)
    odds = json.loads(run("odds", "table", "--weapon", "RM:Stomp", "--cmb", "20", "--armor", "5", "--roll-kind", "d100",
                          "--json").stdout)
    assert odds["outcomes"]["critical"] == 0.99  # clumsy 1 fumbles; faces 2-100 give 22-120: `9 A Huge`
    # Huge in column Normal: 95 faces read as they fell (1 hit), 96-100 open past 100 (5 hits up to 150, else none)
    assert 9 + 1 < odds["expected_damage"] / 0.99 < 9 + 5


def test_roll_kind_is_read_on_critical_sheets_only(run, write_workbook):
    sheets = huge_sheets("open")
    sheets["Trip"] = [["Kind", "fumble"], ["Name", "Trip"], ["Roll kind", "oeh"], [], ["Roll", "Text"], ["1+", "Oops."]]
    result = run("lint", str(write_workbook("huge.xlsx", sheets)))
    assert result.exit_code == 1
    assert error_lines(result) == ("Error: huge.xlsx › Trip › B3: only critical tables have Roll kind in the header block\n"
                                   "Error: huge.xlsx › Huge › B4: Roll kind 'open' must be d100 or oeh\n")
    # the weapon naming Huge is no second problem: Huge's own sheet has it


def test_a_fumble_column_without_a_fumble_table_is_an_error(run, write_workbook):
    # printed layouts: "a weapon's `Fumble column` picks its column" — of its fumble table; without one it picks nothing
    sheets = rm_sheets()
    sheets["Weapons"] = [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble column"],
                         ["Pick", "Broadsword", 100, 2, "S", "2H"]]
    result = run("lint", str(write_workbook("fc.xlsx", sheets)))
    assert (result.exit_code, error_lines(result)) == (
        1, "Error: fc.xlsx › Weapons › F4: Fumble column '2H' given, but the weapon has no fumble table\n")
