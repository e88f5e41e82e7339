"""`tables import` and `tables lint`: all or nothing, conflicts, re-imports."""

import json
import sqlite3

from helpers import error_lines, MINI_ATTACK, MINI_CRITICAL, MINI_FUMBLE, MINI_SEVERITIES, MINI_WEAPONS, without_creature_attacks

from tables_app.storage.connection import SCHEMA_HEAD


def as_json(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_a_foreign_workbook_imports_and_every_cell_reads_back(run, mini_workbook):
    result = run("import", str(mini_workbook))
    assert result.exit_code == 0, result.output
    assert "Imported mini.xlsx:" in result.output
    expected = {
        # (result, armor): (text, outcome, hits, severity, critical_table)
        (5, "Cloth"): ("", "miss", 0, None, None),  # 10 or less misses, row 1-10 unread (docs/table-system.md step 7)
        (15, "Cloth"): ("2", "hit", 2, None, None),
        (15, "Plate"): ("—", "miss", 0, None, None),
        (25, "Cloth"): ("5", "hit", 5, None, None),
        (25, "Plate"): ("0", "no_damage", 0, None, None),
        (35, "Cloth"): ("7 A Slash", "critical", 7, "A", "Slash"),
        (35, "Plate"): ("4 A", "critical", 4, "A", None),
        (45, "Cloth"): ("9 C Slash", "critical", 9, "C", "Slash"),
        (45, "Plate"): ("6 B", "critical", 6, "B", None),
    }
    for (value, armor), (text, outcome, hits, severity, critical) in expected.items():
        cell = as_json(run("query", "attack", "Poke", str(value), armor, "--json"))
        assert (cell["text"], cell["outcome"], cell["hits"], cell["severity"], cell["critical_table"]) == (
            text, outcome, hits, severity, critical,
        ), (value, armor)
    slash = as_json(run("show", "critical", "X", "--json"))
    rows = [(e["range"], e["title"], e["hits"], e["bleed"], e["stun"], e["penalty"], e["effects"], e["condition"]) for e in slash["entries"]]
    assert rows == [
        ("1-50", "Nick", 1, 0, 0, 0, [], None),
        ("51-80", "Helm ring", 2, 0, 1, 0, ["dazed"], "helm"),
        ("51-80", "Scalp cut", 4, 2, 1, -10, ["dazed", "bleeding"], "not helm"),
        ("81-110", "Down", 9, 3, 2, -25, ["prone", "drop weapon"], None),
    ]
    # custom severities: `C` adds +10 on this workbook's own scale
    assert as_json(run("query", "critical", "Slash", "95", "--severity", "charlie", "--json"))["modified_roll"] == 105
    needle = as_json(run("show", "weapon", "needle", "--json"))
    assert (needle["clumsy"], needle["critical"], needle["fumble_table"], needle["fumble_modifier"], needle["roll"]) == (3, "Slash", "Oops", -5, "oeh")
    tin = as_json(run("show", "creature", "Tin Man", "--json"))
    assert (tin["defense"], tin["armor"], tin["rank"], tin["hp"], tin["features"]) == (20, "Plate", "heroic", 40, ["helm", "metal armor"])
    listed = as_json(run("list", "attack", "--json"))["attack"]
    assert next(t for t in listed if t["name"] == "Poke")["workbook"] == "mini.xlsx"


def test_provenance_keeps_the_file_hash(run, mini_workbook, db_path):
    import hashlib

    assert run("import", str(mini_workbook)).exit_code == 0
    with sqlite3.connect(db_path) as connection:
        row = connection.execute(
            "SELECT w.file_name, w.sha256, t.sheet, t.source FROM critical_table t JOIN workbook w ON w.id = t.workbook_id WHERE t.name = 'Slash'"
        ).fetchone()
    assert row == ("mini.xlsx", hashlib.sha256(mini_workbook.read_bytes()).hexdigest(), "Slash", "test")


def test_a_broken_workbook_changes_nothing(run, write_workbook, db_path, dump):
    before = dump(db_path)
    broken_attack = [row[:] for row in MINI_ATTACK]
    broken_attack[7] = ["21–30", "five", "0"]
    broken_weapons = [row[:] for row in MINI_WEAPONS]
    broken_weapons[4] = ["Pin", "Poke", 45, 2, "Slash", "Stab", None, None, None]
    path = write_workbook("broken.xlsx", {
        "Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Oops": MINI_FUMBLE,
        "Poke": broken_attack, "Weapons": broken_weapons,
    })
    result = run("import", str(path))
    assert result.exit_code == 1
    assert error_lines(result).splitlines() == [
        "Error: broken.xlsx › Poke › B8: 'five' is not a cell: write a dash, 0, hits (7) or hits and severity (16 Mod)",
        # the weapons naming Poke are no second problem (Poke's own sheet has it); Stab is defined nowhere
        "Error: broken.xlsx › Weapons › F5: unknown critical table 'Stab'",
    ]
    assert "Traceback" not in result.output
    assert dump(db_path) == before


def test_every_workbook_of_one_import_is_all_or_nothing(run, mini_workbook, write_workbook, db_path, dump):
    before = dump(db_path)
    bad = write_workbook("bad.xlsx", {"F": [["Kind", "fumble"], ["Name", "Bad"], [], ["Roll", "Text"], ["2-100", "x"]]})
    result = run("import", str(mini_workbook), str(bad))
    assert result.exit_code == 1
    assert error_lines(result) == "Error: bad.xlsx › F › A5: rows start at 2; they must cover 1 upward\n"
    assert dump(db_path) == before


def test_dry_run_writes_nothing(run, mini_workbook, db_path, dump):
    before = dump(db_path)
    result = run("import", "--dry-run", str(mini_workbook), "--json")
    data = as_json(result)
    assert data["written"] is False and data["workbooks"][0]["defined"]["attack"] == ["Poke"]
    assert dump(db_path) == before


def test_lint_and_import_json_give_problems_as_fields(run, write_workbook, db_path, dump):
    before = dump(db_path)
    bad = write_workbook("bad.xlsx", {"F": [["Kind", "fumble"], ["Name", "Bad"], [], ["Roll", "Text"], ["1-50", "x"], ["40+", "y"]],
                                      "Notes": [["just notes"]]})
    for command in ("lint", "import"):
        result = run(command, "--json", str(bad))
        assert result.exit_code == 1
        data = json.loads(result.stdout)  # one JSON object: the report, with its errors
        assert data["errors"] == [{"workbook": "bad.xlsx", "sheet": "F", "cell": "A6", "message": "1-50 and 40+ overlap (rows A5 and A6)"}]
    good = write_workbook("good.xlsx", {"F": MINI_FUMBLE, "Notes": [["just notes"]]})
    data = as_json(run("lint", "--json", str(good)))
    assert data["workbooks"][0]["warnings"] == [
        {"workbook": "good.xlsx", "sheet": "Notes", "cell": None, "message": "the header block has no Kind: sheet skipped"}]
    assert dump(db_path) == before


def test_workbooks_of_one_import_use_each_other_in_any_order(run, write_workbook, db_path, dump):
    tables = write_workbook("tables.xlsx", {"Oops": MINI_FUMBLE, "Jab": [
        ["Kind", "attack"], ["Name", "Jab"], [], ["Result", "NA"], ["11-50", 2], ["51+", "6 Lig Slash"]]})
    crits = write_workbook("crits.xlsx", {"Slash": [row[:] for row in MINI_CRITICAL[:-1]] + [["81+", "Down", "Down he goes.", 9]]})
    users = write_workbook("weapons.xlsx", {"W": [
        ["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble table"],
        ["Stick", "Jab", 100, 2, "Slash", "Oops"]]})
    before = dump(db_path)
    assert as_json(run("lint", "--json", str(users), str(tables), str(crits)))["errors"] == []
    assert dump(db_path) == before
    result = run("import", str(users), str(tables), str(crits))
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "Imported weapons.xlsx: 1 weapon (Stick)"  # reported in command-line order
    stick = as_json(run("show", "weapon", "Stick", "--json"))
    assert (stick["attack_table"], stick["critical"], stick["fumble_table"]) == ("Jab", "Slash", "Oops")


def test_lint_validates_without_importing(run, mini_workbook, write_workbook, db_path, dump):
    before = dump(db_path)
    assert run("lint", str(mini_workbook)).exit_code == 0
    bad = write_workbook("bad.xlsx", {"F": [["Kind", "fumble"], ["Name", "Bad"], [], ["Roll", "Text"], ["1-50", "x"], ["40+", "y"]]})
    result = run("lint", str(bad))
    assert result.exit_code == 1
    assert error_lines(result) == "Error: bad.xlsx › F › A6: 1-50 and 40+ overlap (rows A5 and A6)\n"
    assert dump(db_path) == before


def test_a_name_owned_by_another_workbook_conflicts_unless_replace(run, write_workbook, dump, db_path):
    path = write_workbook("mine.xlsx", {"Melee": [["Kind", "fumble"], ["Name", "melee fumbles"], [], ["Roll", "Text"], ["1+", "Nothing happens."]]})
    before = dump(db_path)
    result = run("import", str(path))
    assert result.exit_code == 1
    assert error_lines(result) == (
        "Error: mine.xlsx › Melee › B2: fumble table 'melee fumbles' is already defined by workbook bundled/criticals.xlsx "
        "(import with --replace to take it over)\n"
    )
    assert dump(db_path) == before
    assert run("import", "--replace", str(path)).exit_code == 0
    entry = as_json(run("query", "fumble", "Melee Fumbles", "50", "--json"))["entry"]
    assert entry["text"] == "Nothing happens."
    # weapons of the bundled armory still point at the taken-over table
    assert as_json(run("show", "weapon", "Longsword", "--json"))["fumble_table"] == "melee fumbles"


def test_reimport_replaces_and_removes_what_is_gone(run, write_workbook, mini_workbook):
    assert run("import", str(mini_workbook)).exit_code == 0
    open_top = [row[:] for row in MINI_CRITICAL]
    open_top[-1][0] = "81+"  # the default scale needs 1-150 or an open top
    smaller = write_workbook("mini.xlsx", {
        "Slash": open_top,
        "Oops": [["Kind", "fumble"], ["Name", "Oops"], [], ["Roll", "Text"], ["1+", "Changed."]],
    })
    result = run("import", str(smaller), "--json")
    data = as_json(result)
    removed = data["workbooks"][0]["removed"]
    assert removed == {"weapons": ["Needle", "Pin"], "creatures": ["Scarecrow", "Tin Man"], "attack": ["Poke"], "severities": ["Letters"]}
    assert as_json(run("query", "fumble", "Oops", "90", "--json"))["entry"]["text"] == "Changed."
    assert run("query", "attack", "Poke", "20", "Cloth").exit_code == 1


def test_removing_a_table_another_workbook_uses_is_refused(run, write_workbook, db_path, dump):
    tables = write_workbook("tables.xlsx", {"Oops": MINI_FUMBLE})
    assert run("import", str(tables)).exit_code == 0
    weapons = write_workbook("weapons.xlsx", {"W": [
        ["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble table"],
        ["Stick", "Blunt", 100, 2, "Impact", "Oops"]]})
    assert run("import", str(weapons)).exit_code == 0
    before = dump(db_path)
    emptied = write_workbook("tables.xlsx", {"Other": [["Kind", "fumble"], ["Name", "Other"], [], ["Roll", "Text"], ["1+", "x"]]})
    result = run("import", str(emptied))
    assert result.exit_code == 1
    assert error_lines(result) == "Error: tables.xlsx: no longer defines fumble table 'Oops' (still used by weapon Stick); keep it, or change them in the same import\n"
    assert dump(db_path) == before


def test_references_resolve_to_tables_already_in_the_database(run, write_workbook):
    path = write_workbook("w.xlsx", {"W": [
        ["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Secondary critical"],
        ["Shock Rod", "bolt spells", 120, "1-2", "E", "Impact"]]})
    assert run("import", str(path)).exit_code == 0
    rod = as_json(run("show", "weapon", "Shock Rod", "--json"))
    assert (rod["attack_table"], rod["critical"], rod["secondary_critical"]) == ("Bolt Spells", "Lightning", "Impact")


def test_not_a_workbook(run, tmp_path):
    path = tmp_path / "table.xlsx"
    path.write_text("Result,NA\n11-20,5\n")
    result = run("import", str(path))
    assert result.exit_code == 1
    assert error_lines(result) == "Error: table.xlsx: not a spreadsheet workbook (a text file (CSV?)); save it from a spreadsheet program as .xlsx\n"


def test_warnings_do_not_fail(run, write_workbook):
    path = write_workbook("w.xlsx", {"Notes": [["These are my notes"]], "Oops": MINI_FUMBLE})
    result = run("import", str(path))
    assert result.exit_code == 0
    assert "Warning: w.xlsx › Notes: the header block has no Kind: sheet skipped" in result.stderr


def test_a_foreign_sqlite_file_is_refused(tmp_path, run):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE notes (x)")
    result = run("list", db=path)
    assert result.exit_code == 1
    assert error_lines(result) == f"Error: {path} is not a tables_app database (it has no schema version)\n"


def test_db_upgrade_is_idempotent(run):
    first = run("db", "upgrade")
    assert first.exit_code == 0 and f"schema {SCHEMA_HEAD} (newest)" in first.output
    assert run("db", "upgrade").exit_code == 0


def test_a_database_from_an_older_release_is_upgraded_when_opened(run, db_path):
    from tables_app.storage import engine as db

    without_creature_attacks(db_path)
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    db.run_alembic(engine, "downgrade", "0001")
    engine.dispose()
    listed = run("list", "weapons", "--json")
    assert listed.exit_code == 0 and "Longsword" in listed.output
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone() == (SCHEMA_HEAD,)


def test_an_unknown_xml_encoding_is_one_error_line_or_the_json_error(run, tmp_path, db_path):
    """Issue 27: `encoding="bogus-enc"` in styles.xml was a LookupError traceback, and no JSON."""
    from helpers import build_workbook, declaring, rewrite

    source = build_workbook(tmp_path / "book.xlsx", {"S": [[1]]})
    bad = rewrite(source, tmp_path / "bad.xlsx", "xl/styles.xml", declaring("bogus-enc"))
    before = db_path.read_bytes()
    message = ("part xl/styles.xml: the encoding ('bogus-enc') is unknown, unsupported or not the one its bytes are in "
               "(save the workbook from a spreadsheet program)")
    for command in ("import", "lint"):
        plain = run(command, str(bad))
        assert plain.exit_code == 1 and plain.stdout == ""
        assert plain.stderr == f"Error: bad.xlsx: {message}\n"
        printed = run(command, str(bad), "--json")
        assert printed.exit_code == 1
        report = json.loads(printed.stdout)  # the import report, as for every refusal of the guard
        assert report["written"] is False
        assert report["errors"] == [{"workbook": "bad.xlsx", "sheet": None, "cell": None, "message": message}]
    assert db_path.read_bytes() == before
