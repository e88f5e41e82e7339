"""Arms Law's rows bounded by the weapon's Clumsy Range through the command
line (docs/workbook-format.md, "attack"): `UM 01-XX` (F in every column) and
`XX-30` (the lowest row, from the Clumsy top + 1) import, show, export and
read back; `query attack` reads `XX-30` as printed, `resolve` and `odds` from
the weapon's Clumsy Range; the import refuses them anywhere else, with the cell.
Every value is invented for these tests."""

from __future__ import annotations

import json
import pytest
from helpers import error_lines, workbook_problems
from test_printed_attack_tables import WEAPON, printed_sheets

# Rows as transcribed, top row first; sheet row 6 is the first below the header. The weapon's Clumsy Range is 1-2.
ROWS = [
    ["UM 100", "30E", "25 E K", "25EK"],
    [">150", "16E", "12D", "20ES"],
    ["121:150", "14D", "10C", "18E"],
    ["91-120", "9B", "5 A", "12C"],
    ["61-90", "6", "2", "8A"],
    ["31-60", "3", "—", "5"],
    ["XX-30", "—", "F", "0"],
    ["UM 01-XX", "F", "F", "F"],
]


@pytest.fixture
def imported(run, write_workbook):  # type: ignore[no-untyped-def]
    result = run("import", str(write_workbook("clumsy.xlsx", printed_sheets(rows=ROWS))))
    assert result.exit_code == 0, error_lines(result)
    return run


def test_show_and_export_keep_the_rows_as_printed(imported, tmp_path):
    # docs/workbook-format.md, "attack": the rows go out as they came in, and read back to the same table
    shown = json.loads(imported("show", "attack", "PR:Printed blade", "--json").output)
    assert [(row["range"], row["unmodified"]) for row in shown["rows"]][:2] == [("XX-30", False), ("31-60", False)]
    assert ("UM 1-XX", True) in [(row["range"], row["unmodified"]) for row in shown["rows"]]
    out = tmp_path / "out.xlsx"
    assert imported("export", "-o", str(out), "PR:Printed blade").exit_code == 0
    again = imported("import", str(out), "--dry-run")
    assert again.exit_code == 0 and "unchanged" in again.output, error_lines(again)


def test_the_foundry_journal_says_what_xx_is(imported, tmp_path):
    # docs/workbook-format.md, "attack": the rows go out as printed, with the bound explained
    out = tmp_path / "foundry"
    assert imported("export", "--format", "foundry", "-o", str(out), "PR:Printed blade").exit_code == 0
    (journal,) = out.glob("attack-*.json")
    text = json.loads(journal.read_text(encoding="utf-8"))["pages"][0]["text"]["content"]
    assert "XX is the top of the attacking weapon's Clumsy Range" in text and "<th>XX-30</th>" in text


def test_query_reads_the_row_as_printed_and_resolve_from_the_weapons_clumsy_range(imported):
    # docs/workbook-format.md, "attack": no weapon, no Clumsy Range: the row is read from 1 and named as printed
    query = json.loads(imported("query", "attack", "PR:Printed blade", "2", "1", "--json").output)
    assert (query["row"], query["outcome"]) == ("XX-30", "no_damage")
    # the weapon's Clumsy Range is 1-2: XX-30 is 3-30; 50 - DEF 47 = 3 reads it, 50 - 48 = 2 is below it
    read = json.loads(imported("resolve", "table", "--weapon", WEAPON, "--armor", "1", "--cmb", "0", "--def", "47",
                               "--dice", "50", "--json").output)
    assert (read["outcome"], read["cell"]["row"]) == ("no_damage", "3-30")
    below = imported("resolve", "table", "--weapon", WEAPON, "--armor", "1", "--cmb", "0", "--def", "48", "--dice", "50")
    assert "Result 2 is below the lowest row (3-30): a miss." in below.output


def test_odds_read_the_row_from_the_clumsy_top(imported):
    odds = json.loads(imported("odds", "table", "--weapon", WEAPON, "--armor", "1", "--cmb", "0", "--def", "0",
                               "--json").output)
    rows = dict((row["row"], row["probability"]) for row in odds["rows"])
    assert "3-30" in rows and "XX-30" not in rows
    assert odds["outcomes"]["fumble"] >= 0.02  # the Clumsy Range 1-2, UM 01-XX's faces, and F cells


@pytest.mark.parametrize("rows, expected", [
    ([*ROWS[:-1], ["UM 01-XX", "F", "—", "F"]],
     ["C13: UM 01-XX is the weapon's Clumsy Range, which fumbles before any row is read: write F in every column (not '—')"]),
    ([*ROWS, ["UM 1-xx", "F", "F", "F"]], ["A14: UM 1-XX appears twice (rows A13 and A14)"]),
    ([*ROWS[:-1], ["0", "—", "—", "—"], ROWS[-1]],
     ["A13: XX-30 is the lowest row (it begins above the weapon's Clumsy Range), but 0 is below it (rows A12 and A13)"]),
    ([*ROWS[:-2], ["01-08", "—", "—", "—"], *ROWS[-2:]], ["A13: 1-8 and XX-30 overlap (rows A12 and A13)"]),
    ([ROWS[0], ["XX-150", "3", "2", "1"], ROWS[-1]],
     ["A7: XX-150 is the only row read by the result; add the rows above it (a weapon whose Clumsy Range reaches 150 "
      "would read none)"]),
    ([*ROWS[:-1], ["01-XX", "F", "F", "F"]],
     ["A13: '01-XX': XX (the top of the weapon's Clumsy Range) is read in two rows only: UM 01-XX (the Clumsy Range, "
      "F in every column) and XX-33 (the lowest row)"]),
])
def test_the_rows_are_refused_anywhere_else_with_their_cell(write_workbook, rows, expected):
    # docs/workbook-format.md, "attack": one located line each
    path = write_workbook("clumsy.xlsx", printed_sheets(rows=rows, weapon=False))
    assert workbook_problems(path) == [f"clumsy.xlsx › Blade table › {line}" for line in expected]
