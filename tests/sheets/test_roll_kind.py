"""`Roll kind | oeh` on a critical or fumble sheet (docs/workbook-format.md, "Open-ended
critical and fumble rolls"): read, stored, rolled open-ended high; refused elsewhere."""

from __future__ import annotations

import json

import pytest
from helpers import error_lines, rm_sheets, sheets_of


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


def test_roll_kind_is_read_on_critical_and_fumble_sheets_only(run, write_workbook):
    # docs/workbook-format.md, "Open-ended critical and fumble rolls": anything but d100 or oeh, and the key on another kind of sheet
    sheets = huge_sheets("open")
    sheets["Trip"] = [["Kind", "fumble"], ["Name", "Trip"], ["Roll kind", "oeh"], [], ["Roll", "Text"], ["1+", "Oops."]]
    sheets["Slip"] = [["Kind", "fumble"], ["Name", "Slip"], ["Roll kind", "oe"], [], ["Roll", "Text"], ["1+", "Oops."]]
    sheets["Broadsword table"] = [*sheets["Broadsword table"][:2], ["Roll kind", "oeh"], *sheets["Broadsword table"][2:]]
    result = run("lint", str(write_workbook("huge.xlsx", sheets)))
    assert result.exit_code == 1
    assert error_lines(result) == ("Error: huge.xlsx › Broadsword table › B3: only critical and fumble tables have Roll kind in the header block\n"
                                   "Error: huge.xlsx › Huge › B4: Roll kind 'open' must be d100 or oeh\n"
                                   "Error: huge.xlsx › Slip › B3: Roll kind 'oe' must be d100 or oeh\n")
    # the weapon naming Huge is no second problem: Huge's own sheet has it


TRIP = [["Kind", "fumble"], ["Name", "Trip"], ["Roll kind", "OEH"], [], ["Roll", "Text", "Hits"],
        ["1-50", "Stumbles.", 0], ["51-100", "Falls.", 1], ["101+", "Falls on own blade.", 6]]


def trip_sheets(trip=TRIP) -> dict:  # type: ignore[no-untyped-def]
    sheets = rm_sheets()
    sheets["Trip"] = trip
    sheets["Weapons"] = [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble table",
                                                   "Fumble modifier"], ["Longsword", "Broadsword", 150, 4, "S", "Trip", -10]]
    return sheets


def test_an_open_ended_fumble_table_is_rolled_open_ended_high(run, write_workbook):
    # docs/table-system.md, step 2: the fumble die opens high on 96-100, then the Fumble modifier is added
    assert run("import", str(write_workbook("trip.xlsx", trip_sheets()))).exit_code == 0
    shown = json.loads(run("show", "fumble", "RM:Trip", "--json").stdout)
    assert shown["roll_kind"] == "oeh"
    assert run("show", "fumble", "RM:Trip").stdout.splitlines()[0] == "RM:Trip (fumble table, rolled oeh)"
    data = json.loads(run("resolve", "table", "--weapon", "RM:Longsword", "--cmb", "20", "--armor", "5",
                          "--dice", "3,98,40", "--json").stdout)
    assert (data["outcome"], data["dice"], data["fumble"]["roll"], data["fumble"]["modified_roll"]) == ("fumble", [3, 98, 40], 98, 128)
    assert data["fumble"]["entry"]["text"] == "Falls on own blade."
    assert "Fumble: Trip, 98 + 40 = 138 (open-ended) - 10 = 128 (101+; +6 hits)." in data["steps"]
    odds = json.loads(run("odds", "table", "--weapon", "RM:Longsword", "--cmb", "20", "--armor", "5", "--json").stdout)
    # d100 - 10 never reaches 101 unless it opens: a face f of 96-100 opens and needs 111 - f (15 down to 11)
    # more, which the next die gives on 86, 87, 88, 89, 90 of its faces
    top = 0.04 * (86 + 87 + 88 + 89 + 90) / 10_000
    assert odds["fumble_rows"]["101+"] == pytest.approx(top, abs=1e-12)
    assert sum(odds["fumble_rows"].values()) == pytest.approx(odds["outcomes"]["fumble"], abs=1e-12)


