"""Names and rulesets in every command (docs/cli.md, "Names and rulesets"):
RULESET:NAME in any letter case, --ruleset, a plain name in one ruleset,
and a plain name in two (exit 1, the qualified candidates listed).

The database holds the bundled tables (ruleset default) and the RM workbook
of tests/helpers.py (ruleset RM), which reuses the names Longsword, Grapple
and Orc Warrior and the codes S, K, P, G."""

from __future__ import annotations

import json

import pytest

from helpers import build_workbook, error_lines, rm_sheets

from tables_app.domain.rulesets import DEFAULT_RULESET


@pytest.fixture
def rm(run, tmp_path):  # type: ignore[no-untyped-def]
    """The RM workbook, imported beside the bundled tables."""
    path = build_workbook(tmp_path / "rm.xlsx", rm_sheets())
    result = run("import", str(path))
    assert result.exit_code == 0, result.output
    return path


def as_json(run, *args: str) -> dict:  # type: ignore[no-untyped-def]
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def refused(run, *args: str) -> tuple[int, str, dict]:  # type: ignore[no-untyped-def]
    """Exit code, the Error lines, and the JSON error object of a command that fails."""
    text = run(*args)
    data = run(*args, "--json")
    assert data.exit_code == text.exit_code
    return text.exit_code, error_lines(text), json.loads(data.stdout)["error"]


# ---------------------------------------------------------------- one thing, three spellings
# Each command, and the ways to name the same thing: qualified in two letter
# cases, --ruleset, and plain where the name is in one ruleset only. Every
# spelling must give the same JSON, and that JSON is pinned to hand-worked values.
SPELLINGS = {
    "query attack": (["query", "attack", "{}", "130", "7"],
                     [["RM:Broadsword"], ["rm:BROADSWORD"], ["Broadsword", "--ruleset", "rm"], ["Broadsword"]]),
    "query critical": (["query", "critical", "{}", "50", "--severity", "E"],
                       [["RM:Slash"], ["rm:s"], ["S", "--ruleset", "RM"], ["Slash"]]),
    "query fumble": (["query", "fumble", "{}", "50"],
                     [["default:Melee Fumbles"], ["DEFAULT:melee fumbles"], ["Melee Fumbles", "--ruleset", "Default"], ["Melee Fumbles"]]),
    "show attack": (["show", "attack", "{}"], [["RM:Broadsword"], ["rm:broadsword"], ["broadsword", "--ruleset", "RM"], ["Broadsword"]]),
    "show critical": (["show", "critical", "{}"], [["RM:Krush"], ["Rm:k"], ["K", "--ruleset", "rm"], ["Krush"]]),
    "show fumble": (["show", "fumble", "{}"], [["default:Missile Fumbles"], ["DeFault:missile fumbles"], ["Missile Fumbles"]]),
    "show weapon": (["show", "weapon", "{}"], [["RM:Longsword"], ["rm:longsword"], ["Longsword", "--ruleset", "rM"]]),
    "show creature": (["show", "creature", "{}"], [["RM:Orc Warrior"], ["rm:ORC WARRIOR"], ["orc warrior", "--ruleset", "RM"]]),
}
EXPECTED = {
    "query attack": {"table": "Broadsword", "row": "121+", "text": "18 E Slash", "critical_table": "Slash", "ruleset": "RM"},
    "query critical": {"table": "Slash", "modified_roll": 70, "ruleset": "RM"},  # 50 + E's 20
    "query fumble": {"table": "Melee Fumbles", "modified_roll": 50, "ruleset": "default"},
    "show attack": {"table": "Broadsword", "severities": "RM letters", "ruleset": "RM"},
    "show critical": {"table": "Krush", "code": "K", "ruleset": "RM"},
    "show fumble": {"table": "Missile Fumbles", "ruleset": "default"},
    "show weapon": {"name": "Longsword", "attack_table": "Broadsword", "critical": "Slash", "clumsy": 4, "ruleset": "RM"},
    "show creature": {"name": "Orc Warrior", "defense": 25, "armor": "12", "ruleset": "RM"},
}


