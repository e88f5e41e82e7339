"""`tables template KIND --printed` (docs/cli.md, "template"): a printed book's
layout to fill in, which imports once filled."""

from __future__ import annotations

import openpyxl
import pytest
from helpers import error_lines


def grid_of(path) -> tuple[list[tuple], object]:  # type: ignore[no-untyped-def]
    book = openpyxl.load_workbook(path)
    sheet = book.worksheets[1]  # the Instructions sheet comes first
    return [tuple(row) for row in sheet.iter_rows(values_only=True)], book


@pytest.mark.parametrize("kind, header_key, header", [
    ("attack", ("Automatic miss", "none"), ("Result", *(str(n) for n in range(20, 0, -1)))),
    ("critical", None, ("Roll", "Sup", "Lig", "Mod", "Gri", "Let")),  # the built-in scale's codes
    ("fumble", None, ("Roll", "1HE", "1HC", "2H", "PA", "MIS", "TH")),
])
def test_printed_templates_fill_in_and_import(run, tmp_path, kind, header_key, header):
    path = tmp_path / f"{kind}.xlsx"
    assert run("template", kind, "--printed", "--name", f"My {kind}", "-o", str(path)).exit_code == 0
    rows, book = grid_of(path)
    if header_key:
        assert header_key in [row[:2] for row in rows]
    header_row = next(i for i, row in enumerate(rows) if row[0] in ("Result", "Roll"))
    assert tuple(v for v in rows[header_row] if v is not None) == header
    sheet = book.worksheets[1]
    fill = {"attack": "5", "critical": "+1H – 1∑", "fumble": "Oops."}[kind]
    for r in range(header_row + 2, len(rows) + 1):
        for c in range(2, len(header) + 1):
            sheet.cell(row=r, column=c, value=fill)
    book.save(path)
    linted = run("lint", str(path))
    assert (linted.exit_code, error_lines(linted)) == (0, ""), linted.output
    assert run("import", str(path)).exit_code == 0


def test_the_printed_weapons_template_has_the_column_columns(run, tmp_path):
    path = tmp_path / "weapons.xlsx"
    assert run("template", "weapons", "--printed", "-o", str(path)).exit_code == 0
    rows, _ = grid_of(path)
    header = next(row for row in rows if row[0] == "Name")
    # docs/cli.md, "template KIND --printed": a weapons sheet with Critical column, Fumble column and Max critical
    assert header[-3:] == ("Critical column", "Fumble column", "Max critical")


@pytest.mark.parametrize("kind", ["creatures", "severities"])
def test_printed_is_for_tables_and_weapons(run, tmp_path, kind):
    result = run("template", kind, "--printed", "-o", str(tmp_path / "x.xlsx"))
    assert result.exit_code == 2
    assert "Error: --printed shapes attack, critical, fumble, weapons templates, not " + kind in result.stderr
