"""Death past a negative-hits threshold (docs/fights.md, "Death past a
threshold"): `fight join --death-at N`, or the fight's ruleset's `Death at`;
dead at once when the hits left reach it, after a blow, a round's bleeding
or hits set by hand; the odds of such a fight refused, saying why."""

from __future__ import annotations

import json
from typing import Any

import pytest

FIGHT = "Pit"
HERO = ("--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")
ALLY = ("--as", "Ally", "--hits", "50", "--armor", "MA", "--weapon", "Longsword", "--cmb", "40", "--side", "A")


def state(run: Any) -> dict[str, Any]:
    result = run("fight", "show", FIGHT, "--json")
    assert result.exit_code == 0, result.output
    return {c["name"]: c for c in json.loads(result.stdout)["combatants"]}


@pytest.fixture
def fight(run):  # type: ignore[no-untyped-def]
    """Hero and Ally (side A, Hero dies at -10 hits left) against an Orc Warrior of 20 hits dying at -1."""
    for args in (("fight", "new", FIGHT), ("fight", "join", FIGHT, *HERO, "--death-at", "-10"),
                 ("fight", "join", FIGHT, *ALLY),
                 ("fight", "join", FIGHT, "--creature", "Orc Warrior", "--hits", "20", "--death-at", "-1")):
        result = run(*args)
        assert result.exit_code == 0, result.output
    return run


def test_a_blow_past_the_threshold_kills_at_once(fight):  # type: ignore[no-untyped-def]
    result = fight("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "80,95")
    assert result.exit_code == 0, result.output
    assert "Orc Warrior #1 is dead: -5 hits left, at or past its death at -1." in result.output.splitlines()
    assert state(fight)["Orc Warrior #1"]["status"] == "dead"


def test_without_a_threshold_the_same_blow_only_downs(run):  # type: ignore[no-untyped-def]
    for args in (("fight", "new", FIGHT), ("fight", "join", FIGHT, *HERO),
                 ("fight", "join", FIGHT, "--creature", "Orc Warrior", "--hits", "20")):
        assert run(*args).exit_code == 0
    assert run("fight", "attack", FIGHT, "Hero", "Orc Warrior #1", "--dice", "80,95").exit_code == 0
    assert state(run)["Orc Warrior #1"]["status"] == "down"


def test_a_down_combatant_that_bleeds_past_it_dies_at_the_rounds_end(fight):  # type: ignore[no-untyped-def]
    assert fight("fight", "edit", FIGHT, "Hero", "--taken", "55", "--bleed", "5").exit_code == 0
    assert state(fight)["Hero"]["status"] == "down"  # -5 hits left: down, not yet past -10
    result = fight("fight", "round", FIGHT)
    assert result.exit_code == 0, result.output
    assert "Hero is dead: -10 hits left, at or past its death at -10." in result.output.splitlines()
    assert state(fight)["Hero"]["status"] == "dead"


def test_hits_set_by_hand_past_it_kill(fight):  # type: ignore[no-untyped-def]
    result = fight("fight", "edit", FIGHT, "Hero", "--taken", "60")
    assert "Hero is dead: -10 hits left, at or past its death at -10." in result.output.splitlines()
    assert fight("fight", "edit", FIGHT, "Hero", "--taken", "0").exit_code == 0
    assert state(fight)["Hero"]["status"] == "dead"  # a dead one stays dead unless --status up says otherwise


def test_show_and_the_join_event_keep_the_threshold(fight):  # type: ignore[no-untyped-def]
    assert (state(fight)["Hero"]["death_at"], state(fight)["Ally"]["death_at"]) == (-10, None)
    events = json.loads(fight("fight", "log", FIGHT, "--json").stdout)["events"]
    assert events[0]["combatant"]["death_at"] == -10
    assert "death_at" not in events[1]["combatant"]  # a join without one keeps the shape it had


def test_the_option_is_bounded(run):  # type: ignore[no-untyped-def]
    assert run("fight", "new", FIGHT).exit_code == 0
    result = run("fight", "join", FIGHT, *HERO, "--death-at", "5")
    assert result.exit_code == 2
    assert "Invalid value for '--death-at': 5 is not in the range -100000<=x<=0." in result.output
    assert state(run) == {}


@pytest.mark.slow  # seconds
def test_the_odds_and_the_simulation_of_such_a_fight_are_worked_out(fight):  # type: ignore[no-untyped-def]
    """The exact odds follow the threshold (tests/domain/fights/test_fight_death_odds.py checks them path by path):
    here the Orc of 20 hits, dead at -1, can die of a blow that takes it to 0 hits left or below."""
    odds = json.loads(fight("odds", "fight", FIGHT, "--exact", "--rounds", "1", "--json").stdout)
    for args in (("fight", "new", "Pit2"), ("fight", "join", "Pit2", *HERO), ("fight", "join", "Pit2", *ALLY),
                 ("fight", "join", "Pit2", "--creature", "Orc Warrior", "--hits", "20")):
        assert fight(*args).exit_code == 0
    without = json.loads(fight("odds", "fight", "Pit2", "--exact", "--rounds", "1", "--json").stdout)
    dead = odds["rounds"][0]["combatants"]["Orc Warrior #1"]["dead"]
    assert dead > without["rounds"][0]["combatants"]["Orc Warrior #1"]["dead"]  # the threshold kills more
    simulated = fight("simulate", "fight", FIGHT, "--rounds", "1", "--count", "200", "--seed", "3", "--json")
    assert simulated.exit_code == 0, simulated.output
