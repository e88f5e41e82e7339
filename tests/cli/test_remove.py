"""`tables remove WORKBOOK...` and `tables remove --ruleset R` (docs/cli.md):
all or nothing, refused while something left behind still uses what would go."""

from __future__ import annotations

import json

import pytest

from helpers import build_workbook, db_dump, error_lines, rm_sheets

BUNDLED = ["bundled/armory.xlsx", "bundled/attacks.xlsx", "bundled/bestiary.xlsx", "bundled/criticals.xlsx"]
RM_REMOVED = {
    "attack": ["RM:Broadsword"], "critical": ["RM:Grapple", "RM:Krush", "RM:Puncture", "RM:Slash"],
    "weapons": ["RM:Longsword"], "creatures": ["RM:Orc Warrior"], "severities": ["RM:RM letters"],
}
RM_LINES = ("Would remove 1 attack table (RM:Broadsword); 4 critical tables (RM:Grapple, RM:Krush, RM:Puncture, RM:Slash); "
            "1 weapon (RM:Longsword); 1 creature (RM:Orc Warrior); 1 severity scale (RM:RM letters)\n"
            "  workbooks: rm.xlsx\n"
            "  rulesets left empty: RM\n")
# A user's workbook in default whose weapon uses the bundled Edged and Cut.
MINE = {"Weapons": [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"],
                    ["Sword of Mine", "Edged", 150, 3, "Cut"]]}


@pytest.fixture
def rm(run, tmp_path):  # type: ignore[no-untyped-def]
    path = build_workbook(tmp_path / "rm.xlsx", rm_sheets())
    assert run("import", str(path)).exit_code == 0
    return path


def listed(run) -> dict:  # type: ignore[no-untyped-def]
    return json.loads(run("list", "--json").stdout)


def ruleset_names(run) -> list[str]:  # type: ignore[no-untyped-def]
    return [r["name"] for r in json.loads(run("list", "rulesets", "--json").stdout)["rulesets"]]


def test_the_bundled_workbooks_are_named_as_list_shows_them(run):
    assert sorted({item["workbook"] for items in listed(run).values() for item in items if item.get("workbook")}) == BUNDLED


