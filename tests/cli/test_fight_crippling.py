"""The rest of a critical in a fight (docs/fights.md, "The rest of a critical"):
each effect dealt by an attack with dice rolled at the table on a small
invented critical table, carried over the rounds, shown, and set or cleared
by hand with `fight edit`."""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers import db_dump, error_lines, ok, reexported, rm_sheets

# A critical table of our own invention, one effect a row (the attack roll 70, less a parry of 10, reads `3AM`: 3 hits and an A
# critical on Maim, whose roll is the second die).
MAIM = [["Kind", "critical"], ["Name", "Maim"], ["Code", "M"], [],
        ["Roll", "Text", "Hits", "Effects"],
        ["01-10", "Knocked flat: falls prone for 2 rounds.", 1, None],
        ["11-20", "Blow to the temple: knocked out for 2 rounds.", 1, None],
        ["21-30", "Grit in the eyes: blinded for 2 rounds.", 1, None],
        ["31-40", "Wrist struck: drops weapon.", 1, None],
        ["41-50", "Blade meets blade: weapon breaks.", 1, None],
        ["51-60", "Shoulder crushed: arm useless.", 1, None],
        ["61-70", "Knee struck: leg is useless.", 1, None],
        ["71-80", "Winded: -20 for 2 rounds.", 1, None],
        ["81-90", "Out cold.", 1, "knocked out"],
        ["91+", "A scratch.", 1, None]]
PRONE, OUT, BLIND, DROP, BREAK, ARM, LEG, WINDED, COLD, SCRATCH = (f"70,{roll}" for roll in range(5, 100, 10))
FIGHT = "Brawl"


def brawl_sheets() -> dict[str, Any]:
    sheets = rm_sheets()
    sheets["Maim"] = MAIM
    sheets["Club table"] = [["Kind", "attack"], ["Name", "Club"], [], ["Result", "1"], ["51+", "3AM"], ["01-50", "—"]]
    sheets["Weapons"] = [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"],
                         ["Cudgel", "Club", 150, 1, "M"], ["Dagger", "Club", 150, 1, "M"]]
    sheets["Creatures"] = [["Kind", "creatures"], [], ["Name", "DEF", "Armor", "HP", "Attacks"],
                           ["Brute", 0, "1", 40, "Cudgel 20; Dagger 20"]]
    return sheets


@pytest.fixture
def brawl(run, write_workbook):  # type: ignore[no-untyped-def]
    """Ann (side A) against Bob and Cal (side B): Brutes with a Cudgel and a Dagger at CMB 20; Bob parries 10."""
    ok(run("import", str(write_workbook("brawl.xlsx", brawl_sheets()))))
    ok(run("fight", "new", FIGHT, "--ruleset", "RM"))
    ok(run("fight", "join", FIGHT, "--creature", "Brute", "--as", "Ann", "--side", "A", "--initiative", "5"))
    ok(run("fight", "join", FIGHT, "--creature", "Brute", "--as", "Bob", "--side", "B", "--parry", "10"))
    ok(run("fight", "join", FIGHT, "--creature", "Brute", "--as", "Cal", "--side", "B"))
    return run


def bob(run: Any, name: str = "Bob") -> dict[str, Any]:
    data = json.loads(ok(run("fight", "show", FIGHT, "--json")))
    found: dict[str, Any] = next(c for c in data["combatants"] if c["name"] == name)
    return found


def hit(run: Any, dice: str, attacker: str = "Ann", target: str = "Bob") -> str:
    return ok(run("fight", "attack", FIGHT, attacker, target, "--dice", dice))


def end_round(run: Any) -> str:
    return ok(run("fight", "round", FIGHT))


def refused(run: Any, *args: str) -> str:
    result = run(*args)
    assert result.exit_code == 1, result.output
    return str(result.stderr)


