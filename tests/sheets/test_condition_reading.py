"""`Conditions | instead` (a sheet's key, or its ruleset sheet's), branches on
several features in a printed cell and in one-column rows, as the import,
the export and the lookups read them (issue 40, items 4-5;
docs/workbook-format.md, "Branches inside a cell" and "ruleset";
docs/table-system.md, step 10).

Every entry here is invented for these tests, worded as Against the
Darkmaster words its criticals, never copied from it.
"""

from __future__ import annotations

import json

import pytest
from helpers import ok, reexported, sheets_of

from tables_app.domain.tables import ConditionReading
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

AFTER = "Slash, +3H, 1∫. If the target has no helm, then +6H, dies in 6 rounds."
ARMOR = ("Foe reels. If the target is wearing metal armor: +3H. If the target's wearing non-metal armor: +5H – 1∑. "
         "If the target is unarmored: +9H – 2∫.")


def dark(conditions: str | None = "instead", **sheets: list) -> dict:
    ruleset = [["Kind", "ruleset"], ["Name", "Dark"], *([["Conditions", conditions]] if conditions else [])]
    book = {
        "Ruleset": ruleset,
        "Sev": [["Kind", "severities"], ["Name", "Dark letters"], [], ["Code", "Name", "Modifier"], ["A", "A", 0], ["B", "B", 5]],
        "Gash": [["Kind", "critical"], ["Name", "Gash"], ["Code", "G"], [], ["Roll", "A", "B"],
                 ["01-50", ARMOR, AFTER],
                 ["51+", "With helm: +1H. If not: as above, and 2∑.", "With helm: +1H. Otherwise: +4H."]],
        "Jab": [["Kind", "fumble"], ["Name", "Jab"], [], ["Roll", "Text"],
                ["1-50", "Slips, +2H. If the target has no helm, then +6H."],
                ["51+", "With helm: +1H. With shield: +2H. Otherwise: +4H."]],
        "Cut": [["Kind", "attack"], ["Name", "Cut"], ["Severities", "Dark letters"], [], ["Result", "AT1"], ["1+", "5 A G"]],
        "Weapons": [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble table"],
                    ["Blade", "Cut", 150, 0, "G", "Jab"]],
    }
    return {**book, **sheets}


def read(write_workbook, sheets: dict):  # type: ignore[no-untyped-def]
    return interpret(read_workbook(write_workbook("dark.xlsx", sheets)))


def hits(entries) -> list:  # type: ignore[no-untyped-def]
    return [(e.condition, e.hits, e.death_in) for e in entries]


# ------------------------------------------------------------------ the key

def test_a_ruleset_sheets_conditions_instead_reads_its_critical_and_fumble_sheets(write_workbook):
    result = read(write_workbook, dark())
    assert result.problems == []
    gash, jab = result.critical_tables[0].value, result.fumble_tables[0].value
    assert (gash.condition_reading, jab.condition_reading) == (ConditionReading.INSTEAD, ConditionReading.INSTEAD)
    # the helmless target takes its sentence's effects in place of those before it; the helmed keep them
    assert hits(gash.row(10, gash.column("B"))[1]) == [("not helm", 6, 6), ("helm", 3, None)]
    assert hits(jab.row(10)[1]) == [("not helm", 6, None), ("helm", 2, None)]


def test_also_is_the_default_and_a_sheets_own_key_decides(write_workbook):
    result = read(write_workbook, dark(conditions=None))
    gash, jab = result.critical_tables[0].value, result.fumble_tables[0].value
    assert (gash.condition_reading, jab.condition_reading) == (ConditionReading.ALSO, ConditionReading.ALSO)
    assert hits(gash.row(10, gash.column("B"))[1]) == [("not helm", 9, 6), ("helm", 3, None)]
    jab_also = [*dark()["Jab"][:2], ["Conditions", "ALSO"], *dark()["Jab"][2:]]  # any letter case
    result = read(write_workbook, dark(Jab=jab_also))
    assert [t.value.condition_reading for t in (*result.critical_tables, *result.fumble_tables)] == [
        ConditionReading.INSTEAD, ConditionReading.ALSO]
    assert hits(result.fumble_tables[0].value.row(10)[1]) == [("not helm", 8, None), ("helm", 2, None)]


def test_a_bad_conditions_value_is_a_located_error_said_once(write_workbook):
    result = read(write_workbook, dark(conditions="sometimes"))
    assert [str(p) for p in result.problems] == ["dark.xlsx › Ruleset › B3: Conditions 'sometimes' must be also or instead"]
    assert result.critical_tables == [] and result.fumble_tables == []
    jab = [*dark()["Jab"][:2], ["Conditions", "rather"], *dark()["Jab"][2:]]
    attack = [*dark()["Cut"][:3], ["Conditions", "instead"], *dark()["Cut"][3:]]
    assert [str(p) for p in read(write_workbook, dark(Jab=jab, Cut=attack)).problems] == [
        "dark.xlsx › Cut › B4: only critical and fumble tables (and a ruleset sheet) have Conditions",
        "dark.xlsx › Jab › B3: Conditions 'rather' must be also or instead"]


