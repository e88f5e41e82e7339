"""An attack table whose first row is printed as Against the Darkmaster prints
it, `Up to 10 | Attack automatically misses` with the words in one box merged
across every armor column, imported and read through the CLI: `query attack`
and `resolve table` miss at 10 or less and read the rows from 11
(docs/workbook-format.md, "Ranges": `Up to 10`; "Sheet layout": merged cells;
"attack": the miss words). Every value is invented for these tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import error_lines

WEAPON = "DM:Cudgel"


def darkmaster_workbook(path: Path, automatic_miss: object = None) -> Path:
    """Ruleset DM: severities A-C, a critical table Crush, a fumble table, the
    attack table Cudgel (its first row one merged miss box, B6:D6) and a weapon."""
    import openpyxl
    from helpers import build_workbook

    head = [["Kind", "attack"], ["Name", "Cudgel"]]
    head.append(["Automatic miss", automatic_miss] if automatic_miss is not None else ["Source", "invented for tests"])
    sheets = {
        "Ruleset": [["Kind", "ruleset"], ["Name", "DM"], ["Source", "invented for tests"]],
        "Severities": [["Kind", "severities"], ["Name", "DM letters"], [], ["Code", "Name", "Modifier"],
                       ["A", "A", 0], ["B", "B", 5], ["C", "C", 10]],
        "Crush": [["Kind", "critical"], ["Name", "Crush"], ["Code", "K"], [], ["Roll", "Text", "Hits"],
                  ["Up to 50", "A bruise.", 1], ["51+", "A crack.", 4]],
        "Fumbles": [["Kind", "fumble"], ["Name", "Cudgel fumbles"], [], ["Roll", "Text", "Hits"],
                    ["Up to 50", "Slip.", 0], ["51+", "Fall.", 2]],
        "Cudgel": [*head, [], ["Result", "Cloth", "Leather", "Mail"],
                   ["Up to 10", "Attack automatically misses", None, None],
                   ["11-15", "3", "1", "—"], ["16-20", "6A", "4", "2"], ["21+", "9B", "7A", "5"]],
        "Weapons": [["Kind", "weapons"], [],
                    ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble table", "Roll"],
                    ["Cudgel", "Cudgel", None, 0, "K", "Cudgel fumbles", "d100"]],
    }
    build_workbook(path, sheets)
    book = openpyxl.load_workbook(path)
    book["Cudgel"].merge_cells("B6:D6")  # the box across every armor column, as the book prints it
    book.save(path)
    return path


def as_json(result):  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.fixture
def imported(run, tmp_path):  # type: ignore[no-untyped-def]
    result = run("import", str(darkmaster_workbook(tmp_path / "darkmaster.xlsx")))
    assert result.exit_code == 0, result.output
    assert error_lines(result) == ""
    return run


@pytest.mark.parametrize("result, armor, row, text, outcome", [
    ("11", "Cloth", "11-15", "3", "hit"),
    ("15", "Mail", "11-15", "—", "miss"),
    ("16", "Cloth", "16-20", "6 A", "critical"),
    ("300", "Leather", "21+", "7 A", "critical"),
])
def test_query_attack_reads_the_rows_from_11(imported, result, armor, row, text, outcome):
    data = as_json(imported("query", "attack", WEAPON, result, armor, "--json"))
    assert (data["row"], data["text"], data["outcome"]) == (row, text, outcome)


@pytest.mark.parametrize("armor", ["Cloth", "Leather", "Mail"])
@pytest.mark.parametrize("result", ["10", "1", "-20"])
def test_query_attack_misses_at_10_or_less_in_every_armor_column(imported, result, armor):
    # "attack": a result of 10 or less misses without reading the table (the default automatic miss)
    data = as_json(imported("query", "attack", WEAPON, result, armor, "--json"))
    assert (data["row"], data["outcome"], data["automatic_miss"]) == (None, "miss", 10)


def test_resolve_misses_at_10_and_reads_11(imported):
    low = as_json(imported("resolve", "table", "--weapon", WEAPON, "--cmb", "0", "--armor", "Cloth", "--dice", "10",
                           "--json"))
    assert (low["outcome"], low["cell"], low["steps"][-1]) == ("miss", None, "Result 10 is 10 or less: an automatic miss.")
    hit = as_json(imported("resolve", "table", "--weapon", WEAPON, "--cmb", "0", "--armor", "Cloth", "--dice", "11",
                           "--json"))
    assert (hit["outcome"], hit["damage"], hit["cell"]["row"], hit["cell"]["text"]) == ("hit", 3, "11-15", "3")


@pytest.mark.parametrize("armor", ["Cloth", "Leather", "Mail"])
def test_with_every_row_read_the_box_is_a_miss_in_every_column(run, tmp_path, armor):
    # `Automatic miss | none` reads every row: `Up to 10` reads the box, a miss in every column, down to any result
    imported = run("import", str(darkmaster_workbook(tmp_path / "darkmaster.xlsx", automatic_miss="none")))
    assert imported.exit_code == 0, imported.output
    for result in ("10", "-20"):
        data = as_json(run("query", "attack", WEAPON, result, armor, "--json"))
        assert (data["row"], data["text"], data["outcome"]) == ("<11", "—", "miss")
    data = as_json(run("resolve", "table", "--weapon", WEAPON, "--cmb", "0", "--armor", armor, "--dice", "7", "--json"))
    assert (data["outcome"], data["cell"]["row"], data["cell"]["text"]) == ("miss", "<11", "—")
    data = as_json(run("query", "attack", WEAPON, "11", armor, "--json"))
    assert data["row"] == "11-15"