def test_a_ruleset_sheets_roll_kind_is_the_default_of_its_critical_sheets_only(run, write_workbook):
    # docs/workbook-format.md, "ruleset": Roll kind (critical sheets), as it always was: an existing
    # workbook's fumbles keep their dice; a fumble sheet rolled open-ended says so itself
    sheets = trip_sheets([row for row in TRIP if row[:1] != ["Roll kind"]])
    sheets["Ruleset"] = [*sheets["Ruleset"], ["Roll kind", "oeh"]]
    sheets["Slip"] = [["Kind", "fumble"], ["Name", "Slip"], ["Roll kind", "oeh"], [], ["Roll", "Text"], ["1+", "Oops."]]
    assert run("import", str(write_workbook("trip.xlsx", sheets))).exit_code == 0
    show = lambda kind, name: json.loads(run("show", kind, name, "--json").stdout)["roll_kind"]  # noqa: E731
    assert (show("fumble", "RM:Trip"), show("fumble", "RM:Slip"), show("critical", "RM:Slash")) == ("d100", "oeh", "oeh")


def test_an_open_ended_fumble_table_exports_its_roll_kind(run, write_workbook, tmp_path):
    assert run("import", str(write_workbook("trip.xlsx", trip_sheets()))).exit_code == 0
    out = tmp_path / "out.xlsx"
    assert run("export", "-o", str(out), "RM:Trip", "Melee Fumbles").exit_code == 0
    sheets = sheets_of(out)
    assert [row[:2] for row in sheets["Trip"][:4]] == [("Kind", "fumble"), ("Name", "Trip"), ("Ruleset", "RM"), ("Roll kind", "oeh")]
    assert all(row[0] != "Roll kind" for row in sheets["Melee Fumbles"])  # d100, the default, is not written
    again = tmp_path / "again.db"
    assert run("db", "init", db=again).exit_code == 0
    assert run("import", str(out), db=again).exit_code == 0, run("import", str(out), db=again).output
    assert json.loads(run("show", "fumble", "RM:Trip", "--json", db=again).stdout)["roll_kind"] == "oeh"


def test_a_fumble_column_without_a_fumble_table_is_an_error(run, write_workbook):
    # printed layouts: "a weapon's `Fumble column` picks its column" — of its fumble table; without one it picks nothing
    sheets = rm_sheets()
    sheets["Weapons"] = [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble column"],
                         ["Pick", "Broadsword", 100, 2, "S", "2H"]]
    result = run("lint", str(write_workbook("fc.xlsx", sheets)))
    assert (result.exit_code, error_lines(result)) == (
        1, "Error: fc.xlsx › Weapons › F4: Fumble column '2H' given, but the weapon has no fumble table\n")


def test_too_few_dice_for_an_open_ended_table_are_at_least_so_many(run, write_workbook):
    # docs/cli.md, "Dice order": "at least" when a die still to come decides whether more follow
    sheets = trip_sheets()
    sheets["Huge"] = huge_sheets()["Huge"]
    sheets["Stamp"] = [["Kind", "attack"], ["Name", "Stamp"], [], ["Result", "5"], ["11+", "9 A Huge"]]
    sheets["Weapons"].append(["Stomp", "Stamp", None, 1, "Huge", None, 0])
    sheets["Weapons"][2].append("Critical column")
    sheets["Weapons"][3].append(None)
    sheets["Weapons"][4].append("Normal")
    assert run("import", str(write_workbook("trip.xlsx", sheets))).exit_code == 0
    fumbled = run("resolve", "table", "--weapon", "RM:Longsword", "--cmb", "20", "--armor", "5", "--dice", "3")
    assert error_lines(fumbled) == "Error: --dice gave 1 die; this attack needs at least 1 more: fumble roll on Trip (d100)\n"
    stomped = run("resolve", "table", "--weapon", "RM:Stomp", "--cmb", "50", "--armor", "5", "--dice", "90")
    assert error_lines(stomped) == "Error: --dice gave 1 die; this attack needs at least 1 more: critical roll on Huge (d100)\n"
    closed = run("resolve", "table", "--weapon", "RM:Longsword", "--cmb", "50", "--armor", "5", "--dice", "90")
    assert error_lines(closed) == "Error: --dice gave 1 die; this attack needs 1 more: critical roll on Slash (d100)\n"
