"""Rulesets (docs/workbook-format.md, "Rulesets"; docs/cli.md, "Names and
rulesets"): names and critical codes have a home, and nothing binds across them."""

from __future__ import annotations

import json

from helpers import RM_ARMORS, error_lines, rm_sheets


def imported_rm(run, write_workbook, **changes):  # type: ignore[no-untyped-def]
    path = write_workbook("rm.xlsx", rm_sheets(**changes))
    result = run("import", str(path))
    assert result.exit_code == 0, result.output
    return path


def test_an_rm_cell_binds_to_its_own_rulesets_table_not_the_bundled_one(run, write_workbook):
    """The silent case: `18ES` on a Rolemaster table used to bind to the
    bundled Cut (code S in default) on the wrong severity scale."""
    imported_rm(run, write_workbook)
    cell = json.loads(run("query", "attack", "RM:Broadsword", "130", "7", "--json").stdout)
    assert (cell["text"], cell["severity"], cell["critical_table"], cell["ruleset"]) == ("18 E Slash", "E", "Slash", "RM")
    bundled = json.loads(run("query", "critical", "default:S", "50", "--json").stdout)  # the bundled code is still Cut
    assert (bundled["table"], bundled["ruleset"]) == ("Cut", "default")
    both = run("query", "critical", "S", "50")
    assert (both.exit_code, error_lines(both)) == (1, "Error: critical table 'S' is in 2 rulesets: default:Cut, RM:Slash; "
                                                      "write RULESET:NAME or give --ruleset\n")
    rm = json.loads(run("query", "critical", "RM:S", "50", "--severity", "E", "--json").stdout)
    assert (rm["table"], rm["modified_roll"], rm["entry"]["text"], rm["ruleset"]) == ("Slash", 70, "A solid slash.", "RM")


def test_resolving_the_rm_weapon_reads_the_rm_tables_and_scale(run, write_workbook):
    imported_rm(run, write_workbook)
    # 90 + CMB 50 - DEF 0 = 140: row 121+, `18ES`; critical die 70 + E's 20 = 90: "A brutal slash." (81-100)
    data = json.loads(run("resolve", "table", "--weapon", "RM:Longsword", "--cmb", "50", "--armor", "7",
                          "--dice", "90,70", "--json").stdout)
    assert data["cell"]["text"] == "18 E Slash"
    assert (data["critical"]["table"], data["critical"]["severity"], data["critical"]["modified_roll"]) == ("Slash", "E", 90)
    assert data["critical"]["entry"]["text"] == "A brutal slash."
    assert data["damage"] == 18 + 9
    assert (data["attack"]["ruleset"], data["attack"]["weapon"]) == ("RM", "Longsword")


def test_a_name_in_two_rulesets_must_be_qualified(run, write_workbook):
    imported_rm(run, write_workbook)
    result = run("resolve", "table", "--weapon", "Longsword", "--cmb", "50", "--armor", "MA", "--seed", "1")
    assert result.exit_code == 1
    assert error_lines(result) == ("Error: weapon 'Longsword' is in 2 rulesets: default:Longsword, RM:Longsword; "
                                   "write RULESET:NAME or give --ruleset\n")
    as_json = run("resolve", "table", "--weapon", "Longsword", "--cmb", "50", "--armor", "MA", "--seed", "1", "--json")
    assert json.loads(as_json.stdout)["error"]["suggestions"] == ["default:Longsword", "RM:Longsword"]
    for args in (["--weapon", "default:Longsword", "--armor", "MA"], ["--weapon", "Longsword", "--ruleset", "default", "--armor", "MA"]):
        data = json.loads(run("resolve", "table", *args, "--cmb", "50", "--seed", "1", "--json").stdout)
        assert (data["attack"]["ruleset"], data["attack"]["attack_table"]) == ("default", "Edged")
    data = json.loads(run("odds", "table", "--weapon", "Longsword", "--ruleset", "rm", "--cmb", "50", "--armor", "7", "--json").stdout)
    assert (data["attack"]["ruleset"], data["attack"]["attack_table"]) == ("RM", "Broadsword")


def test_a_name_in_one_ruleset_just_works(run, write_workbook):
    imported_rm(run, write_workbook)
    data = json.loads(run("show", "attack", "Broadsword", "--json").stdout)
    assert (data["table"], data["ruleset"], data["armor"]) == ("Broadsword", "RM", RM_ARMORS)
    assert json.loads(run("show", "attack", "Edged", "--json").stdout)["ruleset"] == "default"


def test_the_target_is_looked_up_in_the_weapons_ruleset(run, write_workbook):
    imported_rm(run, write_workbook)
    data = json.loads(run("resolve", "table", "--weapon", "RM:Longsword", "--target", "Orc Warrior", "--cmb", "50",
                          "--dice", "40,50", "--json").stdout)
    # 40 + 50 - DEF 25 = 65 in the creature's armor column 12: `7AK`, Krush A, 50 + 0: "A solid blow."
    assert (data["attack"]["target_ruleset"], data["attack"]["armor"], data["attack"]["defense"]) == ("RM", "12", 25)
    assert (data["cell"]["text"], data["critical"]["table"], data["damage"]) == ("7 A Krush", "Krush", 7 + 4)


