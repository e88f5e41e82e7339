"""The fight commands (docs/fights.md): a fight run from the command line
on the bundled tables, with dice rolled at the table, its JSON, its refusals."""

from __future__ import annotations

import json
from typing import Any

from helpers import fight_state

import pytest

FIGHT = "Orc ambush"
HERO = ("--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA", "--parry", "10", "--weapon", "Longsword",
        "--cmb", "60")
ORC = ("--creature", "Orc Warrior", "--weapon", "Scimitar", "--cmb", "55")


@pytest.fixture
def fight(run):  # type: ignore[no-untyped-def]
    """A fight of Hero (side A) against one Orc Warrior (side B)."""
    assert run("fight", "new", FIGHT).exit_code == 0
    assert run("fight", "join", FIGHT, *HERO).exit_code == 0
    assert run("fight", "join", FIGHT, *ORC).exit_code == 0
    return run


def shown(run: Any) -> dict[str, Any]:
    result = run("fight", "show", FIGHT, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def combatant(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in data["combatants"] if c["name"] == name)


def test_show_json_has_the_contracts_shape(fight):  # type: ignore[no-untyped-def]
    data = shown(fight)
    assert {k: data[k] for k in ("fight", "round", "over", "winner", "seq")} == \
        {"fight": FIGHT, "round": 1, "over": False, "winner": None, "seq": 2}
    orc = combatant(data, "Orc Warrior #1")
    assert {k: orc[k] for k in ("name", "side", "hits", "taken", "bleed", "stun", "no_parry", "must_parry", "penalty",
                                "bonus", "dying", "status")} == {
        "name": "Orc Warrior #1", "side": "B", "hits": 60, "taken": 0, "bleed": 0, "stun": 0, "no_parry": 0,
        "must_parry": 0, "penalty": 0, "bonus": 0, "dying": None, "status": "up"}
    assert (orc["def"], orc["armor"], orc["features"]) == (20, "MA", ["helm", "metal armor"])  # the bestiary's


def test_an_attack_with_dice_rolled_at_the_table(fight):  # type: ignore[no-untyped-def]
    result = fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "80,95", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["attack"]["dice"] == [80, 95]
    assert data["attack"]["attack"]["effective_cmb"] == 50  # 60 less its parry of 10
    assert data["attack"]["damage"] == 24
    orc = combatant(data["fight"], "Orc Warrior #1")
    assert (orc["taken"], orc["bleed"], orc["stun"], orc["penalty"]) == (24, 2, 1, -15)


def test_a_creature_joining_twice_is_numbered(fight):  # type: ignore[no-untyped-def]
    result = fight("fight", "join", FIGHT, *ORC, "--json")
    assert result.exit_code == 0
    names = [c["name"] for c in json.loads(result.stdout)["fight"]["combatants"]]
    assert names == ["Hero", "Orc Warrior #1", "Orc Warrior #2"]


def test_a_stunned_attacker_is_refused_naming_why(fight):  # type: ignore[no-untyped-def]
    fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "80,95")
    fight("fight", "round", FIGHT)
    before = shown(fight)
    result = fight("fight", "attack", FIGHT, "Orc Warrior #1", "Hero", "--dice", "50")
    assert (result.exit_code, result.stderr) == (1, "Error: Orc Warrior #1 cannot attack: stunned, 1 round left\n")
    assert fight_state(shown(fight)) == fight_state(before)


def test_a_second_attack_in_a_round_is_refused(fight):  # type: ignore[no-untyped-def]
    fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "40")
    result = fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "40")
    assert (result.exit_code, result.stderr) == (1, "Error: Hero cannot attack: has already attacked this round\n")


def test_too_few_or_too_many_dice_write_nothing(fight):  # type: ignore[no-untyped-def]
    before = shown(fight)
    short = fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "80")
    assert short.exit_code == 1 and "needs" in short.stderr and "critical roll on Cut" in short.stderr
    extra = fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "40,7")
    assert extra.exit_code == 1 and "1 of the given dice was not needed (7)" in extra.stderr
    assert fight_state(shown(fight)) == fight_state(before)


def test_auto_round_attacks_in_initiative_order_then_ends_the_round(fight):  # type: ignore[no-untyped-def]
    result = fight("fight", "round", FIGHT, "--auto", "--dice", "40,50", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [(a["attack"]["weapon"], a["dice"]) for a in data["attacks"]] == [("Longsword", [40]), ("Scimitar", [50])]
    assert data["fight"]["round"] == 2
    assert (combatant(data["fight"], "Orc Warrior #1")["taken"], combatant(data["fight"], "Hero")["taken"]) == (4, 5)


def test_auto_round_with_a_seed_is_reproducible(run, fight):  # type: ignore[no-untyped-def]
    first = fight("fight", "round", FIGHT, "--auto", "--seed", "7", "--json")
    fight("fight", "undo", FIGHT)  # the whole round: its two attacks and its end, one command
    again = fight("fight", "round", FIGHT, "--auto", "--seed", "7", "--json")
    assert fight_state(json.loads(first.stdout)["fight"]) == fight_state(json.loads(again.stdout)["fight"])


def test_undo_restores_the_previous_state_exactly(fight):  # type: ignore[no-untyped-def]
    before = shown(fight)
    fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "80,95")
    assert shown(fight) != before
    assert fight("fight", "undo", FIGHT).exit_code == 0
    assert fight_state(shown(fight)) == fight_state(before) and shown(fight)["version"] > before["version"]


