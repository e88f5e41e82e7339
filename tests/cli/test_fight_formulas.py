"""A fight's attacks in the four formula systems (docs/fights.md, "Formula systems"):
`fight join --system S --option KEY=VALUE`, the target's side filled from the
fight, the fight's CMB modifiers on the system's bonus, damage to `taken`."""

import json

import pytest

from helpers import error_lines, ok, fight_state

# Each duel: the attacker's options, the target's DEF, the dice and what they make,
# worked by hand from docs/formula-systems.md.
DUELS = {
    # d10 10 explodes, 10 explodes, 3: 23 + accuracy 6 = 29 against DEF 12, 17 over: one
    # critical, two damage rolls (4 + 5 + 3) + (6 + 2 + 3) = 23
    "rise": (["accuracy=6", "damage=2d6+3"], 12, "10,10,3,4,5,6,2", "critical", 23),
    # d20 10 + stat 2 + weapon 1 + level 3 = 16 against DEF 14: a hit, 1d8+2 rolls 5: 7
    "worlds-awakening": (["stat=2", "weapon-bonus=1", "level=3", "damage=1d8+2"], 14, "10,5", "hit", 7),
    # attack 1: 10 + 3 = 13 against AD 8, a critical; its follow-up 4 + 3 = 7 misses;
    # attack 2: 6 + 3 = 9 hits. Chain 1 (one hit) 3 + 4 + 1 = 8, chain 2 (one hit) 2 + 2 + 1 = 5: 13
    "d10-pool": (["bonus=3", "attacks=2", "damage=2d6+1", "toughness=4"], 8, "10,4,6,3,4,2,2", "hit", 13),
    # d20 15 + accuracy 2 = 17 against AC 4 + evasion (DEF) 3 = 7: a hit; stat 13 + DB 8 = 21
    # − def 5 = 16. HP 30 → 14 of 30: massive damage (16 ≥ 15) and the 50% marker: 2 injuries
    "pte": (["accuracy=2", "ac=4", "stat=13", "damage-base=8", "def=5"], 3, "15", "hit", 16),
}
EXTRAS = {
    "rise": {"result": 29, "criticals": 1},
    "worlds-awakening": {"natural": 10, "total": 16, "opponent_advantage": False},
    "d10-pool": {"hits": 2, "criticals": 1, "wounds": 3, "rolled_damage": 13},
    "pte": {"natural": 15, "check": 7, "injuries": 2, "hp_after": 14},
}
# The same attack as `tables resolve SYSTEM` takes it (the target's side as the fight fills it).
RESOLVE = {
    "rise": ["--accuracy", "6", "--damage", "2d6+3", "--def", "12"],
    "worlds-awakening": ["--stat", "2", "--weapon-bonus", "1", "--level", "3", "--damage", "1d8+2", "--def", "14"],
    "d10-pool": ["--bonus", "3", "--attacks", "2", "--damage", "2d6+1", "--toughness", "4", "--ad", "8", "--gd", "8"],
    "pte": ["--accuracy", "2", "--ac", "4", "--stat", "13", "--damage-base", "8", "--def", "5", "--evasion", "3",
            "--max-hp", "30", "--hp", "30"],
}


def data(result):  # type: ignore[no-untyped-def]
    return json.loads(ok(result))


def options(texts):  # type: ignore[no-untyped-def]
    return [arg for text in texts for arg in ("--option", text)]


def duel(run, system, fight="Duel"):  # type: ignore[no-untyped-def]
    given, defense, *_ = DUELS[system]
    ok(run("fight", "new", fight))
    ok(run("fight", "join", fight, "--as", "Hero", "--hits", "40", "--system", system, *options(given)))
    ok(run("fight", "join", fight, "--as", "Orc", "--side", "B", "--hits", "30", "--def", str(defense),
           "--system", system, *options(given)))


def shown(run, fight="Duel"):  # type: ignore[no-untyped-def]
    return data(run("fight", "show", fight, "--json"))


def combatant(state, name):  # type: ignore[no-untyped-def]
    return next(c for c in state["combatants"] if c["name"] == name)


