"""`tables odds fight` and `tables simulate fight` on a duel in each formula
system, and on a duel of a formula system against the tables (docs/fights.md,
"Odds of a fight": every attack's blow has its exact distribution, in a
formula system from the system's exact damage distribution). A duel's odds
account for every fight (won by a side, or still going), and the simulation
agrees with them; an attack the fight cannot resolve is refused saying why."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from helpers import error_lines

# Each duel: the options both sides attack with, the target's DEF, and hits low enough that
# the fight's states stay few (each formula attack a blow per damage it can deal).
DUELS = {
    "rise": (["accuracy=4", "damage=1d4+1"], 8, 6),
    "worlds-awakening": (["stat=2", "damage=1d6", "cha=2"], 12, 6),
    "d10-pool": (["bonus=3", "attacks=2", "damage=1d3", "toughness=3"], 7, 5),
    "pte": (["accuracy=2", "ac=2", "stat=5", "damage-base=4", "def=3"], 3, 12),
}
ROUNDS = "6"


def answer(run: Any, *args: str) -> dict[str, Any]:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def options(texts: list[str]) -> list[str]:
    return [arg for text in texts for arg in ("--option", text)]


def duel(run: Any, system: str) -> None:
    given, defense, hits = DUELS[system]
    run("fight", "new", "Duel")
    assert run("fight", "join", "Duel", "--as", "Hero", "--hits", str(hits), "--parry", "1", "--system", system,
               *options(given)).exit_code == 0
    assert run("fight", "join", "Duel", "--as", "Orc", "--side", "B", "--hits", str(hits), "--def", str(defense),
               "--system", system, *options(given)).exit_code == 0


def near(drawn: float, p: float, count: int) -> bool:
    """A share of ``count`` fights within 4.5 standard errors of the exact ``p`` (its error from p itself, so
    that a share drawn as 0 or 1, whose own error is 0, is still judged)."""
    return abs(drawn - p) <= 4.5 * math.sqrt(p * (1 - p) / count) + 1e-9


def agree(exact: dict[str, Any], sampled: dict[str, Any]) -> None:
    """Every round's P(over) and P(each side won), and E[rounds], within 4.5 standard errors."""
    listed = sampled["rounds"]  # to the round by which every fight played had ended (issue 41): as they stand after it
    assert [r["round"] for r in listed] == [r["round"] for r in exact["rounds"]][:len(listed)]
    assert len(listed) == len(exact["rounds"]) or listed[-1]["over"] == 1.0
    count = sampled["count"]
    for i, computed in enumerate(exact["rounds"]):
        drawn = listed[min(i, len(listed) - 1)]
        assert near(drawn["over"], computed["over"], count)
        for side in ("A", "B"):
            assert near(drawn["sides"][side], computed["sides"][side], count)
    assert abs(sampled["expected_rounds"] - exact["expected_rounds"]) <= 4.5 * sampled["se"]["expected_rounds"] + 1e-9


@pytest.mark.parametrize("system", DUELS)
def test_a_duel_in_each_formula_system_has_exact_odds_and_a_simulation(run, system):  # type: ignore[no-untyped-def]
    duel(run, system)
    exact = answer(run, "odds", "fight", "Duel", "--exact", "--rounds", ROUNDS)
    last = exact["rounds"][-1]
    # damage only (no condition, nothing at a round's end): a duel ends with a winner, or goes on
    assert abs(last["sides"]["A"] + last["sides"]["B"] + exact["unfinished"] - 1) < 1e-9
    assert 0 < last["sides"]["A"] < 1 and 0 < last["sides"]["B"] < 1
    assert abs(last["sides"]["A"] - last["combatants"]["Orc"]["down"]) < 1e-9  # A wins when Orc is down
    sampled = answer(run, "simulate", "fight", "Duel", "--rounds", ROUNDS, "--count", "4000", "--seed", "3")
    agree(exact, sampled)