def test_show_at_replays_the_log_to_any_point(fight):  # type: ignore[no-untyped-def]
    at_start = shown(fight)
    fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "80,95")
    fight("fight", "round", FIGHT)
    past = json.loads(fight("fight", "show", FIGHT, "--at", "2", "--json").stdout)
    assert past["combatants"] == at_start["combatants"] and past["seq"] == 2


def test_log_json_lists_every_event_with_its_dice(fight):  # type: ignore[no-untyped-def]
    fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "80,95")
    fight("fight", "round", FIGHT)
    events = json.loads(fight("fight", "log", FIGHT, "--json").stdout)["events"]
    assert [(e["seq"], e["kind"]) for e in events] == [(1, "join"), (2, "join"), (3, "attack"), (4, "round")]
    assert events[2]["dice"] == [80, 95] and events[2]["blow"]["target"]["bleed"] == 2


def test_a_stale_writer_is_refused(fight):  # type: ignore[no-untyped-def]
    fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "40", "--after", "2")
    result = fight("fight", "attack", FIGHT, "Orc Warrior #1", "Hero", "--dice", "50", "--after", "2")
    assert result.exit_code == 1
    assert result.stderr == ("Error: the fight 'Orc ambush' changed (its log is at event 3, not 2): "
                             "show it again, then retry\n")


def test_the_fight_is_over_when_one_side_stands(fight):  # type: ignore[no-untyped-def]
    fight("fight", "edit", FIGHT, "Orc Warrior #1", "--taken", "59")
    result = fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "40", "--json")
    data = json.loads(result.stdout)["fight"]
    assert (data["over"], data["winner"]) == (True, "A")
    refused = fight("fight", "round", FIGHT)
    assert (refused.exit_code, refused.stderr) == (1, "Error: the fight is over: side A wins (undo to go back)\n")


def test_join_needs_hits_or_a_creature_with_them(fight, run, write_workbook):  # type: ignore[no-untyped-def]
    result = fight("fight", "join", FIGHT, "--as", "Ghost", "--armor", "MA", "--weapon", "Dagger", "--cmb", "10")
    assert (result.exit_code, "--hits missing" in result.stderr) == (2, True)
    result = fight("fight", "join", FIGHT, "--creature", "Orc Warrior", "--json")
    assert result.exit_code == 0
    joined = combatant(json.loads(result.stdout)["fight"], "Orc Warrior #2")
    assert (joined["hits"], joined["attacks"]) == (60, [{"weapon": "Scimitar", "cmb": 55}, {"weapon": "Shortbow", "cmb": 35}])


def test_unknown_names_are_suggested(fight):  # type: ignore[no-untyped-def]
    result = fight("fight", "show", "Orc ambsuh")
    assert (result.exit_code, result.stderr) == (1, "Error: no fight named 'Orc ambsuh' — did you mean 'Orc ambush'?\n")
    result = fight("fight", "attack", FIGHT, "Hero", "Orc", "--dice", "40")
    assert result.exit_code == 1 and "no combatant named 'Orc'" in result.stderr


def test_list_and_remove(fight):  # type: ignore[no-untyped-def]
    listed = json.loads(fight("fight", "list", "--json").stdout)["fights"]
    assert [(f["name"], f["events"]) for f in listed] == [(FIGHT, 2)]
    assert fight("fight", "remove", FIGHT).exit_code == 0
    assert json.loads(fight("fight", "list", "--json").stdout) == {"fights": []}


def test_a_fight_survives_removing_and_reimporting_its_tables(fight, run):  # type: ignore[no-untyped-def]
    # The log replays the recorded blows: the tables are never read again for the past.
    fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "80,95")
    before = shown(fight)
    removed = run("remove", "bundled/attacks.xlsx", "bundled/armory.xlsx", "bundled/bestiary.xlsx")
    assert removed.exit_code == 0, removed.output
    assert fight_state(shown(fight)) == fight_state(before)
    refused = fight("fight", "attack", FIGHT, "Orc Warrior #1", "Hero", "--dice", "50")
    assert refused.exit_code == 1 and "Scimitar" in refused.stderr