@pytest.mark.parametrize("system", sorted(DUELS))
def test_a_duel_in_each_system(run, system):
    duel(run, system)
    _, defense, dice, outcome, damage = DUELS[system]
    answer = data(run("fight", "attack", "Duel", "Hero", "Orc", "--dice", dice, "--json"))
    attack = answer["attack"]
    assert (attack["system"], attack["outcome"], attack["damage"], attack["dice"]) == \
        (system, outcome, damage, [int(d) for d in dice.split(",")])
    assert {key: attack[key] for key in EXTRAS[system]} == EXTRAS[system]
    orc = combatant(answer["fight"], "Orc")
    assert (orc["taken"], orc["status"]) == (damage, "up")
    # The attacks carry no conditions the fight tracks: damage only.
    assert (orc["bleed"], orc["stun"], orc["no_parry"], orc["must_parry"], orc["penalty"], orc["dying"]) == \
        (0, 0, 0, 0, 0, None)
    assert combatant(answer["fight"], "Hero")["attacks"][0]["system"] == system
    assert combatant(shown(run), "Orc")["taken"] == damage
    # The human account: the system's steps, then what the attack did.
    text = ok(run("fight", "log", "Duel"))
    assert f"Hero attacks Orc with {system}" in text and f"Orc takes {damage} hits (" in text


@pytest.mark.parametrize("system", sorted(DUELS))
def test_the_recorded_account_is_the_systems_resolve_json(run, system):
    duel(run, system)
    dice = DUELS[system][2]
    attack = data(run("fight", "attack", "Duel", "Hero", "Orc", "--dice", dice, "--json"))["attack"]
    alone = data(run("resolve", system, *RESOLVE[system], "--dice", dice, "--json"))
    alone.pop("unused_dice")
    used = attack.pop("options")
    assert attack == alone
    # What the attack was resolved with, by option name (the target's side filled in).
    assert used["def" if system in ("rise", "worlds-awakening") else "ad" if system == "d10-pool" else "evasion"] == \
        DUELS[system][1]
    log = data(run("fight", "log", "Duel", "--json"))["events"]
    recorded = log[-1]
    assert recorded["kind"] == "attack" and recorded["weapon"] == system and recorded["dice"] == alone["dice"]
    assert {k: v for k, v in recorded["resolved"].items() if k != "options"} == alone


@pytest.mark.parametrize("system", sorted(DUELS))
def test_seeded_attacks_are_reproducible(run, system):
    duel(run, system, "One")
    duel(run, system, "Two")
    first = data(run("fight", "attack", "One", "Hero", "Orc", "--seed", "7", "--json"))
    second = data(run("fight", "attack", "Two", "Hero", "Orc", "--seed", "7", "--json"))
    assert first["attack"] == second["attack"] and first["attack"]["seed"] == 7
    assert combatant(first["fight"], "Orc") == combatant(second["fight"], "Orc")
    alone = data(run("resolve", system, *RESOLVE[system], "--seed", "7", "--json"))
    assert {k: v for k, v in first["attack"].items() if k != "options"} == alone


@pytest.mark.parametrize("system", sorted(DUELS))
def test_the_log_replays_through_undo_and_redo(run, system):
    duel(run, system)
    dice = DUELS[system][2]
    ok(run("fight", "attack", "Duel", "Hero", "Orc", "--dice", dice))
    before = shown(run)
    log = data(run("fight", "log", "Duel", "--json"))
    ok(run("fight", "undo", "Duel"))
    assert combatant(shown(run), "Orc")["taken"] == 0
    ok(run("fight", "attack", "Duel", "Hero", "Orc", "--dice", dice))
    assert fight_state(shown(run)) == fight_state(before)
    again = data(run("fight", "log", "Duel", "--json"))
    assert [{k: v for k, v in e.items() if k != "at"} for e in again["events"]] == \
        [{k: v for k, v in e.items() if k != "at"} for e in log["events"]]
    assert combatant(data(run("fight", "show", "Duel", "--at", "2", "--json")), "Orc")["taken"] == 0