def test_prone_takes_its_attack_and_its_parry_for_its_rounds(brawl):  # type: ignore[no-untyped-def]
    out = hit(brawl, PRONE)
    assert "Bob: prone 2 rounds (from the next round)." in out
    assert bob(brawl)["prone"] == 2 and bob(brawl)["cannot_attack"] is None  # counts from the next round
    end_round(brawl)
    assert refused(brawl, "fight", "attack", FIGHT, "Bob", "Ann", "--dice", "60,95") == \
        "Error: Bob cannot attack: prone (getting up), 2 rounds left\n"
    attack = json.loads(ok(brawl("fight", "attack", FIGHT, "Ann", "Bob", "--dice", "30", "--json")))
    assert attack["attack"]["attack"]["defense"] == 0  # no parry while prone (DEF 0 + parry 10 otherwise)
    assert "Bob: prone, 1 round left." in end_round(brawl)
    assert "Bob: no longer prone." in end_round(brawl)
    assert bob(brawl)["prone"] == 0
    hit(brawl, SCRATCH, "Bob", "Ann")  # up again: it attacks


def test_knocked_out_is_down_at_once_and_wakes_when_its_rounds_run_out(brawl):  # type: ignore[no-untyped-def]
    out = hit(brawl, OUT)
    assert "Bob is knocked out (2 rounds left)." in out
    assert bob(brawl)["knocked_out"] == 2 and bob(brawl)["status"] == "up"
    assert bob(brawl)["cannot_attack"] == "knocked out, 2 rounds left"
    assert refused(brawl, "fight", "attack", FIGHT, "Ann", "Bob", "--dice", "60,95") == \
        "Error: Ann cannot attack: has already attacked this round\n"
    end_round(brawl)  # dealt in round 1: its rounds count from round 2
    assert refused(brawl, "fight", "attack", FIGHT, "Ann", "Bob", "--dice", "60,95") == "Error: Bob is knocked out\n"
    assert "Bob: knocked out, 1 round left." in end_round(brawl)
    assert "Bob wakes." in end_round(brawl)
    assert (bob(brawl)["knocked_out"], bob(brawl)["cannot_attack"]) == (None, None)
    assert "Bob  36/40 hits" in ok(brawl("fight", "show", FIGHT))


def test_a_side_all_knocked_out_has_lost(brawl):  # type: ignore[no-untyped-def]
    hit(brawl, COLD)
    assert bob(brawl)["knocked_out"] == 0  # `Out cold.` and the Effects tag `knocked out`: until woken
    end_round(brawl)
    out = hit(brawl, OUT, "Ann", "Cal")
    assert "Cal is knocked out (2 rounds left).\nThe fight is over: side A wins." in out
    data = json.loads(ok(brawl("fight", "show", FIGHT, "--json")))
    assert (data["over"], data["winner"]) == (True, "A")


def test_the_gm_wakes_one_knocked_out_until_woken(brawl):  # type: ignore[no-untyped-def]
    out = hit(brawl, COLD)
    assert "Bob is knocked out (until woken: fight edit --out 0)." in out
    assert "knocked out" in next(line for line in ok(brawl("fight", "show", FIGHT)).splitlines() if "Bob" in line)
    for _ in range(3):
        end_round(brawl)
    assert bob(brawl)["knocked_out"] == 0  # never counted down
    assert "Bob set by hand: awake." in ok(brawl("fight", "edit", FIGHT, "Bob", "--out", "0"))
    assert bob(brawl)["knocked_out"] is None
    ok(brawl("fight", "edit", FIGHT, "Bob", "--out", "until-woken"))
    assert bob(brawl)["knocked_out"] == 0
    ok(brawl("fight", "edit", FIGHT, "Bob", "--out", "3"))
    assert bob(brawl)["knocked_out"] == 3


def test_blinded_cannot_parry_for_its_rounds(brawl):  # type: ignore[no-untyped-def]
    assert "Bob: blinded 2 rounds (from the next round)." in hit(brawl, BLIND)
    end_round(brawl)
    attack = json.loads(ok(brawl("fight", "attack", FIGHT, "Ann", "Bob", "--dice", "30", "--json")))
    assert attack["attack"]["attack"]["defense"] == 0
    hit(brawl, SCRATCH, "Bob", "Ann")  # blinded, it still attacks (decision: its parry only)
    assert "Bob: blinded, 1 round left." in end_round(brawl)
    assert "Bob: no longer blinded." in end_round(brawl)
    attack = json.loads(ok(brawl("fight", "attack", FIGHT, "Ann", "Bob", "--dice", "30", "--json")))
    assert attack["attack"]["attack"]["defense"] == 10