@pytest.mark.parametrize("command", SPELLINGS)
def test_every_lookup_takes_qualified_scoped_and_unique_plain_names(run, rm, command):
    template, spellings = SPELLINGS[command]
    results = []
    for spelling in spellings:
        at = template.index("{}")
        results.append(as_json(run, *template[:at], spelling[0], *template[at + 1:], *spelling[1:]))
    assert all(r == results[0] for r in results), command
    assert {key: results[0][key] for key in EXPECTED[command]} == EXPECTED[command]


def test_a_qualified_name_wins_over_the_ruleset_option(run, rm):
    assert as_json(run, "show", "attack", "RM:Broadsword", "--ruleset", "default")["ruleset"] == "RM"
    assert as_json(run, "query", "critical", "default:S", "50", "--ruleset", "RM")["table"] == "Cut"
    data = as_json(run, "resolve", "table", "--weapon", "default:Longsword", "--ruleset", "RM", "--cmb", "0", "--armor", "MA",
                   "--dice", "50")
    assert (data["attack"]["ruleset"], data["attack"]["attack_table"]) == ("default", "Edged")


def test_the_critical_entries_read_are_the_rulesets_own(run, rm):
    assert as_json(run, "query", "critical", "RM:S", "50", "--severity", "E")["entry"]["text"] == "A solid slash."
    assert as_json(run, "query", "fumble", "Melee Fumbles", "50")["entry"]["title"] == "Slipping hand"
    assert [e["text"] for e in as_json(run, "show", "critical", "RM:K")["entries"]] == [
        "A glancing blow.", "A solid blow.", "A brutal blow.", "A deadly blow."]


def test_list_takes_a_ruleset_in_any_letter_case(run, rm):
    def names(kind: str, ruleset: str) -> list[tuple[str, str]]:
        return [(i["ruleset"], i["name"]) for i in as_json(run, "list", kind, "--ruleset", ruleset)[kind]]

    assert names("weapons", "rm") == [("RM", "Longsword")]
    assert names("attack", "Rm") == [("RM", "Broadsword")]
    assert names("creatures", "RM") == [("RM", "Orc Warrior")]
    assert names("fumble", "rm") == []
    default_creatures = names("creatures", "DEFAULT")
    assert len(default_creatures) == 13 and ("default", "Orc Warrior") in default_creatures
    assert {r for r, _ in default_creatures} == {"default"}
    assert [r["name"] for r in as_json(run, "list", "rulesets", "--ruleset", "rm")["rulesets"]] == ["RM"]


# ---------------------------------------------------------------- resolve, odds, simulate
# Longsword RM: 90 + CMB 50 = 140, row 121+ `18ES`; Slash E: 70 + 20 = 90, "A brutal slash." (+9)
RM_WEAPON_SPELLINGS = [["--weapon", "RM:Longsword"], ["--weapon", "rm:LONGSWORD"], ["--weapon", "Longsword", "--ruleset", "rm"]]
RM_PART_SPELLINGS = [["--attack-table", "RM:Broadsword", "--critical", "rm:Slash"],
                     ["--attack-table", "rm:broadsword", "--critical", "S"],  # the code is looked up in the attack's ruleset
                     ["--attack-table", "Broadsword", "--critical", "S"],
                     ["--attack-table", "Broadsword", "--critical", "s", "--ruleset", "RM"]]


@pytest.mark.parametrize("spelling", RM_WEAPON_SPELLINGS + RM_PART_SPELLINGS)
def test_resolve_reads_the_rm_weapon_or_parts_however_named(run, rm, spelling):
    data = as_json(run, "resolve", "table", *spelling, "--cmb", "50", "--armor", "7", "--dice", "90,70")
    assert (data["cell"]["text"], data["critical"]["table"], data["critical"]["modified_roll"]) == ("18 E Slash", "Slash", 90)
    assert data["critical"]["entry"]["text"] == "A brutal slash."
    assert data["damage"] == 18 + 9
    assert (data["attack"]["ruleset"], data["attack"]["attack_table"], data["attack"]["target_ruleset"]) == ("RM", "Broadsword", None)


