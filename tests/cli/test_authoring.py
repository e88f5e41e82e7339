"""`tables export` and `tables template` (issue 6): what is written imports again."""

import json

import pytest
from conftest import MINI_ATTACK, MINI_CREATURES, MINI_CRITICAL, MINI_FUMBLE, MINI_SEVERITIES, MINI_WEAPONS


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
    assert run("import", "--replace", str(out), db=fresh).exit_code == 0
    after = everything(run, db=fresh)
    for key in [k for k in before if k[1] in ("Slash", "Oops", "Poke", "Needle", "Pin", "Tin Man", "Scarecrow")]:
        assert after[key] == before[key], key


def test_export_names_nothing_unknown(run, tmp_path):
    result = run("export", "-o", str(tmp_path / "x.xlsx"), "Edged", "Nope")
    assert result.exit_code == 1 and result.stderr == "Error: nothing named 'Nope' to export\n"


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
    imported = run("import", str(path))
    assert imported.exit_code == 0, imported.output
    assert "Instructions: the header block has no Kind: sheet skipped" in imported.stderr
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
    assert run("template", "attack", "-o", str(tmp_path / "x.xlsx"), "--rows", "50-10").exit_code == 1
    result = run("template", "attack", "-o", str(tmp_path / "x.xlsx"), "--armor", "NA,NA")
    assert result.exit_code == 1 and "distinct armor codes" in result.stderr
    assert run("template", "potion", "-o", str(tmp_path / "x.xlsx")).exit_code == 2
