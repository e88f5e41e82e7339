"""Row labels as books print them (docs/workbook-format.md, "Ranges"): a
critical or fumble table's lowest row `-25` (every roll up to 25) and its top
`00` (100, also in `96-00`); `UM 96-00` on an attack table; a leading dash
refused in an attack table's Result column, where a result may be negative;
`Up to 10` as a lowest row anywhere; a critical or fumble Roll column printed
as tops (`-25`, `-30`, ..., `66`, ..., `00`). Every value is invented for these
tests."""

from __future__ import annotations

import json

from helpers import error_lines, workbook_problems

from tables_app.domain.ranges import NO_BOTTOM, Range
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

MISHAPS = [["Kind", "fumble"], ["Name", "Mishaps"], [], ["Roll", "1HE", "2H"],
           ["-25", "Loose grip.", "Overswing. (-10)"], ["26-90", "Nicks own arm. +2H", "Wrenched shoulder. 1∑∏"],
           ["91-99", "Drops weapon. 2∑", "Falls flat. +3H"], ["00", "Impaled. +9H", "Snapped haft. +6H"]]
WOBBLES = [["Kind", "fumble"], ["Name", "Wobbles"], [], ["Roll", "Text", "Hits"],
           [-25, "A wobble.", 0], ["26-95", "A stumble.", 1], ["96-00", "A tumble.", 4]]


def _parsed(write_workbook, sheets):  # type: ignore[no-untyped-def]
    return interpret(read_workbook(write_workbook("printed.xlsx", sheets)))


def test_a_fumble_table_reads_its_printed_lowest_and_top_rows(write_workbook):
    # docs/workbook-format.md, "Ranges": `-25` is every roll up to 25 (as `<26`), `00` is 100
    result = _parsed(write_workbook, {"Mishaps": MISHAPS, "Wobbles": WOBBLES})
    assert result.problems == []
    mishaps, wobbles = (t.value for t in result.fumble_tables)
    assert mishaps.rows.ranges == (Range(NO_BOTTOM, 25), Range(26, 90), Range(91, 99), Range(100, 100))
    # a spreadsheet turns a typed -25 into a number: it reads as printed too
    assert wobbles.rows.ranges == (Range(NO_BOTTOM, 25), Range(26, 95), Range(96, 100))
    assert mishaps.choose(-40, column=1).entry.text == "Overswing. (-10)"  # a negative Fumble Modifier reads the lowest row


def test_a_critical_table_by_severity_tops_out_at_00(write_workbook):
    # docs/workbook-format.md, "Ranges": `96-00` reaches 100, which a table read by severity must
    scale = [["Kind", "severities"], ["Name", "Two"], [], ["Code", "Name", "Modifier"], ["A", "A", 0], ["B", "B", 5]]
    heat = [["Kind", "critical"], ["Name", "Heat"], ["Severities", "Two"], [], ["Roll", "A", "B"],
            ["-25", "+1H", "+2H"], ["26-95", "+3H", "+4H"], ["96-00", "+5H", "+6H"]]
    result = _parsed(write_workbook, {"Two": scale, "Heat": heat})
    assert result.problems == []
    assert result.critical_tables[0].value.rows.ranges == (Range(NO_BOTTOM, 25), Range(26, 95), Range(96, 100))


def test_a_dash_row_above_the_lowest_is_refused(write_workbook):
    # docs/workbook-format.md, "Ranges": `-25` is open below, so only the lowest row may be written so
    rows = [*MISHAPS[:4], ["01-10", "a", "b"], ["-25", "c", "d"], ["26-00", "e", "f"]]
    assert workbook_problems(write_workbook("printed.xlsx", {"Mishaps": rows})) == [
        "printed.xlsx › Mishaps › A5: <26 and 1-10 overlap: <26 reads every value up to 25, so it must be the lowest row "
        "(rows A6 and A5)"]


