"""The game master's everyday moves (docs/fights.md, "By hand" and
"Combatants"): an attack on an ally, a combatant without attacks, names
that resolve or say what was meant, one undo a command, relative changes
(adjust, heal, damage), DEF, parry, CMB and the weapon changed mid-fight,
a combatant who leaves, reinforcements after the end."""

from __future__ import annotations

import json
from typing import Any

from helpers import fight_state

import pytest

FIGHT = "Moves"
ARIA = ("--as", "Aria", "--hits", "50", "--def", "20", "--armor", "MA", "--parry", "10", "--weapon", "Longsword",
        "--cmb", "60")
BORIN = ("--as", "Borin", "--hits", "40", "--armor", "MA", "--weapon", "Dagger", "--cmb", "40")
ORC = ("--as", "Orc", "--side", "B", "--hits", "60", "--def", "20", "--armor", "MA", "--weapon", "Scimitar", "--cmb", "55")
DOOR = ("--as", "Door", "--side", "B", "--hits", "30", "--armor", "MA")


@pytest.fixture
def moves(run):  # type: ignore[no-untyped-def]
    """Aria and Borin (side A) against an Orc (side B)."""
    assert run("fight", "new", FIGHT).exit_code == 0
    for joining in (ARIA, BORIN, ORC):
        assert run("fight", "join", FIGHT, *joining).exit_code == 0
    return run


def ok(result: Any) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def shown(run: Any) -> dict[str, Any]:
    return ok(run("fight", "show", FIGHT, "--json"))


def who(data: dict[str, Any], name: str) -> dict[str, Any]:
    fight = data["fight"] if isinstance(data["fight"], dict) else data  # a step's, or show's
    return next(c for c in fight["combatants"] if c["name"] == name)


def refused(run: Any, *args: str, code: int = 1) -> str:
    """The one `Error:` line of a refused command, which wrote nothing."""
    before = shown(run)
    result = run(*args)
    assert result.exit_code == code, result.output
    assert shown(run) == before
    line: str = result.stderr.splitlines()[-1]
    return line


# ------------------------------------------------------------------ 1. an attack on an ally
def test_an_attack_on_an_ally_is_allowed_and_said(moves):  # type: ignore[no-untyped-def]
    data = ok(moves("fight", "attack", FIGHT, "Aria", "Borin", "--dice", "30", "--json"))
    assert "Aria attacks an ally, Borin, with Longsword: CMB 50 against DEF 0." in data["account"]
    assert who(data, "Borin")["taken"] == data["attack"]["damage"] > 0
    foe = ok(moves("fight", "attack", FIGHT, "Orc", "Aria", "--dice", "50", "--json"))
    assert foe["account"][0] == "Orc attacks Aria with Scimitar: CMB 55 against DEF 30."


# ------------------------------------------------------------------ 2. a combatant without attacks
def test_one_without_attacks_joins_is_attacked_and_never_attacks(moves):  # type: ignore[no-untyped-def]
    joined = ok(moves("fight", "join", FIGHT, *DOOR, "--json"))
    assert joined["account"] == ["Door joins side B: 30 hits, DEF 0, armor MA.",
                                 "Door has no attack: it is attacked, never attacks."]
    door = who(joined, "Door")
    assert (door["attacks"], door["cannot_attack"]) == ([], "has no attack")
    assert refused(moves, "fight", "attack", FIGHT, "Door", "Aria", "--dice", "50") == \
        "Error: Door cannot attack: it has no attack"
    assert ok(moves("fight", "attack", FIGHT, "Aria", "Door", "--dice", "30", "--json"))["attack"]["damage"] > 0
    played = ok(moves("fight", "round", FIGHT, "--auto", "--dice", "50,50", "--json"))  # Borin, Orc; never the Door
    assert [(a["attack"]["weapon"], a["attack"]["target"]) for a in played["attacks"]] == [
        ("Dagger", "Orc"), ("Scimitar", "Aria")]
    assert "Door did not attack: it has no attack." in played["account"]  # not "no attack was made"


