"""Parties (docs/fights.md, "Parties"): combatants' definitions saved from a
fight, listed, shown, removed, and joined to another fight in one command,
refused whole when a name is taken."""

from __future__ import annotations

import json
from typing import Any

import pytest

HERO = ("--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA", "--parry", "10", "--weapon", "Longsword",
        "--cmb", "60", "--initiative", "5", "--death-at", "-20")
ALLY = ("--as", "Ally", "--hits", "40", "--armor", "MA", "--weapon", "Longsword", "--cmb", "40", "--has", "helm")
ORC = ("--creature", "Orc Warrior", "--weapon", "Scimitar", "--cmb", "55")


def ok(result: Any) -> str:
    assert result.exit_code == 0, result.output
    return str(result.output)


@pytest.fixture
def party(run):  # type: ignore[no-untyped-def]
    """The fight 'Ambush' (Hero and Ally, side A, against an Orc Warrior, after Hero's blow) saved as 'Heroes'."""
    for args in (("fight", "new", "Ambush"), ("fight", "join", "Ambush", *HERO), ("fight", "join", "Ambush", *ALLY),
                 ("fight", "join", "Ambush", *ORC), ("fight", "attack", "Ambush", "Hero", "Orc Warrior #1", "--dice", "80,95"),
                 ("fight", "party", "save", "Heroes", "--from", "Ambush", "--only", "hero", "--only", "Ally")):
        ok(run(*args))
    return run


def test_save_keeps_the_definitions_not_the_state(party):  # type: ignore[no-untyped-def]
    data = json.loads(ok(party("fight", "party", "show", "heroes", "--json")))
    assert data["party"] == "Heroes"
    hero, ally = data["members"]
    assert {k: hero[k] for k in ("name", "side", "hits", "def", "armor", "parry", "initiative", "death_at")} == \
        {"name": "Hero", "side": "A", "hits": 50, "def": 20, "armor": "MA", "parry": 10, "initiative": 5, "death_at": -20}
    assert [a["weapon"] for a in hero["attacks"]] == ["Longsword"] and ally["features"] == ["helm"]
    assert "taken" not in hero and "acted" not in hero


def test_save_says_what_it_saved_and_list_lists(party):  # type: ignore[no-untyped-def]
    out = ok(party("fight", "party", "save", "Band", "--from", "Ambush"))
    assert out == "Saved the party 'Band' from the fight 'Ambush': Hero, Ally, Orc Warrior #1.\n"
    assert ok(party("fight", "party", "list")).splitlines() == [
        "Band  (3 members: Hero, Ally, Orc Warrior #1)", "Heroes  (2 members: Hero, Ally)"]
    listed = json.loads(ok(party("fight", "party", "list", "--json")))["parties"]
    assert [(p["name"], p["members"]) for p in listed] == [("Band", ["Hero", "Ally", "Orc Warrior #1"]),
                                                           ("Heroes", ["Hero", "Ally"])]


def test_a_name_taken_is_refused_unless_replaced(party):  # type: ignore[no-untyped-def]
    result = party("fight", "party", "save", "HEROES", "--from", "Ambush")
    assert result.exit_code == 1
    assert result.output == ("Error: a party named 'Heroes' exists (see it: tables fight party show 'Heroes'; save over "
                             "it with --replace)\n")
    data = json.loads(ok(party("fight", "party", "save", "heroes", "--from", "Ambush", "--only", "Ally", "--replace",
                               "--json")))
    assert (data["party"], data["replaced"], [m["name"] for m in data["members"]]) == ("Heroes", True, ["Ally"])


