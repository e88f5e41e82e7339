"""Every command finds a name in any letter case and Unicode compatibility
form (domain/names.py); unknown names get near-name suggestions; a --has
feature no table asks about is a warning."""

import json

import pytest

from helpers import error_lines

D = "\u0308"  # combining diaeresis: "a" + D is canonically "ä"

SEVERITIES = [
    ["Kind", "severities"], ["Name", "Stufen"], [],
    ["Code", "Name", "Modifier"], ["Ä", "Ärger", 0], ["Ö", "Öde", 5], ["Ü", "Übel", 10],
]
CRITICAL = [
    ["Kind", "critical"], ["Name", "Schnitt Ærø"], ["Code", "Ž"], [],
    ["Roll", "Text", "Hits", "Condition"],
    ["01-50", "Ein Kratzer.", 1, None],
    ["51-80", "Das Band hält.", 2, "Stirnbänd"],
    ["51-80", "Die Stirn blutet.", 5, "not Stirnbänd"],
    ["81-110", "Umgefallen.", 9, None],
]
FUMBLE = [  # ﬀ: the ligature; the importer stores NFKC, "Fehlgriff"
    ["Kind", "fumble"], ["Name", "Fehlgriﬀ"], [],
    ["Roll", "Text", "Hits"], ["1-60", "Gestolpert.", 0], ["61+", "Hingefallen.", 2],
]
ATTACK = [
    ["Kind", "attack"], ["Name", "Épée Ñ"], [],
    ["Result", "Ärmor", "Plate"],
    ["41+", "9 Ü Ž", "6 Ö"],
    ["11-40", "3", "0"],
    ["1-10", "-", "-"],
]
WEAPONS = [
    ["Kind", "weapons"], [],
    ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble table", "Roll"],
    ["Zweihänder Ærø", "épée ñ", 60, 2, "ž", "FEHLGRIFF", "d100"],
]
CREATURES = [
    ["Kind", "creatures"], [],
    ["Name", "DEF", "Armor", "Rank", "Features"],
    ["Ödön der Große", 10, "Ärmor", "normal", "Stirnbänd"],
]


@pytest.fixture
def unicode_db(run, write_workbook):  # type: ignore[no-untyped-def]
    path = write_workbook("unicode.xlsx", {"Severities": SEVERITIES, "Schnitt": CRITICAL, "Fehlgriff": FUMBLE,
                                           "Epee": ATTACK, "Weapons": WEAPONS, "Creatures": CREATURES})
    result = run("import", str(path))
    assert result.exit_code == 0, result.output
    return run


def as_json(result):  # type: ignore[no-untyped-def]
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


WEAPON_SPELLINGS = ["zweihänder ærø", "ZWEIHÄNDER ÆRØ", f"Zweiha{D}nder Ærø", "zweihänder  ærø"]
ATTACK_SPELLINGS = ["épée ñ", "ÉPÉE Ñ", "E\u0301pe\u0301e N\u0303"]
CREATURE_SPELLINGS = ["ödön der große", "ÖDÖN DER GROSSE", f"O{D}do{D}n der Große"]


@pytest.mark.parametrize("name", WEAPON_SPELLINGS)
def test_show_weapon(unicode_db, name):
    assert as_json(unicode_db("show", "weapon", name, "--json"))["name"] == "Zweihänder Ærø"


@pytest.mark.parametrize("name", CREATURE_SPELLINGS)
def test_show_creature(unicode_db, name):
    assert as_json(unicode_db("show", "creature", name, "--json"))["name"] == "Ödön der Große"


@pytest.mark.parametrize("name", ATTACK_SPELLINGS)
def test_show_and_query_an_attack_table(unicode_db, name):
    assert as_json(unicode_db("show", "attack", name, "--json"))["table"] == "Épée Ñ"
    cell = as_json(unicode_db("query", "attack", name, "45", f"A{D}RMOR", "--json"))
    assert (cell["table"], cell["armor"], cell["text"]) == ("Épée Ñ", "Ärmor", "9 Ü Schnitt Ærø")


@pytest.mark.parametrize("name", ["ž", "Ž", "schnitt ærø", "SCHNITT ÆRØ"])
def test_show_and_query_a_critical_table_by_name_or_code(unicode_db, name):
    assert as_json(unicode_db("show", "critical", name, "--json"))["table"] == "Schnitt Ærø"
    found = as_json(unicode_db("query", "critical", name, "55", "--severity", "übel", "--has", f"STIRNBA{D}ND", "--json"))
    assert (found["table"], found["modified_roll"], found["entry"]["text"]) == ("Schnitt Ærø", 65, "Das Band hält.")
    assert "warnings" not in found


@pytest.mark.parametrize("name", ["fehlgriff", "FEHLGRIﬀ"])
def test_show_and_query_a_fumble_table_named_with_a_ligature(unicode_db, name):
    assert as_json(unicode_db("show", "fumble", name, "--json"))["table"] == "Fehlgriff"
    assert as_json(unicode_db("query", "fumble", name, "70", "--json"))["entry"]["text"] == "Hingefallen."


