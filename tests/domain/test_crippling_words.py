"""The rest of a critical read from an entry's printed words (docs/workbook-format.md, "Effects in words"):
prone, knocked out, blinded, a weapon dropped or broken, a useless arm or leg, a penalty for N rounds; from a
legend's symbols and from the Effects tags. Every example is our own invention, in the shape of the printed
tables."""

from __future__ import annotations

import pytest

from tables_app.domain.effects import (CONDITION_FIELDS, conditions_of, effect_words, parse_effects, tag_conditions)
from tables_app.domain.legend import parse_legend


def read(text: str, legend: str = "") -> dict[str, object]:
    """The rest of a critical read, the empty fields left out; and the pieces flagged."""
    found = parse_effects(text, parse_legend(legend)) if legend else parse_effects(text)
    fields = {k: v for k, v in conditions_of(found).items() if v not in (0, None, False, ()) or k == "knocked_out" and v == 0}
    return fields | ({"unread": found.unread} if found.unread else {})


@pytest.mark.parametrize("text, expected", [
    ("Foe drops weapon.", {"drops_weapon": True}),
    ("He drops his weapon and flees.", {"drops_weapon": True}),
    ("Disarmed.", {"drops_weapon": True}),
    ("Your weapon breaks.", {"breaks_weapon": True}),
    ("Weapon is broken.", {"breaks_weapon": True}),
    ("Knocked down.", {"prone": 1}),
    ("Foe falls prone.", {"prone": 1}),
    ("Prone for 2 rounds.", {"prone": 2}),
    ("Knocked down for three rounds.", {"prone": 3}),
    ("Tendon cut; foe drops to the ground.", {"prone": 1}),
    ("Arm useless.", {"useless_arm": True}),
    ("Useless shield arm.", {"useless_arm": True}),
    ("Leg is useless.", {"useless_leg": True}),
    ("Blinded for 3 rounds.", {"blinded": 3}),
    ("Blind 2 rnds.", {"blinded": 2}),
    ("Blinded.", {"blinded": 1}),  # no count printed: 1 round, as a bare stun
    ("Knocked out.", {"knocked_out": 0}),  # no time: until the GM wakes it
    ("Unconscious for 6 rounds.", {"knocked_out": 6}),
    ("Knocked out for 2 hours.", {"unread": ("Knocked out for 2 hours",)}),  # a time that is no rounds
    ("-20 for 3 rounds.", {"timed_penalties": ((-20, 3),)}),
    ("-10 for 2 rnds.", {"timed_penalties": ((-10, 2),)}),
    ("-30 to activity for the next 2 rounds.", {"timed_penalties": ((-30, 2),)}),
    ("(-15) for 1 round.", {"timed_penalties": ((-15, 1),)}),
    ("Knocked out for 3 rounds and drops weapon; -10 next round.",
     {"knocked_out": 3, "drops_weapon": True, "timed_penalties": ((-10, 1),)}),
    # negations and what is no effect read nothing
    ("Not knocked down.", {}), ("Foe isn't knocked out.", {}), ("Never blinded.", {}), ("Knocked back 5 feet.", {}),
    ("He parries with his weapon.", {}), ("Armored arm saves him.", {}),
    # a falling negated is not read at its last word either; the review's negations (avoid, without, nor, nearly)
    ("Foe is not knocked prone.", {}), ("Foe does not fall prone.", {}), ("Foe never goes prone.", {}),
    ("Foe avoids being knocked down.", {}), ("Without being knocked down, foe reels.", {}),
    ("Neither blinded nor knocked down.", {}), ("Foe nearly drops weapon.", {}), ("Foe almost falls prone.", {}),
    ("Foe is no longer prone.", {}), ("Foe is prone.", {"prone": 1}),
])
def test_the_rest_of_a_critical_is_read_from_its_printed_words(text, expected):  # type: ignore[no-untyped-def]
    assert read(text) == expected


def test_what_was_read_before_is_read_as_before():  # type: ignore[no-untyped-def]
    found = parse_effects("+5H, 2∑∏, falls prone, drops weapon, (-20)")
    assert (found.hits, found.stun, found.no_parry, found.penalty) == (5, 2, 2, -20)
    assert (found.prone, found.drops_weapon) == (1, True)


def test_knocked_out_twice_adds_up_and_until_woken_wins():  # type: ignore[no-untyped-def]
    assert parse_effects("Knocked out for 2 rounds. Unconscious for 3 rounds.").knocked_out == 5
    assert parse_effects("Knocked out for 2 rounds. Out cold: knocked out.").knocked_out == 0


@pytest.mark.parametrize("legend, text, expected", [
    ("H hits; ↓ prone", "+3H, ↓", {"prone": 1}),
    ("↓ prone", "2↓", {"prone": 2}),
    ("Blind = blinded", "Blind 2 rounds", {"blinded": 2}),
    ("KO = knocked out", "KO", {"knocked_out": 0}),
    ("KO = knocked out", "KO for 3 rounds", {"knocked_out": 3}),
    ("Disarmed = drops weapon", "Disarmed", {"drops_weapon": True}),
    ("Lame = useless leg", "Lame", {"useless_leg": True}),
])
def test_a_legend_names_them(legend, text, expected):  # type: ignore[no-untyped-def]
    assert read(text, legend) == expected


def test_the_effects_tags_say_what_the_text_does_not():  # type: ignore[no-untyped-def]
    read_from_text = conditions_of(parse_effects("Foe falls prone for 2 rounds."))
    merged = tag_conditions(("prone", "drop weapon", "knocked back", "knocked out 3 rnds"), read_from_text)
    assert (merged["prone"], merged["drops_weapon"], merged["knocked_out"]) == (2, True, 3)  # the text's prone kept
    assert set(merged) == set(CONDITION_FIELDS)


def test_their_words():  # type: ignore[no-untyped-def]
    entry = {"hits": 3, "bleed": 0, "stun": 0, "penalty": 0, "effects": ["prone", "knocked back"], "prone": 1,
             "knocked_out": 0, "blinded": 2, "drops_weapon": True, "breaks_weapon": False, "useless_arm": True,
             "useless_leg": False, "timed_penalties": [{"penalty": -20, "rounds": 3}]}
    assert effect_words(entry) == ("+3 hits, prone 1 rnd, knocked out, blinded 2 rnd, drops weapon, useless arm, "
                                   "penalty -20 for 3 rnd, knocked back")
