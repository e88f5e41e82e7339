"""Usage mistakes: exit code 2 with Click's usage lines, never a traceback;
with --json, failures are one JSON error object on stdout (docs/cli.md)."""

from __future__ import annotations

import json

import pytest

from tables_app.domain.systems import MODULES, get

# A complete, valid set of options for each formula system; each test below
# leaves one required option out.
VALID = {
    "rise": ["--accuracy", "6", "--def", "12"],
    "worlds-awakening": ["--stat", "2", "--def", "15"],
    "d10-pool": ["--bonus", "3", "--ad", "7", "--toughness", "4", "--damage", "2d6"],
    "pte": ["--accuracy", "2", "--ac", "2", "--evasion", "3", "--stat", "15", "--damage-base", "10", "--def", "15"],
    "table": ["--weapon", "Longsword", "--cmb", "60", "--armor", "MA"],
}
REQUIRED = {
    "rise": ["accuracy", "def"],
    "worlds-awakening": ["stat"],
    "d10-pool": ["bonus", "ad", "toughness", "damage"],
    "pte": ["accuracy", "ac", "evasion", "stat", "damage-base", "def"],
    "table": ["cmb"],
}
EXTRA = {"resolve": ["--seed", "1"], "odds": [], "simulate": ["--count", "10", "--seed", "1"]}
COMMANDS = ("resolve", "odds", "simulate")


def test_the_required_lists_are_every_declared_required_option():
    assert set(MODULES) == set(VALID) - {"table"}
    for system_id in MODULES:
        assert [o.name for o in get(system_id).options if o.required] == REQUIRED[system_id]


def without(args: list[str], name: str) -> list[str]:
    i = args.index(f"--{name}")
    return args[:i] + args[i + 2:]


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("system", sorted(VALID))
def test_the_valid_sets_work(run, command, system):
    result = run(command, system, *VALID[system], *EXTRA[command], "--json")
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)


@pytest.mark.parametrize(
    "command, system, name",
    [(c, s, n) for c in COMMANDS for s in sorted(REQUIRED) for n in REQUIRED[s]],
)
def test_a_missing_required_option_is_a_usage_error(run, command, system, name):
    # Click 8.5 stopped enforcing `required` when default=None is passed explicitly;
    # without this, each case was a TypeError traceback and exit 1.
    result = run(command, system, *without(VALID[system], name), *EXTRA[command])
    assert result.exit_code == 2, result.output
    assert f"Error: Missing option '--{name}'" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    "args, message",
    [
        (["resolve", "table", "--weapon", "Longsword", "--cmb", "50"], "give the target's armor"),
        (["odds", "table", "--weapon", "Longsword", "--cmb", "50"], "give the target's armor"),
        (["simulate", "table", "--weapon", "Longsword", "--cmb", "50", "--count", "10"], "give the target's armor"),
        (["resolve", "table", "--cmb", "50", "--armor", "MA"], "give --weapon, or the weapon's parts"),
        (["resolve", "table", "--attack-table", "Edged", "--cmb", "50", "--armor", "MA"], "(--critical missing)"),
        (["odds", "table", *VALID["table"], "--sweep-cmb", "abc"], "--sweep-cmb 'abc' is not A:B"),
        (["odds", "table", *VALID["table"], "--sweep-cmb", "150:0"], "--sweep-cmb '150:0' is not A:B"),
        (["odds", "table", *VALID["table"], "--sweep-def", "0:10:0"], "--sweep-def '0:10:0' is not A:B"),
        (["resolve", "table", "--weapon", "Longsword", "--cmb", "50", "--armor", ""], "'--armor': must not be empty"),
        (["resolve", "table", "--weapon", "Longsword", "--cmb", "50", "--armor", "  "], "'--armor': must not be empty"),
    ],
)
def test_usage_mistakes_exit_2(run, args, message):
    result = run(*args)
    assert result.exit_code == 2, result.output
    assert message in result.stderr
    assert result.stderr.startswith("Usage: ") and f" {args[0]} {args[1]} [OPTIONS]" in result.stderr.splitlines()[0]  # the command that was run
    assert "Traceback" not in result.output


