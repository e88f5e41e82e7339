"""Whose turn it is (`fight show`: the next to act, who acted, who cannot, the
sides, what counts only from the next round) and what each attack read
(`fight log`: its dice, its cell, its critical's row): docs/fights.md."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tables_app.domain.fights.account import dice_line, shown_line
from tables_app.domain.fights.events import Attack
from tables_app.domain.fights.rules import pending
from tables_app.domain.fights.state import Blow, Combatant, Counters, Fighter, Status

FIGHT = "Orc ambush"
HERO = ("--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA", "--parry", "10", "--weapon", "Longsword",
        "--cmb", "60")
ORC = ("--creature", "Orc Warrior", "--weapon", "Scimitar", "--cmb", "55")


@pytest.fixture
def fight(run):  # type: ignore[no-untyped-def]
    """Hero (side A) against an Orc Warrior (side B); Hero's blow (80, 95) stuns, bleeds and slows the Orc."""
    for args in (("fight", "new", FIGHT), ("fight", "join", FIGHT, *HERO), ("fight", "join", FIGHT, *ORC),
                 ("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "80,95")):
        assert run(*args).exit_code == 0
    return run


def shown(run: Any) -> dict[str, Any]:
    result = run("fight", "show", FIGHT, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def orc(data: dict[str, Any]) -> dict[str, Any]:
    return next(c for c in data["combatants"] if c["name"] == "Orc Warrior #1")


def test_show_says_whose_turn_who_acted_and_what_counts_from_the_next_round(fight):  # type: ignore[no-untyped-def]
    result = fight("fight", "show", FIGHT)
    assert result.exit_code == 0
    assert result.output.splitlines() == [
        "Orc ambush: round 1",
        "Round 1: next Orc Warrior #1 (side B); acted: Hero",
        "Sides: A 1/1 up; B 1/1 up",
        "A  Hero            50/50 hits",
        "B  Orc Warrior #1  36/60 hits  from next round: bleeding 2/rnd, stunned 1, penalty -15",
    ]


def test_next_round_the_stunned_cannot_act_and_its_effects_count(fight):  # type: ignore[no-untyped-def]
    assert fight("fight", "attack", FIGHT, "Orc Warrior #1", "Hero", "--dice", "50").exit_code == 0
    assert fight("fight", "round", FIGHT).exit_code == 0
    lines = fight("fight", "show", FIGHT).output.splitlines()
    assert lines[1] == "Round 2: next Hero (side A); cannot act: Orc Warrior #1 (stunned, 1 round left)"
    assert lines[4] == "B  Orc Warrior #1  36/60 hits  bleeding 2/rnd  stunned 1  penalty -15"
    data = shown(fight)
    assert data["turn"] == "Hero"
    assert orc(data)["pending"] == {}


def test_show_json_adds_turn_sides_and_pending(fight):  # type: ignore[no-untyped-def]
    data = shown(fight)
    assert data["turn"] == "Orc Warrior #1"
    assert data["sides"] == {"A": {"up": 1, "total": 1}, "B": {"up": 1, "total": 1}}
    assert orc(data)["pending"] == {"bleed": 2, "stun": 1, "penalty": -15}
    assert (orc(data)["bleed"], orc(data)["stun"], orc(data)["penalty"]) == (2, 1, -15)  # the keys kept, as now
    hero = next(c for c in data["combatants"] if c["name"] == "Hero")
    assert hero["pending"] == {} and hero["acted"] is True


def test_pending_is_the_value_as_it_will_count() -> None:
    """A stun of 1 left from before and 1 more received: stunned this round, and 1 round from the next; a
    penalty adds up; a countdown received now first ticks at the next round's end."""
    fighter = Fighter("Orc", "B", 60, 20, "MA")
    c = Combatant(fighter, now=Counters(stun=2, penalty=-25, bleed=3, dying=3), start=Counters(stun=1, penalty=-15, bleed=3),
                  fresh_dying=True)
    assert pending(c) == {"stun": 1, "penalty": -25, "dying": 3}
    assert shown_line(c, 3, 1) == "B  Orc  60/60 hits  bleeding 3/rnd  stunned 1  penalty -15  " \
                                  "from next round: stunned 1, penalty -25, dying in 3"
    assert pending(Combatant(fighter, now=Counters(stun=2), status=Status.DEAD)) == {}


def test_nobody_left_to_act_and_none_when_over(fight):  # type: ignore[no-untyped-def]
    assert fight("fight", "attack", FIGHT, "Orc Warrior #1", "Hero", "--dice", "50").exit_code == 0
    assert shown(fight)["turn"] is None
    assert fight("fight", "show", FIGHT).output.splitlines()[1] == \
        "Round 1: nobody left to act (end the round: tables fight round); acted: Hero, Orc Warrior #1"
    assert fight("fight", "edit", FIGHT, "Orc Warrior #1", "--taken", "60").exit_code == 0
    data = shown(fight)
    assert (data["over"], data["turn"], data["sides"]["B"]) == (True, None, {"up": 0, "total": 1})
    lines = fight("fight", "show", FIGHT).output.splitlines()
    assert lines[:2] == ["Orc ambush: round 1, over: side A won", "Sides: A 1/1 up; B 0/1 up"]


def test_log_shows_the_dice_and_what_each_attack_read(fight):  # type: ignore[no-untyped-def]
    result = fight("fight", "log", FIGHT)
    assert result.exit_code == 0
    lines = result.output.splitlines()
    at = lines.index("   3  Hero attacks Orc Warrior #1 with Longsword: CMB 50 against DEF 20.")
    assert lines[at + 1] == "      dice 80, 95: Edged 106-110 MA → 11 Lig; Lig on Cut 105 → 101-110 Chest cleft"
    data = json.loads(fight("fight", "log", FIGHT, "--json").stdout)
    assert [e["kind"] for e in data["events"]] == ["join", "join", "attack"]  # the JSON keeps its shape
    assert data["events"][2]["dice"] == [80, 95]


def test_the_dice_line_names_a_branchs_condition_and_a_fumble() -> None:
    resolved = {"system": "table", "cell": {"table": "Edged", "row": "91-95", "armor": "MA", "text": "14 S"},
                "critical": {"severity": "S", "table": "Slash", "modified_roll": 95,
                             "entry": {"range": "91-95", "title": None, "condition": "helm"}},
                "more_criticals": [], "secondary_critical": None, "fumble": None}
    attack = Attack("Hero", "Orc", Blow(), "Longsword", 70, 20, (80, 95), resolved)
    assert dice_line(attack) == "dice 80, 95: Edged 91-95 MA → 14 S; S on Slash 95 → 91-95 (if helm)"
    fumbled = {"system": "table", "cell": None, "result": 2, "outcome": "fumble",
               "fumble": {"table": "Melee Fumbles", "modified_roll": 40, "entry": {"range": "36-45", "title": "Slip"}}}
    assert dice_line(Attack("Hero", "Orc", Blow(), "Longsword", 70, 20, (2, 40), fumbled)) == \
        "dice 2, 40: result 2: fumble; fumble on Melee Fumbles 40 → 36-45 Slip"
    rise = {"system": "rise", "damage": 23}
    assert dice_line(Attack("Hero", "Orc", Blow(), "rise", 6, 12, (10, 10, 3), rise)) == "dice 10, 10, 3: rise, 23 damage"


def test_one_without_an_attack_cannot_act_and_is_never_next() -> None:
    from tables_app.domain.fights import Armament, Fight, Join, replay
    from tables_app.domain.fights.account import turn_line
    from tables_app.domain.fights.rules import whose_turn

    fight = replay(Fight("Pit"), [Join(Fighter("Dummy", "A", 5, 0, "MA", initiative=9)),
                                  Join(Fighter("Orc", "B", 5, 0, "MA", attacks=(Armament("Sword", 40),)))])
    assert whose_turn(fight) is not None and whose_turn(fight).name == "Orc"  # type: ignore[union-attr]
    assert turn_line(fight) == "Round 1: next Orc (side B); cannot act: Dummy (no attack)"