@pytest.mark.parametrize("weapon, target", list(zip(WEAPON_SPELLINGS, CREATURE_SPELLINGS + CREATURE_SPELLINGS[:1])))
def test_resolve_odds_and_simulate_with_a_weapon_and_a_target(unicode_db, weapon, target):
    attack = ["--weapon", weapon, "--target", target, "--cmb", "60"]
    resolved = as_json(unicode_db("resolve", "table", *attack, "--dice", "50,60", "--json"))
    assert (resolved["attack"]["weapon"], resolved["attack"]["armor"], resolved["cell"]["text"]) == ("Zweihänder Ærø", "Ärmor", "9 Ü Schnitt Ærø")
    # 60 + Ü (+10) = 70: the branch of the creature's own feature
    assert resolved["attack"]["features"] == ["stirnbänd"] and resolved["critical"]["entry"]["text"] == "Das Band hält."
    odds = as_json(unicode_db("odds", "table", *attack, "--json"))
    assert odds["attack"]["weapon"] == "Zweihänder Ærø" and abs(sum(odds["outcomes"].values()) - 1) < 1e-9
    simulated = as_json(unicode_db("simulate", "table", *attack, "--count", "100", "--json"))
    assert simulated["count"] == 100 and "warnings" not in simulated


@pytest.mark.parametrize("attack_table", ATTACK_SPELLINGS)
def test_resolve_with_the_weapons_parts(unicode_db, attack_table):
    resolved = as_json(unicode_db("resolve", "table", "--attack-table", attack_table, "--critical", "SCHNITT ÆRØ",
                                  "--fumble-table", "FEHLGRIﬀ", "--armor", "plate", "--cmb", "25", "--dice", "20,50", "--json"))
    assert (resolved["attack"]["attack_table"], resolved["attack"]["critical"], resolved["attack"]["fumble_table"]) == (
        "Épée Ñ", "Schnitt Ærø", "Fehlgriff")
    # 20 + 25 = 45 reads 41+ on Plate: "6 Ö", a critical on the weapon's table
    assert resolved["cell"]["text"] == "6 Ö" and resolved["critical"]["table"] == "Schnitt Ærø"


@pytest.mark.parametrize(
    "args, message",
    [
        (["query", "attack", "Edgd", "50", "NA"], "Error: no attack table named 'Edgd' — did you mean 'Edged'?\n"),
        (["query", "attack", "Edged", "50", "MAA"], "Error: attack table 'Edged' has no armor column 'MAA' — did you mean 'MA'?\n"),
        (["query", "critical", "Cutt", "50"], "Error: no critical table named 'Cutt' — did you mean 'Cut'?\n"),
        (["query", "critical", "Cut", "50", "--severity", "Mdo"], "Error: unknown severity 'Mdo' for 'Cut' — did you mean 'Mod'?\n"),
        (["query", "fumble", "Mele Fumbles", "50"], "Error: no fumble table named 'Mele Fumbles' — did you mean 'Melee Fumbles'?\n"),
        (["show", "weapon", "Longswrd"], "Error: no weapon named 'Longswrd' — did you mean 'Longsword'?\n"),
        (["show", "creature", "Xyzzy"], "Error: no creature named 'Xyzzy' (see `tables list creatures`)\n"),
        (["resolve", "table", "--weapon", "Longswrd", "--cmb", "50", "--armor", "NA"],
         "Error: no weapon named 'Longswrd' — did you mean 'Longsword'?\n"),
    ],
)
def test_unknown_names_get_near_names_in_one_line(run, args, message):
    result = run(*args)
    assert (result.exit_code, result.stderr, result.stdout) == (1, message, "")


def test_unknown_unicode_names_get_near_names_too(unicode_db):
    result = unicode_db("show", "weapon", "Zweihander Aero")
    assert result.exit_code == 1 and result.stderr == "Error: no weapon named 'Zweihander Aero' — did you mean 'Zweihänder Ærø'?\n"
    result = unicode_db("query", "attack", "Épée Ñ", "50", "Armor")
    assert result.stderr == "Error: attack table 'Épée Ñ' has no armor column 'Armor' — did you mean 'Ärmor'?\n"


def test_a_target_not_in_the_bestiary_gets_near_names(run):
    names = [c["name"] for c in as_json(run("list", "creatures", "--json"))["creatures"]]
    misspelt = names[0][:-1] + "x"
    result = run("resolve", "table", "--weapon", "Longsword", "--cmb", "50", "--target", misspelt)
    assert result.exit_code == 1 and f"did you mean {names[0]!r}" in result.stderr


def test_the_json_error_object_carries_the_suggestions(run):
    result = run("show", "weapon", "Longswrd", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["suggestions"] == ["Longsword"]


HAS_HLEM = ["--weapon", "Longsword", "--cmb", "50", "--armor", "NA", "--has", "hlem"]
HLEM_WARNING = "Warning: feature 'hlem' changes nothing: no branch of critical table 'Cut' asks about it — did you mean 'helm'?"


@pytest.mark.parametrize("command", [["resolve", "table", "--seed", "1"], ["odds", "table"], ["simulate", "table", "--count", "100"]])
def test_a_has_feature_no_table_knows_is_a_warning(run, command):
    result = run(*command, *HAS_HLEM, "--json")
    assert result.exit_code == 0, result.output
    (warning,) = [line for line in result.stderr.splitlines() if "hlem" in line]
    assert warning.startswith(HLEM_WARNING) and "known features: helm" in warning
    assert json.loads(result.stdout)["warnings"] == [warning.removeprefix("Warning: ")]
    known = run(*command, *HAS_HLEM[:-1], "HELM", "--json")
    assert known.exit_code == 0 and "Warning" not in known.stderr


def test_a_sweep_warns_of_an_unknown_feature_too(run):
    result = run("odds", "table", *HAS_HLEM, "--sweep-cmb", "10:20:10", "--json")
    assert result.exit_code == 0 and HLEM_WARNING in result.stderr


def test_query_critical_warns_of_an_unknown_feature(run):
    result = run("query", "critical", "Cut", "60", "--has", "hlem", "--json")
    assert result.exit_code == 0 and result.stderr.startswith(HLEM_WARNING)
    assert error_lines(result) == ""