def test_the_odds_and_the_simulation_of_a_fight_skip_one_without_attacks(run):  # type: ignore[no-untyped-def]
    run("fight", "new", FIGHT)
    run("fight", "join", FIGHT, "--as", "Hero", "--hits", "3", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")
    run("fight", "join", FIGHT, "--as", "Captive", "--side", "B", "--hits", "3", "--armor", "MA")
    # (that the Captive's turn deals nothing: tests/domain/fights/test_fight_moves_rules.py)
    for command in (("odds", "fight", FIGHT, "--exact", "--rounds", "3"),
                    ("simulate", "fight", FIGHT, "--rounds", "3", "--count", "500", "--seed", "1")):
        last = ok(run(*command, "--json"))["rounds"][-1]
        captive = last["combatants"]["Captive"]
        assert last["sides"]["A"] == captive["down"] + captive["dead"] > 0.5, command
        assert last["sides"]["B"] < 0.01, command  # Hero goes down by its own fumbles only


# ------------------------------------------------------------------ 3. names
@pytest.mark.parametrize("args", [
    ("attack", FIGHT, "Aira", "Orc", "--dice", "50"), ("attack", FIGHT, "Orc", "Aira", "--dice", "50"),
    ("edit", FIGHT, "Aira", "--stun", "1"), ("adjust", FIGHT, "Aira", "--heal", "1"), ("heal", FIGHT, "Aira", "1"),
    ("damage", FIGHT, "Aira", "1"), ("leave", FIGHT, "Aira"),
])
def test_a_misspelt_combatant_is_told_the_name_it_may_mean(moves, args):  # type: ignore[no-untyped-def]
    assert refused(moves, "fight", *args) == "Error: no combatant named 'Aira' in the fight — did you mean 'Aria'?"


def test_a_name_near_none_lists_the_combatants(moves):  # type: ignore[no-untyped-def]
    assert refused(moves, "fight", "edit", FIGHT, "Xyzzy", "--stun", "1") == \
        "Error: no combatant named 'Xyzzy' in the fight (its combatants: Aria, Borin, Orc)"


def test_a_creatures_name_is_its_only_copy_and_two_copies_are_listed(moves):  # type: ignore[no-untyped-def]
    moves("fight", "join", FIGHT, "--creature", "Wolf")
    data = ok(moves("fight", "attack", FIGHT, "Aria", "wolf", "--dice", "40", "--json"))
    assert data["attack"]["attack"]["target"] == "Wolf #1" and data["account"][0].startswith("Aria attacks Wolf #1 ")
    assert ok(moves("fight", "heal", FIGHT, "Wolf", "1", "--json"))["account"][0].startswith("Wolf #1 ")
    moves("fight", "join", FIGHT, "--creature", "Wolf")
    result = moves("fight", "edit", FIGHT, "Wolf", "--stun", "1", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"] == {
        "message": "'Wolf' is any of 2 combatants: Wolf #1, Wolf #2 (name one)", "workbook": None, "sheet": None,
        "cell": None, "suggestions": ["Wolf #1", "Wolf #2"]}


# ------------------------------------------------------------------ 4. one command, one undo
def test_an_auto_round_is_one_undo_said_in_words(moves):  # type: ignore[no-untyped-def]
    before = shown(moves)
    assert moves("fight", "round", FIGHT, "--auto", "--dice", "50,50,50").exit_code == 0  # Aria, Borin, the Orc
    log = ok(moves("fight", "log", FIGHT, "--json"))["events"]
    assert [(e["seq"], e["kind"], e["command"], e["group"]) for e in log[3:]] == [
        (4, "attack", "round --auto", 4), (5, "attack", "round --auto", 4), (6, "attack", "round --auto", 4),
        (7, "round", "round --auto", 4)]
    undone = ok(moves("fight", "undo", FIGHT, "--json"))
    assert undone["account"] == ["Undone: round 1 played by --auto (events 4 to 7): Aria's attack on Orc, Borin's attack "
                                 "on Orc, Orc's attack on Aria, the end of round 1."]
    assert fight_state(undone["fight"]) == fight_state(before)


def test_each_write_is_its_own_undo_said_in_words(moves):  # type: ignore[no-untyped-def]
    moves("fight", "attack", FIGHT, "Aria", "Orc", "--dice", "40")
    moves("fight", "round", FIGHT)
    moves("fight", "edit", FIGHT, "Orc", "--must-parry", "2")
    moves("fight", "heal", FIGHT, "Orc", "3")
    said = [moves("fight", "undo", FIGHT).stdout.splitlines()[0] for _ in range(5)]
    assert said == ["Undone: Orc adjusted by hand: heal 3 (event 7).",
                    "Undone: Orc set by hand: must parry 2 rounds (event 6).",
                    "Undone: the end of round 1 (event 5).",
                    "Undone: Aria's attack on Orc (event 4).",
                    "Undone: Orc joining side B (event 3)."]


def test_a_log_kept_before_groups_undoes_one_event_at_a_time(moves, opened):  # type: ignore[no-untyped-def]
    from tables_app.services import fights
    from tables_app.storage import fights as store

    loaded = fights.load(opened, FIGHT)
    with opened.writing(commit=True, breaking="the fight's log") as connection:  # two events as an older version kept them: no group
        store.append(connection, loaded.row, loaded.seq, [{"kind": "edit", "combatant": "Orc", "set": {"stun": 1}},
                                                          {"kind": "round"}])
    assert moves("fight", "undo", FIGHT).stdout.splitlines()[0] == "Undone: the end of round 1 (event 5)."
    assert moves("fight", "undo", FIGHT).stdout.splitlines()[0] == "Undone: Orc set by hand: stunned 1 round (event 4)."


# ------------------------------------------------------------------ 5, 9. dice, exit codes, an edit in words
def test_too_few_and_too_many_dice_both_exit_1_naming_the_attack(moves):  # type: ignore[no-untyped-def]
    assert refused(moves, "fight", "attack", FIGHT, "Aria", "Orc", "--dice", "80") == \
        "Error: --dice gave 1 die; Aria's attack on Orc needs 1 more die: critical roll on Cut (d100)"
    assert refused(moves, "fight", "attack", FIGHT, "Aria", "Orc", "--dice", "40,7").startswith(
        "Error: --dice: 1 of the given dice was not needed (7)")
    assert refused(moves, "fight", "round", FIGHT, "--auto", "--dice", "40") == \
        "Error: --dice gave 1 die; Borin's attack on Orc needs at least 1 more die: attack roll (d100)"


def test_an_edit_says_each_field_in_words(moves):  # type: ignore[no-untyped-def]
    data = ok(moves("fight", "edit", FIGHT, "Orc", "--must-parry", "2", "--taken", "10", "--no-parry", "1", "--dying", "3",
                    "--penalty", "-5", "--bonus", "4", "--bleed", "2", "--stun", "1", "--json"))
    assert data["account"] == ["Orc set by hand: must parry 2 rounds, hits taken 10, unable to parry 1 round, dying in 3 "
                               "rounds, penalty -5, bonus +4, bleeding 2/rnd, stunned 1 round."]
    data = ok(moves("fight", "edit", FIGHT, "Orc", "--dying", "0", "--status", "down", "--json"))
    assert data["account"][0] == "Orc set by hand: no death countdown, down."


# ------------------------------------------------------------------ 11. adjust, heal, damage
def test_heal_and_damage_move_the_hits_taken_and_the_status(moves):  # type: ignore[no-untyped-def]
    data = ok(moves("fight", "damage", FIGHT, "Orc", "60", "--json"))
    assert data["account"] == ["Orc takes 60 hits by hand (0/60 hits left).", "Orc is down.",
                               "The fight is over: side A wins."]
    data = ok(moves("fight", "heal", FIGHT, "Orc", "25", "--json"))
    assert data["account"] == ["Orc heals 25 hits (25/60 hits left).", "Orc is up.", "The fight goes on: sides A and B stand."]
    assert (who(data, "Orc")["taken"], who(data, "Orc")["status"], data["fight"]["over"]) == (35, "up", False)
    data = ok(moves("fight", "heal", FIGHT, "Orc", "100", "--json"))  # never below 0 taken
    assert data["account"] == ["Orc heals 35 hits (60/60 hits left)."] and who(data, "Orc")["taken"] == 0
    assert [e["kind"] for e in ok(moves("fight", "log", FIGHT, "--json"))["events"]][3:] == ["adjust"] * 3


def test_adjust_adds_to_each_counter_clamped(moves):  # type: ignore[no-untyped-def]
    moves("fight", "edit", FIGHT, "Orc", "--bleed", "3", "--penalty", "-10", "--bonus", "5")
    data = ok(moves("fight", "adjust", FIGHT, "Orc", "--bleed", "-2", "--stun", "2", "--no-parry", "1", "--must-parry", "1",
                    "--penalty", "-5", "--bonus", "-10", "--dying", "4", "--damage", "3", "--json"))
    orc = who(data, "Orc")
    assert (orc["taken"], orc["bleed"], orc["stun"], orc["no_parry"], orc["must_parry"], orc["penalty"], orc["bonus"],
            orc["dying"]) == (3, 1, 2, 1, 1, -15, 0, 4)
    assert data["account"] == [
        "Orc takes 3 hits by hand (57/60 hits left).",
        "Orc by hand: bleeding -2 (now 1/rnd), stunned +2 (now 2 rounds), unable to parry +1 (now 1 round), must parry +1 "
        "(now 1 round), penalty -5 (now -15), bonus -10 (now +0), death countdown +4 (now 4 rounds)."]
    orc = who(ok(moves("fight", "adjust", FIGHT, "Orc", "--bleed", "-9", "--penalty", "40", "--stun", "-9", "--json")),
              "Orc")
    assert (orc["bleed"], orc["penalty"], orc["stun"]) == (0, 0, 0)


def test_an_adjustment_counts_at_once(moves):  # type: ignore[no-untyped-def]
    moves("fight", "attack", FIGHT, "Aria", "Orc", "--dice", "80,95")  # the Orc: stunned 1 from the next round
    moves("fight", "round", FIGHT)
    assert who(shown(moves), "Orc")["cannot_attack"] == "stunned, 1 round left"
    assert who(ok(moves("fight", "adjust", FIGHT, "Orc", "--stun", "-1", "--json")), "Orc")["cannot_attack"] is None
    assert moves("fight", "attack", FIGHT, "Orc", "Aria", "--dice", "30").exit_code == 0


def test_a_death_countdown_run_down_by_hand_is_death_and_none_is_started_by_a_positive_change(moves):  # type: ignore[no-untyped-def]
    assert who(ok(moves("fight", "adjust", FIGHT, "Orc", "--dying", "-2", "--json")), "Orc")["dying"] is None
    moves("fight", "adjust", FIGHT, "Orc", "--dying", "2")
    data = ok(moves("fight", "adjust", FIGHT, "Orc", "--dying", "-5", "--json"))
    assert (who(data, "Orc")["status"], data["account"][-2:]) == ("dead", ["Orc is dead.", "The fight is over: side A wins."])


def test_adjust_refuses_nothing_to_change_and_values_out_of_bounds(moves):  # type: ignore[no-untyped-def]
    assert refused(moves, "fight", "adjust", FIGHT, "Orc", code=2) == \
        "Error: give what to change, and by how much (--heal 10, --damage 5, --bleed -2, ...)"
    assert refused(moves, "fight", "adjust", FIGHT, "Orc", "--stun", "0", code=2).startswith("Error: give what to change")
    for args in (("adjust", FIGHT, "Orc", "--heal", "-1"), ("adjust", FIGHT, "Orc", "--bleed", "100001"),
                 ("heal", FIGHT, "Orc", "0"), ("damage", FIGHT, "Orc", "100001")):
        assert "Invalid value" in refused(moves, "fight", *args, code=2), args


# ------------------------------------------------------------------ 11. DEF, parry, CMB, the weapon in use
def test_edit_sets_def_parry_and_cmb_and_the_next_attack_uses_them(moves):  # type: ignore[no-untyped-def]
    data = ok(moves("fight", "edit", FIGHT, "Aria", "--def", "35", "--parry", "5", "--cmb", "70", "--json"))
    assert data["account"] == ["Aria set by hand: DEF 35, parry 5, CMB 70 (Longsword)."]
    aria = who(data, "Aria")
    assert (aria["def"], aria["parry"], aria["attacks"]) == (35, 5, [{"weapon": "Longsword", "cmb": 70}])
    attack = ok(moves("fight", "attack", FIGHT, "Aria", "Orc", "--dice", "30", "--json"))["attack"]["attack"]
    assert attack["effective_cmb"] == 70 - 5
    assert ok(moves("fight", "attack", FIGHT, "Orc", "Aria", "--dice", "30", "--json"))["attack"]["attack"]["defense"] == 40


def test_wield_one_of_its_attacks_or_a_weapon_of_the_armory(moves):  # type: ignore[no-untyped-def]
    data = ok(moves("fight", "edit", FIGHT, "Aria", "--wield", "dagger", "--cmb", "45", "--json"))
    assert data["account"] == ["Aria set by hand: wields Dagger (CMB 45)."]
    assert who(data, "Aria")["attacks"] == [{"weapon": "Dagger", "cmb": 45}, {"weapon": "Longsword", "cmb": 60}]
    data = ok(moves("fight", "edit", FIGHT, "Aria", "--wield", "Longsword", "--json"))  # back to it, its CMB kept
    assert who(data, "Aria")["attacks"] == [{"weapon": "Longsword", "cmb": 60}, {"weapon": "Dagger", "cmb": 45}]
    log = ok(moves("fight", "log", FIGHT, "--json"))["events"]
    assert log[3]["set"] == {"wield": {"weapon": "Dagger", "cmb": 45, "system": "table", "options": {}, "ruleset": "default"}}
    assert who(ok(moves("fight", "show", FIGHT, "--at", "4", "--json")), "Aria")["attacks"][0]["weapon"] == "Dagger"
    assert ok(moves("fight", "attack", FIGHT, "Aria", "Orc", "--dice", "30", "--attack", "dagger", "--json"))[
        "attack"]["attack"]["weapon"] == "Dagger"


def test_wield_refusals(moves):  # type: ignore[no-untyped-def]
    assert refused(moves, "fight", "edit", FIGHT, "Aria", "--wield", "Mace", code=2) == \
        "Error: Aria has no attack 'Mace': give its CMB too (--wield 'Mace' --cmb N)"
    assert refused(moves, "fight", "edit", FIGHT, "Aria", "--wield", "Broadsword", "--cmb", "5").startswith(
        "Error: no weapon named 'Broadsword'")
    moves("fight", "join", FIGHT, *DOOR)
    assert refused(moves, "fight", "edit", FIGHT, "Door", "--cmb", "5") == \
        "Error: Door has no attack to set the CMB of (give one: --wield WEAPON --cmb N)"
    assert "Invalid value for '--def'" in refused(moves, "fight", "edit", FIGHT, "Aria", "--def", "100001", code=2)
    armed = ok(moves("fight", "edit", FIGHT, "Door", "--wield", "Mace", "--cmb", "20", "--json"))  # it fights back now
    assert who(armed, "Door")["cannot_attack"] is None


def test_a_formula_attacks_bonus_is_not_set_by_cmb(run):  # type: ignore[no-untyped-def]
    run("fight", "new", FIGHT)
    run("fight", "join", FIGHT, "--as", "Hero", "--hits", "40", "--system", "rise", "--option", "accuracy=6",
        "--option", "damage=2d6+3")
    result = run("fight", "edit", FIGHT, "Hero", "--cmb", "9")
    assert (result.exit_code, result.stderr) == (1, "Error: Hero's rise attack is a formula system's: its bonus is set "
                                                    "by its options, not --cmb (--cmb sets an attack's on the tables)\n")


# ------------------------------------------------------------------ 11. leaving, reinforcements
def test_one_who_leaves_no_longer_counts_and_undo_brings_it_back(moves):  # type: ignore[no-untyped-def]
    before = shown(moves)
    data = ok(moves("fight", "leave", FIGHT, "orc", "--json"))
    assert data["account"] == ["Orc leaves the fight.", "The fight is over: side A wins."]
    fight = data["fight"]
    assert ([c["name"] for c in fight["combatants"]], fight["left"]) == (
        ["Aria", "Borin"], [{"name": "Orc", "side": "B", "creature": None}])
    assert (fight["over"], fight["winner"]) == (True, "A")
    assert moves("fight", "show", FIGHT).stdout.splitlines()[-1] == "Left the fight: Orc (side B)."
    assert refused(moves, "fight", "attack", FIGHT, "Aria", "Orc", "--dice", "50") == \
        "Error: Orc has left the fight (it is no longer a combatant)"
    assert refused(moves, "fight", "join", FIGHT, *ORC) == \
        "Error: Orc has left the fight, and its name stays taken (give another name: --as)"
    assert moves("fight", "undo", FIGHT).stdout.splitlines()[0] == "Undone: Orc leaving the fight (event 4)."
    assert fight_state(shown(moves)) == fight_state(before)


def test_a_creature_joining_after_one_left_takes_the_next_number(moves):  # type: ignore[no-untyped-def]
    moves("fight", "join", FIGHT, "--creature", "Wolf")
    moves("fight", "join", FIGHT, "--creature", "Wolf")
    moves("fight", "leave", FIGHT, "Wolf #1")
    data = ok(moves("fight", "join", FIGHT, "--creature", "Wolf", "--json"))
    assert [c["name"] for c in data["fight"]["combatants"]][-2:] == ["Wolf #2", "Wolf #3"]


def test_reinforcements_take_up_a_fight_that_was_over(moves):  # type: ignore[no-untyped-def]
    moves("fight", "damage", FIGHT, "Orc", "60")
    assert refused(moves, "fight", "round", FIGHT) == "Error: the fight is over: side A wins (undo to go back)"
    same_side = ok(moves("fight", "join", FIGHT, "--as", "Cleric", "--hits", "30", "--armor", "MA", "--json"))
    assert same_side["account"][-1] == "The fight stays over: side A stands (a foe joining takes it up again)."
    data = ok(moves("fight", "join", FIGHT, "--creature", "Wolf", "--json"))
    assert data["account"][-1] == "The fight goes on: sides A and B stand."
    assert (data["fight"]["over"], data["fight"]["winner"]) == (False, None)
    assert moves("fight", "attack", FIGHT, "Aria", "Wolf", "--dice", "30").exit_code == 0
    assert moves("fight", "round", FIGHT).exit_code == 0


# ------------------------------------------------------------------ 11. the odds start from the moves
def quick_odds(run: Any, *setup: tuple[str, ...]) -> list[dict[str, Any]]:
    """The odds of Hero (3 hits) against a Goblin Scout after ``setup`` (fight commands), round by round."""
    run("fight", "remove", "Quick")
    run("fight", "new", "Quick")
    for args in setup:
        assert run("fight", *args).exit_code == 0, args
    rounds: list[dict[str, Any]] = ok(run("odds", "fight", "Quick", "--exact", "--rounds", "3", "--json"))["rounds"]
    return [{k: r[k] for k in ("round", "over", "sides")} for r in rounds]


HERO = ("--as", "Hero", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")
GOBLIN = ("join", "Quick", "--creature", "Goblin Scout", "--hits", "3")


@pytest.mark.slow  # seconds
def test_the_odds_of_a_fight_start_from_its_adjusted_left_and_rearmed_combatants(run):  # type: ignore[no-untyped-def]
    plain = quick_odds(run, ("join", "Quick", *HERO, "--hits", "2"), GOBLIN)
    assert quick_odds(run, ("join", "Quick", *HERO, "--hits", "3"), GOBLIN, ("damage", "Quick", "Hero", "1")) == plain
    assert quick_odds(run, ("join", "Quick", *HERO, "--hits", "2"), GOBLIN,
                      ("join", "Quick", "--creature", "Goblin Scout", "--hits", "3"),
                      ("leave", "Quick", "Goblin Scout #2")) == plain
    assert quick_odds(run, ("join", "Quick", "--as", "Hero", "--armor", "MA", "--weapon", "Dagger", "--cmb", "0",
                            "--hits", "2", "--def", "50", "--parry", "20"), GOBLIN,
                      ("edit", "Quick", "Hero", "--wield", "Longsword", "--cmb", "60", "--def", "0", "--parry", "0",
                       "--break", "Dagger")) == plain  # (its Dagger broken: no second weapon to take up, #41)
    assert quick_odds(run, ("join", "Quick", *HERO, "--hits", "2"), GOBLIN, ("edit", "Quick", "Hero", "--cmb", "20")) != plain


def test_completion_offers_the_combatants_still_in_the_fight(moves, db_path):  # type: ignore[no-untyped-def]
    from test_completion import completions

    moves("fight", "leave", FIGHT, "Borin")
    assert completions(db_path, ["fight", "heal", FIGHT], "") == ["Aria", "Orc"]
    moves("fight", "undo", FIGHT)
    assert completions(db_path, ["fight", "leave", FIGHT], "") == ["Aria", "Borin", "Orc"]
