"""Review of #41 (docs/fights.md): the GM's moves and the rest of a critical over the CLI, rules the suite did
not pin (each found by a mutation no test noticed) and wrong answers found reading the change."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_fight_crippling import brawl_sheets

FIGHT = "Review"
ARIA = ("--as", "Aria", "--hits", "50", "--def", "20", "--armor", "MA", "--parry", "10", "--weapon", "Longsword",
        "--cmb", "60")
ORC = ("--as", "Orc", "--side", "B", "--hits", "60", "--def", "20", "--armor", "MA", "--weapon", "Scimitar", "--cmb", "55")


@pytest.fixture
def duel(run):  # type: ignore[no-untyped-def]
    """Aria (side A) against an Orc (side B), joined by hand."""
    assert run("fight", "new", FIGHT).exit_code == 0
    for joining in (ARIA, ORC):
        assert run("fight", "join", FIGHT, *joining).exit_code == 0
    return run


def ok(result: Any) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.fixture
def brawls(run, write_workbook):  # type: ignore[no-untyped-def]
    """Two brawls of Brutes (a Cudgel and a Dagger, both at CMB 20, test_fight_crippling's invented tables): Ann
    (side A) against Bob (side B), Bob's Cudgel dropped; in the second, its Cudgel at CMB 90."""
    assert run("import", str(write_workbook("brawl.xlsx", brawl_sheets()))).exit_code == 0
    for name in ("Brawl 1", "Brawl 2"):
        assert run("fight", "new", name, "--ruleset", "RM").exit_code == 0
        assert run("fight", "join", name, "--creature", "Brute", "--as", "Ann", "--side", "A").exit_code == 0
        assert run("fight", "join", name, "--creature", "Brute", "--as", "Bob", "--side", "B").exit_code == 0
    assert run("fight", "edit", "Brawl 2", "Bob", "--cmb", "90").exit_code == 0
    for name in ("Brawl 1", "Brawl 2"):
        assert run("fight", "edit", name, "Bob", "--drop", "Cudgel").exit_code == 0
    return run


def test_the_odds_attack_with_the_first_weapon_not_dropped(brawls):  # type: ignore[no-untyped-def]
    """docs/fights.md, "The rest of a critical": "`odds fight` and `simulate fight` follow the same rules ...: the
    targeting rule attacks with its first attack not dropped or broken". Bob's Cudgel is dropped in both brawls:
    it attacks with its Dagger at 20 in each, so the CMB its Cudgel had changes nothing."""
    odds = [ok(brawls("odds", "fight", name, "--exact", "--rounds", "1", "--json"))["rounds"] for name in ("Brawl 1", "Brawl 2")]
    assert odds[0] == odds[1]
    assert who_in(brawls, "Brawl 2", "Bob")["attacks_with"] == "Dagger"


def who_in(run: Any, fight: str, name: str) -> dict[str, Any]:
    data = ok(run("fight", "show", fight, "--json"))
    return next(c for c in data["combatants"] if c["name"] == name)


def test_a_party_whose_member_left_the_fight_is_refused_whole_as_the_party(duel):  # type: ignore[no-untyped-def]
    """docs/fights.md, "Parties": "If any member's name is taken in the fight, nothing joins: `the party 'Heroes'
    cannot join: Hero is already in the fight (nothing joined)`"; "Combatants": one who left keeps its name taken.
    The refusal is the party's (its advice is not `--as`, which `--party` refuses)."""
    assert duel("fight", "party", "save", "Heroes", "--from", FIGHT, "--only", "Aria").exit_code == 0
    assert duel("fight", "leave", FIGHT, "Aria").exit_code == 0
    result = duel("fight", "join", FIGHT, "--party", "Heroes")
    assert result.exit_code == 1
    assert result.stderr == "Error: the party 'Heroes' cannot join: Aria has left the fight (nothing joined)\n"


def test_a_creature_joining_after_a_copy_named_by_hand_takes_the_next_number(duel):  # type: ignore[no-untyped-def]
    """docs/fights.md, "Names": "*decision*: any name `N #k`, by hand too, is a copy of `N`", and "A copy's
    number is past every copy that joined"."""
    assert duel("fight", "join", FIGHT, "--as", "Wolf #1", "--side", "B", "--hits", "20", "--armor", "MA").exit_code == 0
    data = ok(duel("fight", "join", FIGHT, "--creature", "Wolf", "--json"))
    assert [c["name"] for c in data["fight"]["combatants"]][-1] == "Wolf #2"
