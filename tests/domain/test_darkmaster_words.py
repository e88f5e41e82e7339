"""Effects as Against the Darkmaster words them, and what is flagged when
nothing reads it (tables_app/domain/effects.py; docs/workbook-format.md,
"Effects in words" and "What is not read").

Every entry here is our own invention, worded in the book's manner."""

import pytest

from tables_app.domain.effects import effect_words, parse_effects
from tables_app.domain.legend import parse_legend


def read(text: str, legend: str = "") -> dict[str, object]:
    """The fields read, the empty ones left out, and the pieces flagged."""
    found = parse_effects(text, parse_legend(legend)) if legend else parse_effects(text)
    fields = {k: v for k, v in vars(found).items() if k not in ("text", "timed", "unread") and v not in (0, None, ())}
    return fields | ({"unread": found.unread} if found.unread else {})


# docs/workbook-format.md, "Effects in words": the spellings Against the Darkmaster prints, read in every legend
@pytest.mark.parametrize(
    "text, expected",
    [
        ("Glancing slash. +2 Damage.", {"hits": 2}),
        ("Knuckles bruised, 3 Damage.", {"hits": 3}),
        ("Deep gash: +7 Damage, 2 Bleed.", {"hits": 7, "bleed": 2}),
        ("The wound Bleeds for 3.", {"bleed": 3}),
        ("Cloak alight: 4 Damage per Round until put out.", {"bleed": 4}),
        ("Hamstrung. -15 to all actions.", {"penalty": -15}),
        ("Arm numb, -20 To all actions.", {"penalty": -20}),  # the book's capital
        ("Both eyes swollen: -40 to to all actions.", {"penalty": -40}),  # a doubled `to` read, not dropped
        ("Winded: -5 to all other actions.", {"penalty": -5}),
        ("Cracked shin, -10 activities.", {"penalty": -10}),
        ("Limping, and fights at -25 from now on.", {"penalty": -25}),
        ("Then only -10 penalty.", {"penalty": -10}),
        ("Foe is Stunned.", {"stun": 1}),  # no count printed: 1 round
        ("Target is Stunned, +4 Damage.", {"stun": 1, "hits": 4}),
        ("Stunned for 3 rounds.", {"stun": 3}),
        ("2 Stunned.", {"stun": 2}),
        ("Gut opened. Dying in 9 rounds.", {"death_in": 9}),
        ("The foe is dead in 3 Rounds.", {"death_in": 3}),
        ("Skull split: dies in 4 horrible, screaming Rounds.", {"death_in": 4}),
        ("A save, failing means death from the poison in 5 Rounds.", {"death_in": 5}),
    ],
)
def test_the_darkmasters_words_are_read(text, expected):
    assert read(text) == expected


# "A bare stun word counts 1 round" — but a stun with a time that is no rounds is not read as 1
@pytest.mark.parametrize(
    "text, expected",
    [
        ("Foe is not stunned.", {}),
        ("Stunned this round and next.", {}),  # no count to read: the lint's quality warning says so
        ("Stunned 1 hour.", {"unread": ("Stunned 1 hour",)}),
        ("Stunned for 2 hours.", {"unread": ("Stunned for 2 hours",)}),
        ("Dying in 10 minutes.", {"unread": ("Dying in 10 minutes",)}),
    ],
)
def test_times_that_are_no_rounds_are_flagged_not_read(text, expected):
    assert read(text) == expected