def test_the_fights_modifiers_go_to_the_systems_bonus_and_the_targets_parry_to_its_defense(run):
    ok(run("fight", "new", "Duel"))
    ok(run("fight", "join", "Duel", "--as", "Hero", "--hits", "40", "--parry", "3", "--system", "rise",
           "--option", "accuracy=6", "--option", "damage=2d6+3"))
    ok(run("fight", "join", "Duel", "--as", "Orc", "--side", "B", "--hits", "30", "--def", "12", "--parry", "2",
           "--system", "rise", "--option", "accuracy=4", "--option", "damage=1d8"))
    ok(run("fight", "edit", "Duel", "Hero", "--penalty", "-2"))
    # accuracy 6 − parry 3 − penalty 2 + --mod 4 = 5; DEF 12 + parry 2 = 14; d10 8: 13, 1 short: glancing
    answer = data(run("fight", "attack", "Duel", "Hero", "Orc", "--dice", "8,3,4", "--mod", "+4", "--json"))
    attack = answer["attack"]
    assert attack["steps"][0] == "Roll 8 + accuracy 5 = 13 against defense 14."
    assert (attack["outcome"], attack["damage"]) == ("glancing", 5)  # (3 + 4 + 3) halved
    assert attack["options"]["accuracy"] == 5 and attack["options"]["def"] == 14
    event = data(run("fight", "log", "Duel", "--json"))["events"][-1]
    assert (event["cmb"], event["def"]) == (5, 14)
    assert combatant(answer["fight"], "Orc")["taken"] == 5


@pytest.mark.parametrize("system, given, before, after", [
    ("worlds-awakening", ["stat=2", "equipment=1", "damage=1d4"], "+ equipment 1", "- equipment 2"),
    ("d10-pool", ["bonus=3", "damage=1d6", "toughness=3"], "Bonus 3 (bonus)", "Bonus 0 (bonus)"),
    ("pte", ["accuracy=2", "ac=4", "stat=5", "damage-base=2", "def=0"], "+ accuracy 2 ", "+ accuracy -1 "),
])
def test_each_systems_bonus_takes_the_modifiers(run, system, given, before, after):
    ok(run("fight", "new", "Duel"))
    ok(run("fight", "join", "Duel", "--as", "Hero", "--hits", "40", "--system", system, *options(given)))
    ok(run("fight", "join", "Duel", "--as", "Orc", "--side", "B", "--hits", "30", "--system", system, *options(given)))
    plain = data(run("fight", "attack", "Duel", "Hero", "Orc", "--seed", "1", "--json"))["attack"]["steps"][0]
    ok(run("fight", "undo", "Duel"))
    lowered = data(run("fight", "attack", "Duel", "Hero", "Orc", "--seed", "1", "--mod", "-3", "--json"))["attack"]["steps"][0]
    assert before in plain and after in lowered, (plain, lowered)


def test_round_auto_resolves_formula_attacks_in_order(run):
    ok(run("fight", "new", "Duel"))
    ok(run("fight", "join", "Duel", "--as", "Hero", "--hits", "40", "--system", "rise",
           "--option", "accuracy=6", "--option", "damage=2d6+3"))
    ok(run("fight", "join", "Duel", "--as", "Orc", "--side", "B", "--hits", "30", "--def", "12",
           "--system", "worlds-awakening", "--option", "stat=2", "--option", "damage=1d6"))
    # Hero: 7 + 6 = 13 against 12: a hit, 2 + 2 + 3 = 7. Orc: d20 11 + 2 = 13 against DEF 0, 1d6 4.
    answer = data(run("fight", "round", "Duel", "--auto", "--dice", "7,2,2,11,4", "--json"))
    assert [a["damage"] for a in answer["attacks"]] == [7, 4]
    assert (combatant(answer["fight"], "Orc")["taken"], combatant(answer["fight"], "Hero")["taken"]) == (7, 4)
    assert answer["fight"]["round"] == 2