def test_an_auto_round_skips_the_stunned_saying_why(fight):  # type: ignore[no-untyped-def]
    fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "80,95")
    fight("fight", "round", FIGHT)
    result = fight("fight", "round", FIGHT, "--auto", "--dice", "40", "--json")
    data = json.loads(result.stdout)
    assert [a["attack"]["weapon"] for a in data["attacks"]] == ["Longsword"]  # the Orc is stunned: no dice for it
    assert "Orc Warrior #1 did not attack: stunned, 1 round left." in data["account"]


def test_a_log_changed_by_hand_is_said_plainly(fight, db_path):  # type: ignore[no-untyped-def]
    import sqlite3

    connection = sqlite3.connect(db_path)
    connection.execute("UPDATE fight_event SET data = '{\"kind\": \"attack\"}' WHERE seq = 2")
    connection.commit()
    connection.close()
    result = fight("fight", "show", FIGHT)
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: fight 'Orc ambush': its log does not replay at event 2 (")


def test_an_armor_no_table_has_is_refused_at_the_join(fight):  # type: ignore[no-untyped-def]
    result = fight("fight", "join", FIGHT, "--as", "Elf", "--hits", "30", "--armor", "MQ", "--weapon", "Dagger",
                   "--cmb", "40")
    assert (result.exit_code, result.stderr) == (1, "Error: no attack table has an armor column 'MQ' (armor columns: "
                                                    "HA, LA, MA, NA)\n")
    stored = fight("fight", "join", FIGHT, "--as", "Elf", "--hits", "30", "--armor", "la", "--weapon", "Dagger",
                   "--cmb", "40")
    assert stored.exit_code == 0 and combatant(shown(fight), "Elf")["armor"] == "LA"  # as the tables spell it


def test_remove_after_an_event_is_refused_once_the_fight_moved_on(fight):  # type: ignore[no-untyped-def]
    fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "40")
    refused = fight("fight", "remove", FIGHT, "--after", "2")
    assert refused.exit_code == 1 and "changed (its log is at event 3, not 2)" in refused.stderr
    assert fight("fight", "remove", FIGHT, "--after", "3").exit_code == 0


def test_a_creature_without_hits_needs_them_given_one_without_attacks_joins(run, mini_workbook):  # type: ignore[no-untyped-def]
    assert run("import", str(mini_workbook)).exit_code == 0
    run("fight", "new", "Field")
    no_hits = run("fight", "join", "Field", "--creature", "Scarecrow")
    assert (no_hits.exit_code, no_hits.stderr.splitlines()[-1]) == (
        2, "Error: the bestiary gives Scarecrow no hits: give them (--hits N)")
    no_attacks = run("fight", "join", "Field", "--creature", "Scarecrow", "--hits", "20")  # attacked, never attacking
    assert no_attacks.exit_code == 0
    assert "Scarecrow #1 has no attack: it is attacked, never attacks." in no_attacks.stdout
    assert run("fight", "join", "Field", "--creature", "Scarecrow", "--hits", "20", "--weapon", "Pin", "--cmb", "30",
               "--side", "A").exit_code == 0


def test_the_targets_features_choose_the_critical_branch(run, mini_workbook):  # type: ignore[no-untyped-def]
    # The Tin Man has a helm: roll 60 on Slash reads "Helm ring" (+2 hits, stun 1), not "Scalp cut" (bleed 2)
    assert run("import", str(mini_workbook)).exit_code == 0
    run("fight", "new", "Field")
    run("fight", "join", "Field", "--as", "Pinner", "--hits", "30", "--armor", "Cloth", "--weapon", "Pin", "--cmb", "30")
    run("fight", "join", "Field", "--creature", "Tin Man", "--weapon", "Needle", "--cmb", "10")
    # Pin: 40 + 30 - DEF 20 = 50, capped at Max Result 45: the 41+ row, `6 Bravo` on Plate; B, lowered to A for
    # the heroic Tin Man; 55 + 0 reads 51-80, and its helm takes the "Helm ring" branch; the secondary: too light
    result = run("fight", "attack", "Field", "Pinner", "Tin Man #1", "--dice", "40,55", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["attack"]["critical"]["entry"]["title"] == "Helm ring"
    tin = combatant(data["fight"], "Tin Man #1")
    assert (tin["taken"], tin["stun"], tin["bleed"], tin["penalty"]) == (6 + 2, 1, 0, 0)


def test_the_first_combatant_is_on_side_a_then_creatures_on_b(run):  # type: ignore[no-untyped-def]
    # A creature that joins first is on A, and faces the creatures after it without --side
    run("fight", "new", "Beasts")
    run("fight", "join", "Beasts", "--creature", "Wolf")
    run("fight", "join", "Beasts", "--creature", "Orc Warrior")
    result = run("fight", "join", "Beasts", "--as", "Ranger", "--hits", "40", "--armor", "LA", "--weapon", "Dagger",
                 "--cmb", "30", "--json")
    sides = [(c["name"], c["side"]) for c in json.loads(result.stdout)["fight"]["combatants"]]
    assert sides == [("Wolf #1", "A"), ("Orc Warrior #1", "B"), ("Ranger", "A")]