@pytest.mark.parametrize("spelling", RM_WEAPON_SPELLINGS)
def test_odds_read_the_rm_weapon_however_named(run, rm, spelling):
    data = as_json(run, "odds", "table", *spelling, "--cmb", "50", "--armor", "7")
    # Every row from 61 up holds a critical: three 30-point bands of the d100 (clumsy 1-4 fumbles).
    assert data["outcomes"] == {"fumble": 0.04, "miss": 0.0076, "ineffective": 0.0, "no_damage": 0.0, "hit": 0.0524, "critical": 0.9}
    assert data["critical_severity"] == {"A": 0.3, "B": 0.0, "C": 0.3, "D": 0.0, "E": 0.3}  # the RM scale, not the bundled one
    assert (data["attack"]["ruleset"], data["attack"]["attack_table"]) == ("RM", "Broadsword")


def test_simulate_reads_the_rm_weapon_however_named(run, rm):
    runs = [as_json(run, "simulate", "table", *spelling, "--cmb", "50", "--armor", "7", "--count", "2000", "--seed", "5")
            for spelling in RM_WEAPON_SPELLINGS]
    assert runs[1] == runs[0] and runs[2] == runs[0]
    assert (runs[0]["ruleset"], runs[0]["target_ruleset"]) == ("RM", None)
    assert set(runs[0]["critical_severity"]) == {"A", "B", "C", "D", "E"}


@pytest.mark.parametrize("target", [["--target", "Orc Warrior"], ["--target", "rm:orc warrior"], ["--target", "Orc Warrior", "--ruleset", "RM"]])
def test_the_target_is_the_rulesets_creature(run, rm, target):
    weapon = ["--weapon", "RM:Longsword"] if "--ruleset" not in target else ["--weapon", "Longsword"]
    data = as_json(run, "resolve", "table", *weapon, *target, "--cmb", "50", "--dice", "40,50")
    # 40 + 50 - DEF 25 = 65 in column 12: `7AK`, Krush A: 50 + 0 = "A solid blow." (+4)
    assert (data["attack"]["target"], data["attack"]["target_ruleset"], data["attack"]["defense"], data["attack"]["armor"]) == (
        "Orc Warrior", "RM", 25, "12")
    assert (data["cell"]["text"], data["damage"]) == ("7 A Krush", 11)
    odds = as_json(run, "odds", "table", *weapon, *target, "--cmb", "50")
    assert (odds["attack"]["target_ruleset"], odds["attack"]["defense"], odds["attack"]["armor"]) == ("RM", 25, "12")
    simulated = as_json(run, "simulate", "table", *weapon, *target, "--cmb", "50", "--count", "100", "--seed", "1")
    assert (simulated["ruleset"], simulated["target_ruleset"]) == ("RM", "RM")


def test_a_qualified_target_from_another_ruleset_is_the_users_choice(run, rm):
    args = ["resolve", "table", "--weapon", "RM:Longsword", "--target", "default:Orc Warrior", "--cmb", "50", "--dice", "40,50"]
    # the bundled Orc Warrior wears MA, which the RM table has no column for
    code, lines, _ = refused(run, *args)
    assert (code, lines) == (1, "Error: attack table 'Broadsword' has no armor column 'MA' "
                                "(columns: 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)\n")
    data = as_json(run, *args, "--armor", "12")
    # 40 + 50 - the bundled orc's DEF 20 = 70: still `7AK` in column 12
    assert (data["attack"]["ruleset"], data["attack"]["target_ruleset"], data["attack"]["defense"]) == ("RM", "default", 20)
    assert data["attack"]["features"] == ["helm", "metal armor"]
    assert (data["cell"]["text"], data["damage"]) == ("7 A Krush", 11)