def test_an_attack_result_column_refuses_a_leading_dash_and_reads_um_00(write_workbook):
    # docs/workbook-format.md, "Ranges" and "attack": a Result may be negative, so `-25` has two readings
    head = [["Kind", "attack"], ["Name", "Dart"], ["Automatic miss", "none"], [], ["Result", "1", "2"]]
    sheets = {"Dart": [*head, ["UM 96-00", "9", "8"], ["26+", "3", "2"], ["-25", "—", "—"]],
              "Typed": [*head[:1], ["Name", "Typed"], *head[2:], ["26+", "3", "2"], [-25, "—", "—"]]}
    hint = ("a Result row written with a leading dash could be the result -25 or every result up to 25: write <26 "
            "(every result up to 25) or 01-25")
    assert workbook_problems(write_workbook("printed.xlsx", sheets)) == [
        f"printed.xlsx › Dart › A8: '-25': {hint}", f"printed.xlsx › Typed › A7: -25: {hint}"]
    ok = {"Dart": [*head, ["UM 96-00", "9", "8"], ["26+", "3", "2"], ["<26", "—", "—"]]}
    (table,) = _parsed(write_workbook, ok).attack_tables
    assert table.value.unmodified.ranges == (Range(96, 100),)


def test_printed_tops_export_in_their_first_spelling_and_read_back(run, write_workbook, tmp_path):
    # docs/workbook-format.md, "Ranges": export writes `<26` and `100`; the export imports to the same table
    assert run("import", str(write_workbook("printed.xlsx", {"Mishaps": MISHAPS}))).exit_code == 0
    shown = json.loads(run("show", "fumble", "Mishaps", "--json").output)
    assert [entry["range"] for entry in shown["entries"] if entry["column"] == "1HE"] == ["<26", "26-90", "91-99", "100"]
    out = tmp_path / "out.xlsx"
    assert run("export", "-o", str(out), "Mishaps").exit_code == 0
    again = run("import", str(out), "--replace")
    assert again.exit_code == 0, error_lines(again)
    assert json.loads(run("show", "fumble", "Mishaps", "--json").output)["entries"] == shown["entries"]
    query = json.loads(run("query", "fumble", "Mishaps", "10", "--modifier", "-30", "--column", "2H", "--json").output)
    assert (query["modified_roll"], query["entry"]["range"], query["entry"]["text"]) == (-20, "<26", "Overswing. (-10)")


# -- `Up to N` (docs/workbook-format.md, "Ranges"): Against the Darkmaster's first row ------------------------

SCALE = [["Kind", "severities"], ["Name", "Two"], [], ["Code", "Name", "Modifier"], ["A", "A", 0], ["B", "B", 5]]


def test_up_to_opens_an_attack_table_and_a_critical_table_in_both_layouts(write_workbook):
    # "`Up to 10` (any letter case): every result from the lowest up to 10, the same as `<11`"
    attack = [["Kind", "attack"], ["Name", "Jab"], ["Severities", "Two"], ["Automatic miss", "none"], [],
              ["Result", "1", "2"], ["Up to 10", "—", "—"], ["11-15", "2", "1"], ["16+", "4 A", "3"]]
    printed = [["Kind", "critical"], ["Name", "Sting"], ["Severities", "Two"], [], ["Roll", "A", "B"],
               ["up to 5", "+1H", "+2H"], ["06-95", "+3H", "+4H"], ["96-00", "+5H", "+6H"]]
    one_column = [["Kind", "critical"], ["Name", "Prick"], ["Severities", "Two"], [], ["Roll", "Text"],
                  ["UP TO 5", "A scratch."], ["6-100", "A wound. +2H"], ["101+", "A gash. +4H"]]
    result = _parsed(write_workbook, {"Two": SCALE, "Jab": attack, "Sting": printed, "Prick": one_column})
    assert result.problems == []
    (jab,) = result.attack_tables
    assert jab.value.rows.ranges == (Range(NO_BOTTOM, 10), Range(11, 15), Range(16, None))
    assert jab.value.rows.lookup(-30)[0] == Range(NO_BOTTOM, 10)  # a result far below reads it, as `<11` does
    sting, prick = (t.value for t in result.critical_tables)
    assert sting.rows.ranges[0] == prick.rows.ranges[0] == Range(NO_BOTTOM, 5)