def test_without_its_s_table_an_rm_cell_is_an_error_naming_the_cell(run, write_workbook, db_path):
    from helpers import db_dump

    before = db_dump(db_path)
    path = write_workbook("rm.xlsx", rm_sheets(with_slash=False))
    result = run("import", str(path))
    assert result.exit_code == 1
    lines = error_lines(result).splitlines()
    assert lines[0] == ("Error: rm.xlsx › Broadsword table › B5: '18ES': unknown severity or critical table in 'ES' "
                        "— did you mean 'E'? (severities: A, B, C, D, E)")
    assert "ruleset 'default' has it" not in lines[0]  # no binding, and no hint to bind, across rulesets
    assert db_dump(db_path) == before


def test_a_weapon_cannot_reach_a_table_of_another_ruleset(run, write_workbook):
    sheets = rm_sheets()
    sheets["Weapons"][-1] = ["Hand Axe", "Edged", 120, 3, "Cut"]  # Edged and Cut are default's
    result = run("import", str(write_workbook("rm.xlsx", sheets)))
    assert result.exit_code == 1
    assert error_lines(result) == (
        "Error: rm.xlsx › Weapons › B4: unknown attack table 'Edged' in ruleset 'RM' (ruleset 'default' has it; "
        "a workbook's references stay in its own ruleset)\n"
        "Error: rm.xlsx › Weapons › E4: unknown critical table 'Cut' in ruleset 'RM' (ruleset 'default' has it; "
        "a workbook's references stay in its own ruleset)\n")


def test_the_same_names_in_two_rulesets_import_and_read_their_own(run, write_workbook):
    imported_rm(run, write_workbook)
    listed = json.loads(run("list", "weapons", "--json").stdout)["weapons"]
    assert [(w["ruleset"], w["attack_table"], w["critical"]) for w in listed if w["name"] == "Longsword"] == [
        ("default", "Edged", "Cut"), ("RM", "Broadsword", "Slash")]
    grapples = json.loads(run("list", "critical", "--ruleset", "RM", "--json").stdout)["critical"]
    assert [(c["name"], c["code"]) for c in grapples] == [("Grapple", "G"), ("Krush", "K"), ("Puncture", "P"), ("Slash", "S")]
    rulesets = {r["name"]: r for r in json.loads(run("list", "rulesets", "--json").stdout)["rulesets"]}
    assert (rulesets["RM"]["critical"], rulesets["RM"]["weapons"], rulesets["RM"]["workbooks"]) == (4, 1, ["rm.xlsx"])


def test_export_round_trips_the_ruleset(run, write_workbook, tmp_path):
    imported_rm(run, write_workbook)
    out = tmp_path / "out.xlsx"
    exported = json.loads(run("export", "-o", str(out), "--ruleset", "RM", "--json").stdout)
    assert exported["weapons"] == ["RM:Longsword"] and "RM:Slash" in exported["critical"]
    before = run("show", "attack", "RM:Broadsword", "--json").stdout
    assert run("remove", "--ruleset", "RM").exit_code == 0
    assert run("show", "attack", "RM:Broadsword").exit_code == 1
    assert run("import", str(out)).exit_code == 0
    assert run("show", "attack", "RM:Broadsword", "--json").stdout == before


def test_export_of_a_plain_name_in_two_rulesets_must_be_qualified(run, write_workbook, tmp_path):
    imported_rm(run, write_workbook)
    out = tmp_path / "x.xlsx"
    result = run("export", "-o", str(out), "Longsword")
    assert (result.exit_code, error_lines(result)) == (
        1, "Error: 'Longsword' is in 2 rulesets: default:Longsword, RM:Longsword; write RULESET:NAME or give --ruleset\n")
    assert not out.exists()
    assert json.loads(run("export", "-o", str(out), "Longsword", "--ruleset", "rm", "--json").stdout)["weapons"] == ["RM:Longsword"]


def test_people_read_names_outside_default_qualified(run, write_workbook):
    imported_rm(run, write_workbook)
    first = run("resolve", "table", "--weapon", "RM:Longsword", "--target", "Orc Warrior", "--cmb", "50", "--dice", "8").stdout
    assert first.splitlines()[0] == "RM:Longsword (Broadsword, Max 150, clumsy 1-4) vs RM:Orc Warrior (DEF 25, 12, helm)"
    odds = run("odds", "table", "--weapon", "Longsword", "--ruleset", "default", "--cmb", "50", "--armor", "MA").stdout
    assert odds.splitlines()[0] == "Longsword (Edged), CMB 50 vs DEF 0, MA"


def test_listing_an_unknown_ruleset_is_an_error_for_every_kind(run):
    for args in (["list", "rulesets"], ["list"], ["list", "weapons"]):
        result = run(*args, "--ruleset", "nope")
        assert (result.exit_code, error_lines(result)) == (1, "Error: no ruleset named 'nope' (see `tables list rulesets`)\n")
