"""Every word for a kind that the CLI offers works, and means its kind
(the words are defined once: tables_app/domain/kinds.py)."""

from __future__ import annotations

import json

import pytest

from tables_app.domain.kinds import KINDS, LABELS, label, list_words, show_words


# written out here, not derived from tables_app/domain/kinds.py
KIND = {"attack": "attack", "critical": "critical", "fumble": "fumble", "weapons": "weapons", "weapon": "weapons",
        "creatures": "creatures", "creature": "creatures", "severities": "severities", "severity": "severities"}
SHOWN = {"attack": ("Edged", "attack"), "critical": ("Impact", "critical"), "fumble": ("Melee Fumbles", "fumble"),
         "weapons": ("Longsword", "weapon"), "creatures": ("Orc Warrior", "creature")}


@pytest.mark.parametrize("word", list_words())
def test_every_list_word_lists_its_kind(run, word):
    result = run("list", word, "--json")
    assert result.exit_code == 0, result.output
    assert list(json.loads(result.stdout)) == [KIND[word]]


def test_list_severity_is_the_severity_scales(run):
    """`severity` was offered and then failed with a KeyError (a traceback)."""
    singular, plural = run("list", "severity"), run("list", "severities")
    assert singular.exit_code == 0 and singular.stdout == plural.stdout
    assert singular.stdout.startswith("Severity scales (1)")


@pytest.mark.parametrize("word", show_words())
def test_every_show_word_shows_its_kind(run, word):
    name, shown = SHOWN[KIND[word]]
    result = run("show", word, name, "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["kind"] == shown


def test_the_words_a_command_offers_in_order(run):
    result = run("list", "bogus")
    assert result.exit_code == 2
    assert ("'bogus' is not one of 'attack', 'critical', 'fumble', 'weapons', 'weapon', 'creatures', 'creature', "
            "'severities', 'severity'") in result.stderr
    result = run("show", "severities", "default")
    assert result.exit_code == 2
    assert "is not one of 'attack', 'critical', 'fumble', 'weapon', 'weapons', 'creature', 'creatures'" in result.stderr


def test_labels_name_one_and_many():
    assert [label(kind, 1) for kind in KINDS] == [LABELS[kind] for kind in KINDS]
    assert [label(kind, 2) for kind in KINDS] == [
        "attack tables", "critical tables", "fumble tables", "weapons", "creatures", "severity scales"]
