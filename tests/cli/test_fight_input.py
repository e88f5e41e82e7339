"""What the fight commands take from the command line, and what they refuse
(docs/fights.md): each refusal one short `Error:` line, nothing written."""

from __future__ import annotations

import json

FIGHT = "Orc ambush"
HERO = ("--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")
ORC = ("--as", "Orc", "--side", "B", "--hits", "60", "--def", "20", "--armor", "MA", "--weapon", "Scimitar", "--cmb", "55")


def events(run) -> list[dict]:  # type: ignore[no-untyped-def]
    return json.loads(run("fight", "log", FIGHT, "--json").stdout)["events"]  # type: ignore[no-any-return]


def test_a_thousand_dice_too_many_are_refused_in_one_short_line(run):  # type: ignore[no-untyped-def]
    # "Given dice must be exactly the dice the round reads: too few or too many, and nothing is written."
    run("fight", "new", FIGHT)
    run("fight", "join", FIGHT, *HERO)
    run("fight", "join", FIGHT, *ORC)
    result = run("fight", "attack", FIGHT, "Hero", "Orc", "--dice", ",".join(["50"] * 1000))
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "Error: --dice: 998 of the given dice were not needed (50, 50, 50, 50, 50, 50, 50, 50, 50, 50, …); "
        "nothing was written: give exactly the dice the attacks read")
    assert len(events(run)) == 2
