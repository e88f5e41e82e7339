"""Quality warnings (`tables lint`, `--strict`) and what a re-import changes (issue 6)."""

import json

from helpers import build_workbook, error_lines


def attack(name, rows, header=("Result", "NA", "HA")):
    return [["Kind", "attack"], ["Name", name], [], list(header), *[list(r) for r in rows]]


def weapons(*rows):
    return [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"], *rows]


def warnings_of(result):
    return [line for line in result.stderr.splitlines() if line.startswith("Warning:")]


def test_quality_warnings(run, write_workbook):
    path = write_workbook("q.xlsx", {
        "Falls": attack("Falls", [("11-50", 5, 3), ("51-90", 4, 3), ("91+", "9 Mod", 4)]),
        "Shuffled": attack("Shuffled", [("11+", 1, 1, 1)], header=("Result", "MA", "NA", "HA")),
        "Crit": [["Kind", "critical"], ["Name", "Spare"], [], ["Roll", "Text"], ["1-150", "a"], ["151-200", "never"]],
        "W": weapons(["Poker", "Falls", 150, 12, "Cut"], ["Pin", "Shuffled", 5, 1, "Cut"]),
    })
    result = run("lint", str(path))
    assert result.exit_code == 0, result.output
    assert warnings_of(result) == [
        "Warning: q.xlsx › Falls › B6: damage falls in column NA: 11-50 gives 5, 51-90 gives 4",
        "Warning: q.xlsx › Shuffled › B4: armor columns out of order: MA, NA, HA (expected NA, MA, HA)",
        "Warning: q.xlsx › Crit › A6: rows 151-200 can never be rolled: d100 + the largest modifier reaches 150",
        "Warning: q.xlsx › W › A4: Poker: Clumsy range 1-12 fumbles 12% of attacks",
        "Warning: q.xlsx › W › A5: Pin: Max result 5 always misses (10 or less)",
        "Warning: q.xlsx › Crit › B2: no weapon or attack cell uses critical table 'Spare'",
    ]
    strict = run("lint", "--strict", str(path))
    assert strict.exit_code == 1
    assert error_lines(strict).splitlines()[0] == "Error: q.xlsx › Falls › B6: damage falls in column NA: 11-50 gives 5, 51-90 gives 4 (--strict)"
    # each problem once: as an error, not also as a warning
    assert warnings_of(strict) == [] and len(error_lines(strict).splitlines()) == 6
    data = json.loads(run("lint", "--strict", "--json", str(path)).stdout)
    assert data["workbooks"][0]["warnings"] == [] and len(data["errors"]) == 6


def test_max_result_above_a_closed_top(run, write_workbook):
    path = write_workbook("m.xlsx", {"W": weapons(["Long Dagger", "Edged", 200, 2, "Cut"])})
    assert warnings_of(run("lint", str(path))) == [
        "Warning: m.xlsx › W › A4: Long Dagger: Max result 200 is above the top of Edged (175); results above it read the top row anyway"
    ]


def test_strict_import_writes_nothing(run, write_workbook, db_path, dump):
    before = dump(db_path)
    path = write_workbook("s.xlsx", {"W": weapons(["Whip", "Blunt", 100, 12, "Impact"])})
    result = run("import", "--strict", str(path))
    assert result.exit_code == 1
    assert error_lines(result) == "Error: s.xlsx › W › A4: Whip: Clumsy range 1-12 fumbles 12% of attacks (--strict)\n"
    assert dump(db_path) == before
    assert run("import", str(path)).exit_code == 0  # without --strict a warning does not fail


LONELY = {"F": [["Kind", "fumble"], ["Name", "Lonely"], [], ["Roll", "Text"], ["1+", "x"]]}


def test_tables_without_weapons_in_the_import_are_not_unused(run, write_workbook):
    """A workbook of tables alone (a filled template) waits for its weapons:
    `lint --strict` passes; in an import with weapons, an unused table warns."""
    tables = write_workbook("t.xlsx", LONELY)
    assert run("lint", "--strict", str(tables)).exit_code == 0
    other = write_workbook("w.xlsx", {"W": weapons(["Stick", "Blunt", 100, 2, "Impact"])})
    result = run("lint", str(tables), str(other))
    assert warnings_of(result) == ["Warning: t.xlsx › F › B2: no weapon uses fumble table 'Lonely'"]


def test_the_users_of_a_table_count_in_every_workbook_of_the_command(run, write_workbook):
    tables = write_workbook("t.xlsx", LONELY)
    users = write_workbook("w.xlsx", {"W": [["Kind", "weapons"], [],
                                            ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble table"],
                                            ["Stick", "Blunt", 100, 2, "Impact", "Lonely"]]})
    for order in ((tables, users), (users, tables)):
        result = run("lint", "--strict", *map(str, order))
        assert (result.exit_code, result.stderr) == (0, ""), (order, result.output)


def test_the_bundled_tables_have_no_quality_warnings(run):
    from tables_app.services.database_setup import bundled_workbooks

    result = run("lint", "--replace", *map(str, bundled_workbooks()))
    assert result.exit_code == 0 and warnings_of(result) == []


def test_a_reimport_reports_what_changed(run, tmp_path, db_path, dump):
    first = build_workbook(tmp_path / "t.xlsx", {
        "A": attack("Jab", [("11-50", 2, 1), ("51+", "6 Lig", 3)]),
        "F": [["Kind", "fumble"], ["Name", "Trip"], [], ["Roll", "Text", "Hits"], ["1-50", "Stumble.", 0], ["51+", "Fall.", 1]],
        "W": weapons(["Jabber", "Jab", 100, 2, "Impact"]),
    })
    assert run("import", str(first)).exit_code == 0
    (tmp_path / "v2").mkdir()
    second = build_workbook(tmp_path / "v2" / "t.xlsx", {
        "A": attack("Jab", [("11-50", 2, 1), ("51-90", "7 Lig", 3), ("91+", "9 Mod", 4)]),
        "F": [["Kind", "fumble"], ["Name", "Trip"], [], ["Roll", "Text", "Hits"], ["1-50", "Stumble.", 0], ["51+", "Fall hard.", 2]],
        "W": weapons(["Jabber", "Jab", 120, 2, "Impact"]),
        "C": [["Kind", "creatures"], [], ["Name", "DEF", "Armor"], ["Dummy", 0, "NA"]],
    })
    before = dump(db_path)
    dry = run("import", "--dry-run", str(second), "--json")
    assert dry.exit_code == 0 and dump(db_path) == before
    changes = json.loads(dry.stdout)["workbooks"][0]["changes"]
    assert changes["added"] == {"creatures": ["Dummy"]}
    assert [(r["row"], r["change"]) for r in changes["rows"]] == [("51+", "removed"), ("51-90", "added"), ("91+", "added")]
    assert changes["entries"] == [{"table": "Trip", "row": "51+", "condition": None, "before": "Fall. | +1 hits", "after": "Fall hard. | +2 hits"}]
    assert changes["fields"] == [{"kind": "weapon", "name": "Jabber", "field": "max_result", "before": 100, "after": 120}]
    people = run("import", str(second))
    assert people.exit_code == 0
    lines = people.stdout.splitlines()
    assert "  added creatures: Dummy" in lines
    assert "  weapon Jabber max_result: 100 → 120" in lines
    assert "  Trip 51+: Fall. | +1 hits → Fall hard. | +2 hits" in lines


def test_changed_cells_before_and_after(run, tmp_path):
    one = build_workbook(tmp_path / "c.xlsx", {"A": attack("Cuff", [("11-50", 2, 1), ("51+", "6 Lig", 3)])})
    assert run("import", str(one)).exit_code == 0
    (tmp_path / "v2").mkdir()
    two = build_workbook(tmp_path / "v2" / "c.xlsx", {"A": attack("Cuff", [("11-50", 2, "—"), ("51+", "8 Mod", 3)])})
    data = json.loads(run("import", str(two), "--json").stdout)
    assert data["workbooks"][0]["changes"]["cells"] == [
        {"table": "Cuff", "row": "11-50", "armor": "HA", "before": "1", "after": "—"},
        {"table": "Cuff", "row": "51+", "armor": "NA", "before": "6 Lig", "after": "8 Mod"},
    ]


def test_rows_past_100_of_an_open_ended_critical_table_can_be_rolled(run, write_workbook):
    """docs/authoring.md, lint: "critical rows that no roll can reach". A `Roll
    kind | oeh` table's die opens past 100 (docs/workbook-format.md, "Open-ended
    critical and fumble rolls"): its high rows are rolled, of either layout,
    and so are an open-ended fumble table's; a printed d100 table (the roll not
    modified) reaches 100."""
    huge = [["Kind", "critical"], ["Name", "Huge"], ["Roll kind", "oeh"], [], ["Roll", "Normal", "Slaying"],
            ["1-100", "+1H", "+2H"], ["101-250", "+5H", "+9H"], ["251+", "+9H", "instant death"]]
    tall = [["Kind", "critical"], ["Name", "Tall"], ["Roll kind", "oeh"], [], ["Roll", "Text"], ["1-150", "a"], ["151-300", "b"]]
    spills = [["Kind", "fumble"], ["Name", "Spills"], ["Roll kind", "oeh"], [], ["Roll", "Text"], ["1-100", "a"], ["101-400", "b"]]
    flat = [["Kind", "critical"], ["Name", "Flat"], [], ["Roll", "Normal", "Slaying"],
            ["1-100", "+1H", "+2H"], ["101-120", "+5H", "+9H"], ["121+", "+7H", "+9H"]]
    result = run("lint", str(write_workbook("big.xlsx", {"Huge": huge, "Tall": tall, "Spills": spills, "Flat": flat})))
    assert result.exit_code == 0, result.output
    assert warnings_of(result) == [
        "Warning: big.xlsx › Flat › A6: rows 101-120 to 121+ can never be rolled: a printed table reads the d100 as it fell "
        "(the column is chosen, the roll not modified), which reaches 100"]