def test_a_sweep_mistake_is_reported_before_any_lookup(run):
    result = run("odds", "table", "--weapon", "Nope", "--cmb", "0", "--armor", "MA", "--sweep-cmb", "9:1")
    assert result.exit_code == 2 and "--sweep-cmb '9:1'" in result.stderr


@pytest.mark.parametrize("result_text", ["-5", "-150", "5"])
def test_a_negative_result_needs_no_double_dash(run, result_text):
    result = run("query", "attack", "Edged", result_text, "MA", "--json")
    assert result.exit_code == 0, result.output
    cell = json.loads(result.stdout)
    assert cell["outcome"] == "miss" and cell["row"] is None and cell["hits"] == 0


def test_an_unknown_option_after_a_result_is_still_a_usage_error(run):
    result = run("query", "attack", "Edged", "100", "MA", "--jsno")
    assert result.exit_code == 2


# ---------------------------------------------------------------- --json failures
def error_of(result) -> dict:  # type: ignore[no-untyped-def]
    (line,) = result.stdout.splitlines()  # one JSON object, nothing else, on stdout
    return json.loads(line)["error"]


def test_json_failure_of_a_lookup(run):
    result = run("query", "attack", "Nope", "100", "MA", "--json")
    assert result.exit_code == 1
    error = error_of(result)
    assert "no attack table named 'Nope'" in error["message"]
    assert (error["workbook"], error["sheet"], error["cell"]) == (None, None, None)
    assert result.stderr.startswith("Error: ")  # people still read stderr


def test_json_failure_of_a_usage_mistake(run):
    result = run("resolve", "rise", "--accuracy", "3", "--json")
    assert result.exit_code == 2
    assert error_of(result)["message"] == "Missing option '--def' / '--defense'."


def test_json_failure_of_a_workbook_names_its_cell(run, write_workbook):
    path = write_workbook("bad.xlsx", {"Weapons": [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"],
                                                   ["Stick", "Nope", 100, 2, "K"]]})
    result = run("import", str(path), "--json")
    assert result.exit_code == 1
    (line,) = result.stdout.splitlines()
    problem = json.loads(line)["errors"][0]  # the import report, with its errors as fields
    assert problem["workbook"] == "bad.xlsx" and problem["sheet"] == "Weapons" and problem["cell"]


def test_without_json_nothing_goes_to_stdout_on_failure(run):
    result = run("query", "attack", "Nope", "100", "MA")
    assert result.exit_code == 1 and result.stdout == ""


# ---------------------------------------------------------------- names and seeds
@pytest.mark.parametrize("kind", ["weapon", "weapons", "creature", "creatures"])
def test_list_takes_singular_and_plural(run, kind):
    result = run("list", kind, "--json")
    assert result.exit_code == 0
    assert list(json.loads(result.stdout)) == [kind if kind.endswith("s") else kind + "s"]


@pytest.mark.parametrize("kind", ["weapon", "weapons"])
def test_show_takes_singular_and_plural(run, kind):
    assert json.loads(run("show", kind, "Longsword", "--json").stdout)["name"] == "Longsword"


@pytest.mark.parametrize("system", ["table", "rise"])
def test_simulate_draws_a_seed_and_prints_it(run, system):
    first = json.loads(run("simulate", system, *VALID[system], "--count", "50", "--json").stdout)
    second = json.loads(run("simulate", system, *VALID[system], "--count", "50", "--json").stdout)
    assert first["seed"] != second["seed"]  # 2**-32 chance of a false failure
    replay = json.loads(run("simulate", system, *VALID[system], "--count", "50", "--seed", str(first["seed"]), "--json").stdout)
    assert replay["counts"] == first["counts"]
    assert f"seed {first['seed']}" in run("simulate", system, *VALID[system], "--count", "50", "--seed", str(first["seed"])).stdout


