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


def test_the_odds_of_such_a_fight_are_refused_saying_why(fight):  # type: ignore[no-untyped-def]
    for words in (("odds", "fight"), ("simulate", "fight")):
        result = fight(*words, FIGHT)
        assert result.exit_code == 1
        assert result.output.splitlines()[-1] == (
            "Error: the odds of a fight do not follow a death threshold yet, and Hero dies at -10 hits left: play it "
            "out (tables fight round --auto), or join its combatants without one")


def test_the_domains_odds_and_walk_refuse_it_too() -> None:
    """Never a silent wrong answer from the library either: the states there hold no hits taken for the down."""
    from tables_app.domain.fights import Fight, Join, Fighter, Armament, replay
    from tables_app.domain.fights.odds import Walk, fight_odds

    fighters = (Fighter("Hero", "A", 10, 0, "MA", attacks=(Armament("Sword", 50),), death_at=-5),
                Fighter("Orc", "B", 10, 0, "MA", attacks=(Armament("Sword", 50),)))
    fight = replay(Fight("Pit"), [Join(f) for f in fighters])
    for work in (lambda: fight_odds(fight, lambda *_: {}, 1), lambda: Walk(fight, lambda *_: {})):
        with pytest.raises(ValueError, match="do not follow a death threshold"):
            work()
