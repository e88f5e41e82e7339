"""`tables export` and `tables template` (issue 6): what is written imports again."""

import json

import pytest
from helpers import error_lines, MINI_ATTACK, MINI_CREATURES, MINI_CRITICAL, MINI_FUMBLE, MINI_SEVERITIES, MINI_WEAPONS


def as_json(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def everything(run, db=None):
    """Every lookup a user can make, minus provenance (which changes on re-import)."""
    listed = as_json(run("list", "--json", db=db))
    shown = {}
    for kind in ("attack", "critical", "fumble"):
        for item in listed[kind]:
            shown[(kind, item["name"])] = as_json(run("show", kind, item["name"], "--json", db=db))
    for kind in ("weapons", "creatures"):
        for item in listed[kind]:
            shown[(kind, item["name"])] = {k: v for k, v in item.items() if k not in ("workbook", "sheet")}
    return shown


def test_export_then_import_gives_the_same_lookups(run, tmp_path):
    before = everything(run)
    out = tmp_path / "everything.xlsx"
    result = run("export", "-o", str(out))
    assert result.exit_code == 0 and result.stdout.startswith(f"Wrote {out}: 6 attack tables")
    fresh = tmp_path / "fresh.db"
    assert run("db", "init", db=fresh).exit_code == 0
    assert run("import", "--replace", str(out), db=fresh).exit_code == 0
    assert everything(run, db=fresh) == before


def test_edge_cases_round_trip(run, tmp_path, write_workbook):
    odd_critical = [row[:] for row in MINI_CRITICAL]
    odd_critical[6][2] = "'=A nick that looks like a formula."
    odd_critical[6][1] = "'+2 vs undead"
    weapons = [row[:] for row in MINI_WEAPONS]
    weapons[3] = weapons[3][:] + [None]
    source = write_workbook("mine.xlsx", {
        "Severities": MINI_SEVERITIES, "Slash": odd_critical, "Oops": MINI_FUMBLE, "Poke": MINI_ATTACK,
        "Weapons": MINI_WEAPONS, "Creatures": MINI_CREATURES,
    })
    assert run("import", str(source)).exit_code == 0
    before = everything(run)
    out = tmp_path / "mine-export.xlsx"
    assert run("export", "-o", str(out), "Slash", "Oops", "Poke", "Needle", "Pin", "Tin Man", "Scarecrow").exit_code == 0
    import openpyxl

    book = openpyxl.load_workbook(out)
    cells = {cell.value: cell.data_type for sheet in book.worksheets for row in sheet.iter_rows() for cell in row if cell.value is not None}
    assert cells["=A nick that looks like a formula."] == "s" and cells["+2 vs undead"] == "s"
    assert cells[9] == "n" or cells.get("9 C Slash") == "s"  # numbers stay numbers, criticals are text
    assert [s.title for s in book.worksheets][:1] == ["Severities Letters"]
    fresh = tmp_path / "fresh.db"
    assert run("db", "init", db=fresh).exit_code == 0
    assert run("import", "--replace", str(out), db=fresh).exit_code == 0
    after = everything(run, db=fresh)
    for key in [k for k in before if k[1] in ("Slash", "Oops", "Poke", "Needle", "Pin", "Tin Man", "Scarecrow")]:
        assert after[key] == before[key], key


def test_export_names_nothing_unknown(run, tmp_path):
    result = run("export", "-o", str(tmp_path / "x.xlsx"), "Edged", "Nope")
    assert result.exit_code == 1 and result.stderr == "Error: nothing named 'Nope' to export (see `tables list`)\n"


def fill_attack(path):
    import openpyxl

    book = openpyxl.load_workbook(path)
    sheet = book.worksheets[1]
    header = next(r for r in range(1, 20) if sheet.cell(r, 1).value == "Result")
    row = header + 1
    while sheet.cell(row, 1).value:
        n = row - header
        for column in range(2, sheet.max_column + 1):
            sheet.cell(row, column, "—" if n < 3 else (max(n - column + 2, 0) if n < 10 else f"{n} Mod"))
        row += 1
    book.save(path)


def test_a_filled_attack_template_imports(run, tmp_path):
    path = tmp_path / "axe.xlsx"
    result = run("template", "attack", "-o", str(path), "--name", "Great Axe", "--armor", "NA,LA,MA,HA,PL", "--rows", "11-160/10")
    assert result.exit_code == 0 and "an attack template" in result.stdout
    import openpyxl

    book = openpyxl.load_workbook(path)
    assert [s.title for s in book.worksheets] == ["Instructions", "Great Axe"]
    sheet = book.worksheets[1]
    assert sheet.freeze_panes == "B6" and sheet["A5"].font.bold
    assert [sheet.cell(5, c).value for c in range(1, 7)] == ["Result", "NA", "LA", "MA", "HA", "PL"]
    assert sheet["A6"].value == "11-20" and sheet.cell(20, 1).value == "151-160"
    fill_attack(path)
    strict = run("lint", "--strict", str(path))  # the Instructions sheet warns of nothing
    assert (strict.exit_code, strict.stderr) == (0, ""), strict.output
    imported = run("import", str(path))
    assert imported.exit_code == 0, imported.output
    assert imported.stderr == ""
    cell = as_json(run("query", "attack", "Great Axe", "155", "PL", "--json"))
    assert cell["severity"] == "Mod"


@pytest.mark.parametrize("kind", ["critical", "fumble", "weapons", "creatures", "severities"])
def test_templates_open_with_their_drop_downs(run, tmp_path, kind):
    path = tmp_path / f"{kind}.xlsx"
    assert run("template", kind, "-o", str(path)).exit_code == 0
    import openpyxl

    book = openpyxl.load_workbook(path)
    sheet = book.worksheets[1]
    assert sheet["A1"].value == "Kind" and sheet["B1"].value == kind
    formulas = [v.formula1 for v in sheet.data_validations.dataValidation]
    if kind == "weapons":
        assert any("Edged" in f for f in formulas) and '"oe,oeh,oel,d100"' in formulas
    if kind == "creatures":
        assert '"normal,heroic,epic"' in formulas and any("MA" in f for f in formulas)
    if kind == "critical":
        rolls = [sheet.cell(r, 1).value for r in range(1, sheet.max_row + 1)]
        assert "01-05" in rolls and "146-150" in rolls


def test_a_filled_critical_template_imports(run, tmp_path):
    path = tmp_path / "crit.xlsx"
    assert run("template", "critical", "-o", str(path), "--name", "Sting").exit_code == 0
    import openpyxl

    book = openpyxl.load_workbook(path)
    sheet = book.worksheets[1]
    sheet["B3"] = "ST"
    first = next(r for r in range(1, 20) if sheet.cell(r, 1).value == "Roll") + 1
    for row in range(first, sheet.max_row + 1):
        sheet.cell(row, 3, f"Sting {row}")
        sheet.cell(row, 4, row // 5)
    book.save(path)
    result = run("import", str(path))
    assert result.exit_code == 0, result.output
    assert as_json(run("query", "critical", "ST", "100", "--json"))["entry"]["text"].startswith("Sting")


def test_template_errors(run, tmp_path):
    """Options that cannot work are usage mistakes (exit 2), and nothing is written."""
    out = str(tmp_path / "x.xlsx")
    for args, message in [
        (("attack", "--rows", "abc"), "Error: --rows 'abc' is not LOW-HIGH/STEP (e.g. 11-175/5)"),
        (("attack", "--rows", "50-10"), "Error: --rows '50-10' is not LOW-HIGH/STEP (e.g. 11-175/5)"),
        (("attack", "--armor", "NA,NA"), "Error: --armor 'NA,NA' must list distinct armor codes, e.g. NA,LA,MA,HA"),
        (("weapons", "--rows", "1-10"), "Error: --rows shapes attack, critical and fumble templates, not weapons"),
        (("critical", "--armor", "NA"), "Error: --armor shapes attack templates, not critical"),
        (("fumble", "--name", " "), "Error: --name must not be empty"),
    ]:
        result = run("template", *args, "-o", out)
        assert result.exit_code == 2 and message in result.stderr.splitlines(), (args, result.stderr)
        assert not (tmp_path / "x.xlsx").exists()
    assert run("template", "potion", "-o", out).exit_code == 2


@pytest.mark.parametrize("command", [("template", "attack"), ("export",)])
def test_the_output_must_be_a_new_xlsx_file(run, tmp_path, command):
    wrong = tmp_path / "out.csv"
    result = run(*command, "-o", str(wrong))
    assert result.exit_code == 2 and f"Error: -o '{wrong}' must name an .xlsx file (the format import reads)" in result.stderr
    assert not wrong.exists()
    taken = tmp_path / "taken.xlsx"
    taken.write_bytes(b"precious")
    result = run(*command, "-o", str(taken))
    assert (result.exit_code, result.stderr) == (1, f"Error: {taken} already exists; give --force to overwrite it, or another name\n")
    assert taken.read_bytes() == b"precious"
    assert run(*command, "-o", str(taken), "--force").exit_code == 0
    assert taken.read_bytes()[:2] == b"PK"  # an .xlsx (a zip) now


def test_a_failed_export_leaves_no_file(run, tmp_path):
    out = tmp_path / "none.xlsx"
    assert run("export", "-o", str(out), "Nope").exit_code == 1
    assert not out.exists()


def test_export_then_import_into_the_same_database_is_unchanged(run, tmp_path, db_path, dump):
    out = tmp_path / "all.xlsx"
    assert run("export", "-o", str(out)).exit_code == 0
    before = dump(db_path)
    result = run("import", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "Imported all.xlsx: unchanged",
        "  unchanged: 6 attack tables, 7 critical tables, 2 fumble tables, 32 weapons, 13 creatures "
        "(the database holds them just so, from other workbooks)",
    ]
    assert dump(db_path) == before
    data = as_json(run("import", "--dry-run", str(out), "--json"))
    assert data["workbooks"][0]["defined"] == {} and "Edged" in data["workbooks"][0]["unchanged"]["attack"]


def test_an_edited_export_still_conflicts(run, tmp_path, db_path, dump):
    import openpyxl

    out = tmp_path / "edged.xlsx"
    assert run("export", "-o", str(out), "Edged", "Cut").exit_code == 0
    book = openpyxl.load_workbook(out)
    sheet = book["Edged"]
    sheet.cell(sheet.max_row, 2, 99)
    book.save(out)
    before = dump(db_path)
    result = run("import", str(out))
    assert result.exit_code == 1
    assert error_lines(result) == ("Error: edged.xlsx › Edged › B2: attack table 'Edged' is already defined by workbook "
                                   "bundled/attacks.xlsx (import with --replace to take it over)\n")
    assert dump(db_path) == before


def test_a_blank_template_lints_to_one_line(run, tmp_path):
    attack, critical = tmp_path / "attack.xlsx", tmp_path / "critical.xlsx"
    assert run("template", "attack", "-o", str(attack)).exit_code == 0
    assert run("template", "critical", "-o", str(critical)).exit_code == 0
    result = run("lint", str(attack), str(critical))
    assert result.exit_code == 1
    assert error_lines(result).splitlines() == [
        "Error: attack.xlsx › Attack › B6:E38: 132 empty cells (write a dash — for a miss)",
        "Error: critical.xlsx › Critical › C7:C36: 30 empty Text cells",
    ]


def test_a_few_empty_cells_are_each_named_and_scattered_ones_listed(run, tmp_path):
    import openpyxl

    path = tmp_path / "holes.xlsx"
    assert run("template", "attack", "-o", str(path), "--rows", "11-60/10").exit_code == 0
    fill_attack(path)
    book = openpyxl.load_workbook(path)
    sheet = book.worksheets[1]
    for cell in ("B6", "C8", "E10"):
        sheet[cell] = None
    book.save(path)
    assert error_lines(run("lint", str(path))).splitlines() == [
        f"Error: holes.xlsx › Attack › {cell}: empty cell (write a dash — for a miss)" for cell in ("B6", "C8", "E10")
    ]
    sheet["D7"] = None
    book.save(path)
    assert error_lines(run("lint", str(path))) == (
        "Error: holes.xlsx › Attack › B6:E10: 4 empty cells (write a dash — for a miss): B6, D7, C8, E10\n")


def test_template_json_and_name_for_every_kind(run, tmp_path):
    import openpyxl

    expected = {
        "attack": ("Great Axe", ["Instructions", "Great Axe"]),
        "critical": ("Sting", ["Instructions", "Sting"]),
        "fumble": ("Slips", ["Instructions", "Slips"]),
        "weapons": ("Spear", ["Instructions", "Weapons"]),
        "creatures": ("Troll", ["Instructions", "Creatures"]),
        "severities": ("Letters", ["Instructions", "Letters"]),
    }
    for kind, (name, sheets) in expected.items():
        out = tmp_path / f"{kind}.xlsx"
        data = as_json(run("template", kind, "-o", str(out), "--name", name, "--json"))
        assert data == {"file": str(out), "kind": kind, "name": name, "sheets": sheets}
        values = [c.value for row in openpyxl.load_workbook(out).worksheets[1].iter_rows() for c in row]
        assert name in values, kind
    # the severities template's scale takes the name; without one, the file's
    listed = as_json(run("lint", str(tmp_path / "severities.xlsx"), "--json"))["workbooks"][0]["defined"]
    assert listed == {"severities": ["Letters"]}
    assert as_json(run("template", "attack", "-o", str(tmp_path / "plain.xlsx"), "--json"))["name"] == "New attack table"