def test_up_to_below_another_row_is_an_error_on_its_cell(write_workbook):
    # "only as the lowest row", as `<71`: the message names the cell and says so
    attack = [["Kind", "attack"], ["Name", "Jab"], ["Automatic miss", "none"], [], ["Result", "1"],
              ["11-15", "2"], ["Up to 20", "—"], ["21+", "4"]]
    fumble = [["Kind", "fumble"], ["Name", "Slip"], [], ["Roll", "Text"], ["01-10", "Slips."], ["Up to 25", "Trips."],
              ["26+", "Falls."]]
    assert sorted(workbook_problems(write_workbook("printed.xlsx", {"Jab": attack, "Slip": fumble}))) == [
        "printed.xlsx › Jab › A6: <21 and 11-15 overlap: <21 reads every value up to 20, so it must be the lowest row "
        "(rows A7 and A6)",
        "printed.xlsx › Slip › A5: <26 and 1-10 overlap: <26 reads every value up to 25, so it must be the lowest row "
        "(rows A6 and A5)"]


# -- a Roll column printed as tops (docs/workbook-format.md, "Ranges"): `-25`, `-30`, ..., `66`, ..., `00` -----

TOPS = ["-25", "-30", "-65", "66", "-70", "-99", "00"]
TOPS_READ = (Range(NO_BOTTOM, 25), Range(26, 30), Range(31, 65), Range(66, 66), Range(67, 70), Range(71, 99),
             Range(100, 100))


def _fumble(rows: list) -> list:
    return [["Kind", "fumble"], ["Name", "Lurches"], [], ["Roll", "1HE", "2H"],
            *([top, f"Lurch {i}.", f"Sprawl {i}. +{i}H"] for i, top in enumerate(rows, start=1))]


def test_fumble_and_critical_tables_read_a_roll_column_of_tops_in_both_layouts(write_workbook):
    # "each row runs from the top of the row above + 1 up to its own top"; fumble and critical, printed and one column
    by_severity = [["Kind", "critical"], ["Name", "Scorch"], ["Severities", "Two"], [], ["Roll", "A", "B"],
                   *([top, f"+{i}H", f"+{i + 1}H"] for i, top in enumerate(TOPS, start=1))]
    one_column = [["Kind", "fumble"], ["Name", "Trips"], [], ["Roll", "Text", "Hits"],
                  *([top, f"Trip {i}.", i] for i, top in enumerate(TOPS, start=1))]
    typed = [["Kind", "critical"], ["Name", "Chill"], ["Severities", "Two"], [], ["Roll", "Text"],
             [-25, "Cold."], [-30, "Colder. +1H"], [66, "Frost. +2H"], ["-110", "Ice. +3H"]]
    result = _parsed(write_workbook, {"Two": SCALE, "Lurches": _fumble(TOPS), "Scorch": by_severity, "Trips": one_column,
                                      "Chill": typed})
    assert result.problems == []
    lurches, trips = (t.value for t in result.fumble_tables)
    scorch, chill = (t.value for t in result.critical_tables)
    assert lurches.rows.ranges == scorch.rows.ranges == trips.rows.ranges == TOPS_READ
    assert chill.rows.ranges == (Range(NO_BOTTOM, 25), Range(26, 30), Range(31, 66), Range(67, 110))
    assert lurches.choose(66, column=1).entry.text == "Sprawl 4. +4H"  # column 1: 2H
    assert lurches.choose(67, column=0).entry.text == "Lurch 5."