def test_defense_keeps_its_old_spelling(run):
    new = run("resolve", "rise", "--accuracy", "6", "--def", "12", "--dice", "5", "--json")
    old = run("resolve", "rise", "--accuracy", "6", "--defense", "12", "--dice", "5", "--json")
    assert new.exit_code == old.exit_code == 0 and json.loads(new.stdout) == json.loads(old.stdout)


def test_pte_damage_base_is_not_the_database_option(run):
    result = run("resolve", "pte", *VALID["pte"], "--dice", "15", "--json")
    assert result.exit_code == 0
    assert "--damage-base" in run("resolve", "pte", "--help").stdout
    assert "--db " not in run("resolve", "pte", "--help").stdout


def test_a_plot_that_is_not_png_is_refused_before_any_work(run, tmp_path):
    result = run("odds", "table", "--weapon", "Nope", "--cmb", "0", "--armor", "MA", "--plot", str(tmp_path / "odds.svg"))
    assert result.exit_code == 2 and "give a file name ending in .png" in result.stderr
    assert not (tmp_path / "odds.svg").exists()


def test_bounds_are_shown_in_help(run):
    assert "(1 to 10)" in run("resolve", "rise", "--help").stdout  # --explode-on


def test_an_attack_without_a_clumsy_range_says_it_never_fumbles(run):
    result = run("resolve", "table", "--attack-table", "Edged", "--critical", "Cut", "--cmb", "50", "--armor", "MA", "--seed", "1")
    assert result.exit_code == 0 and "never fumbles" in result.stdout and "clumsy 1-0" not in result.stdout


def test_a_result_at_or_below_the_automatic_miss_reads_as_a_miss_for_people(run):
    """docs/cli.md, "Reading a table": the bundled tables miss at 10 or less (step 7), and say so."""
    result = run("query", "attack", "Edged", "-5", "MA")
    assert result.exit_code == 0 and result.stdout.strip() == "Edged -5 MA: at or below the automatic miss (10)  (miss)"
    assert run("query", "attack", "Edged", "10", "MA").stdout.strip() == "Edged 10 MA: at or below the automatic miss (10)  (miss)"
    assert run("query", "attack", "Edged", "11", "MA").stdout.strip() != "Edged 11 MA: at or below the automatic miss (10)  (miss)"


# ---------------------------------------------------------------- bounds and odd values
HUGE = "99999999999999999999999"


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--cmb", HUGE, "Invalid value for '--cmb'"),
        ("--def", HUGE, "Invalid value for '--def'"),
        ("--mod", f"x={HUGE}", "a modifier must be between -10000 and 10000"),
        ("--max-result", HUGE, "Invalid value for '--max-result'"),
        ("--fumble-modifier", HUGE, "Invalid value for '--fumble-modifier'"),
        ("--crit-reduction", HUGE, "Invalid value for '--crit-reduction'"),
    ],
)
def test_table_numbers_are_bounded(run, command, option, value, message):
    # simulate used to overflow numpy's int64: a traceback, or silently wrong counts
    args = ["--weapon", "Longsword", "--cmb", "60", "--armor", "MA", option, value]
    result = run(command, "table", *args, *(["--count", "10"] if command == "simulate" else []))
    assert result.exit_code == 2 and message in result.stderr and "Traceback" not in result.output


@pytest.mark.parametrize("command", ["resolve", "simulate"])
def test_a_negative_seed_is_a_usage_error(run, command):
    result = run(command, "table", *VALID["table"], "--seed", "-1")
    assert result.exit_code == 2 and "Invalid value for '--seed'" in result.stderr


def test_the_table_system_takes_defense_too(run):
    new = json.loads(run("resolve", "table", *VALID["table"], "--def", "10", "--seed", "1", "--json").stdout)
    old = json.loads(run("resolve", "table", *VALID["table"], "--defense", "10", "--seed", "1", "--json").stdout)
    assert new == old and new["attack"]["defense"] == 10