def test_a_dropped_weapon_leaves_the_next_until_recovered_by_hand(brawl):  # type: ignore[no-untyped-def]
    assert "Bob drops Cudgel." in hit(brawl, DROP)
    assert (bob(brawl)["dropped"], bob(brawl)["attacks_with"]) == (["Cudgel"], "Cudgel")  # from the next round
    end_round(brawl)
    assert bob(brawl)["attacks_with"] == "Dagger"
    assert refused(brawl, "fight", "attack", FIGHT, "Bob", "Ann", "--dice", "30", "--attack", "Cudgel") == \
        "Error: Bob cannot attack with Cudgel: dropped (fight edit --recover Cudgel)\n"
    assert "Bob attacks Ann with Dagger" in hit(brawl, "30", "Bob", "Ann")
    end_round(brawl)
    for _ in range(2):
        end_round(brawl)
    assert bob(brawl)["dropped"] == ["Cudgel"]  # never picked up by itself
    assert "Bob set by hand: dropped none." in ok(brawl("fight", "edit", FIGHT, "Bob", "--recover", "Cudgel"))
    assert (bob(brawl)["dropped"], bob(brawl)["attacks_with"]) == ([], "Cudgel")


def test_the_weapon_dropped_is_the_one_it_attacked_with_last(brawl):  # type: ignore[no-untyped-def]
    ok(brawl("fight", "attack", FIGHT, "Bob", "Ann", "--dice", "30", "--attack", "Dagger"))
    assert "Bob drops Dagger" in hit(brawl, DROP)


def test_a_broken_weapon_and_none_left(brawl):  # type: ignore[no-untyped-def]
    hit(brawl, DROP)
    end_round(brawl)
    hit(brawl, "30", "Bob", "Ann")  # with its Dagger
    assert "Bob's Dagger breaks." in hit(brawl, BREAK)
    end_round(brawl)
    assert bob(brawl)["cannot_attack"] == "no weapon to attack with (Cudgel dropped, Dagger broken)"
    assert refused(brawl, "fight", "edit", FIGHT, "Bob", "--recover", "Dagger") == \
        "Error: Bob's Dagger is not dropped (it is broken: --repair Dagger)\n"
    ok(brawl("fight", "edit", FIGHT, "Bob", "--repair", "all", "--recover", "all"))
    assert (bob(brawl)["dropped"], bob(brawl)["broken"], bob(brawl)["cannot_attack"]) == ([], [], None)


def test_a_useless_arm_drops_what_it_held_and_a_useless_leg_is_carried(brawl):  # type: ignore[no-untyped-def]
    out = hit(brawl, ARM)
    assert "Bob: a useless arm (from the next round).\nBob drops Cudgel" in out
    end_round(brawl)
    hit(brawl, LEG)
    shown = ok(brawl("fight", "show", FIGHT))
    assert "useless arm  useless leg  dropped Cudgel" in shown
    ok(brawl("fight", "edit", FIGHT, "Bob", "--arm", "ok", "--leg", "ok"))
    assert (bob(brawl)["useless_arm"], bob(brawl)["useless_leg"], bob(brawl)["dropped"]) == (False, False, ["Cudgel"])


def test_a_penalty_for_rounds_counts_while_it_lasts(brawl):  # type: ignore[no-untyped-def]
    assert "Bob: penalty -20 for 2 rounds (from the next round)." in hit(brawl, WINDED)
    assert bob(brawl)["timed_penalties"] == [{"penalty": -20, "rounds": 2}]
    end_round(brawl)
    attack = json.loads(ok(brawl("fight", "attack", FIGHT, "Bob", "Ann", "--dice", "30", "--json")))
    assert attack["attack"]["attack"]["effective_cmb"] == -10  # CMB 20 - 10 (parry) - 20 (timed penalty)
    end_round(brawl)
    assert bob(brawl)["timed_penalties"] == [{"penalty": -20, "rounds": 1}]
    assert "Bob: its penalty -20 runs out." in end_round(brawl)
    assert bob(brawl)["timed_penalties"] == []