def test_a_critical_failure_and_a_sunder_deal_no_hits(run):
    ok(run("fight", "new", "Duel"))
    ok(run("fight", "join", "Duel", "--as", "Hero", "--hits", "40", "--system", "d10-pool", "--option", "bonus=3",
           "--option", "damage=1d6", "--option", "toughness=3", "--option", "option=sunder"))
    ok(run("fight", "join", "Duel", "--as", "Orc", "--side", "B", "--hits", "30", "--system", "worlds-awakening",
           "--option", "stat=2", "--option", "damage=1d6"))
    # d10 9 + 3 − 1 (melee sunder) = 11 against AD 0: a hit; 1d6 6: 6 // Toughness 5 (the item's) = 1 wound
    sunder = data(run("fight", "attack", "Duel", "Hero", "Orc", "--dice", "9,6", "--json"))
    assert sunder["attack"]["damage"] == 6 and sunder["attack"]["effects"]["item_destroyed"] is True
    assert combatant(sunder["fight"], "Orc")["taken"] == 0  # the item's damage, not its holder's
    failure = data(run("fight", "attack", "Duel", "Orc", "Hero", "--dice", "1", "--json"))
    assert failure["attack"]["opponent_advantage"] is True
    hero = combatant(failure["fight"], "Hero")
    assert (hero["taken"], hero["bonus"]) == (0, 0)


def test_an_absorbed_attack_heals_no_more_than_was_taken(run):
    ok(run("fight", "new", "Duel"))
    ok(run("fight", "join", "Duel", "--as", "Hero", "--hits", "40", "--system", "pte", *options(
        ["accuracy=2", "ac=4", "stat=13", "damage-base=8", "def=5", "absorb"])))
    ok(run("fight", "join", "Duel", "--as", "Orc", "--side", "B", "--hits", "30", "--system", "pte", *options(
        ["accuracy=2", "ac=4", "stat=3", "damage-base=1", "def=0"])))
    ok(run("fight", "edit", "Duel", "Orc", "--taken", "5"))
    answer = data(run("fight", "attack", "Duel", "Hero", "Orc", "--dice", "15", "--json"))
    assert (answer["attack"]["damage"], answer["attack"]["healed"]) == (-16, 16)
    assert combatant(answer["fight"], "Orc")["taken"] == 0
    assert "Orc heals 5 hits (30/30 hits left)." in ok(run("fight", "log", "Duel"))


@pytest.mark.parametrize("system, given, message", [
    ("rise", ["accuracy=200", "damage=1d6"], "rise: --accuracy must be between -100 and 100, not 200"),
    ("rise", ["accuracy=x"], "rise: --option accuracy=x: 'x' is not a whole number"),
    ("rise", ["damage=1d6"], "rise needs --option accuracy=N (Accuracy bonus of the attack.)"),
    ("rise", ["accuracy=1", "damage=2q"], "rise: --damage: '2q' is not a dice expression"),
    ("rise", ["accuracy=1", "speed=3"], "rise has no option 'speed' (its options: accuracy, damage, crit-bonus, "
                                        "multiplier, explode-on)"),
    ("rise", ["accuracy=1", "def=3"], "rise: --option def is the target's DEF in the fight, filled in at each "
                                      "attack: leave it out"),
    ("rise", ["accuracy=1", "accuracy=2"], "rise: --option accuracy given twice"),
    ("worlds-awakening", ["stat=1", "support", "damage=1d6"], "worlds-awakening: a support action is not an attack"),
    ("d10-pool", ["bonus=1", "damage=1d6", "toughness=3", "option=kick"],
     "d10-pool: --option must be one of normal, grapple, disarm, shove, sunder, trip, not 'kick'"),
    ("d10-pool", ["bonus=1", "damage=1d6", "toughness=3", "gd=3"], "d10-pool: --option gd is the target's DEF"),
    ("pte", ["accuracy=1", "ac=2", "stat=3", "damage-base=2", "def=1", "hp=4"], "pte: --option hp is"),
    ("pte", ["accuracy=1", "ac=2", "stat=3", "damage-base=2", "def=1", "stab=maybe"],
     "pte: --option stab=maybe: true or false, not 'maybe'"),
])
def test_bad_options_are_refused_with_the_systems_message(run, system, given, message):
    ok(run("fight", "new", "Duel"))
    result = run("fight", "join", "Duel", "--as", "Hero", "--hits", "40", "--system", system, *options(given))
    assert result.exit_code == 2, result.output
    assert error_lines(result).startswith(f"Error: {message}"), error_lines(result)
    assert shown(run)["combatants"] == []