def test_export_writes_conditions_instead_and_imports_as_it_was(run, write_workbook, tmp_path):
    ok(run("import", str(write_workbook("dark.xlsx", dark()))))
    shown = json.loads(ok(run("show", "critical", "Dark:Gash", "--json")))
    assert shown["condition_reading"] == "instead"
    assert ok(run("show", "critical", "Dark:Gash")).splitlines()[0] == "Dark:Gash (critical table, code G, conditions read instead)"
    out = tmp_path / "out.xlsx"
    ok(run("export", "-o", str(out), "--ruleset", "Dark"))
    written = sheets_of(out)
    assert ("Conditions", "instead") in [row[:2] for row in written["Gash"]]
    assert ("Conditions", "instead") in [row[:2] for row in written["Jab"]]
    assert ("Conditions", "also") not in [row[:2] for sheet in written.values() for row in sheet]  # the default is not written
    again = reexported(run, out, tmp_path, "Dark")
    assert sheets_of(again) == written
    for kind, name in (("critical", "Dark:Gash"), ("fumble", "Dark:Jab")):
        before = json.loads(ok(run("show", kind, name, "--json")))
        after = json.loads(ok(run("show", kind, name, "--json", db=tmp_path / "fresh.db")))
        assert after == before


def test_a_one_column_range_of_several_features_exports_as_one_text(run, write_workbook, tmp_path):
    # a row each would not read back (`Otherwise: +4H.` alone is a condition no branch reads): one Text, no Condition
    ok(run("import", str(write_workbook("dark.xlsx", dark()))))
    out = tmp_path / "out.xlsx"
    ok(run("export", "-o", str(out), "--ruleset", "Dark"))
    rows = sheets_of(out)["Jab"]
    assert ("51+", None, "With helm: +1H. With shield: +2H. Otherwise: +4H.", None, None, None, None, None, None) in rows
    assert [row[2:4] + row[8:] for row in rows if row[0] == "1-50"] == [  # a feature and its negation: a row each, as before
        ("Slips, +2H. If the target has no helm, then +6H.", 6, "not helm"), ("Slips, +2H.", 2, "helm")]


# ------------------------------------------------------------------ several features

def test_several_features_in_a_printed_cell_import_with_a_branch_for_everyone_else(write_workbook):
    gash = read(write_workbook, dark()).critical_tables[0].value
    assert [(e.condition, e.text, e.hits) for e in gash.row(10, gash.column("A"))[1]] == [
        ("metal armor", "Foe reels. If the target is wearing metal armor: +3H.", 3),
        ("non-metal armor", "Foe reels. If the target's wearing non-metal armor: +5H – 1∑.", 5),
        ("not armored", "Foe reels. If the target is unarmored: +9H – 2∫.", 9),
        (None, "Foe reels.", 0)]
    assert gash.features >= {"metal armor", "non-metal armor", "armored"}


def test_show_names_the_branch_for_everyone_else(run, write_workbook):
    ok(run("import", str(write_workbook("dark.xlsx", dark()))))
    assert "\n  A (otherwise): Foe reels.\n" in ok(run("show", "critical", "Dark:Gash"))
    assert "\n51+ (otherwise)\n  Otherwise: +4H.\n" in ok(run("show", "fumble", "Dark:Jab"))
    query = ok(run("query", "critical", "Dark:Gash", "10", "--severity", "A", "--has", "armored"))
    assert "(if metal armor: Foe reels. If the target is wearing metal armor: +3H.)" in query


@pytest.mark.parametrize("has, text", [
    (["metal armor", "armored"], "Foe reels. If the target is wearing metal armor: +3H."),
    (["non-metal armor", "armored"], "Foe reels. If the target's wearing non-metal armor: +5H – 1∑."),
    ([], "Foe reels. If the target is unarmored: +9H – 2∫."),
    (["armored"], "Foe reels."),
])
def test_query_takes_the_branch_step_10_chooses_and_lists_them_all(run, write_workbook, has, text):
    ok(run("import", str(write_workbook("dark.xlsx", dark()))))
    found = json.loads(ok(run("query", "critical", "Dark:Gash", "10", "--severity", "A", *[f"--has={h}" for h in has], "--json")))
    assert found["entry"]["text"] == text
    assert [b["condition"] for b in found["branches"]] == ["metal armor", "non-metal armor", "not armored", None]