def test_the_armor_is_echoed_as_the_table_spells_it(run):
    result = run("resolve", "table", "--weapon", "Longsword", "--cmb", "60", "--armor", "ma", "--seed", "1")
    assert "vs DEF 0, MA" in result.stdout.splitlines()[0]


@pytest.mark.parametrize("args", [["query", "critical", "Cut", "50", "--has", ""], [*["resolve", "table"], *VALID["table"], "--has", " "]])
def test_a_blank_feature_is_a_usage_error(run, args):
    result = run(*args)
    assert result.exit_code == 2 and "'--has': must not be empty" in result.stderr


@pytest.mark.parametrize("command", [["query", "critical", "Impact"], ["query", "fumble", "Melee Fumbles"]])
def test_a_negative_roll_is_a_roll_not_an_option(run, command):
    result = run(*command, "-5")
    assert result.exit_code == 1 and result.stderr == "Error: roll -5 is not a d100 roll (1-100); modifiers are given separately\n"


def test_a_huge_unknown_name_is_not_echoed_whole(run):
    result = run("show", "weapon", "x" * 100_000)
    assert result.exit_code == 1 and len(result.stderr) < 700 and "more characters)" in result.stderr


def test_worlds_awakening_needs_def_unless_support(run):
    for command in COMMANDS:
        result = run(command, "worlds-awakening", "--stat", "2", *EXTRA[command])
        assert result.exit_code == 2 and "--def is required" in result.stderr
        assert run(command, "worlds-awakening", "--stat", "2", "--support", *EXTRA[command]).exit_code == 0


def test_a_misspelt_reference_in_a_workbook_gets_a_suggestion(run, write_workbook):
    path = write_workbook("typo.xlsx", {"Weapons": [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"],
                                                    ["Stick", "Edgd", 100, 2, "Cutt"]]})
    result = run("lint", str(path))
    assert result.exit_code == 1
    assert "unknown attack table 'Edgd' — did you mean 'Edged'?" in result.stderr
    assert "unknown critical table 'Cutt' — did you mean 'Cut'?" in result.stderr


def test_a_swapped_reference_in_a_workbook_gets_a_suggestion(run, write_workbook):
    """Typos are mostly swaps (issue 28, item 9): every reference of a weapons sheet."""
    path = write_workbook("swap.xlsx", {"Weapons": [
        ["Kind", "weapons"], [],
        ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Secondary critical", "Fumble table"],
        ["Stick", "Egded", 100, 2, "Impcat", "Ctu", "Mlee Fumbles"]]})
    result = run("lint", str(path))
    assert result.exit_code == 1
    for typed, meant, what in [("Egded", "Edged", "attack table"), ("Impcat", "Impact", "critical table"),
                               ("Ctu", "Cut", "critical table"), ("Mlee Fumbles", "Melee Fumbles", "fumble table")]:
        assert f"unknown {what} '{typed}' — did you mean '{meant}'" in result.stderr, (typed, result.stderr)


def test_export_of_a_misspelt_name_gets_a_suggestion(run, tmp_path):
    result = run("export", "-o", str(tmp_path / "x.xlsx"), "Longswrd")
    assert result.exit_code == 1 and result.stderr == "Error: nothing named 'Longswrd' to export — did you mean 'Longsword'?\n"


@pytest.mark.parametrize("args, message", [
    (["query", "attack", "Edged", HUGE, "MA"], "Invalid value for 'RESULT'"),
    (["query", "fumble", "Melee Fumbles", "50", "--modifier", HUGE], "Invalid value for '--modifier'"),
    (["query", "fumble", "Melee Fumbles", "50", "--modifier", "-1001"], "Invalid value for '--modifier'"),
])
def test_query_numbers_are_bounded(run, args, message):
    result = run(*args)
    assert result.exit_code == 2 and message in result.stderr


def test_a_blank_ruleset_is_a_usage_error(run):
    result = run("list", "--ruleset", " ")
    assert result.exit_code == 2 and "'--ruleset': must not be empty" in result.stderr
