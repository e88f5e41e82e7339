"""Fight names by the rule of names on both databases, sides normalised as
names are, and the characters no name may hold (issue 43, item 5; the
reproducers R1, R2, R4 and R6 of the review's test_review_repro.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tables_app.cli.root import cli

BY_HAND = ("--hits", "30", "--armor", "MA", "--weapon", "Dagger", "--cmb", "10")


def test_a_fight_is_found_by_the_rule_of_names(run: Any) -> None:
    """R1: SQLite's NOCASE is ASCII only: `ärger` was another fight than `Ärger`."""
    assert run("fight", "new", "Ärger").exit_code == 0
    shown = run("fight", "show", "ärger")
    assert shown.exit_code == 0, shown.output
    again = run("fight", "new", "ÄRGER")
    assert (again.exit_code, again.output.splitlines()[0]) == (
        1, "Error: a fight named 'Ärger' exists (show it: tables fight show 'Ärger', or remove it first)")
    assert run("fight", "show", "ｋａｔａｎａ").exit_code == 1
    assert run("fight", "new", "ｋａｔａｎａ").exit_code == 0
    assert run("fight", "show", "KATANA").exit_code == 0  # NFKC: full-width letters are the name


def test_a_name_the_collation_takes_for_another_is_not_that_name(run: Any) -> None:
    """R2: PostgreSQL's ICU collation at level 2 equates katakana with hiragana; the rule does not."""
    assert run("fight", "new", "ヒラ").exit_code == 0
    assert run("fight", "show", "ひら").exit_code == 1
    assert run("fight", "new", "ひら").exit_code == 0
    listed = json.loads(run("fight", "list", "--json").stdout)["fights"]
    assert sorted(f["name"] for f in listed) == sorted(["ひら", "ヒラ"])


@pytest.mark.parametrize("args", [
    ("fight", "new", "Bad\udcff"),
    ("fight", "show", "Bad\udcff"),
    ("fight", "join", "F", "--as", "Bad\udcff", *BY_HAND),
    ("fight", "join", "F", "--as", "Hero", "--side", "Bad\udcff", *BY_HAND),
])
def test_a_name_whose_bytes_are_not_utf8_is_one_error_line(db_path: Path, args: tuple[str, ...]) -> None:
    """R4: `tables fight new $'Bad\\xff'` (argv decoded with surrogateescape) was a UnicodeEncodeError traceback."""
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", str(db_path), "fight", "new", "F"]).exit_code == 0
    result = runner.invoke(cli, ["--db", str(db_path), *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert len(lines) == 1 and "not UTF-8" in lines[0], result.output


@pytest.mark.parametrize("character", ["\u200b", "\u202e", "\u2066", "\ufeff"])
def test_invisible_formatting_characters_are_refused_in_every_name(run: Any, character: str) -> None:
    """`Hero` and `Hero\\u200b` printed alike; U+202E turned the terminal's line around."""
    refused = run("fight", "new", f"Duel{character}")
    assert (refused.exit_code, refused.output.splitlines()[-1]) == (  # a usage mistake, as a control character is
        2, f"Error: a fight's name holds the invisible formatting character U+{ord(character):04X}: type it without")
    assert run("fight", "new", "F").exit_code == 0
    for option, value in (("--as", f"Her{character}o"), ("--side", f"B{character}")):
        given = {"--as": "Hero", "--side": "A", option: value}
        refused = run("fight", "join", "F", "--as", given["--as"], "--side", given["--side"], *BY_HAND)
        assert refused.exit_code == 2
        assert refused.output.splitlines()[-1] == (f"Error: {option} holds the invisible formatting character "
                                                   f"U+{ord(character):04X}: type it without")
    assert json.loads(run("fight", "show", "F", "--json").stdout)["seq"] == 0  # nothing written


def test_a_side_is_normalised_as_a_name_and_spelled_as_the_fight_spells_it(run: Any) -> None:
    """R6: `B  ` was another side than `B` (two allies fought each other); `b` is `B` by the rule of names."""
    run("fight", "new", "Sides")
    run("fight", "join", "Sides", "--as", "Hero", "--side", "A", *BY_HAND)
    run("fight", "join", "Sides", "--as", "Orc", "--side", "B", *BY_HAND)
    run("fight", "join", "Sides", "--as", "Goblin", "--side", "B  ", *BY_HAND)
    run("fight", "join", "Sides", "--as", "Wolf", "--side", "b", *BY_HAND)
    run("fight", "join", "Sides", "--as", "Ally", "--side", " a ", *BY_HAND)
    sides = [c["side"] for c in json.loads(run("fight", "show", "Sides", "--json").stdout)["combatants"]]
    assert sides == ["A", "B", "B", "B", "A"]
    run("fight", "edit", "Sides", "Hero", "--status", "down")
    run("fight", "edit", "Sides", "Ally", "--status", "down")
    shown = json.loads(run("fight", "show", "Sides", "--json").stdout)
    assert (shown["over"], shown["winner"]) == (True, "B")
