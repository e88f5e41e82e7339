"""`fight undo --json` answers the fight as it is after the undo (docs/fights.md, "Undo"): the same as
`fight show --json` then shows, without the event it dropped."""

from __future__ import annotations

import json

BY_HAND = ("--hits", "30", "--armor", "MA", "--weapon", "Dagger", "--cmb", "10")


def test_undo_answers_the_fight_as_it_is_after_the_undo(run):  # type: ignore[no-untyped-def]
    run("fight", "new", "Undo")
    run("fight", "join", "Undo", "--as", "Hero", *BY_HAND)
    run("fight", "join", "Undo", "--as", "Orc", "--side", "B", *BY_HAND)
    hit = json.loads(run("fight", "attack", "Undo", "Hero", "Orc", "--seed", "5", "--json").stdout)
    assert hit["fight"]["seq"] == 3 and any(c["taken"] for c in hit["fight"]["combatants"])  # the undo has work to do
    undone = json.loads(run("fight", "undo", "Undo", "--json").stdout)["fight"]
    assert undone == json.loads(run("fight", "show", "Undo", "--json").stdout)
    assert undone["seq"] == 2 and [c["taken"] for c in undone["combatants"]] == [0, 0]