def test_the_odds_follow_the_fight_as_it_stands(run):  # type: ignore[no-untyped-def]
    duel(run, "pte")  # pte reads the target's hits left: after a hit, its blows are another distribution
    before = answer(run, "odds", "fight", "Duel", "--exact", "--rounds", ROUNDS)
    assert run("fight", "attack", "Duel", "Hero", "Orc", "--dice", "15").exit_code == 0  # 15 + 2 - parry 1 against 2 + 3: 5 + 4 - 3 = 6 hits
    after = answer(run, "odds", "fight", "Duel", "--exact", "--rounds", ROUNDS)
    assert after["seq"] == before["seq"] + 1
    assert after["rounds"][-1]["sides"]["A"] > before["rounds"][-1]["sides"]["A"]  # Orc is hurt, Hero's attack spent
    agree(after, answer(run, "simulate", "fight", "Duel", "--rounds", ROUNDS, "--count", "4000", "--seed", "4"))


def test_a_formula_system_against_the_tables(run):  # type: ignore[no-untyped-def]
    run("fight", "new", "Mixed")
    run("fight", "join", "Mixed", "--as", "Hero", "--hits", "3", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")
    assert run("fight", "join", "Mixed", "--as", "Orc", "--side", "B", "--hits", "6", "--def", "8", "--armor", "MA",
               "--system", "rise", *options(DUELS["rise"][0])).exit_code == 0
    exact = answer(run, "odds", "fight", "Mixed", "--exact", "--rounds", ROUNDS)
    last = exact["rounds"][-1]
    assert abs(last["over"] + exact["unfinished"] - 1) < 1e-9
    assert 0 < last["sides"]["A"] < 1 and 0 < last["sides"]["B"] < 1
    agree(exact, answer(run, "simulate", "fight", "Mixed", "--rounds", ROUNDS, "--count", "4000", "--seed", "5"))


def test_a_table_attack_on_a_combatant_without_armor_is_refused(run):  # type: ignore[no-untyped-def]
    run("fight", "new", "Mixed")
    run("fight", "join", "Mixed", "--as", "Hero", "--hits", "3", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")
    run("fight", "join", "Mixed", "--as", "Orc", "--side", "B", "--hits", "6", "--system", "rise",
        *options(DUELS["rise"][0]))
    for command in ("odds", "simulate"):
        result = run(command, "fight", "Mixed")
        assert result.exit_code == 1
        assert error_lines(result) == ("Error: Hero attacks on the tables, and Orc has no armor column (it joined with "
                                       "--system and no --armor): join it with --armor to work out the fight\n")


def test_a_filled_in_value_past_the_systems_bounds_is_refused(run):  # type: ignore[no-untyped-def]
    run("fight", "new", "Wall")
    run("fight", "join", "Wall", "--as", "Hero", "--hits", "3", "--system", "rise", *options(DUELS["rise"][0]))
    run("fight", "join", "Wall", "--as", "Wall", "--side", "B", "--hits", "6", "--def", "150", "--system", "rise",
        *options(DUELS["rise"][0]))
    result = run("odds", "fight", "Wall")
    assert result.exit_code == 1
    assert error_lines(result) == ("Error: Hero's rise attack on Wall: --def must be between -100 and 100, not 150 "
                                   "(in a state the fight can reach)\n")


def test_an_attack_with_too_many_damages_is_refused_before_the_work(run):  # type: ignore[no-untyped-def]
    run("fight", "new", "Big")
    run("fight", "join", "Big", "--as", "Hero", "--hits", "3", "--system", "rise", "--option", "accuracy=4",
        "--option", "damage=100d1000")
    run("fight", "join", "Big", "--as", "Orc", "--side", "B", "--hits", "6", "--system", "rise",
        *options(DUELS["rise"][0]))
    for command in ("odds", "simulate"):
        result = run(command, "fight", "Big")
        assert result.exit_code == 1
        assert error_lines(result).startswith("Error: Hero's rise attack on Orc is too large for the odds of a fight: "
                                              "it can deal ")
        assert error_lines(result).endswith(" different damages (more than 5,000)\n")