# docs/workbook-format.md, "What is not read": what looks like an effect and is not read is flagged by its
# words, kept in the text, never applied
@pytest.mark.parametrize(
    "text, expected",
    [
        ("Scar across the face (-10 BEA).", {"unread": ("(-10 BEA)",)}),
        ("+4 Damage and (+5 to the next parry).", {"hits": 4, "unread": ("(+5 to the next parry)",)}),
        ("Ear ringing: -30 to hearing Perception.", {"unread": ("-30 to hearing Perception",)}),
        ("+3 soul-damage, +2 Damage.", {"hits": 2, "unread": ("+3 soul-damage",)}),
        ("Weakened, -10 Strength.", {"unread": ("-10 Strength",)}),
        ("+10 OB to the attacker.", {"unread": ("+10 OB",)}),
        ("1 Fatigue per round.", {"unread": ("1 Fatigue per round",)}),
        # a one-off penalty to one roll is no lasting penalty
        ("Must roll to recover next round with a special -40 penalty.", {"unread": ("-40 penalty",)}),
        ("-20 to all actions for 3 rounds.", {"timed_penalties": ((-20, 3),)}),
        # counted per die or per thing: the count is the table's to roll, the sentence is flagged whole
        ("Target is Stunned. 1d5 ribs cracked. +2 Damage and -5 to all actions for each rib.",
         {"stun": 1, "unread": ("+2 Damage and -5 to all actions for each rib",)}),
    ],
)
def test_what_looks_like_an_effect_and_is_not_read_is_flagged(text, expected):
    assert read(text) == expected


def test_a_die_that_chooses_a_side_flags_nothing():
    assert read("Blow to a hand (1d10: 1-5 left, 6-10 right). +6 Damage.") == {"hits": 6}


def test_a_mistyped_symbol_is_still_an_error_not_a_flag():
    # docs/workbook-format.md: a token that looks like an effect and is none is an error naming it
    with pytest.raises(ValueError, match="'\\+5Hx' is not an effect"):
        parse_effects("+5Hx – 2∑")


# docs/workbook-format.md, "Legends": a legend's words and phrases
@pytest.mark.parametrize(
    "text, expected",
    [
        ("+2 Wound, 1 Gash.", {"hits": 2, "bleed": 1}),
        ("2Wound", {"hits": 2}),  # glued, too
        ("3 Wound per round", {"bleed": 3}),  # per round is bleeding, whatever the word means
        ("Reeling.", {"stun": 2}),  # a bare word counts what the legend gives
        ("Reeling for 3 rounds.", {"stun": 3}),
        ("2 Reeling.", {"stun": 2}),
        ("-15 from all deeds.", {"penalty": -15}),
        ("-15 from all deeds for 2 rounds.", {"timed_penalties": ((-15, 2),)}),
        ("Dazed.", {"stun": 1}),  # a word in rounds standing bare: 1
    ],
)
def test_a_legend_gives_words_and_phrases(text, expected):
    legend = "Wound hits; Gash bleed; Reeling = stun, bare 2; from all deeds = penalty; Dazed stun"
    assert read(text, legend) == expected


def test_a_legend_word_beats_the_built_in_spelling():
    # the book's key says what its words mean: here `Damage` is bleeding, not hits
    assert read("+2 Damage", "Damage bleed") == {"bleed": 2}


def test_a_legend_with_words_is_written_and_read_back():
    legend = parse_legend("Wound hits; Reeling = stun, bare 2; from all deeds = penalty; ∑ stun")
    assert legend.written() == "Wound hits; Reeling = stun, bare 2; from all deeds = penalty; ∑ stun"
    assert parse_legend(legend.written()) == legend


@pytest.mark.parametrize(
    "legend, message",
    [
        ("∑ = stun, bare 2", "symbol '∑': only a word reads bare with a count of its own (a sign counts 1)"),
        ("Reeling = stun, twice", "meaning 'stun, twice': after the meaning, write only the count a bare word reads "
                                  "(stun, bare 2)"),
        ("† penalty", "meaning 'penalty' of symbol '†': only a word or phrase means a penalty (-5 to all actions: "
                      "to all actions = penalty); a bracket, (-20), is a penalty in every legend"),
    ],
)
def test_legend_words_are_checked(legend, message):
    with pytest.raises(ValueError) as error:
        parse_legend(legend)
    assert str(error.value) == message


def test_what_is_not_read_is_said_with_the_effects():
    # shown to people as "not read: …, decide at the table" wherever an entry's effects are worded
    entry = {"hits": 4, "bleed": 0, "stun": 0, "penalty": 0, "effects": [], "death_in": None,
             "unread": ["(-10 BEA)"]}
    assert effect_words(entry) == "+4 hits; not read: '(-10 BEA)', decide at the table"
