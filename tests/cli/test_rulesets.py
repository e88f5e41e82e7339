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
    # the whole row reads `18ES`: one line for its 20 cells, the text said once
    assert lines[0] == ("Error: rm.xlsx › Broadsword table › B5:U5: 20 cells with the same text ('18ES': neither severity "
                        "'E' with critical table 'S' nor severity 'ES' (severities: A, B, C, D, E))")
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
    assert first.splitlines()[0] == "RM:Longsword (Broadsword, Max 150, clumsy 1-4) vs RM:Orc Warrior (DEF 25, AT 12, helm)"
    odds = run("odds", "table", "--weapon", "Longsword", "--ruleset", "default", "--cmb", "50", "--armor", "MA").stdout
    assert odds.splitlines()[0] == "Longsword (Edged), CMB 50 vs DEF 0, MA"


def test_listing_an_unknown_ruleset_is_an_error_for_every_kind(run):
    for args in (["list", "rulesets"], ["list"], ["list", "weapons"]):
        result = run(*args, "--ruleset", "nope")
        assert (result.exit_code, error_lines(result)) == (1, "Error: no ruleset named 'nope' (see `tables list rulesets`)\n")


def mirrored(source, target):  # type: ignore[no-untyped-def]
    """The bundled tables exported, in ruleset "Mirror": every name and code
    the same, every attack cell one hit more, every critical and fumble text
    marked, so that a lookup shows whose table it read."""
    import re

    import openpyxl

    book = openpyxl.load_workbook(source)
    for sheet in book.worksheets:
        kind = sheet["B1"].value
        header = next(r for r in range(1, 12) if sheet.cell(r, 1).value in ("Result", "Roll", "Name") and r > 2)
        for row in sheet.iter_rows(min_row=header + 1):
            if kind == "attack":
                for cell in row[1:]:
                    if isinstance(cell.value, int):
                        cell.value += 1
                    elif isinstance(cell.value, str) and cell.value[:1].isdigit():
                        cell.value = re.sub(r"^\d+", lambda m: str(int(m.group()) + 1), cell.value)
            elif kind in ("critical", "fumble"):
                row[2].value = f"Mirror: {row[2].value}"
    ruleset = book.create_sheet("Ruleset", 0)
    ruleset["A1"], ruleset["B1"], ruleset["A2"], ruleset["B2"] = "Kind", "ruleset", "Name", "Mirror"
    book.save(target)
    return target


def test_two_rulesets_with_every_name_and_code_the_same_each_read_their_own(run, tmp_path):
    """The issue's bar: every lookup, resolve, odds and export reads its own ruleset."""
    exported = tmp_path / "bundled.xlsx"
    assert run("export", "-o", str(exported)).exit_code == 0
    imported = run("import", str(mirrored(exported, tmp_path / "mirror.xlsx")), "--json")
    assert imported.exit_code == 0, imported.output
    names = {kind: [item["name"] for item in items if item["ruleset"] == "default"]
             for kind, items in json.loads(run("list", "--json").stdout).items() if kind != "rulesets"}
    mirror = {kind: [item["name"] for item in items]
              for kind, items in json.loads(run("list", "--ruleset", "Mirror", "--json").stdout).items() if kind != "rulesets"}
    assert mirror == names and sum(map(len, names.values())) == 60  # every name twice, once in each ruleset
    for code in ("S", "K", "P", "G", "H", "C", "E"):
        own = json.loads(run("query", "critical", f"Mirror:{code}", "50", "--json").stdout)
        theirs = json.loads(run("query", "critical", f"default:{code}", "50", "--json").stdout)
        assert own["table"] == theirs["table"] and own["entry"]["text"] == f"Mirror: {theirs['entry']['text']}"
    compared = {"cell": 0, "critical": 0, "secondary_critical": 0, "fumble": 0}
    for weapon in names["weapons"]:
        # 96, 60: an opened roll, so every weapon gets to its table's upper rows; then 50 for any critical or fumble
        args = ["--weapon", weapon, "--cmb", "40", "--armor", "NA", "--dice", "96,60,50,50", "--json"]
        own = json.loads(run("resolve", "table", *args, "--ruleset", "Mirror").stdout)
        theirs = json.loads(run("resolve", "table", *args, "--ruleset", "default").stdout)
        assert (own["attack"]["ruleset"], theirs["attack"]["ruleset"]) == ("Mirror", "default")
        if theirs["cell"] and theirs["cell"]["hits"]:
            assert own["cell"]["hits"] == theirs["cell"]["hits"] + 1, weapon
            compared["cell"] += 1
        for kind in ("critical", "secondary_critical", "fumble"):
            if theirs[kind]:
                assert own[kind]["entry"]["text"] == f"Mirror: {theirs[kind]['entry']['text']}", (weapon, kind)
                compared[kind] += 1
        odds = [json.loads(run("odds", "table", *args[:6], "--ruleset", r, "--json").stdout) for r in ("Mirror", "default")]
        assert odds[0]["outcomes"]["critical"] == odds[1]["outcomes"]["critical"], weapon  # the same cells, one hit more
        assert odds[0]["expected_damage"] > odds[1]["expected_damage"], weapon
    assert compared["cell"] >= 25 and compared["critical"] >= 25 and compared["secondary_critical"] >= 3, compared
    fumbles = [json.loads(run("resolve", "table", "--weapon", "Longsword", "--ruleset", r, "--cmb", "40", "--armor", "NA",
                              "--dice", "1,50", "--json").stdout)["fumble"] for r in ("Mirror", "default")]
    assert fumbles[0]["entry"]["text"] == f"Mirror: {fumbles[1]['entry']['text']}"
    again = tmp_path / "again.xlsx"
    assert run("export", "-o", str(again), "--ruleset", "Mirror").exit_code == 0
    before = {t: run("show", "attack", f"Mirror:{t}", "--json").stdout for t in names["attack"]}
    assert run("remove", "--ruleset", "Mirror").exit_code == 0
    assert run("import", str(again)).exit_code == 0
    assert {t: run("show", "attack", f"Mirror:{t}", "--json").stdout for t in names["attack"]} == before


def test_the_example_workbook_is_shipped_and_imported_only_when_asked(run):
    listed = json.loads(run("example", "--json").stdout)["examples"]
    assert list(listed) == ["printed"] and listed["printed"].endswith("printed.xlsx")
    assert run("query", "critical", "S", "50", "--json").exit_code == 0  # not imported: S is the bundled Cut alone
    assert run("import", run("example", "PRINTED").stdout.strip()).exit_code == 0
    both = run("query", "critical", "S", "50")
    assert (both.exit_code, error_lines(both)) == (1, "Error: critical table 'S' is in 2 rulesets: default:Cut, "
                                                      "Printed:Hacking; write RULESET:NAME or give --ruleset\n")
    missing = run("example", "prnted")
    assert (missing.exit_code, error_lines(missing)) == (1, "Error: no example workbook named 'prnted' — did you mean 'printed'?\n")