def test_options_need_a_system_and_a_system_no_weapon(run):
    ok(run("fight", "new", "Duel"))
    alone = run("fight", "join", "Duel", "--as", "Hero", "--hits", "40", "--armor", "MA", "--option", "accuracy=1")
    assert alone.exit_code == 2 and "--option needs --system" in error_lines(alone)
    both = run("fight", "join", "Duel", "--as", "Hero", "--hits", "40", "--armor", "MA", "--weapon", "Longsword",
               "--cmb", "50", "--system", "rise", "--option", "accuracy=1")
    assert both.exit_code == 2 and "not both" in error_lines(both)
    unknown = run("fight", "join", "Duel", "--as", "Hero", "--hits", "40", "--system", "dnd")
    assert unknown.exit_code == 2
    assert shown(run)["combatants"] == []


def test_a_target_outside_the_systems_bounds_is_refused_at_the_attack(run):
    ok(run("fight", "new", "Duel"))
    ok(run("fight", "join", "Duel", "--as", "Hero", "--hits", "40", "--system", "rise", "--option", "accuracy=1"))
    ok(run("fight", "join", "Duel", "--as", "Wall", "--side", "B", "--hits", "30", "--def", "150",
           "--system", "rise", "--option", "accuracy=1"))
    result = run("fight", "attack", "Duel", "Hero", "Wall", "--seed", "1")
    assert result.exit_code == 2
    assert error_lines(result) == "Error: Hero's rise attack on Wall: --def must be between -100 and 100, not 150\n"
    assert shown(run)["seq"] == 2


def test_dice_that_run_out_or_are_left_over_write_nothing(run):
    duel(run, "rise")
    short = run("fight", "attack", "Duel", "Hero", "Orc", "--dice", "10,10")
    assert short.exit_code == 1 and "Hero's attack on Orc needs at least 5 more dice: explosion (d10)" in error_lines(short)
    extra = run("fight", "attack", "Duel", "Hero", "Orc", "--dice", "1,5")
    assert extra.exit_code == 1 and "was not needed (5)" in error_lines(extra)
    assert shown(run)["seq"] == 2


def test_a_creature_joins_with_a_formula_attack_first(run):
    ok(run("fight", "new", "Duel"))
    ok(run("fight", "join", "Duel", "--creature", "Orc Warrior", "--system", "rise", "--option", "accuracy=3",
           "--option", "damage=1d6"))
    orc = shown(run)["combatants"][0]
    assert orc["attacks"][0] == {"weapon": "rise", "cmb": 3, "system": "rise",
                                 "options": {"accuracy": 3, "damage": "1d6"}}
    assert all("system" not in a for a in orc["attacks"][1:])  # the bestiary's attacks, if any, on the tables
    assert "rise 3" in ok(run("fight", "log", "Duel"))


def test_a_table_attack_on_a_combatant_without_armor_says_why(run):
    ok(run("fight", "new", "Mixed"))
    ok(run("fight", "join", "Mixed", "--as", "Hero", "--hits", "30", "--system", "rise", "--option", "accuracy=6",
           "--option", "damage=2d6+3"))
    ok(run("fight", "join", "Mixed", "--as", "Orc", "--side", "B", "--hits", "30", "--def", "12", "--armor", "MA",
           "--weapon", "Longsword", "--cmb", "50"))
    refused = run("fight", "attack", "Mixed", "Orc", "Hero", "--seed", "1")
    assert refused.exit_code == 1
    assert error_lines(refused) == ("Error: Hero has no armor column for an attack on the tables (it joined with "
                                    "--system and no --armor): attack it in a formula system, or join it with --armor\n")
    # The formula attacker meets the table combatant's DEF as any other target's.
    attack = data(run("fight", "attack", "Mixed", "Hero", "Orc", "--dice", "9,1,1", "--json"))["attack"]
    assert attack["steps"][0] == "Roll 9 + accuracy 6 = 15 against defense 12."
    assert attack["damage"] == 5


def test_the_join_offers_every_formula_system():
    from tables_app.domain.fights.formulas import TERMS
    from tables_app.domain.systems import MODULES
    from tables_app.operations.fights import SYSTEMS

    assert set(SYSTEMS) == set(MODULES) == set(TERMS)
