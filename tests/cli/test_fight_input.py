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
    assert result.exit_code == 1  # as too few: dice that do not fit the attack (docs/fights.md)
    assert result.stderr.splitlines()[-1] == (
        "Error: --dice: 998 of the given dice were not needed (50, 50, 50, 50, 50, 50, 50, 50, 50, 50, …); "
        "nothing was written: give exactly the dice the attacks read")
    assert len(events(run)) == 2


def test_names_with_control_characters_are_refused(run):  # type: ignore[no-untyped-def]
    # A name is printed on every status line: an escape or a bell in it would reach the terminal.
    result = run("fight", "new", "a\x1b[31mred")
    assert (result.exit_code, result.stderr.splitlines()[-1]) == (
        2, "Error: a fight's name holds the control character U+001B: type it without")
    run("fight", "new", FIGHT)
    for option, value, code in (("--as", "Gob\x07lin", "0007"), ("--side", "B\x7f", "007F")):
        args = {"--as": "Goblin", "--side": "B", option: value}
        result = run("fight", "join", FIGHT, "--as", args["--as"], "--side", args["--side"], "--hits", "9", "--armor", "MA",
                     "--weapon", "Dagger", "--cmb", "5")
        assert (result.exit_code, result.stderr.splitlines()[-1]) == (
            2, f"Error: {option} holds the control character U+{code}: type it without")
    assert events(run) == []
    assert run("fight", "join", FIGHT, "--as", "Gob\tlin", *HERO[2:]).exit_code == 0  # whitespace is folded to one space
    assert events(run)[0]["combatant"]["name"] == "Gob lin"
