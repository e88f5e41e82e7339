"""`tables resolve rise|worlds-awakening|d10-pool|pte` (docs/cli.md)."""

import json

import pytest

COMMON = {"system", "outcome", "damage", "dice", "steps"}
EXTRAS = {
    "rise": {"result", "criticals"},
    "worlds-awakening": {"natural", "total", "opponent_advantage"},
    "d10-pool": {"rolls", "hits", "criticals", "wounds", "effects"},
    "pte": {"natural", "injuries", "healed"},
}
EXAMPLES = {
    "rise": ["--accuracy", "6", "--def", "12", "--damage", "2d6+3"],
    "worlds-awakening": ["--stat", "2", "--weapon-bonus", "1", "--level", "3", "--def", "15", "--damage", "2d6+1", "--cha", "2"],
    "d10-pool": ["--bonus", "3", "--attacks", "2", "--ad", "7", "--toughness", "4", "--damage", "2d6"],
    "pte": ["--accuracy", "2", "--ac", "2", "--evasion", "3", "--stat", "15", "--damage-base", "10", "--def", "15"],
}


def resolved(run, system, *args):
    result = run("resolve", system, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("system", sorted(EXAMPLES))
def test_contract_keys_seeds_and_replay(run, system):
    first = resolved(run, system, *EXAMPLES[system], "--seed", "11")
    assert COMMON | EXTRAS[system] <= set(first) and first["system"] == system
    assert resolved(run, system, *EXAMPLES[system], "--seed", "11") == first
    replay = resolved(run, system, *EXAMPLES[system], "--dice", ",".join(map(str, first["dice"])))
    assert {k: v for k, v in replay.items() if k not in ("seed", "unused_dice")} == {
        k: v for k, v in first.items() if k != "seed"
    }


@pytest.mark.parametrize("system", sorted(EXAMPLES))
def test_for_people(run, system):
    result = run("resolve", system, *EXAMPLES[system], "--seed", "5")
    assert result.exit_code == 0, result.output
    assert "Dice: " in result.stdout.splitlines()[-1] and "(seed 5)" in result.stdout


def test_worlds_awakening_critical_needs_no_damage_dice(run):
    data = resolved(run, "worlds-awakening", "--stat", "0", "--def", "10", "--damage", "2d4", "--damage", "2d4", "--dice", "20")
    assert (data["outcome"], data["damage"], data["dice"]) == ("critical", 16, [20])


def test_rise_too_few_dice(run):
    result = run("resolve", "rise", "--accuracy", "5", "--def", "10", "--damage", "2d6", "--dice", "6,3")
    assert result.exit_code == 1
    assert result.stderr == "Error: --dice gave 2 dice; this attack needs 1 more: damage roll (2d6) (d6)\n"


@pytest.mark.parametrize(
    "system, args, message",
    [
        ("rise", ["--accuracy", "1", "--def", "5", "--damage", "2x6"], "'2x6' is not a dice expression"),
        ("rise", ["--accuracy", "1", "--def", "5", "--seed", "1", "--dice", "3"], "give --seed or --dice, not both"),
        ("d10-pool", ["--bonus", "1", "--ad", "5", "--gd", "5", "--toughness", "3", "--damage", "1d6", "--option", "grapple", "--ranged"], "grapple"),
        ("d10-pool", ["--bonus", "1", "--ad", "5", "--toughness", "3", "--damage", "1d6", "--attacks", "-1"], "attack"),
        ("pte", ["--accuracy", "1", "--ac", "2", "--evasion", "1", "--stat", "5", "--damage-base", "5", "--def", "3", "--distance", "5"], "--range"),
        ("worlds-awakening", ["--stat", "1"], "--def is required"),
    ],
)
def test_invalid_combinations_are_usage_errors(run, system, args, message):
    result = run("resolve", system, *args)
    assert result.exit_code == 2
    assert message in result.stderr and "Traceback" not in result.output


def test_help_lists_the_dice_order(run):
    result = run("resolve", "rise", "--help")
    assert "--dice order: the attack die and its explosions" in result.output