def test_the_gm_sets_and_clears_each_by_hand(brawl):  # type: ignore[no-untyped-def]
    out = ok(brawl("fight", "edit", FIGHT, "Bob", "--prone", "2", "--blind", "1", "--arm", "useless", "--drop", "dagger",
                   "--break", "Cudgel", "--timed-penalty", "-20:3", "--timed-penalty", "-5:1"))
    assert "Bob set by hand: prone 2 rounds, blinded 1 round, useless arm, dropped Dagger, broken Cudgel, penalties for a time " \
           "-20 for 3 rounds, -5 for 1 round." in out
    found = bob(brawl)
    assert (found["prone"], found["blinded"], found["useless_arm"], found["dropped"], found["broken"]) == \
        (2, 1, True, ["Dagger"], ["Cudgel"])
    assert found["timed_penalties"] == [{"penalty": -20, "rounds": 3}, {"penalty": -5, "rounds": 1}]
    assert found["cannot_attack"] == "prone (getting up), 2 rounds left"  # set by hand: counts at once
    ok(brawl("fight", "edit", FIGHT, "Bob", "--prone", "0", "--blind", "0", "--timed-penalty", "none", "--arm", "ok"))
    found = bob(brawl)
    assert (found["prone"], found["blinded"], found["timed_penalties"], found["useless_arm"]) == (0, 0, [], False)


@pytest.mark.parametrize("args, code, message", [
    (("--out", "soon"), 2, "Error: --out soon: give the rounds knocked out (0 to 100000; 0 wakes it) or until-woken\n"),
    (("--timed-penalty", "-20x3"), 2, "Error: --timed-penalty -20x3: write PENALTY:ROUNDS, the penalty -1 to -100000 and "
                                      "the rounds 1 to 100000 (-20:3), or none\n"),
    (("--timed-penalty", "20:3"), 2, "Error: --timed-penalty 20:3: write PENALTY:ROUNDS, the penalty -1 to -100000 and "
                                     "the rounds 1 to 100000 (-20:3), or none\n"),
    (("--drop", "Spear"), 1, "Error: Bob has no attack 'Spear' (its attacks: Cudgel, Dagger)\n"),
    (("--recover", "Cudgel"), 1, "Error: Bob's Cudgel is not dropped\n"),
    (("--prone", "100001"), 2, None),
    (("--arm", "broken"), 2, None),
])
def test_bad_edits_are_refused_and_write_nothing(brawl, db_path, args, code, message):  # type: ignore[no-untyped-def]
    before = db_dump(db_path)
    result = brawl("fight", "edit", FIGHT, "Bob", *args)
    assert result.exit_code == code
    if message is not None:
        assert error_lines(result) == message
    assert "Traceback" not in result.output and len(error_lines(result).splitlines()) == 1
    assert db_dump(db_path) == before


def test_the_entries_show_their_rest_and_export_and_import_again(brawl, tmp_path):  # type: ignore[no-untyped-def]
    data = json.loads(ok(brawl("show", "critical", "Maim", "--ruleset", "RM", "--json")))
    entries = data["entries"]
    assert (entries[0]["prone"], entries[1]["knocked_out"], entries[2]["blinded"]) == (2, 2, 2)
    assert (entries[3]["drops_weapon"], entries[4]["breaks_weapon"], entries[5]["useless_arm"], entries[6]["useless_leg"]) \
        == (True, True, True, True)
    assert entries[7]["timed_penalties"] == [{"penalty": -20, "rounds": 2}] and entries[7]["unread"] == []
    assert (entries[8]["knocked_out"], entries[9]["knocked_out"]) == (0, None)
    shown = ok(brawl("show", "critical", "Maim", "--ruleset", "RM"))
    for words in ("+1 hits, prone 2 rnd", "+1 hits, knocked out 2 rnd", "+1 hits, blinded 2 rnd", "+1 hits, drops weapon",
                  "+1 hits, weapon breaks", "+1 hits, useless arm", "+1 hits, useless leg", "+1 hits, penalty -20 for 2 rnd",
                  "+1 hits, knocked out\n"):
        assert words in shown
    workbook = tmp_path / "out.xlsx"
    ok(brawl("export", "-o", str(workbook), "--ruleset", "RM"))
    again = reexported(brawl, workbook, tmp_path, "RM")
    fresh = tmp_path / "fresh.db"
    assert json.loads(ok(brawl("show", "critical", "Maim", "--ruleset", "RM", "--json", db=fresh)))["entries"] == entries
    assert again.exists()
