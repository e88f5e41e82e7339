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
    # 97 opens high, 99 continues, 45 stops: 241; 241 + 60 − 20 = 281, capped at Longsword's Max Result 150
    assert data["roll"] == {"unmodified": 97, "total": 241, "open_ended": [99, 45]}
    assert (data["result"], data["uncapped_result"], data["capped"]) == (150, 281, True)
    # Edged 146-150 MA reads "17 Gri"; Cut at 30 + 30 (Gri) = 60 reads 56-60, +5 hits: 17 + 5 = 22
    assert data["cell"] == {"table": "Edged", "row": "146-150", "armor": "MA", "text": "17 Gri", "hits": 17,
                            "severity": "Gri", "critical_table": None}
    crit = data["critical"]
    assert (crit["table"], crit["severity"], crit["roll"], crit["modified_roll"]) == ("Cut", "Gri", 30, 60)
    assert (crit["entry"]["range"], crit["entry"]["hits"]) == ("56-60", 5)
    assert (data["outcome"], data["damage"]) == ("critical", 22)


def test_a_95_after_an_opening_die_ends_the_chain(run):
    # 97 opens high and 95 is not 96+: the total is 192 and the next die is the critical roll.
    # No Max Result without --max-result: 192 is above Edged's top row, which it reads (171-175 NA: 32 Let);
    # Cut at 40 + 50 (Let) = 90 reads 81-90, +9 hits: 32 + 9 = 41.
    data = resolved(run, "--attack-table", "Edged", "--critical", "Cut", "--cmb", "0", "--armor", "NA", "--dice", "97,95,40")
    assert data["roll"] == {"unmodified": 97, "total": 192, "open_ended": [95]}
    assert (data["result"], data["cell"]["row"], data["cell"]["text"]) == (192, "171-175", "32 Let")
    assert (data["critical"]["roll"], data["critical"]["modified_roll"], data["damage"]) == (40, 90, 41)
    assert data["unused_dice"] == []
    # Opened low: 4 − 95 = −91, and the chain stops there too; −91 + 60 = −31 misses and leaves the 40 over.
    low = resolved(run, "--attack-table", "Edged", "--critical", "Cut", "--cmb", "60", "--armor", "NA", "--dice", "4,95,40")
    assert low["roll"] == {"unmodified": 4, "total": -91, "open_ended": [95]}
    assert (low["result"], low["outcome"], low["unused_dice"]) == (-31, "miss", [40])


def test_the_max_result_caps_after_def(run):
    # 97 + 50 = 147; 147 + 100 − DEF 30 = 217, capped to 150 (Edged 146-150 NA: 27 Let).
    # Capping before DEF would give min(247, 150) − 30 = 120 (116-120: 20 Mod).
    data = resolved(run, "--weapon", "Longsword", "--cmb", "100", "--def", "30", "--armor", "NA", "--dice", "97,50,40")
    assert (data["result"], data["uncapped_result"], data["cell"]["row"], data["cell"]["text"]) == (150, 217, "146-150", "27 Let")
    assert data["damage"] == 27 + 9  # Cut at 40 + 50 = 90: 81-90, +9 hits


def test_a_secondary_critical_after_a_reduction(run):
    # Blunt 156-160 NA reads "27 Let"; heroic lowers it one degree to Gri: Impact at 40 + 30 = 70 (67-75, +7).
    # The secondary is two degrees below the reduced Gri, Lig (not three, Sup): Pierce at 40 + 10 = 50
    # (41-50, +3). Damage 27 + 7 + 3 = 37.
    data = resolved(run, "--attack-table", "Blunt", "--critical", "Impact", "--secondary-critical", "Pierce",
                    "--cmb", "68", "--armor", "NA", "--rank", "heroic", "--dice", "90,40,40")
    assert (data["critical"]["rolled_severity"], data["critical"]["severity"], data["critical"]["modified_roll"]) == ("Let", "Gri", 70)
    secondary = data["secondary_critical"]
    assert (secondary["table"], secondary["severity"], secondary["modified_roll"], secondary["entry"]["hits"]) == ("Pierce", "Lig", 50, 3)
    assert data["damage"] == 37


