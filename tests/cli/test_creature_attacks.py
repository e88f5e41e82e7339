"""A creature's attacks through the CLI: imported (checked against the
weapons of its ruleset, in the same import or already in the database),
shown, listed, replaced on re-import, refused when a weapon goes."""

from __future__ import annotations

import json

from helpers import error_lines

HEADER = ["Name", "DEF", "Armor", "Rank", "HP", "Features", "Attacks"]
WEAPONS = [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"],
           ["Rusty Knife", "Edged", 100, 2, "Cut"]]


def creatures(*rows):  # type: ignore[no-untyped-def]
    return [["Kind", "creatures"], [], HEADER, *[list(r) for r in rows]]


def as_json(result):  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_attacks_are_imported_shown_and_listed(run, write_workbook):
    path = write_workbook("beasts.xlsx", {"Weapons": WEAPONS, "Creatures": creatures(
        ("Ratman", 10, "LA", None, 20, None, "rusty knife 35; 20 Bite"),
        ("Mouse", 0, "NA", None, 2, None, None))})
    assert run("import", str(path)).exit_code == 0
    ratman = as_json(run("show", "creature", "Ratman", "--json"))
    assert ratman["attacks"] == [{"weapon": "Rusty Knife", "cmb": 35}, {"weapon": "Bite", "cmb": 20}]
    assert as_json(run("show", "creature", "Mouse", "--json"))["attacks"] == []
    shown = run("show", "creature", "Ratman").output
    assert "│ attacks  │ Rusty Knife 35; Bite 20" in shown
    listed = {c["name"]: c for c in as_json(run("list", "creatures", "--json"))["creatures"]}
    assert listed["Ratman"]["attacks"] == ratman["attacks"] and listed["Mouse"]["attacks"] == []
    table = run("list", "creatures").output
    assert "Rusty Knife 35; Bite 20" in table and "attacks" in table


def test_a_reimport_replaces_the_attacks(run, write_workbook):
    path = write_workbook("beasts.xlsx", {"Weapons": WEAPONS, "Creatures": creatures(
        ("Ratman", 10, "LA", None, 20, None, "Rusty Knife 35; Bite 20"))})
    assert run("import", str(path)).exit_code == 0
    path = write_workbook("beasts.xlsx", {"Weapons": WEAPONS, "Creatures": creatures(
        ("Ratman", 10, "LA", None, 20, None, "Claw 15"))})
    report = as_json(run("import", str(path), "--json"))
    assert report["workbooks"][0]["changes"]["fields"] == [
        {"kind": "creature", "name": "Ratman", "field": "attacks",
         "before": [{"weapon": "Rusty Knife", "cmb": 35}, {"weapon": "Bite", "cmb": 20}], "after": [{"weapon": "Claw", "cmb": 15}]}]
    assert as_json(run("show", "creature", "Ratman", "--json"))["attacks"] == [{"weapon": "Claw", "cmb": 15}]


def test_an_unknown_weapon_is_refused_and_nothing_is_imported(run, write_workbook, db_path, dump):
    before = dump(db_path)
    path = write_workbook("beasts.xlsx", {"Weapons": WEAPONS, "Creatures": creatures(
        ("Ratman", 10, "LA", None, 20, None, "Rusty Knife 35; Scimtar 20"))})
    result = run("import", str(path))
    assert result.exit_code == 1
    assert error_lines(result) == ("Error: beasts.xlsx › Creatures › G4: unknown weapon 'Scimtar' — did you mean 'Scimitar'?\n")
    assert dump(db_path) == before


def test_a_weapon_of_another_workbook_in_the_same_import(run, write_workbook):
    beasts = write_workbook("beasts.xlsx", {"Creatures": creatures(("Ratman", 10, "LA", None, 20, None, "Rusty Knife 35"))})
    weapons = write_workbook("knives.xlsx", {"Weapons": WEAPONS})
    assert run("import", str(beasts), str(weapons)).exit_code == 0
    assert as_json(run("show", "creature", "Ratman", "--json"))["attacks"] == [{"weapon": "Rusty Knife", "cmb": 35}]