@pytest.mark.parametrize("args", [["rm.xlsx"], ["RM.XLSX"], ["--ruleset", "RM"], ["--ruleset", "rm"]])
def test_removing_a_workbook_or_ruleset_removes_everything_it_defined(run, tmp_path, args):
    before = listed(run)
    run("import", str(build_workbook(tmp_path / "rm.xlsx", rm_sheets())))
    assert ruleset_names(run) == ["default", "RM"]
    result = run("remove", *args, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == {"written": True, "removed": RM_REMOVED, "workbooks": ["rm.xlsx"], "rulesets": ["RM"]}
    assert ruleset_names(run) == ["default"]  # the RM ruleset went once empty
    assert listed(run) == before
    assert (run("show", "attack", "RM:Broadsword").exit_code, run("show", "attack", "Broadsword").exit_code) == (1, 1)


@pytest.mark.parametrize("args", [["rm.xlsx"], ["Rm.Xlsx"], ["--ruleset", "RM"], ["--ruleset", "rM"]])
def test_a_dry_run_says_what_would_go_and_changes_nothing(run, rm, db_path, args):
    before = db_dump(db_path)
    result = run("remove", *args, "--dry-run")
    assert (result.exit_code, result.stdout) == (0, RM_LINES)
    as_json = run("remove", *args, "--dry-run", "--json")
    assert json.loads(as_json.stdout) == {"written": False, "removed": RM_REMOVED, "workbooks": ["rm.xlsx"], "rulesets": ["RM"]}
    assert db_dump(db_path) == before


def test_removing_says_what_went(run, rm):
    result = run("remove", "rm.xlsx")
    assert (result.exit_code, result.stdout) == (0, RM_LINES.replace("Would remove", "Removed"))


def test_removal_is_refused_while_something_left_uses_it(run, db_path, write_workbook):
    assert run("import", str(write_workbook("mine.xlsx", MINE))).exit_code == 0
    before = db_dump(db_path)
    alone = run("remove", "bundled/attacks.xlsx")  # the bundled armory uses Edged too: named among the users
    assert alone.exit_code == 1
    assert error_lines(alone).startswith("Error: nothing was removed: attack table 'Edged' (still used by weapons Battle Axe, ")
    assert ", Spear, Sword of Mine and Training Sword); " in error_lines(alone)
    # the bestiary's creatures attack with the armory's weapons: named among the users too
    armory = run("remove", "bundled/attacks.xlsx", "bundled/armory.xlsx")
    assert armory.exit_code == 1
    assert "; weapon 'Scimitar' (still used by creature Orc Warrior); " in error_lines(armory)
    two = run("remove", "bundled/attacks.xlsx", "bundled/armory.xlsx", "bundled/bestiary.xlsx")
    assert (two.exit_code, error_lines(two)) == (1, "Error: nothing was removed: attack table 'Edged' (still used by weapon Sword of Mine)"
                                "; remove those too, or change them first\n")
    three = run("remove", *BUNDLED, "--json")
    assert three.exit_code == 1
    assert json.loads(three.stdout)["error"]["message"] == (
        "nothing was removed: attack table 'Edged' (still used by weapon Sword of Mine); "
        "critical table 'Cut' (still used by weapon Sword of Mine)"
        "; remove those too, or change them first")
    assert db_dump(db_path) == before


def test_removing_the_users_too_works(run, db_path, write_workbook):
    assert run("import", str(write_workbook("mine.xlsx", MINE))).exit_code == 0
    result = run("remove", "bundled/attacks.xlsx", "bundled/armory.xlsx", "bundled/bestiary.xlsx", "MINE.xlsx", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["workbooks"] == ["bundled/armory.xlsx", "bundled/attacks.xlsx", "bundled/bestiary.xlsx", "mine.xlsx"]
    assert data["removed"]["attack"] == ["Blunt", "Bolt Spells", "Claws and Teeth", "Edged", "Missile", "Unarmed"]
    assert len(data["removed"]["weapons"]) == 33 and "Sword of Mine" in data["removed"]["weapons"]
    assert set(data["removed"]) == {"attack", "weapons", "creatures"} and data["rulesets"] == []
    left = listed(run)
    assert (left["attack"], left["weapons"], len(left["critical"]), left["creatures"]) == ([], [], 7, [])


def test_removing_default_keeps_the_built_in_severity_scale(run, db_path, write_workbook):
    """Everything in default goes, with the bundled workbooks' records; the
    ruleset default itself and the built-in scale (Sup to Let) stay, so a
    version-1 workbook imports afterwards as before."""
    result = run("remove", "--ruleset", "default", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["written"], data["workbooks"], data["rulesets"]) == (True, BUNDLED, [])
    assert {kind: len(names) for kind, names in data["removed"].items()} == {
        "attack": 6, "critical": 7, "fumble": 2, "weapons": 32, "creatures": 13}  # no severities: the built-in one stays
    assert json.loads(run("list", "rulesets", "--json").stdout)["rulesets"] == [
        {"name": "default", "severities": 1, "attack": 0, "critical": 0, "fumble": 0, "weapons": 0, "creatures": 0, "workbooks": [],
         "death_at": None}]
    assert json.loads(run("list", "severities", "--json").stdout)["severities"] == [
        {"name": "default", "ruleset": "default", "workbook": None, "sheet": None}]
    again = run("remove", "--ruleset", "default")
    assert (again.exit_code, again.stdout) == (0, "Removed nothing\n")
    # the built-in scale still reads: a cell `9 Mod X` of the user's own critical table binds to it
    sheets = {"Slash": [["Kind", "critical"], ["Name", "Slash"], ["Code", "X"], [], ["Roll", "Text", "Hits"],
                        ["01-50", "A nick.", 1], ["51+", "A cut.", 3]],
              "Poke": [["Kind", "attack"], ["Name", "Poke"], [], ["Result", "Cloth"], ["50+", "9 Mod X"], ["1-49", "2"]],
              "Weapons": [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"], ["Needle", "Poke", 100, 1, "X"]]}
    assert run("import", str(write_workbook("mine.xlsx", sheets))).exit_code == 0
    cell = json.loads(run("query", "attack", "Poke", "60", "Cloth", "--json").stdout)
    assert (cell["severity"], cell["critical_table"], cell["ruleset"]) == ("Mod", "Slash", "default")


def test_remove_with_nothing_named_is_a_usage_mistake(run):
    result = run("remove")
    assert result.exit_code == 2
    assert "Error: name the workbooks to remove (as `tables list` shows them), or give --ruleset" in result.stderr
    assert run("remove", "--dry-run").exit_code == 2
    assert run("remove", "--ruleset", " ").exit_code == 2


def test_an_unknown_workbook_is_exit_1_with_suggestions(run, rm, db_path):
    before = db_dump(db_path)
    result = run("remove", "rn.xlsx")
    assert (result.exit_code, error_lines(result)) == (1, "Error: no imported workbook named 'rn.xlsx' — did you mean 'rm.xlsx'?\n")
    error = json.loads(run("remove", "rn.xlsx", "--json").stdout)["error"]
    assert error["suggestions"] == ["rm.xlsx"]
    both = run("remove", "rm.xlsx", "nosuch.xlsx")  # one unknown: nothing is removed
    assert (both.exit_code, error_lines(both)) == (1, "Error: no imported workbook named 'nosuch.xlsx' (see `tables list` for workbooks)\n")
    assert db_dump(db_path) == before


def test_an_unknown_ruleset_is_exit_1(run, rm, db_path):
    before = db_dump(db_path)
    result = run("remove", "--ruleset", "nosuch")
    assert (result.exit_code, error_lines(result)) == (1, "Error: no ruleset named 'nosuch' (see `tables list rulesets`)\n")
    close = json.loads(run("remove", "--ruleset", "rmm", "--json").stdout)["error"]
    assert (close["message"], close["suggestions"]) == ("no ruleset named 'rmm' — did you mean 'RM'?", ["RM"])
    assert db_dump(db_path) == before


def test_reimporting_after_a_removal_reads_the_same(run, rm):
    shown = {args: run(*args).stdout for args in (("show", "attack", "RM:Broadsword"), ("show", "weapon", "rm:longsword"),
                                                    ("show", "critical", "RM:S"), ("show", "creature", "RM:Orc Warrior"))}
    resolved = run("resolve", "table", "--weapon", "RM:Longsword", "--cmb", "50", "--armor", "7", "--dice", "90,70", "--json").stdout
    assert run("remove", "rm.xlsx").exit_code == 0
    assert run("show", "attack", "RM:Broadsword").exit_code == 1
    again = run("import", str(rm))
    assert again.exit_code == 0, again.output
    assert {args: run(*args).stdout for args in shown} == shown
    assert run("resolve", "table", "--weapon", "RM:Longsword", "--cmb", "50", "--armor", "7", "--dice", "90,70", "--json").stdout == resolved
    assert ruleset_names(run) == ["default", "RM"]


def split_rm(write_workbook):  # type: ignore[no-untyped-def]
    """The RM ruleset from two workbooks: its scale and critical tables, and
    the attack table (borrowing the scale), weapon and creature using them."""
    sheets = rm_sheets()
    crits = {k: sheets[k] for k in ("Ruleset", "Severities", "Slash", "Krush", "Puncture", "Grapple")}
    rest = {k: sheets[k] for k in ("Ruleset", "Broadsword table", "Weapons", "Creatures")}
    rest["Broadsword table"].insert(2, ["Severities", "RM letters"])
    return write_workbook("rm-crits.xlsx", crits), write_workbook("rm-rest.xlsx", rest)


def test_a_refusal_names_things_outside_default_qualified(run, db_path, write_workbook):
    assert run("import", *map(str, split_rm(write_workbook))).exit_code == 0
    before = db_dump(db_path)
    result = run("remove", "rm-crits.xlsx")
    assert (result.exit_code, error_lines(result)) == (1, (
        "Error: nothing was removed: critical table 'RM:Slash' (still used by weapon RM:Longsword and attack table RM:Broadsword); "
        "critical table 'RM:Krush' (still used by attack table RM:Broadsword); "
        "severity scale 'RM:RM letters' (still used by attack table RM:Broadsword)"
        "; remove those too, or change them first\n"))
    assert db_dump(db_path) == before
    # the users may go first: then the ruleset keeps the rest, and goes with the last of it
    first = json.loads(run("remove", "rm-rest.xlsx", "--json").stdout)
    assert (first["workbooks"], first["rulesets"]) == (["rm-rest.xlsx"], [])
    last = json.loads(run("remove", "rm-crits.xlsx", "--json").stdout)
    assert (last["workbooks"], last["rulesets"], last["removed"]["critical"]) == (
        ["rm-crits.xlsx"], ["RM"], ["RM:Grapple", "RM:Krush", "RM:Puncture", "RM:Slash"])


def test_a_workbook_in_two_rulesets_goes_a_ruleset_at_a_time(run, write_workbook):
    sheets = rm_sheets()
    sheets["Extra"] = [["Kind", "attack"], ["Name", "Poke"], ["Ruleset", "default"], [],
                       ["Result", "Cloth"], ["50+", "9 Mod Cut"], ["1-49", "2"]]
    assert run("import", str(write_workbook("mixed.xlsx", sheets))).exit_code == 0
    only_default = json.loads(run("remove", "mixed.xlsx", "--ruleset", "default", "--json").stdout)
    # what the workbook defined in default, and nothing of the bundled tables there
    assert only_default == {"written": True, "removed": {"attack": ["Poke"]}, "workbooks": [], "rulesets": []}
    assert run("show", "attack", "Edged").exit_code == 0
    rest = json.loads(run("remove", "--ruleset", "RM", "--json").stdout)
    assert rest == {"written": True, "removed": RM_REMOVED, "workbooks": ["mixed.xlsx"], "rulesets": ["RM"]}


def test_a_cells_second_critical_keeps_its_table_as_a_named_refusal(run, db_path, write_workbook):
    """A critical table used only as a cell's second critical (`7 A Slash + A Gouge`,
    docs/workbook-format.md, "attack") is used: removing it is refused by name,
    as for a cell's first critical, never by the database's own check."""
    from helpers import MINI_ATTACK, MINI_CRITICAL, MINI_SEVERITIES

    gouge = [["Kind", "critical"], ["Name", "Gouge"], *MINI_CRITICAL[3:]]  # no code of its own
    poke = [row if row[:1] != ["31-40"] else ["31-40", "7 A Slash + A Gouge", "4 a"] for row in MINI_ATTACK]
    poke.insert(2, ["Severities", "Letters"])  # the other workbook's scale
    assert run("import", str(write_workbook("crits.xlsx", {"Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL,
                                                           "Gouge": gouge}))).exit_code == 0
    imported = run("import", str(write_workbook("pokes.xlsx", {"Poke": poke})))
    assert imported.exit_code == 0, imported.output
    cell = json.loads(run("query", "attack", "Poke", "35", "Cloth", "--json").stdout)
    assert cell["criticals"] == [{"severity": "A", "critical_table": "Slash"}, {"severity": "A", "critical_table": "Gouge"}]
    before = db_dump(db_path)
    refused = run("remove", "crits.xlsx")
    assert refused.exit_code == 1
    assert "critical table 'Gouge' (still used by attack table Poke)" in error_lines(refused)
    assert "would break" not in error_lines(refused)
    assert db_dump(db_path) == before
