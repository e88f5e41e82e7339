"""Two refusals of the fight commands the HTTP API relies on (docs/fights.md):
an unknown combatant is not found, with the closest names (exit 1; HTTP 404),
and a stale `--after` is told as such before any rule is checked against a
state the caller never saw (exit 1; HTTP 409)."""

from __future__ import annotations

import json


def joined(run) -> None:  # type: ignore[no-untyped-def]
    assert run("fight", "new", "Ambush").exit_code == 0
    assert run("fight", "join", "Ambush", "--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA",
               "--weapon", "Longsword", "--cmb", "60").exit_code == 0
    assert run("fight", "join", "Ambush", "--creature", "Orc Warrior", "--weapon", "Scimitar", "--cmb", "55").exit_code == 0


def test_an_unknown_combatant_is_not_found_with_the_closest(run):
    joined(run)
    result = run("fight", "attack", "Ambush", "Hero", "Orc Wrrior #1", "--dice", "50", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"] == {"message": "no combatant named 'Orc Wrrior #1' in the fight — did you "
                                                             "mean 'Orc Warrior #1'?",
                                                  "workbook": None, "sheet": None, "cell": None,
                                                  "suggestions": ["Orc Warrior #1"]}


def test_a_stale_after_is_told_before_the_rules(run):
    joined(run)
    assert run("fight", "attack", "Ambush", "Hero", "Orc Warrior #1", "--seed", "1", "--after", "2").exit_code == 0
    # Seen at 2: Hero had not attacked yet; now it has. The caller hears that the fight changed.
    result = run("fight", "attack", "Ambush", "Hero", "Orc Warrior #1", "--seed", "2", "--after", "2", "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["message"] == \
        "the fight 'Ambush' changed (its log is at event 3, not 2): show it again, then retry"
    for args in (("round", "Ambush"), ("edit", "Ambush", "Hero", "--stun", "1"), ("undo", "Ambush"),
                 ("join", "Ambush", "--creature", "Orc Warrior", "--weapon", "Scimitar", "--cmb", "55")):
        assert "changed" in run("fight", *args, "--after", "2").output