@pytest.mark.parametrize("args, message", [
    (["--weapon", "Longsword", "--ruleset", "default", "--critical", "RM:Slash"],
     "--critical 'RM:Slash' is in ruleset 'RM', the attack in 'default': an attack reads the tables of one ruleset"),
    (["--weapon", "RM:Longsword", "--secondary-critical", "default:Cut"],
     "--secondary-critical 'default:Cut' is in ruleset 'default', the attack in 'RM': an attack reads the tables of one ruleset"),
    (["--weapon", "RM:Longsword", "--fumble-table", "default:Melee Fumbles"],
     "--fumble-table 'default:Melee Fumbles' is in ruleset 'default', the attack in 'RM': an attack reads the tables of one ruleset"),
    (["--weapon", "default:Longsword", "--attack-table", "RM:Broadsword"],
     "--attack-table 'RM:Broadsword' is in ruleset 'RM', the attack in 'default': an attack reads the tables of one ruleset"),
    (["--attack-table", "Broadsword", "--critical", "Cut"],  # plain: looked up in the attack's ruleset only
     "no critical table named 'Cut' in ruleset 'RM' (there is default:Cut)"),
])
@pytest.mark.parametrize("command", ["resolve", "odds", "simulate"])
def test_an_attack_reads_the_tables_of_one_ruleset(run, rm, command, args, message):
    code, lines, error = refused(run, command, "table", *args, "--cmb", "50", "--armor", "7")
    assert (code, lines, error["message"]) == (1, f"Error: {message}\n", message)


# ---------------------------------------------------------------- ambiguous names
@pytest.mark.parametrize("args, label, name, candidates", [
    (["resolve", "table", "--weapon", "Longsword", "--cmb", "50", "--armor", "7"], "weapon", "Longsword",
     ["default:Longsword", "RM:Longsword"]),
    (["odds", "table", "--weapon", "longsword", "--cmb", "50", "--armor", "7"], "weapon", "longsword",
     ["default:Longsword", "RM:Longsword"]),
    (["simulate", "table", "--weapon", "Longsword", "--cmb", "50", "--armor", "7", "--seed", "1"], "weapon", "Longsword",
     ["default:Longsword", "RM:Longsword"]),
    (["show", "weapon", "Longsword"], "weapon", "Longsword", ["default:Longsword", "RM:Longsword"]),
    (["query", "critical", "S", "50"], "critical table", "S", ["default:Cut", "RM:Slash"]),
    (["query", "critical", "Grapple", "50"], "critical table", "Grapple", ["default:Grapple", "RM:Grapple"]),
    (["show", "critical", "g"], "critical table", "g", ["default:Grapple", "RM:Grapple"]),
    (["show", "creature", "Orc Warrior"], "creature", "Orc Warrior", ["default:Orc Warrior", "RM:Orc Warrior"]),
])
def test_a_plain_name_in_two_rulesets_lists_the_qualified_candidates(run, rm, args, label, name, candidates):
    code, lines, error = refused(run, *args)
    message = f"{label} {name!r} is in 2 rulesets: {', '.join(candidates)}; write RULESET:NAME or give --ruleset"
    assert (code, lines) == (1, f"Error: {message}\n")
    assert (error["message"], error["suggestions"]) == (message, candidates)


def test_the_bundled_bestiary_has_an_orc_warrior_too(run, rm):
    """(so that the creature case above is a real ambiguity)"""
    assert as_json(run, "show", "creature", "default:Orc Warrior")["defense"] == 20
    assert as_json(run, "show", "creature", "RM:Orc Warrior")["defense"] == 25


# ---------------------------------------------------------------- unknown rulesets and names
@pytest.mark.parametrize("args", [
    ["list", "weapons"], ["show", "weapon", "Longsword"], ["query", "attack", "Edged", "100", "MA"],
    ["query", "critical", "Cut", "50"], ["query", "fumble", "Melee Fumbles", "50"],
    ["resolve", "table", "--weapon", "Dagger", "--cmb", "0", "--armor", "MA", "--seed", "1"],
    ["odds", "table", "--weapon", "Dagger", "--cmb", "0", "--armor", "MA"],
    ["simulate", "table", "--weapon", "Dagger", "--cmb", "0", "--armor", "MA", "--count", "10", "--seed", "1"],
])
def test_an_unknown_ruleset_is_exit_1_with_the_near_names(run, rm, tmp_path, args):
    code, lines, error = refused(run, *args, "--ruleset", "nosuch")
    assert (code, lines) == (1, "Error: no ruleset named 'nosuch' (see `tables list rulesets`)\n")
    code, lines, error = refused(run, *args, "--ruleset", "rmm")
    assert (code, lines, error["suggestions"]) == (1, "Error: no ruleset named 'rmm' — did you mean 'RM'?\n", ["RM"])
    code, lines, error = refused(run, *args, "--ruleset", "defualt")
    assert (code, lines, error["suggestions"]) == (1, "Error: no ruleset named 'defualt' — did you mean 'default'?\n", ["default"])


