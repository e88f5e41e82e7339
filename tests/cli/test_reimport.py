"""Re-imports and cross-workbook references that must work (or fail cleanly)."""

import datetime
import json
import sqlite3

import pytest
from helpers import error_lines, MINI_FUMBLE

RM_SEVERITIES = [["Kind", "severities"], ["Name", "Rolemaster"], [],
                 ["Code", "Name", "Modifier"], ["A", "Alpha", 0], ["B", "Bravo", 5], ["C", "Charlie", 10]]


def critical(name, code, top="81+", rows=None):
    rows = rows or [["1-80", "low", 1], [top, "high", 5]]
    return [["Kind", "critical"], ["Name", name], ["Code", code], [], ["Roll", "Text", "Hits"], *rows]


def weapons(*rows):
    return [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Notes"], *rows]


def ok(result):
    assert result.exit_code == 0, result.output
    return result


def test_renaming_a_critical_table_keeps_its_code(run, write_workbook, tmp_path):
    ok(run("import", str(write_workbook("ren.xlsx", {"C": critical("Slash", "X")}))))
    (tmp_path / "v2").mkdir()
    from helpers import build_workbook

    ok(run("import", str(build_workbook(tmp_path / "v2" / "ren.xlsx", {"C": critical("Slashing", "X")}))))
    data = json.loads(ok(run("show", "critical", "X", "--json")).stdout)
    assert data["table"] == "Slashing"
    assert run("show", "critical", "Slash").exit_code == 1


@pytest.mark.parametrize(
    "levels",
    [
        [["Mi", "Minor", 0], ["Ma", "Major", 5], ["Hu", "Huge", 10]],  # new codes and names
        [["A", "Bravo", 0], ["B", "Alpha", 5], ["C", "Charlie", 10]],  # names swapped
        [["C", "Charlie", 0], ["A", "Alpha", 5]],  # reordered, one dropped
    ],
)
def test_changing_a_severity_scale_on_reimport(run, write_workbook, tmp_path, levels):
    from helpers import build_workbook

    attack = [["Kind", "attack"], ["Name", "Poke"], [], ["Result", "NA"], ["11-50", "3"], ["51+", "5 A"]]
    ok(run("import", str(write_workbook("sev.xlsx", {"S": RM_SEVERITIES, "C": critical("Slash", "X", "81+"), "P": attack}))))
    (tmp_path / "v2").mkdir()
    new_scale = RM_SEVERITIES[:4] + levels
    new_attack = attack[:-1] + [["51+", f"5 {levels[0][0]}"]]
    ok(run("import", str(build_workbook(tmp_path / "v2" / "sev.xlsx", {"S": new_scale, "C": critical("Slash", "X", "81+"), "P": new_attack}))))
    cell = json.loads(ok(run("query", "attack", "Poke", "60", "NA", "--json")).stdout)
    assert cell["severity"] == levels[0][0]


def test_a_table_renamed_in_one_workbook_and_its_user_in_another_in_one_import(run, write_workbook, tmp_path):
    from helpers import build_workbook

    x1 = write_workbook("x1.xlsx", {"C": critical("Zing", "Z")})
    x2 = write_workbook("x2.xlsx", {"W": weapons(["Zapper", "Blunt", 100, 2, "Zing", None])})
    ok(run("import", str(x1), str(x2)))
    (tmp_path / "new").mkdir()
    n1 = build_workbook(tmp_path / "new" / "x1.xlsx", {"C": critical("Zing2", "Z")})
    n2 = build_workbook(tmp_path / "new" / "x2.xlsx", {"W": weapons(["Zapper", "Blunt", 100, 2, "Zing2", None])})
    ok(run("import", str(n1), str(n2)))
    assert json.loads(run("show", "weapon", "Zapper", "--json").stdout)["critical"] == "Zing2"


def test_a_renamed_table_that_is_still_used_is_refused(run, write_workbook, tmp_path, db_path, dump):
    from helpers import build_workbook

    ok(run("import", str(write_workbook("x1.xlsx", {"C": critical("Zing", "Z")}))))
    ok(run("import", str(write_workbook("x2.xlsx", {"W": weapons(["Zapper", "Blunt", 100, 2, "Zing", None])}))))
    before = dump(db_path)
    (tmp_path / "new").mkdir()
    result = run("import", str(build_workbook(tmp_path / "new" / "x1.xlsx", {"C": critical("Zing2", "Z")})))
    assert result.exit_code == 1
    assert error_lines(result) == (
        "Error: x1.xlsx: no longer defines critical table 'Zing' (still used by weapon Zapper); "
        "keep it, or change them in the same import\n"
    )
    assert dump(db_path) == before


def test_a_users_workbook_named_like_a_bundled_one_is_another_workbook(run, write_workbook):
    mine = write_workbook("attacks.xlsx", {"A": [["Kind", "attack"], ["Name", "My Attack"], [], ["Result", "NA"], ["11+", "3"]]})
    ok(run("import", str(mine)))
    assert json.loads(run("show", "attack", "Edged", "--json").stdout)["table"] == "Edged"
    clash = write_workbook("attacks.xlsx", {"A": [["Kind", "attack"], ["Name", "Edged"], [], ["Result", "NA"], ["11+", "3"]]})
    result = run("import", str(clash))
    assert result.exit_code == 1
    assert "attack table 'Edged' is already defined by workbook bundled/attacks.xlsx" in result.stderr


def test_workbook_file_names_compare_in_any_case(run, write_workbook, tmp_path):
    from helpers import build_workbook

    ok(run("import", str(write_workbook("m1.xlsx", {"F": MINI_FUMBLE}))))
    (tmp_path / "up").mkdir()
    ok(run("import", str(build_workbook(tmp_path / "up" / "M1.xlsx", {"F": MINI_FUMBLE}))))


def test_notes_and_source_of_weapons_and_creatures_are_kept(run, write_workbook, db_path):
    path = write_workbook("w.xlsx", {"W": [["Kind", "weapons"], ["Source", "my notes"], [],
                                          ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Notes"],
                                          ["Stick", "Blunt", 100, 2, "Impact", "pointy end first"]]})
    ok(run("import", str(path)))
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("SELECT source, notes FROM weapon WHERE name = 'Stick'").fetchone() == ("my notes", "pointy end first")
        assert connection.execute("SELECT count(*) FROM weapon WHERE notes IS NOT NULL").fetchone()[0] > 1  # bundled notes too


def test_severities_of_another_workbook_by_name(run, write_workbook):
    crits = write_workbook("rm_crits.xlsx", {"S": RM_SEVERITIES, "C": critical("Krush", "KR", "81+")})
    attacks = write_workbook("rm_attacks.xlsx", {"A": [
        ["Kind", "attack"], ["Name", "Club"], ["Severities", "Rolemaster"], [],
        ["Result", "1"], ["11-50", "3"], ["51+", "18CKR"]]})
    ok(run("import", str(crits), str(attacks)))
    cell = json.loads(run("query", "attack", "Club", "60", "1", "--json").stdout)
    assert (cell["severity"], cell["critical_table"]) == ("C", "Krush")
    bad = write_workbook("bad.xlsx", {"A": [["Kind", "attack"], ["Name", "Bat"], ["Severities", "Nope"], [], ["Result", "NA"], ["11+", "3"]]})
    result = run("import", str(bad))
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: bad.xlsx › A › B3: unknown severity scale 'Nope' (known: ")


def test_the_built_in_scale_cannot_be_taken_over(run, write_workbook):
    path = write_workbook("default.xlsx", {"S": [["Kind", "severities"], [], ["Code", "Name", "Modifier"], ["A", "Alpha", 0]]})
    result = run("import", "--replace", str(path))
    assert result.exit_code == 1
    assert error_lines(result) == "Error: default.xlsx › S › B1: 'default' is the built-in severity scale; give the severities sheet another Name\n"


def test_header_values_are_checked_like_cells(run, write_workbook):
    path = write_workbook("h.xlsx", {"F": [["Kind", "fumble"], ["Name", "Oops"], ["Source", datetime.datetime(2024, 5, 1)], ["Notes", "#N/A"], [],
                                          ["Roll", "Text"], ["1+", "x"]]})
    result = run("import", str(path))
    assert result.exit_code == 1
    assert error_lines(result).splitlines() == [
        "Error: h.xlsx › F › B3: 2024-05-01 00:00:00 is a date; format the column as text",
        "Error: h.xlsx › F › B4: error value #N/A (fix the formula or paste values)",
    ]


def test_a_header_block_without_kind_is_an_error_not_a_skip(run, write_workbook):
    path = write_workbook("k.xlsx", {"F": [["Kinds", "fumble"], ["Name", "Oops"], [], ["Roll", "Text"], ["1+", "x"]]})
    result = run("import", str(path))
    assert result.exit_code == 1
    assert error_lines(result) == "Error: k.xlsx › F › A1: the header block has no Kind row (Kind | attack, critical, ...)\n"
    spaced = write_workbook("s.xlsx", {"F": [["Kind :", "fumble"], ["NAME:", "Spaced"], [], ["Roll", "Text"], ["1+", "x"]]})
    ok(run("import", str(spaced)))


def test_a_critical_name_may_not_be_another_tables_code(run, write_workbook):
    result = run("import", str(write_workbook("n.xlsx", {"C": critical("S", "Q")})))
    assert result.exit_code == 1
    assert error_lines(result) == "Error: n.xlsx › C › B2: name 'S' is the code of critical table 'Cut'\n"


def test_a_bad_number_in_an_entry_does_not_invent_a_gap(run, write_workbook):
    path = write_workbook("p.xlsx", {"C": critical("Pokes", "PK", rows=[["1-20", "a", -1], ["21-80", "b", "x"], ["81+", "c", 1]])})
    result = run("import", str(path))
    assert error_lines(result).splitlines() == [
        "Error: p.xlsx › C › C6: Hits must not be negative, not -1",
        "Error: p.xlsx › C › C7: Hits must be a whole number, not 'x'",
    ]


def test_lint_reports_conflicts_unless_replace(run, write_workbook):
    path = write_workbook("mine.xlsx", {"F": [["Kind", "fumble"], ["Name", "Melee Fumbles"], [], ["Roll", "Text"], ["1+", "x"]]})
    assert run("lint", str(path)).exit_code == 1
    ok(run("lint", "--replace", str(path)))


@pytest.mark.parametrize("clumsy, penalty", [("4.0", "−10"), ("1–4", "–5")])
def test_lenient_numbers(run, write_workbook, clumsy, penalty):
    path = write_workbook("n.xlsx", {
        "W": weapons(["Stick", "Blunt", 100, clumsy, "Impact", None]),
        "F": [["Kind", "fumble"], ["Name", "Oops2"], [], ["Roll", "Text", "Penalty"], ["1+", "x", penalty]],
    })
    ok(run("import", str(path)))
    assert json.loads(run("show", "weapon", "Stick", "--json").stdout)["clumsy"] == 4


def test_unusable_databases_are_one_line_errors(tmp_path, run):
    junk = tmp_path / "junk.db"
    junk.write_text("not a database at all")
    result = run("list", db=junk)
    assert (result.exit_code, result.stderr) == (1, f"Error: {junk}: not a database (file is not a database): a wrong path "
                                                    "or a damaged file; nothing was changed; run: tables db check\n")
    result = run("list", db="mysql://x@localhost/db")
    assert error_lines(result) == ("Error: mysql://x@localhost/db: mysql databases are not supported; give a SQLite file path, "
                                   "sqlite:///PATH or postgresql://USER@HOST/NAME\n")