def test_removing_a_weapon_a_creature_attacks_with_is_refused(run, write_workbook, db_path, dump):
    weapons = write_workbook("knives.xlsx", {"Weapons": WEAPONS})
    beasts = write_workbook("beasts.xlsx", {"Creatures": creatures(("Ratman", 10, "LA", None, 20, None, "Rusty Knife 35"))})
    assert run("import", str(weapons), str(beasts)).exit_code == 0
    before = dump(db_path)
    emptied = write_workbook("knives.xlsx", {"Weapons": [*WEAPONS[:3], ["Old Knife", "Edged", 100, 2, "Cut"]]})
    result = run("import", str(emptied))
    assert result.exit_code == 1
    assert error_lines(result) == ("Error: knives.xlsx: no longer defines weapon 'Rusty Knife' (still used by creature Ratman); "
                                   "keep it, or change them in the same import\n")
    assert dump(db_path) == before
    result = run("remove", "knives.xlsx")
    assert result.exit_code == 1 and "weapon 'Rusty Knife' (still used by creature Ratman)" in result.output
    assert dump(db_path) == before
    assert run("remove", "knives.xlsx", "beasts.xlsx").exit_code == 0  # the creature goes with it


def test_export_then_import_keeps_the_attacks(run, write_workbook, tmp_path):
    path = write_workbook("beasts.xlsx", {"Weapons": WEAPONS, "Creatures": creatures(
        ("Ratman", 10, "LA", None, 20, None, "-5 rusty knife; Bite +20"),
        ("Mouse", 0, "NA", None, 2, None, None))})
    assert run("import", str(path)).exit_code == 0
    out = tmp_path / "out.xlsx"
    assert run("export", "-o", str(out), "Rusty Knife", "Ratman", "Mouse").exit_code == 0
    import openpyxl

    sheet = openpyxl.load_workbook(out)["Creatures"]
    rows = [[cell.value for cell in row] for row in sheet.iter_rows()]
    assert rows[2] == ["Name", "DEF", "Armor", "Rank", "HP", "Features", "Attacks", "Notes"]
    attacks = {row[0]: row[6] for row in rows[3:]}
    assert attacks == {"Ratman": "Rusty Knife -5; Bite 20", "Mouse": None}
    fresh = tmp_path / "fresh.db"
    assert run("db", "init", db=fresh).exit_code == 0
    assert run("import", str(out), db=fresh).exit_code == 0
    for name in ("Ratman", "Mouse"):
        assert as_json(run("show", "creature", name, "--json", db=fresh))["attacks"] == \
            as_json(run("show", "creature", name, "--json"))["attacks"]


def test_creatures_without_attacks_export_as_before(run, write_workbook, tmp_path):
    path = write_workbook("beasts.xlsx", {"Creatures": creatures(("Mouse", 0, "NA", None, 2, None, None))})
    assert run("import", str(path)).exit_code == 0
    out = tmp_path / "out.xlsx"
    assert run("export", "-o", str(out), "Mouse").exit_code == 0
    import openpyxl

    rows = [[cell.value for cell in row] for row in openpyxl.load_workbook(out)["Creatures"].iter_rows()]
    assert rows[2] == ["Name", "DEF", "Armor", "Rank", "HP", "Features", "Notes"]


def test_the_creatures_template_has_the_attacks_column_and_imports_filled(run, tmp_path):
    path = tmp_path / "beasts.xlsx"
    assert run("template", "creatures", "-o", str(path), "--name", "Ratman").exit_code == 0
    import openpyxl

    book = openpyxl.load_workbook(path)
    sheet = book["Creatures"]
    header = next(row for row in sheet.iter_rows(values_only=True) if row[0] == "Name")
    assert header == ("Name", "DEF", "Armor", "Rank", "HP", "Features", "Attacks", "Notes")
    prompts = {v.promptTitle: v.prompt for v in sheet.data_validations.dataValidation}
    assert prompts["Attacks"] == "Weapons and their CMB, separated by ; (Scimitar 55; Bite 40)"
    guide = " ".join(str(c) for c in next(book["Instructions"].iter_cols(values_only=True)) if c)
    assert "Attacks are weapons and their CMB, separated by ;" in guide
    first = next(row[0].row for row in sheet.iter_rows() if row[0].value == "Ratman")
    for column, value in zip("BCG", (10, "LA", "Dagger 30; 25 Bite")):
        sheet[f"{column}{first}"] = value
    book.save(path)
    assert run("import", str(path)).exit_code == 0
    assert as_json(run("show", "creature", "Ratman", "--json"))["attacks"] == [
        {"weapon": "Dagger", "cmb": 30}, {"weapon": "Bite", "cmb": 25}]