def test_export_refuses_an_unknown_ruleset(run, rm, tmp_path):
    out = tmp_path / "out.xlsx"
    code, lines, _ = refused(run, "export", "-o", str(out), "--ruleset", "rmm")
    assert (code, lines) == (1, "Error: no ruleset named 'rmm' — did you mean 'RM'?\n")
    assert not out.exists()


@pytest.mark.parametrize("args, message, suggestions", [
    (["query", "attack", "RM:NoSuch", "100", "7"], "no attack table named 'NoSuch' in ruleset 'RM' (see `tables list attack`)", None),
    (["query", "attack", "rm:Brodsword", "100", "7"], "no attack table named 'Brodsword' in ruleset 'RM' — did you mean 'Broadsword'?",
     ["Broadsword"]),
    (["query", "attack", "RM:Edged", "100", "7"], "no attack table named 'Edged' in ruleset 'RM' (there is default:Edged)", ["default:Edged"]),
    (["show", "weapon", "RM:Dagger"], "no weapon named 'Dagger' in ruleset 'RM' (there is default:Dagger)", ["default:Dagger"]),
    (["query", "fumble", "RM:Melee Fumbles", "50"],
     "no fumble table named 'Melee Fumbles' in ruleset 'RM' (there is default:Melee Fumbles)", ["default:Melee Fumbles"]),
    (["show", "creature", "Wolf", "--ruleset", "RM"], "no creature named 'Wolf' in ruleset 'RM' (there is default:Wolf)", ["default:Wolf"]),
    (["query", "attack", "nosuch:Edged", "100", "MA"], "no attack table named 'nosuch:Edged' (see `tables list attack`)", None),
])
def test_a_name_missing_from_its_ruleset_is_not_found_there(run, rm, args, message, suggestions):
    code, lines, error = refused(run, *args)
    assert (code, lines, error.get("suggestions")) == (1, f"Error: {message}\n", suggestions)


def test_a_colon_that_is_not_after_a_ruleset_is_part_of_the_name(run, rm, write_workbook):
    path = write_workbook("arms.xlsx", {"Arms": [["Kind", "attack"], ["Name", "Arms Law: Slash"], [],
                                                 ["Result", "Cloth", "Plate"], ["50+", "9 Mod Cut", "5"], ["11-49", "2", "1"]]})
    assert run("import", str(path)).exit_code == 0
    for spelling in ("Arms Law: Slash", "arms law: SLASH", "default:Arms Law: Slash", "DEFAULT:arms law: slash"):
        data = as_json(run, "query", "attack", spelling, "60", "cloth")
        assert (data["table"], data["text"], data["critical_table"], data["ruleset"]) == ("Arms Law: Slash", "9 Mod Cut", "Cut", "default")
    assert as_json(run, "show", "attack", "Arms Law: Slash")["armor"] == ["Cloth", "Plate"]
    code, lines, error = refused(run, "query", "attack", "RM:Arms Law: Slash", "60", "cloth")
    assert (code, error["suggestions"]) == (1, ["default:Arms Law: Slash"])


# ---------------------------------------------------------------- export
@pytest.mark.parametrize("names", [["RM:Slash"], ["rm:slash"], ["RM:S"], ["Slash", "--ruleset", "rm"]])
def test_export_takes_a_qualified_name(run, rm, tmp_path, names):
    out = tmp_path / "slash.xlsx"
    data = as_json(run, "export", "-o", str(out), *names)
    assert {k: v for k, v in data.items() if k != "file"} == {
        "severities": ["RM:RM letters"], "attack": [], "critical": ["RM:Slash"], "fumble": [], "weapons": [], "creatures": []}
    assert out.is_file()