def test_resolve_reports_every_branch_not_taken(run, write_workbook):
    ok(run("import", str(write_workbook("dark.xlsx", dark()))))
    # 50 + 60 = 110 reads `5 A G`; the critical die 10 reads A's 01-50
    data = json.loads(ok(run("resolve", "table", "--weapon", "Dark:Blade", "--cmb", "50", "--armor", "AT1",
                             "--has", "non-metal armor", "--dice", "60,10", "--json")))
    critical = data["critical"]
    assert (critical["entry"]["condition"], critical["entry"]["hits"]) == ("non-metal armor", 5)
    assert critical["other_branch"]["condition"] == "metal armor"
    assert [b["condition"] for b in critical["other_branches"]] == ["metal armor", "not armored", None]
    trace = ok(run("resolve", "table", "--weapon", "Dark:Blade", "--cmb", "50", "--armor", "AT1",
                   "--has", "non-metal armor", "--dice", "60,10"))
    assert "  (if not armored: 1-50, not armored; +9 hits, bleed 2/rnd)\n  (otherwise: 1-50)\n" in trace


ROWS = [["Kind", "critical"], ["Name", "Bolt"], [], ["Roll", "Text", "Hits", "Condition"]]


def test_one_column_rows_on_several_features_and_one_for_everyone_else(write_workbook):
    # docs/workbook-format.md, "critical": a range's rows on distinct features, and one without a Condition
    bolt = [*ROWS, ["1-150", "Pinged.", 1, "metal armor"], ["1-150", "Pierced.", 4, "non-metal armor"],
            ["1-150", "Skewered.", 9, "not armored"], ["1-150", "Grazed.", 2, None]]
    result = read(write_workbook, {"Bolt": bolt})
    assert result.problems == []
    assert hits(result.critical_tables[0].value.row(10)[1]) == [
        ("metal armor", 1, None), ("non-metal armor", 4, None), ("not armored", 9, None), (None, 2, None)]


@pytest.mark.parametrize("rows, message", [
    ([("a", "metal armor"), ("b", "non-metal armor"), ("c", "not armored")],
     "A7: roll 1-150 appears 3 times with 0 rows without a Condition; a range has one row, a feature and its negation, "
     "or up to 6 features and a row without a Condition for every other target"),
    ([("a", "metal armor"), ("b", None), ("c", None)],
     "A7: roll 1-150 appears 3 times with 2 rows without a Condition; a range has one row, a feature and its negation, "
     "or up to 6 features and a row without a Condition for every other target"),
    ([("a", "helm"), ("b", "not helm"), ("c", None)],
     "A7: the branches of 1-150 name feature 'helm' twice ('helm' / 'not helm'); a range has one row, a feature and its "
     "negation, or up to 6 features and a row without a Condition for every other target, each on its own feature"),
    ([(letter, f"gear{letter}") for letter in "abcdefg"] + [("x", None)],
     "A12: roll 1-150 appears 8 times; a range has one row, a feature and its negation, or up to 6 features and a row "
     "without a Condition for every other target"),
])
def test_one_column_rows_that_cover_no_target_are_an_error(write_workbook, rows, message):
    bolt = [*ROWS, *(["1-150", text, 1, condition] for text, condition in rows)]
    assert [str(p) for p in read(write_workbook, {"Bolt": bolt}).problems] == [f"dark.xlsx › Bolt › {message}"]


def test_readings_to_check_are_warnings_on_their_cells(write_workbook):
    # docs/workbook-format.md, "Branches inside a cell": two spellings of one feature paired, and `instead`
    # leaving the effects before a cell's prose conditions to no target, are said on the cell
    gash = [row[:] for row in dark()["Gash"]]
    gash[6] = ["51+", "With chest armor: +2H. If no armor: +6H – 1∫.", "+3H. If helm, 1∑. If not, +6H."]
    result = read(write_workbook, dark(Gash=gash))
    assert result.problems == []
    assert [str(w) for w in result.warnings if "Gash" in str(w)] == [
        "dark.xlsx › Gash › B7: 'If no armor' is read as the negation of 'With chest armor', one feature 'chest armor': "
        "if they are two features, write them as two markers (With X: … With Y: …)",
        "dark.xlsx › Gash › C7: every branch is a condition in prose, read with Conditions 'instead': the effects before "
        "them ('+3H.') go to no target"]


def test_what_instead_replaces_is_not_flagged_as_words_not_read(write_workbook):
    # docs/workbook-format.md, "What is not read": a death, a stun or a parry worded and not read is flagged, in the
    # text a branch's effects were read from; what `instead` replaced was read, for the other targets
    severed = "Limb severed, +15 Damage and Stunned. If the target does not have limbs, then +25 Damage."
    jab = [["Kind", "fumble"], ["Name", "Jab"], [], ["Roll", "Text"], ["1-50", severed], ["51+", "+1 Damage."]]
    result = read(write_workbook, dark(Jab=jab))
    entries = result.fumble_tables[0].value.row(10)[1]
    assert [(e.condition, e.hits, e.stun, e.unread) for e in entries] == [
        ("not limbs", 25, 0, ()), ("limbs", 15, 1, ())]
    assert not [w for w in result.warnings if "Jab" in w.sheet and "not read" in w.message]