def test_a_top_that_does_not_rise_is_an_error_on_its_cell(write_workbook):
    # "a bare number that is not above the previous top is an error naming the cell"
    rows = ["-25", "-30", "28", "-65", "00"]
    typed = [["Kind", "fumble"], ["Name", "Typed"], [], ["Roll", "Text"], ["-25", "A."], ["-99", "B."], [0, "C."], ["-100", "D."]]
    assert sorted(workbook_problems(write_workbook("printed.xlsx", {"Lurches": _fumble(rows), "Typed": typed}))) == [
        "printed.xlsx › Lurches › A7: '28': in a Roll column printed as tops (-25, -30, ..., 00) each row runs from the "
        "row above's top + 1 to its own, so tops rise: 28 is not above 30",
        "printed.xlsx › Typed › A7: 0: in a Roll column printed as tops (-25, -30, ..., 00) each row runs from the row "
        "above's top + 1 to its own, so tops rise: 0 is not above 99 (a typed 00 is the number 0: type it as text, '00, "
        "or write 100)"]


def test_a_descending_column_of_tops_is_not_read_as_tops(write_workbook):
    # "only ascending": printed top row first, `00` down to `-25`, each dashed row is open below as before
    rows = list(reversed(TOPS))
    problems = workbook_problems(write_workbook("printed.xlsx", {"Lurches": _fumble(rows)}))
    assert problems and all("only the lowest row may be open below" in p or "overlap" in p for p in problems)


def test_an_attack_result_column_reads_no_tops(write_workbook):
    # "attack": a Result may be negative, so its leading dashes stay refused, in a column of tops too
    attack = [["Kind", "attack"], ["Name", "Jab"], ["Automatic miss", "none"], [], ["Result", "1"],
              ["-25", "—"], ["-50", "2"], ["51+", "4"]]
    problems = workbook_problems(write_workbook("printed.xlsx", {"Jab": attack}))
    assert [p.split(": ")[0] for p in problems] == ["printed.xlsx › Jab › A6", "printed.xlsx › Jab › A7"]
    assert all("a Result row written with a leading dash" in p for p in problems)


def test_a_column_of_tops_exports_as_ranges_and_reads_back(run, write_workbook, tmp_path):
    # "Export ... writes each range in the first spelling of its kind": `26-30`, read back as the same rows
    assert run("import", str(write_workbook("printed.xlsx", {"Lurches": _fumble(TOPS)}))).exit_code == 0
    shown = json.loads(run("show", "fumble", "Lurches", "--json").output)
    assert [entry["range"] for entry in shown["entries"] if entry["column"] == "1HE"] == [
        "<26", "26-30", "31-65", "66", "67-70", "71-99", "100"]
    out = tmp_path / "out.xlsx"
    assert run("export", "-o", str(out), "Lurches").exit_code == 0
    again = run("import", str(out), "--replace")
    assert again.exit_code == 0, error_lines(again)
    assert json.loads(run("show", "fumble", "Lurches", "--json").output)["entries"] == shown["entries"]
    query = json.loads(run("query", "fumble", "Lurches", "28", "--column", "2H", "--json").output)
    assert (query["entry"]["range"], query["entry"]["text"]) == ("26-30", "Sprawl 2. +2H")


def test_a_repeated_top_is_a_one_column_sheets_second_branch(write_workbook):
    # "critical": a range may appear twice as two branches; in a column of tops the repeat is written as its top
    trips = [["Kind", "fumble"], ["Name", "Trips"], [], ["Roll", "Text", "Condition"], ["-25", "Trip.", None],
             ["-50", "Helm rings.", "helm"], ["-50", "Scalp cut. +2H", "not helm"], ["00", "Falls.", None]]
    result = _parsed(write_workbook, {"Trips": trips})
    assert result.problems == []
    (table,) = (t.value for t in result.fumble_tables)
    assert table.rows.ranges == (Range(NO_BOTTOM, 25), Range(26, 50), Range(51, 100))
    assert [entry.condition for entry in table.rows.values[1]] == ["helm", "not helm"]
    printed = _fumble(["-25", "-50", "-50", "00"])
    assert workbook_problems(write_workbook("again.xlsx", {"Lurches": printed})) == [
        "again.xlsx › Lurches › A7: roll 26-50 appears twice (row A6); in a printed layout a cell holds its branches "
        "(With helm: ... Without helm: ...)"]
