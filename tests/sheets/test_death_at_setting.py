"""`Death at` (docs/workbook-format.md, "ruleset"): a ruleset's death
threshold, on its ruleset sheet or a creatures sheet; stored, exported on
the creatures sheet and read back; bad values refused on their cell."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import error_lines, rm_sheets

from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook


def with_key(rows: list, key: str, value: object) -> list:  # type: ignore[type-arg]
    return [rows[0], [key, value], *rows[1:]]


def rm_with(where: str, value: object) -> dict:  # type: ignore[type-arg]
    sheets = rm_sheets()
    sheets[where] = with_key(sheets[where], "Death at", value)
    return sheets


def test_the_ruleset_sheet_sets_its_rulesets_death_at(write_workbook) -> None:  # type: ignore[no-untyped-def]
    result = interpret(read_workbook(write_workbook("rm.xlsx", rm_with("Ruleset", -50))))
    assert not result.problems
    assert result.death_at == {"RM": -50}


def test_a_creatures_sheet_sets_it_and_none_clears_it(write_workbook) -> None:  # type: ignore[no-untyped-def]
    assert interpret(read_workbook(write_workbook("a.xlsx", rm_with("Creatures", "-30")))).death_at == {"RM": -30}
    assert interpret(read_workbook(write_workbook("b.xlsx", rm_with("Creatures", "none")))).death_at == {"RM": None}
    assert interpret(read_workbook(write_workbook("c.xlsx", rm_sheets()))).death_at == {}


def test_bad_values_are_refused_on_their_cell(write_workbook, run) -> None:  # type: ignore[no-untyped-def]
    for value in (50, "often", 1.5, -100_001):
        result = run("import", str(write_workbook("rm.xlsx", rm_with("Ruleset", value))))
        assert result.exit_code == 1
        assert error_lines(result) == f"Error: rm.xlsx › Ruleset › B2: Death at '{value}' must be a whole number from " \
                                      "-100000 to 0 (the hits left at or below which a combatant is dead), or none\n"


def test_two_values_for_one_ruleset_are_refused(write_workbook) -> None:  # type: ignore[no-untyped-def]
    sheets = rm_with("Ruleset", -50)
    sheets["Creatures"] = with_key(sheets["Creatures"], "Death at", -20)
    result = interpret(read_workbook(write_workbook("rm.xlsx", sheets)))
    assert [(p.sheet, p.cell, p.message) for p in result.problems] == [
        ("Creatures", "B2", "Death at '-20': another sheet of this workbook gives ruleset 'RM' Death at -50; a ruleset has one")]


def test_only_creatures_and_ruleset_sheets_have_it(write_workbook) -> None:  # type: ignore[no-untyped-def]
    result = interpret(read_workbook(write_workbook("rm.xlsx", rm_with("Weapons", -50))))
    assert [(p.sheet, p.cell, p.message) for p in result.problems] == [
        ("Weapons", "B2", "only creatures sheets (and a ruleset sheet) have Death at")]


def test_stored_exported_and_read_back(write_workbook, run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert run("import", str(write_workbook("rm.xlsx", rm_with("Ruleset", -50)))).exit_code == 0
    listed = json.loads(run("list", "rulesets", "--json").stdout)["rulesets"]
    assert [(r["name"], r["death_at"]) for r in listed] == [("default", None), ("RM", -50)]
    out = tmp_path / "out.xlsx"
    assert run("export", "-o", str(out), "--ruleset", "RM").exit_code == 0
    back = interpret(read_workbook(out))
    assert back.death_at == {"RM": -50}
    assert ("Death at", -50) in [tuple(row[:2]) for row in _sheet_rows(out, "Creatures RM")]
    # a fight in the ruleset takes it
    assert run("fight", "new", "Duel", "--ruleset", "RM").exit_code == 0
    joined = run("fight", "join", "Duel", "--creature", "Orc Warrior", "--hits", "30", "--weapon", "Longsword",
                 "--cmb", "50", "--json")
    assert joined.exit_code == 0, joined.output
    assert json.loads(joined.stdout)["fight"]["combatants"][0]["death_at"] == -50


def _sheet_rows(path: Path, title: str) -> list[list[object]]:
    import openpyxl

    sheet = openpyxl.load_workbook(path)[title]
    return [list(row) for row in sheet.iter_rows(values_only=True)]
