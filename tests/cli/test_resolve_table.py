"""`tables resolve table` (docs/cli.md): options, dice, JSON, errors."""

import json

import pytest

CONTRACT_KEYS = {"system", "outcome", "damage", "dice", "steps", "roll", "result", "capped", "cell", "critical", "secondary_critical", "fumble"}


def resolved(run, *args):
    result = run("resolve", "table", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_contract_shape_and_a_capped_critical(run):
    data = resolved(run, "--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA", "--dice", "97,99,45,30")
    assert CONTRACT_KEYS <= set(data)
    assert data["system"] == "table" and data["dice"] == [97, 99, 45, 30]
    assert data["roll"] == {"unmodified": 97, "total": 241, "open_ended": [99, 45]}
    assert (data["result"], data["capped"]) == (150, True)  # Longsword's Max Result
    assert data["cell"]["row"] == "146-150" and data["cell"]["armor"] == "MA"
    crit = data["critical"]
    assert crit["table"] == "Cut" and crit["roll"] == 30
    assert crit["modified_roll"] == 30 + {"Sup": 0, "Lig": 10, "Mod": 20, "Gri": 30, "Let": 50}[crit["severity"]]
    assert data["damage"] == data["cell"]["hits"] + crit["entry"]["hits"]
    assert data["outcome"] == "critical"


def test_the_same_seed_gives_the_same_attack_and_its_dice_replay_it(run):
    args = ["--weapon", "Battle Axe", "--cmb", "75", "--target", "Orc Warrior"]
    first = resolved(run, *args, "--seed", "42")
    assert resolved(run, *args, "--seed", "42") == first
    replay = resolved(run, *args, "--dice", ",".join(map(str, first["dice"])))
    for key in ("outcome", "damage", "dice", "steps", "cell", "critical", "fumble"):
        assert replay[key] == first[key]


def test_a_fumble(run):
    data = resolved(run, "--weapon", "Flail", "--cmb", "80", "--def", "0", "--armor", "NA", "--dice", "2,60")
    assert data["outcome"] == "fumble" and data["cell"] is None and data["damage"] == 0
    flail = json.loads(run("show", "weapon", "Flail", "--json").stdout)
    assert data["fumble"]["table"] == flail["fumble_table"]
    assert data["fumble"]["modified_roll"] == 60 + flail["fumble_modifier"]


def test_too_few_dice_says_how_many_more_and_for_what(run):
    result = run("resolve", "table", "--weapon", "Morning Star", "--cmb", "100", "--def", "0", "--armor", "NA", "--dice", "90")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: --dice gave 1 die; this attack needs 2 more: critical roll on Impact (d100), "
        "secondary critical roll on Pierce (d100)\n"
    )
    result = run("resolve", "table", "--weapon", "Longsword", "--cmb", "60", "--armor", "NA", "--dice", "97")
    assert result.exit_code == 1
    # the open-ended die decides whether more follow: "at least"
    assert result.stderr == (
        "Error: --dice gave 1 die; this attack needs at least 2 more: open-ended roll, high (d100), critical roll on Cut (d100)\n"
    )


def test_a_die_out_of_range(run):
    result = run("resolve", "table", "--weapon", "Longsword", "--cmb", "60", "--armor", "NA", "--dice", "150")
    assert result.exit_code == 1
    assert result.stderr == "Error: die 1 of --dice is 150, but the attack roll is a d100 (1-100)\n"


def test_extra_dice_are_reported(run):
    result = run("resolve", "table", "--weapon", "Longsword", "--cmb", "0", "--armor", "NA", "--dice", "30,1,2", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["unused_dice"] == [1, 2]
    assert "Warning: 2 of the given dice were not needed: 1, 2" in result.stderr


def test_target_from_the_bestiary_and_explicit_overrides(run):
    wight = json.loads(run("show", "creature", "Barrow Wight", "--json").stdout)
    data = resolved(run, "--weapon", "Longsword", "--cmb", "60", "--target", "Barrow Wight", "--dice", "50,50")
    assert (data["attack"]["defense"], data["attack"]["armor"], data["attack"]["rank"]) == (wight["defense"], wight["armor"], "heroic")
    data = resolved(run, "--weapon", "Longsword", "--cmb", "60", "--target", "Barrow Wight", "--def", "5", "--armor", "HA",
                    "--rank", "normal", "--has", "Shield", "--dice", "50,50")
    assert (data["attack"]["defense"], data["attack"]["armor"], data["attack"]["rank"]) == (5, "HA", "normal")
    assert "shield" in data["attack"]["features"]


def test_weapon_parts_without_a_weapon(run):
    data = resolved(run, "--attack-table", "Blunt", "--critical", "K", "--max-result", "90", "--clumsy", "2",
                    "--cmb", "100", "--armor", "NA", "--dice", "80,10")
    assert data["attack"]["weapon"] == "custom attack" and data["result"] == 90
    assert data["attack"]["critical"] == "Impact"


def test_modifiers_and_ineffective_attacks(run):
    data = resolved(run, "--weapon", "Dagger", "--cmb", "10", "--mod", "wounded=-30", "--mod", "flank=+5",
                    "--armor", "NA", "--dice", "90")
    assert data["attack"]["modifiers"] == {"wounded": -30, "flank": 5} and data["attack"]["effective_cmb"] == -15
    assert data["outcome"] == "ineffective" and data["damage"] == 0


@pytest.mark.parametrize(
    "args, code, message",
    [
        (["--cmb", "50", "--armor", "NA"], 2, "Error: give --weapon, or the weapon's parts (--attack-table and --critical missing)\n"),
        (["--weapon", "Longsword", "--cmb", "50"], 2, "Error: give the target's armor (--armor CODE) or a creature (--target NAME)\n"),
        (["--weapon", "Longsword", "--cmb", "50", "--armor", "XX"], 1, "Error: attack table 'Edged' has no armor column 'XX' (columns: NA, LA, MA, HA)\n"),
        (["--weapon", "Nope", "--cmb", "50", "--armor", "NA"], 1, None),
        (["--weapon", "Longsword", "--cmb", "50", "--armor", "NA", "--mod", "flank10"], 2, None),
        (["--weapon", "Longsword", "--cmb", "50", "--armor", "NA", "--seed", "1", "--dice", "5"], 2, None),
        (["--weapon", "Longsword", "--armor", "NA"], 2, None),
    ],
)
def test_bad_options(run, args, code, message):
    result = run("resolve", "table", *args)
    assert result.exit_code == code
    if message:  # usage mistakes (2) print Click's usage lines first
        assert result.stderr == message if code == 1 else result.stderr.endswith("\n\n" + message)
    assert "Traceback" not in result.output


def test_for_people(run):
    result = run("resolve", "table", "--weapon", "Morning Star", "--cmb", "60", "--def", "20", "--armor", "HA",
                 "--has", "helm", "--dice", "97,99,45,30,80")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Morning Star (Blunt, Max 145")
    assert "Roll 97 + 99 + 45 = 241 (open-ended high)." in lines
    assert any(line.startswith("Secondary critical: Sup on Pierce") for line in lines)
    assert lines[-1].startswith("CRITICAL, ") and "Dice: 97, 99, 45, 30, 80 (given)" in lines[-1]