def test_export_of_a_name_missing_from_its_ruleset(run, rm, tmp_path):
    code, lines, error = refused(run, "export", "-o", str(tmp_path / "x.xlsx"), "RM:Cut")
    assert (code, lines, error["suggestions"]) == (1, "Error: nothing named 'RM:Cut' to export — did you mean 'Cut'?\n", ["Cut"])
    assert not (tmp_path / "x.xlsx").exists()


# ---------------------------------------------------------------- completion
def completions(db_path, args: list[str], incomplete: str) -> list[str]:  # type: ignore[no-untyped-def]
    from click.shell_completion import ShellComplete

    from tables_app.cli.root import cli

    complete = ShellComplete(cli, {}, "tables", "_TABLES_COMPLETE")
    return [item.value for item in complete.get_completions(["--db", str(db_path), *args], incomplete)]


@pytest.mark.parametrize("args, incomplete, expected", [
    # outside default, names are offered qualified, and found by their bare start too
    (["resolve", "table", "--weapon"], "rm:", ["RM:Longsword"]),
    (["query", "attack"], "broad", ["RM:Broadsword"]),
    (["query", "critical"], "RM:s", ["RM:S", "RM:Slash"]),
    # a name in two rulesets is offered qualified in both: a plain one would be ambiguous
    (["resolve", "table", "--weapon"], "long", ["default:Longsword", "Longbow", "RM:Longsword"]),
    (["show", "creature"], "orc", ["default:Orc Warrior", "RM:Orc Warrior"]),
    (["query", "critical"], "g", ["default:G", "default:Grapple", "RM:G", "RM:Grapple"]),
    # a name in one ruleset of default stays plain
    (["show", "weapon"], "warh", ["Warhammer"]),
    (["resolve", "table", "--ruleset"], "", ["default", "RM"]),
    (["list", "weapons", "--ruleset"], "r", ["RM"]),
])
def test_completion_offers_what_a_lookup_finds(db_path, rm, args, incomplete, expected):
    assert completions(db_path, args, incomplete) == expected


def test_every_name_completion_offers_is_found(run, db_path, rm):
    """What completion offers is what a lookup finds: no offer is ambiguous."""
    for kind in ("weapon", "creature", "attack", "critical"):
        for offered in completions(db_path, ["show", kind], ""):
            result = run("show", kind, offered, "--json")
            assert result.exit_code == 0, (kind, offered, result.stderr)


# ---------------------------------------------------------------- for people
def test_listings_name_things_outside_default_qualified(run, rm):
    lines = run("list", "weapons").stdout.splitlines()
    names = [line.split("│")[1].strip() for line in lines if line.startswith("│")]
    assert names.count("RM:Longsword") == 1 and names.count("Longsword") == 1
    assert [n for n in names if ":" in n] == ["RM:Longsword"]
    assert run("show", "weapon", "RM:Longsword").stdout.splitlines()[0] == "RM:Longsword (weapon)"
    assert run("show", "weapon", "default:Longsword").stdout.splitlines()[0] == "Longsword (weapon)"
    assert run("show", "attack", "broadsword").stdout.splitlines()[0] == "RM:Broadsword (attack table)"


def test_the_list_of_everything_shows_rulesets_only_when_there_are_several(run, tmp_path):
    titles = [line for line in run("list").stdout.splitlines() if line.startswith("Rulesets")]
    assert titles == []  # only default: nothing to say
    run("import", str(build_workbook(tmp_path / "rm.xlsx", rm_sheets())))
    lines = run("list").stdout.splitlines()
    assert [line for line in lines if line.startswith("Rulesets")] == ["Rulesets (2)"]
    rows = [line.split("│")[1].strip() for line in lines[lines.index("Rulesets (2)"):] if line.startswith("│")]
    assert rows[:2] == [DEFAULT_RULESET, "RM"]
