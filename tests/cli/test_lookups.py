"""`tables list/show/query` on the bundled tables (docs/cli.md)."""

import json

import pytest

ENTRY_KEYS = {"range", "text", "title", "hits", "bleed", "stun", "penalty", "effects", "condition",
              "must_parry", "no_parry", "attacker_bonus", "death_in", "column",  # printed tables (0005)
              "parry_penalty",  # legends (0006): `(π-10)`
              "states_condition",  # issue 28: the text says its condition itself
              "unread",  # issue 40: the printed pieces not read (0009)
              "effect_words",  # issue 41: the fields above in words, as every face says them
              # issue 41 (0012): the rest of a critical
              "prone", "knocked_out", "blinded", "drops_weapon", "breaks_weapon", "useless_arm", "useless_leg",
              "timed_penalties"}


def as_json(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_list_gives_names_and_provenance(run):
    data = as_json(run("list", "attack", "--json"))
    assert set(data) == {"attack"}
    names = [t["name"] for t in data["attack"]]
    assert {"Edged", "Blunt", "Missile", "Unarmed", "Bolt Spells", "Claws and Teeth"} <= set(names)
    edged = next(t for t in data["attack"] if t["name"] == "Edged")
    assert (edged["workbook"], edged["sheet"], edged["armor"]) == ("bundled/attacks.xlsx", "Edged", ["NA", "LA", "MA", "HA"])


def test_list_everything(run):
    data = as_json(run("list", "--json"))
    assert set(data) == {"attack", "critical", "fumble", "weapons", "creatures", "rulesets"}
    assert len(data["critical"]) >= 6 and len(data["fumble"]) == 2
    assert len(data["weapons"]) >= 20 and len(data["creatures"]) >= 8


def test_list_for_people(run):
    result = run("list", "weapons")
    assert result.exit_code == 0
    assert "Longsword" in result.output and "Weapons (" in result.output


def test_query_attack_contract(run):
    data = as_json(run("query", "attack", "Edged", "120", "MA", "--json"))
    assert set(data) == {"table", "result", "row", "armor", "text", "outcome", "hits", "severity", "critical_table", "ruleset",
                         "criticals", "automatic_miss"}
    assert data["automatic_miss"] == 10  # the bundled tables' (docs/table-system.md, step 7)
    assert data["table"] == "Edged" and data["row"] == "116-120" and data["armor"] == "MA"


def test_query_attack_is_case_insensitive_and_reads_the_top_row_above_the_table(run):
    top = as_json(run("query", "attack", "edged", "175", "na", "--json"))
    above = as_json(run("query", "attack", "EDGED", "400", "NA", "--json"))
    assert above | {"result": 175} == top and top["row"] == "171-175" and top["outcome"] == "critical" and above["result"] == 400


def test_query_attack_names_a_cell_critical_table(run):
    data = as_json(run("show", "attack", "Claws and Teeth", "--json"))
    row, column = next(
        (row, i) for row in data["rows"] for i, text in enumerate(row["cells"]) if text.endswith("Grapple")
    )
    low = int(row["range"].split("-")[0].rstrip("+"))
    cell = as_json(run("query", "attack", "Claws and Teeth", str(low), data["armor"][column], "--json"))
    assert cell["critical_table"] == "Grapple" and cell["outcome"] == "critical"


def test_query_critical_contract_and_severity_modifier(run):
    plain = as_json(run("query", "critical", "Cut", "40", "--json"))
    assert set(plain) == {"table", "roll", "modified_roll", "entry", "branches", "ruleset", "column"}
    assert set(plain["entry"]) == ENTRY_KEYS
    assert (plain["roll"], plain["modified_roll"]) == (40, 40)
    lethal = as_json(run("query", "critical", "Cut", "40", "--severity", "Let", "--json"))
    assert lethal["modified_roll"] == 90  # Let adds +50 (docs/table-system.md, "Severity")
    by_code = as_json(run("query", "critical", "S", "40", "--severity", "lethal", "--json"))
    assert by_code == lethal


def test_query_critical_branches(run):
    data = as_json(run("show", "critical", "Impact", "--json"))
    branch = next(e for e in data["entries"] if e["condition"] == "helm")
    low = int(branch["range"].split("-")[0])
    bare = as_json(run("query", "critical", "Impact", str(low), "--json"))
    helmed = as_json(run("query", "critical", "Impact", str(low), "--has", "helm", "--json"))
    assert bare["entry"]["condition"] == "not helm" and helmed["entry"]["condition"] == "helm"
    assert {b["condition"] for b in bare["branches"]} == {"helm", "not helm"}
    people = run("query", "critical", "Impact", str(low))
    assert "(if helm:" in people.output


def test_query_fumble(run):
    data = as_json(run("query", "fumble", "Melee Fumbles", "99", "--modifier", "25", "--json"))
    assert set(data) == {"table", "roll", "modified_roll", "entry", "ruleset", "column"}
    assert data["modified_roll"] == 124 and data["entry"]["range"] == "121+"


@pytest.mark.parametrize(
    "args, message",
    [
        (["query", "attack", "Nope", "50", "NA"], "Error: no attack table named 'Nope' (see `tables list attack`)\n"),
        (["query", "attack", "Edged", "50", "XX"], "Error: attack table 'Edged' has no armor column 'XX' (columns: NA, LA, MA, HA)\n"),
        (["query", "critical", "Cut", "0"], "Error: roll 0 is not a d100 roll (1-100); modifiers are given separately\n"),
        (["query", "critical", "Cut", "101"], "Error: roll 101 is not a d100 roll (1-100); modifiers are given separately\n"),
        (["query", "critical", "Cut", "50", "--severity", "Huge"], "Error: unknown severity 'Huge' for 'Cut' (severities: Sup (+0), Lig (+10), Mod (+20), Gri (+30), Let (+50))\n"),
        (["query", "fumble", "Nope", "50"], "Error: no fumble table named 'Nope' (see `tables list fumble`)\n"),
        (["show", "weapon", "Nope"], "Error: no weapon named 'Nope' (see `tables list weapons`)\n"),
    ],
)
def test_failed_lookups_exit_1_with_one_line(run, args, message):
    result = run(*args)
    assert result.exit_code == 1
    assert result.stderr == message
    assert result.stdout == ""


def test_bad_usage_is_exit_2(run):
    assert run("query", "attack", "Edged", "many", "NA").exit_code == 2
    assert run("list", "potions").exit_code == 2


def test_show_for_people(run):
    grid = run("show", "attack", "Edged")
    assert grid.exit_code == 0 and "171-175" in grid.output and "HA" in grid.output
    weapon = run("show", "weapon", "Longsword", "--json")
    assert as_json(weapon)["attack_table"] == "Edged"
    creature = as_json(run("show", "creature", "Elder Wyrm", "--json"))
    assert creature["rank"] == "epic"


def test_a_branch_that_says_its_condition_is_not_said_twice(run):
    """Issue 28, item 8: the printed `w/ leg armor: ...` branch not taken is
    shown as its own text, not `(if leg armor: w/ leg armor: ...)`."""
    from tables_app import example_workbook

    assert run("import", str(example_workbook("printed"))).exit_code == 0
    result = run("query", "critical", "Printed:Hacking", "40", "--severity", "D")
    assert result.exit_code == 0, result.output
    assert "(w/ leg armor: Greave takes the stroke" in result.output
    assert "if leg armor" not in result.output
    entry = json.loads(run("query", "critical", "Printed:Hacking", "40", "--severity", "D", "--json").output)
    assert [b["states_condition"] for b in entry["branches"]] == [True, True]


def test_a_branch_whose_text_does_not_say_its_condition_gets_an_if(run, write_workbook):
    path = write_workbook("helm.xlsx", {"Crit": [
        ["Kind", "critical"], ["Name", "Knocks"], [],
        ["Roll", "Condition", "Text", "Hits"],
        ["01-50", "helm", "The blow rings off the helm.", 1], ["01-50", "not helm", "Dazed.", 5],
        ["51+", None, "A clean hit.", 8]]})
    assert run("import", str(path)).exit_code == 0
    result = run("query", "critical", "Knocks", "20", "--severity", "Moderate")
    assert "(if helm: The blow rings off the helm.)" in result.output, result.output


@pytest.fixture
def printed(run):  # type: ignore[no-untyped-def]
    from tables_app import example_workbook

    assert run("import", str(example_workbook("printed"))).exit_code == 0


def test_a_printed_grid_is_compact_with_its_key(run, printed):
    """Issue 28: `18 E Hacking + B Mauling` in every cell made a 363-line grid at 80 columns."""
    result = run("show", "attack", "Printed:Bladework")
    assert "Criticals: S Hacking, K Mauling" in result.output
    assert "18ES+BK" in result.output and "Hacking + B" not in result.output
    full = run("show", "attack", "Printed:Bladework", "--full-names")
    assert "18 E Hacking + B Mauling" in full.output and "Criticals:" not in full.output


def test_compact_text_is_the_printed_notation():
    from tables_app.domain.cells import compact_text

    codes = {"Hacking": "S", "Mauling": "K"}
    assert compact_text("18 E Hacking + B Mauling", codes) == "18ES+BK"
    assert compact_text("12 C", codes) == "12C"  # the weapon's own critical
    assert compact_text("9 B Lightning", codes) == "9B Lightning"  # a table without a code keeps its name
    assert [compact_text(t, codes) for t in ("—", "F", "12", "0")] == ["—", "F", "12", "0"]


def test_show_attack_json_has_compact_cells_and_codes(run, printed):
    data = json.loads(run("show", "attack", "Printed:Bladework", "--json").output)
    assert data["critical_codes"] == {"Hacking": "S", "Mauling": "K"}
    top = data["rows"][-1]
    assert top["cells"][0] == "18 E Hacking + B Mauling" and top["compact"][0] == "18ES+BK"
    plain = json.loads(run("show", "attack", "Edged", "--json").output)  # cells that name no table: as before
    assert "critical_codes" not in plain and all("compact" not in row for row in plain["rows"])


def test_show_attack_armor_chooses_columns_in_order(run, printed):
    data = json.loads(run("show", "attack", "Printed:Bladework", "--armor", "1,20", "--armor", "10", "--json").output)
    assert data["armor"] == ["1", "20", "10"]  # in the order asked, not the table's
    assert json.loads(run("show", "attack", "Edged", "--armor", "LA,la", "--armor", "LA", "--json").output)["armor"] == ["LA"]
    assert all(len(row["cells"]) == 3 == len(row["compact"]) for row in data["rows"])
    whole = json.loads(run("show", "attack", "Printed:Bladework", "--json").output)
    assert [row["cells"][10] for row in whole["rows"]] == [row["cells"][2] for row in data["rows"]]  # column 10
    header = run("show", "attack", "Edged", "--armor", "ma").output.splitlines()[2]
    assert "MA" in header and "NA" not in header and "HA" not in header
    unknown = run("show", "attack", "Edged", "--armor", "XX")
    assert unknown.exit_code == 1 and "has no armor column 'XX' (columns: NA, LA, MA, HA)" in unknown.stderr
    elsewhere = run("show", "weapon", "Longsword", "--armor", "MA")
    assert elsewhere.exit_code == 2 and "--armor chooses the columns of an attack table, not of a weapon" in elsewhere.stderr


def test_show_attack_armor_that_names_no_column_is_a_usage_mistake(run):
    result = run("show", "attack", "Edged", "--armor", ",,,")
    assert result.exit_code == 2 and "--armor ',,,' names no armor column (give codes such as NA)" in result.stderr
    critical = run("show", "critical", "Cut", "--armor", "LA")
    assert "--armor chooses the columns of an attack table, not of a critical table" in critical.stderr
