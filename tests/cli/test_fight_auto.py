"""An attack's and an automatic round's wiring (services/fights.py): what the
fight hands to `resolve` (its CMB with --mod, the target's rank and
features), the targeting rule as the round goes on, the dice an --auto
round reads, a round that ends the fight. From a review by mutation: each
test fails on a change of the attack path the other tests let through."""

from __future__ import annotations

import json
from typing import Any

import pytest

FIGHT = "Melee"
HERO = ("--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA", "--parry", "10", "--weapon", "Longsword", "--cmb", "60")
ORC = ("--as", "Orc", "--side", "B", "--hits", "60", "--def", "20", "--armor", "MA", "--weapon", "Scimitar", "--cmb", "55")


@pytest.fixture
def melee(run):  # type: ignore[no-untyped-def]
    assert run("fight", "new", FIGHT).exit_code == 0
    assert run("fight", "join", FIGHT, *HERO).exit_code == 0
    return run


def ok(result: Any) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def log(run: Any) -> list[dict[str, Any]]:
    return ok(run("fight", "log", FIGHT, "--json"))["events"]  # type: ignore[no-any-return]


def test_mod_adds_to_the_fights_cmb(melee):  # type: ignore[no-untyped-def]
    # "CMB = A's CMB − A's parry (while A can parry) + A's penalty + A's pending bonus + the attack's --mods"
    melee("fight", "join", FIGHT, *ORC)
    data = ok(melee("fight", "attack", FIGHT, "Hero", "Orc", "--seed", "1", "--mod", "+15", "--mod", "flank=-5", "--json"))
    assert data["attack"]["attack"]["effective_cmb"] == 60 - 10 + 15 - 5
    assert log(melee)[-1]["cmb"] == 60


def test_the_targets_rank_and_features_go_to_resolve(melee):  # type: ignore[no-untyped-def]
    # "DEF = B's DEF + B's parry if B can parry, and B's armor, rank and features"
    melee("fight", "join", FIGHT, *ORC, "--rank", "heroic", "--has", "helm")
    attack = ok(melee("fight", "attack", FIGHT, "Hero", "Orc", "--dice", "80,95", "--json"))["attack"]
    assert (attack["attack"]["rank"], attack["attack"]["features"], attack["attack"]["defense"]) == ("heroic", ["helm"], 20)
    assert (attack["critical"]["rolled_severity"], attack["critical"]["reduction"]) == ("Lig", 1)


def test_an_auto_round_reads_exactly_its_dice(melee):  # type: ignore[no-untyped-def]
    # "Given dice must be exactly the dice the round reads: too few or too many, and nothing is written."
    melee("fight", "join", FIGHT, *ORC)
    before = log(melee)
    short = melee("fight", "round", FIGHT, "--auto", "--dice", "40")
    assert (short.exit_code, short.stderr) == (  # whose attack is short, named
        1, "Error: --dice gave 1 die; Orc's attack on Hero needs at least 1 more die: attack roll (d100)\n")
    extra = melee("fight", "round", FIGHT, "--auto", "--dice", "40,50,7")
    assert extra.exit_code == 1 and "1 of the given dice was not needed (7)" in extra.stderr
    assert log(melee) == before


def test_an_auto_round_follows_the_fight_as_it_goes(melee):  # type: ignore[no-untyped-def]
    # "the first combatant up of another side (the targeting rule)"; "one down or dead mid-round does not act
    # later in the round"
    melee("fight", "join", FIGHT, "--as", "Friend", "--hits", "50", "--armor", "MA", "--weapon", "Longsword", "--cmb", "0")
    melee("fight", "join", FIGHT, *ORC)
    melee("fight", "join", FIGHT, "--as", "Goblin", "--side", "B", "--hits", "20", "--armor", "MA", "--weapon", "Longsword",
          "--cmb", "0")
    melee("fight", "edit", FIGHT, "Orc", "--taken", "59")
    data = ok(melee("fight", "round", FIGHT, "--auto", "--dice", "40,30,30", "--json"))
    assert [(a["attack"]["weapon"], a["attack"]["target"]) for a in data["attacks"]] == [
        ("Longsword", "Orc"), ("Longsword", "Goblin"), ("Longsword", "Hero")]  # Friend at Goblin: Orc fell; Orc skipped
    assert [e["kind"] for e in log(melee)][-4:] == ["attack", "attack", "attack", "round"]


def test_an_auto_round_that_ends_the_fight_ends_no_round(melee):  # type: ignore[no-untyped-def]
    # "A fight is over the moment at most one side has a combatant up ...; nothing follows but undo"
    melee("fight", "join", FIGHT, *ORC)
    melee("fight", "edit", FIGHT, "Orc", "--taken", "59")
    data = ok(melee("fight", "round", FIGHT, "--auto", "--dice", "40", "--json"))
    assert (data["fight"]["over"], data["fight"]["winner"], data["fight"]["round"]) == (True, "A", 1)
    assert "The fight is over: side A wins." in data["account"]
    assert [e["kind"] for e in log(melee)][-1] == "attack"


def test_dying_0_by_hand_stops_the_countdown(melee):  # type: ignore[no-untyped-def]
    # "`--dying 0` stops a countdown."
    melee("fight", "join", FIGHT, *ORC)
    melee("fight", "edit", FIGHT, "Orc", "--dying", "1")
    orc = ok(melee("fight", "edit", FIGHT, "Orc", "--dying", "0", "--json"))["fight"]["combatants"][1]
    assert (orc["name"], orc["dying"]) == ("Orc", None)
    orc = ok(melee("fight", "round", FIGHT, "--json"))["fight"]["combatants"][1]
    assert (orc["status"], orc["dying"]) == ("up", None)


def test_the_first_attack_unless_one_is_named() -> None:
    # "its attacks (a weapon and its CMB; the first is used unless the attack names another with --attack WEAPON)"
    from tables_app.domain.fights import Armament, Combatant, Fighter
    from tables_app.errors import NotFound
    from tables_app.services.fight_attacks import armament as _armament

    c = Combatant(Fighter("Orc", "B", 30, 0, "MA", attacks=(Armament("Scimitar", 55), Armament("Bite", 40))))
    assert (_armament(c, None).weapon, _armament(c, "bite").weapon) == ("Scimitar", "Bite")
    with pytest.raises(NotFound, match="Orc has no attack 'Claw'"):
        _armament(c, "Claw")