def test_the_same_seed_gives_the_same_attack_and_its_dice_replay_it(run):
    args = ["--weapon", "Battle Axe", "--cmb", "75", "--target", "Orc Warrior"]
    first = resolved(run, *args, "--seed", "42")
    assert resolved(run, *args, "--seed", "42") == first
    replay = resolved(run, *args, "--dice", ",".join(map(str, first["dice"])))
    for key in ("outcome", "damage", "dice", "steps", "cell", "critical", "fumble"):
        assert replay[key] == first[key]


def test_a_fumble(run):
    # Flail: Clumsy 1-8, Melee Fumbles with a Fumble Modifier of +25: 60 + 25 = 85 reads 76-85 (+2 hits)
    data = resolved(run, "--weapon", "Flail", "--cmb", "80", "--def", "0", "--armor", "NA", "--dice", "2,60")
    assert data["outcome"] == "fumble" and data["cell"] is None and data["damage"] == 0
    fumble = data["fumble"]
    assert (fumble["table"], fumble["roll"], fumble["modified_roll"]) == ("Melee Fumbles", 60, 85)
    assert (fumble["entry"]["range"], fumble["entry"]["title"], fumble["entry"]["hits"]) == ("76-85", "Wrenched wrist", 2)


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
    # The bestiary's Barrow Wight: DEF 30, NA, heroic, undead
    data = resolved(run, "--weapon", "Longsword", "--cmb", "60", "--target", "Barrow Wight", "--dice", "50,50")
    assert (data["attack"]["defense"], data["attack"]["armor"], data["attack"]["rank"]) == (30, "NA", "heroic")
    assert data["attack"]["features"] == ["undead"]
    assert data["result"] == 50 + 60 - 30
    data = resolved(run, "--weapon", "Longsword", "--cmb", "60", "--target", "Barrow Wight", "--def", "5", "--armor", "HA",
                    "--rank", "normal", "--has", "Shield", "--dice", "50,50")
    assert (data["attack"]["defense"], data["attack"]["armor"], data["attack"]["rank"]) == (5, "HA", "normal")
    assert "shield" in data["attack"]["features"]
    assert data["result"] == 50 + 60 - 5


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
    # issue 41: why Sup, when the critical was Mod (step 11: two degrees below)
    assert any(line.startswith("Secondary critical: Sup (2 degrees below the critical's Mod) on Pierce") for line in lines)
    assert lines[-1].startswith("CRITICAL, ") and "Dice: 97, 99, 45, 30, 80 (given)" in lines[-1]


def test_the_json_says_why_a_severity_is_not_the_one_rolled(run):
    """Issue 41: the secondary critical showed `rolled Mod, reduced 0` while giving Sup (the page read
    `rolled_severity` and `reduction`); `severity_why` says why, for every critical."""
    import json

    args = ("resolve", "table", "--weapon", "Morning Star", "--cmb", "60", "--def", "20", "--armor", "HA", "--has", "helm",
            "--dice", "97,99,45,30,80", "--json")
    data = json.loads(run(*args).stdout)
    secondary = data["secondary_critical"]
    assert (secondary["severity"], secondary["rolled_severity"], secondary["reduction"]) == ("Sup", "Mod", 0)
    assert secondary["severity_why"] == "2 degrees below the critical's Mod"
    assert data["critical"]["severity_why"] is None and data["critical"]["severity"] == "Mod"
    heroic = json.loads(run(*args, "--rank", "heroic").stdout)
    assert heroic["critical"]["severity_why"] == f"rolled {heroic['critical']['rolled_severity']}, reduced 1 degree"
    assert heroic["secondary_critical"] is None or heroic["secondary_critical"]["severity_why"].startswith("2 degrees below")
    capped = json.loads(run("resolve", "table", "--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA",
                            "--dice", "97,99,45,30", "--json").stdout)
    assert capped["critical"]["severity_why"] is None  # 17 Gri: the severity rolled
