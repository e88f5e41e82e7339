"""A weapon's `Max critical` (docs/workbook-format.md, "weapons"): read and
checked against the weapon's attack table's scale, stored, listed and shown,
exported, and used by resolve and odds (docs/table-system.md, step 9).
Every table and weapon is invented (helpers.rm_sheets)."""

from __future__ import annotations

import json

from helpers import error_lines, ok, rm_sheets, sheets_of

from tables_app.sheets.write import WEAPON_HEADER

BLACKJACK = ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Max critical"]


def with_weapons(*rows: list, header: list = BLACKJACK, sheets: dict | None = None) -> dict:
    sheets = rm_sheets() if sheets is None else sheets
    sheets["Weapons"] = [["Kind", "weapons"], [], header, *rows]
    return sheets


def test_a_max_critical_is_stored_by_its_code_and_listed(run, write_workbook):
    ok(run("import", str(write_workbook("rm.xlsx", with_weapons(["Blackjack", "Broadsword", None, 1, "K", "c"],
                                                                  ["Club", "Broadsword", None, 1, "K", None])))))
    listed = {w["name"]: w for w in json.loads(ok(run("list", "weapons", "--ruleset", "RM", "--json")))["weapons"]}
    assert (listed["Blackjack"]["max_critical"], listed["Club"]["max_critical"]) == ("C", None)
    assert json.loads(ok(run("list", "weapons", "--ruleset", "default", "--json")))["weapons"][0]["max_critical"] is None
    shown = json.loads(ok(run("show", "weapon", "RM:Blackjack", "--json")))
    assert shown["max_critical"] == "C"
    assert [line.split() for line in ok(run("show", "weapon", "RM:Blackjack")).splitlines() if "max critical" in line] == [
        ["│", "max", "critical", "│", "C", "│"]]
    assert "max critical" not in ok(run("show", "weapon", "RM:Club"))  # no cap: nothing to say


def test_resolve_lowers_the_critical_and_says_so(run, write_workbook):
    ok(run("import", str(write_workbook("rm.xlsx", with_weapons(["Blackjack", "Broadsword", None, 1, "K", "C"])))))
    data = json.loads(ok(run("resolve", "table", "--weapon", "RM:Blackjack", "--cmb", "50", "--armor", "7",
                             "--dice", "90,70", "--json")))
    # 90 + 50 = 140 reads `18ES`: E, lowered to C, on Slash: 70 + C's 10 = 80 (41-80, 4 hits)
    assert (data["critical"]["severity"], data["critical"]["rolled_severity"], data["critical"]["modified_roll"]) == ("C", "E", 80)
    assert data["damage"] == 18 + 4 and data["attack"]["max_critical"] == "C"
    assert data["steps"][2:5] == ["Broadsword 121+ 7: 18 E Slash.", "Max critical C lowers E to C.",
                                  "Critical: C on Slash, 70 + 10 = 80 (41-80; +4 hits)."]
    assert data["critical"]["severity_why"] == "rolled E, lowered to the weapon's Max critical C"  # issue 41
    odds = json.loads(ok(run("odds", "table", "--weapon", "RM:Blackjack", "--cmb", "50", "--armor", "7", "--json")))
    assert odds["critical_severity"]["E"] == 0 and odds["critical_severity"]["C"] > 0.5


def test_a_max_critical_off_the_attack_tables_scale_is_an_error_on_its_cell(run, write_workbook):
    result = run("lint", str(write_workbook("rm.xlsx", with_weapons(["Blackjack", "Broadsword", None, 1, "K", "Mod"]))))
    assert (result.exit_code, error_lines(result)) == (
        1, "Error: rm.xlsx › Weapons › F4: Max critical 'Mod' is not a severity of attack table 'Broadsword' "
           "(severities: A, B, C, D, E)\n")


def test_an_attack_table_of_another_workbook_is_checked_when_the_attack_is_resolved(run, write_workbook):
    ok(run("import", str(write_workbook("rm.xlsx", rm_sheets()))))
    arms = with_weapons(["Blackjack", "Broadsword", None, 1, "K", "Mod"], ["Sap", "Broadsword", None, 1, "K", "b"],
                        sheets={"Ruleset": [["Kind", "ruleset"], ["Name", "RM"]]})
    ok(run("import", str(write_workbook("arms.xlsx", arms))))
    for command, seed in (("resolve", ("--seed", "1")), ("odds", ()), ("simulate", ("--seed", "1", "--count", "10"))):
        result = run(command, "table", "--weapon", "RM:Blackjack", "--cmb", "50", "--armor", "7", *seed)
        assert (result.exit_code, error_lines(result)) == (
            1, "Error: Blackjack's Max critical 'Mod' is not a severity of attack table 'Broadsword' (severities: A, B, C, D, E)\n")
    data = json.loads(ok(run("resolve", "table", "--weapon", "RM:Sap", "--cmb", "50", "--armor", "7", "--dice", "90,70", "--json")))
    assert (data["critical"]["severity"], data["attack"]["max_critical"]) == ("B", "b")  # kept as written, read in any letter case


def test_export_writes_the_column_when_a_weapon_has_one(run, write_workbook, tmp_path):
    ok(run("import", str(write_workbook("rm.xlsx", with_weapons(["Blackjack", "Broadsword", None, 1, "K", "C"],
                                                                  ["Club", "Broadsword", None, 1, "K", None])))))
    out = tmp_path / "out.xlsx"
    ok(run("export", "-o", str(out), "RM:Blackjack", "RM:Club"))
    rows = sheets_of(out)["Weapons RM"]
    assert rows[3] == (*WEAPON_HEADER, "Max critical")
    assert [(row[0], row[-1]) for row in rows[4:]] == [("Blackjack", "C"), ("Club", None)]
    again = tmp_path / "again.db"
    ok(run("db", "init", db=again))
    ok(run("import", str(write_workbook("rm2.xlsx", rm_sheets())), db=again))
    ok(run("import", str(out), db=again))
    assert json.loads(ok(run("show", "weapon", "RM:Blackjack", "--json", db=again)))["max_critical"] == "C"
    plain = tmp_path / "plain.xlsx"
    ok(run("export", "-o", str(plain), "RM:Club"))
    assert sheets_of(plain)["Weapons RM"][3] == WEAPON_HEADER  # no weapon with one: the sheet as it always was