def test_join_a_party_in_one_command(party):  # type: ignore[no-untyped-def]
    ok(party("fight", "new", "Crypt"))
    ok(party("fight", "join", "Crypt", "--creature", "Orc Warrior", "--weapon", "Scimitar", "--cmb", "55"))
    result = party("fight", "join", "Crypt", "--party", "Heroes", "--json")
    data = json.loads(ok(result))
    by_name = {c["name"]: c for c in data["fight"]["combatants"]}
    assert [c["name"] for c in data["fight"]["combatants"]] == ["Hero", "Orc Warrior #1", "Ally"]  # initiative 5 first
    assert (by_name["Hero"]["taken"], by_name["Hero"]["side"], by_name["Hero"]["death_at"]) == (0, "A", -20)
    assert data["fight"]["seq"] == 3
    log = json.loads(ok(party("fight", "log", "Crypt", "--json")))["events"]
    assert [e["kind"] for e in log] == ["join", "join", "join"]


def test_side_overrides_theirs(party):  # type: ignore[no-untyped-def]
    ok(party("fight", "new", "Crypt"))
    data = json.loads(ok(party("fight", "join", "Crypt", "--party", "Heroes", "--side", "Rescuers", "--json")))
    assert {c["side"] for c in data["fight"]["combatants"]} == {"Rescuers"}


def test_refused_whole_when_a_name_is_taken(party):  # type: ignore[no-untyped-def]
    ok(party("fight", "new", "Crypt"))
    ok(party("fight", "join", "Crypt", "--as", "ally", "--hits", "5", "--armor", "MA", "--weapon", "Longsword", "--cmb", "5"))
    result = party("fight", "join", "Crypt", "--party", "Heroes")
    assert result.exit_code == 1
    assert result.output == "Error: the party 'Heroes' cannot join: Ally is already in the fight (nothing joined)\n"
    assert [c["name"] for c in json.loads(ok(party("fight", "show", "Crypt", "--json")))["combatants"]] == ["ally"]


def test_the_members_own_options_are_refused_with_a_party(party):  # type: ignore[no-untyped-def]
    ok(party("fight", "new", "Crypt"))
    result = party("fight", "join", "Crypt", "--party", "Heroes", "--hits", "5", "--as", "X")
    assert result.exit_code == 2
    assert "Error: --party joins its members as saved: give only --side with it (not --hits, --as)" in result.output
    assert json.loads(ok(party("fight", "show", "Crypt", "--json")))["combatants"] == []


def test_unknown_names_and_remove(party):  # type: ignore[no-untyped-def]
    result = party("fight", "party", "show", "Heroez")
    assert result.exit_code == 1 and "no party named 'Heroez'" in result.output and "Heroes" in result.output
    result = party("fight", "party", "save", "X", "--from", "Ambush", "--only", "Hiro")
    assert result.exit_code == 1 and result.output.startswith("Error: no combatant named 'Hiro' in the fight 'Ambush'")
    result = party("fight", "join", "Ambush", "--party", "Nobody")
    assert result.exit_code == 1 and result.output.startswith("Error: no party named 'Nobody'")
    assert ok(party("fight", "party", "remove", "heroes")) == "Removed the party 'Heroes' (2 members).\n"
    assert ok(party("fight", "party", "list")) == "No parties (save one: tables fight party save PARTY --from FIGHT).\n"


def test_a_fight_without_combatants_and_a_bad_name(run):  # type: ignore[no-untyped-def]
    ok(run("fight", "new", "Empty"))
    result = run("fight", "party", "save", "P", "--from", "Empty")
    assert (result.exit_code, result.output) == (1, "Error: the fight 'Empty' has no combatants to save (tables fight join ...)\n")
    result = run("fight", "party", "save", "a\x07b", "--from", "Empty")
    assert result.exit_code == 2 and "a party's name holds the control character U+0007" in result.output


def test_party_names_and_the_fights_combatants_complete(party, db_path):  # type: ignore[no-untyped-def]
    from test_completion import completions

    assert completions(db_path, ["fight", "party", "show"], "he") == ["Heroes"]
    assert completions(db_path, ["fight", "join", "Ambush", "--party"], "") == ["Heroes"]
    assert completions(db_path, ["fight", "party", "save", "X", "--from", "Ambush", "--only"], "a") == ["Ally"]
