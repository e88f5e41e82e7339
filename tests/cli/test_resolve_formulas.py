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


# Each worked by hand from docs/formula-systems.md with the EXAMPLES options:
BY_HAND = {
    # d10 10 explodes, 7: 17 + 6 = 23 vs 12, 11 over: one critical, 1 + 1 damage rolls
    # (3 + 4 + 3) + (5 + 6 + 3) = 24
    "rise": ("10,7,3,4,5,6", "critical", 24, {"result": 23, "criticals": 1}),
    # 12 + 2 + 1 + 3 = 18 ≥ 15, natural 12 below the CHA 2 critical range 19-20: a hit of 3 + 5 + 1
    "worlds-awakening": ("12,3,5", "hit", 9, {"natural": 12, "total": 18, "opponent_advantage": False}),
    # attack 1: 10 + 3 = 13 ≥ 7, a critical, its follow-up 5 + 3 = 8 hits; attack 2: 3 + 3 = 6 misses.
    # One chain of 2 hits: 2d6 twice, (6 + 2) + (4 + 1) = 13, 13 // Toughness 4 = 3 wounds
    "d10-pool": ("10,5,3,6,2,4,1", "hit", 13, {"hits": 2, "criticals": 1, "wounds": 3}),
    # natural 20 (always hits, in the default critical range 20): (stat 15 + DB 10) · 2 − DEF 15 = 35
    "pte": ("20", "critical", 35, {"natural": 20, "injuries": 0, "healed": 0}),
}


@pytest.mark.parametrize("system", sorted(EXAMPLES))
def test_given_dice_worked_by_hand(run, system):
    dice, outcome, damage, extras = BY_HAND[system]
    data = resolved(run, system, *EXAMPLES[system], "--dice", dice)
    assert (data["outcome"], data["damage"], data["unused_dice"]) == (outcome, damage, [])
    assert {key: data[key] for key in extras} == extras


def test_a_pte_miss_and_a_rise_glancing_blow_by_hand(run):
    # pte: natural 2 + 2 = 4 against AC 2 + evasion 3 = 5: a miss, no damage
    miss = resolved(run, "pte", *EXAMPLES["pte"], "--dice", "2")
    assert (miss["outcome"], miss["damage"]) == ("miss", 0)
    # rise: 5 + 6 = 11, one short of 12: glancing, (2 + 3 + 3) // 2 = 4
    data = resolved(run, "rise", *EXAMPLES["rise"], "--dice", "5,2,3")
    assert (data["outcome"], data["damage"], data["result"]) == ("glancing", 4, 11)


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
