"""A legend per ruleset: each book's key to its symbols (tables_app/domain/legend.py,
docs/workbook-format.md, "Legends"), and the words books print for effects
("Effects in words"). Every entry is our own invention, in the printed shape.
"""

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from effect_notation import format_effects

from tables_app.domain.effects import Effects, parse_effects
from tables_app.domain.legend import DEFAULT_LEGEND, Legend, Meaning, legend_from_rows, parse_legend

# docs/workbook-format.md, "Legends": the RMFRP-style key of the example
RMFRP = parse_legend("H hits; ∑ stun; ∑∏ stun no parry; ∏ no parry; π must parry; ∫ bleed")


def read(text: str, legend: Legend = DEFAULT_LEGEND) -> dict[str, int | None]:
    """The fields read, those at 0 left out (but an instant death, death_in 0, kept)."""
    found = parse_effects(text, legend)
    return {name: value for name, value in vars(found).items()
            if name not in ("text", "timed") and (value or (name == "death_in" and value == 0))}


def test_a_legend_reads_from_rows_and_from_one_cell_alike():
    rows = legend_from_rows([("H", "hits"), ("∑", "Stun"), ("∑∏", "stun no-parry"), ("∏", "no parry"),
                             ("π", "must parry"), ("∫", "bleed")])
    assert rows == RMFRP
    assert parse_legend(RMFRP.written()) == RMFRP
    assert RMFRP.written() == "H hits; ∑ stun; ∑∏ stun no parry; ∏ no parry; π must parry; ∫ bleed"
    assert dict((symbol, meaning) for symbol, meaning in RMFRP.symbols)["∑∏"] is Meaning.STUN_NO_PARRY


# "Books use different symbols": RMFRP's π is must parry, ∏ no parry, ∑∏ both, a bare sign is 1
@pytest.mark.parametrize("text, expected", [
    ("+1H – π", {"hits": 1, "must_parry": 1}),
    ("+3H – ∑", {"hits": 3, "stun": 1}),
    ("+4H – 2π", {"hits": 4, "must_parry": 2}),
    ("2∏", {"no_parry": 2}),  # no parry is not always stunned
    ("∑∏", {"stun": 1, "no_parry": 1}),
    ("+6H – 2∑∏ – 3∫", {"hits": 6, "stun": 2, "no_parry": 2, "bleed": 3}),
    ("3∑ – 2∏", {"stun": 3, "no_parry": 2}),
    ("(π-10)", {"must_parry": 1, "parry_penalty": -10}),  # must parry 1 round at −10: not a lasting penalty
    ("+2H – (π–25)", {"hits": 2, "must_parry": 1, "parry_penalty": -25}),
    ("(2π-10) – (-5)", {"must_parry": 2, "parry_penalty": -10, "penalty": -5}),
    ("(-20) – (+10)", {"penalty": -20, "attacker_bonus": 10}),
])
def test_the_rmfrp_legend(text, expected):
    assert read(text, RMFRP) == expected


# "A ruleset without a legend reads exactly today's key"
@pytest.mark.parametrize("text, expected", [
    ("2∏", {"must_parry": 2}),
    ("2∑∏", {"stun": 2, "no_parry": 2}),
    ("2 no parry", {"stun": 2, "no_parry": 2}),
    ("2 parry", {"must_parry": 2}),
    ("(∏-10)", {"must_parry": 1, "parry_penalty": -10}),
])
def test_the_default_legend_keeps_its_meaning(text, expected):
    assert read(text) == expected


# "In a ruleset with a legend, the vocabulary's own words are also read as ASCII spellings"
@pytest.mark.parametrize("text, expected", [
    ("3 stun", {"stun": 3}),
    ("2 must parry", {"must_parry": 2}),
    ("2 no parry", {"no_parry": 2}),
    ("2 stun no parry", {"stun": 2, "no_parry": 2}),
    ("3 bleed", {"bleed": 3}),
    ("+5 hits", {"hits": 5}),
])
def test_vocabulary_words_in_a_legend(text, expected):
    assert read(text, RMFRP) == expected


def test_a_lone_parry_is_ambiguous_in_a_legend_that_reads_both():
    with pytest.raises(ValueError, match="write 2 must parry or 2 no parry"):
        parse_effects("2 parry", RMFRP)


# "No silent misread": a sign of any book's legend that this legend does not read is an error
@pytest.mark.parametrize("text, where", [
    ("+1H – π", ""),
    ("Foe reels. (π-10)", "'(π-10)': "),
    ("+2H – 2π", "'2π': "),
])
def test_a_sign_the_default_legend_does_not_read_is_an_error(text, where):
    with pytest.raises(ValueError) as error:
        parse_effects(text)
    assert str(error.value) == (f"{where}'π' is a sign this ruleset's legend does not read (other books print it): "
                                "give the ruleset a legend (Symbol | Means) that says what it means")


def test_a_sign_a_custom_legend_leaves_out_is_an_error():
    stun_only = parse_legend("H hits; ∑ stun")
    with pytest.raises(ValueError, match=r"^'3∫': '∫' is a sign this ruleset's legend does not read"):
        parse_effects("+2H – 3∫", stun_only)
    assert read("+2H – 3∑", stun_only) == {"hits": 2, "stun": 3}


@pytest.mark.parametrize("text, token", [
    ("+5H – 3∑x", "3∑x"), ("+5Hx", "+5Hx"), ("(-20x)", "(-20x)"), ("2∑∑", "2∑∑"),
])
def test_notation_a_custom_legend_cannot_read_is_an_error(text, token):
    with pytest.raises(ValueError, match="^" + re.escape(f"{token!r} is not an effect: this ruleset's legend reads")):
        parse_effects(text, RMFRP)


def test_the_longest_symbol_matches_first():
    both_orders = parse_legend("∑ stun; ∑∏ stun no parry")
    assert read("2∑∏", both_orders) == {"stun": 2, "no_parry": 2}
    assert read("2∑ – 1∑∏", both_orders) == {"stun": 3, "no_parry": 1}


def test_a_legend_with_its_own_letters_and_signs():
    book = parse_legend("D hits; ¤ stun; ‡ must parry; † bleed")
    assert read("+5D – 2¤ – ‡ – 3†", book) == {"hits": 5, "stun": 2, "must_parry": 1, "bleed": 3}
    with pytest.raises(ValueError, match="not an effect"):
        parse_effects("+5D – 2¤x", book)


@pytest.mark.parametrize("rows, message", [
    ([("∑", "dazed")], "meaning 'dazed' of symbol '∑' is not one of: hits, stun, no parry, stun no parry, "
                       "must parry, bleed, penalty"),
    ([("∑", "stun"), ("Σ", "bleed")], "symbol 'Σ' is in the legend twice (it already means stun)"),
    ([("2∑", "stun")], "symbol '2∑' may not hold '2'"),
    ([("(π)", "must parry")], "symbol '(π)' may not hold '('"),
    ([("H∑", "hits")], "symbol 'H∑' mixes letters and signs"),
    ([("", "hits")], "a legend row needs a symbol"),
    ([("∑" * 9, "stun")], "is longer than 8 characters"),
    ([(f"a{'b' * i}", "hits") for i in range(21)], "a legend holds at most 20 symbols, not 21"),
])
def test_bad_legends_are_refused(rows, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        legend_from_rows(rows)


# docs/workbook-format.md, "Effects in words": the words books print, read in every legend
@pytest.mark.parametrize("legend", [DEFAULT_LEGEND, RMFRP], ids=["default", "rmfrp"])
@pytest.mark.parametrize("text, expected", [
    ("+5 hits, stunned 2 rounds.", {"hits": 5, "stun": 2}),
    ("Foe is stunned for 3 rnds.", {"stun": 3}),
    ("Stunned for 6 rounds, then recovers.", {"stun": 6}),
    ("stunned 1 round", {"stun": 1}),
    ("Foe is stunned and unable to parry for 2 rounds.", {"stun": 2, "no_parry": 2}),
    ("+3 hits. 2 hits per round.", {"hits": 3, "bleed": 2}),
    ("bleeds 1 hit per round", {"bleed": 1}),
    ("4 hits/rnd", {"bleed": 4}),
    ("bleeds 3/round", {"bleed": 3}),
    ("2 per rnd", {"bleed": 2}),
    ("-20 to activity", {"penalty": -20}),
    ("Foe at −15 to all activity.", {"penalty": -15}),
    ("dies 6 rounds later", {"death_in": 6}),
    ("dies in 3 rnds", {"death_in": 3}),
    ("-30 activity", {"penalty": -30}),
    ("+3 hits & 2 hits/rnd", {"hits": 3, "bleed": 2}),
    ("Stunned 24 rnds.", {"stun": 24}),
    ("Stunned for 6 rounds, then falls dead.", {"stun": 6, "death_in": 6}),
    ("Stunned for 6 rounds, then dies in 3 rounds.", {"stun": 6, "death_in": 3}),  # the death's own delay
    ("Lies in shock for 12 rounds before dying.", {"death_in": 12}),
    ("Drops, and dies after 6 more rounds.", {}),  # more than what? not guessed: the unread-death warning
    ("Dies in 9 inactive rounds.", {"death_in": 9}),
    ("Drops and dies in 6 agonizing rounds.", {"death_in": 6}),
    ("You crush your skull and die.", {"death_in": 0}),
    ("Dies immediately.", {"death_in": 0}),
    ("Expires in a heap, immediately.", {"death_in": 0}),
])
def test_words_books_print(legend, text, expected):
    assert read(text, legend) == expected


def test_a_penalty_for_a_time_is_not_a_lasting_one():
    # "-N to activity (a lasting penalty, where no `for N rounds` / `until` limits it)"
    # for N rounds: a timed penalty (docs/fights.md, "The rest of a critical"); any other time stays text
    found = parse_effects("+2 hits. -30 to activity for 3 rounds.")
    assert (found.hits, found.penalty, found.timed, found.timed_penalties) == (2, 0, (), ((-30, 3),))
    found = parse_effects("-10 to activity until healed, -5 to activity")
    assert (found.penalty, found.timed) == (-5, ("-10 to activity",))
    for timed, read in (("-90 to activity for next 3 rounds", (-90, 3)), ("-50 to activity next round", (-50, 1)),
                        ("-40 to activity for the next 2 rnds", (-40, 2)), ("(-20) for 3 rounds", (-20, 3))):
        found = parse_effects(timed)
        assert (found.penalty, found.timed, found.timed_penalties, found.unread) == (0, (), (read,), ())
    for timed in ("-20 to activity for 3 hours", "-20 to activity for 1 day"):
        assert (parse_effects(timed).penalty, parse_effects(timed).timed) == (0, (timed,))


_COUNTS = st.integers(min_value=0, max_value=10_000)


@given(hits=_COUNTS, stun=_COUNTS, no_parry=_COUNTS, must_parry=st.integers(1, 10_000),
       parry_penalty=st.integers(-10_000, 0), bleed=_COUNTS, penalty=st.integers(-10_000, 0),
       attacker_bonus=_COUNTS, death_in=st.none() | _COUNTS)
def test_format_then_parse_in_a_legend_is_the_identity(**numbers):
    # a legend with a no-parry sign writes any mix of stun and no parry
    effects = Effects(**numbers)
    written = format_effects(effects, RMFRP)
    assert parse_effects(written, RMFRP) == Effects(**numbers, text=written)


def test_a_death_later_by_an_unsaid_time_is_not_read_as_instant():
    # no silent misread: `but then dies of nerve failure` is a death some rounds later; the
    # unread-death warning names it instead (docs/workbook-format.md, "Effects in words")
    assert parse_effects("Active the following 4 rounds, but then dies of nerve failure.").death_in is None
    assert parse_effects("Dies of a massive heart failure.").death_in == 0


@given(st.lists(st.sampled_from(list("+-–(∑∏π∫ΣΠHh ,.;") + ["2", "10", " stunned ", " dies ", " in ", " rounds",
                                                                       " for ", " then ", " and ", " instantly", " hits",
                                                                       " per ", "/rnd", " to activity", " until "]),
                max_size=40).map("".join))
def test_the_guard_finds_every_effect_the_spellings_find(text):
    # the guard in front of the spellings only skips positions where none starts (tables_app/domain/effects.py)
    assert_guard_skips_nothing(text)


def assert_guard_skips_nothing(text: str) -> None:
    from tables_app.domain.effects import _reader

    for legend in (DEFAULT_LEGEND, RMFRP):
        fast, slow = _reader(legend), _reader(legend, guarded=False)
        assert [(m.span(), m.lastgroup) for m in fast.effect.finditer(text)] == \
               [(m.span(), m.lastgroup) for m in slow.effect.finditer(text)]


@pytest.mark.parametrize("text", [
    "Foe dies in 6 rounds.", "Death in 3 rounds.", "expires in 12 rounds", "suffocates in 2 rounds", "instant death",
    "killed instantly", "kills him instantly", "killing foe instantly", "Dies immediately.", "falls dead", "drops dead",
    "He dies.", "and dies.", "then dies.", "Stunned for 6 rounds, then falls dead.", "stunned 2 rounds",
    "stunned and unable to parry for 2 rounds", "lies in shock for 12 rounds before dying", "dies 6 rounds later",
    "for 12 rounds, then dies", "dies of shock after 3 rounds", "-20 to activity", "−10 to activity for 2 rnds",
    "+5 hits", "3 hits per round", "2/rnd", "(-20)", "(+10)", "(π-10)", "+3H – ∑ – 2∑∏ – ∫ – π",
    "must parry 2 rounds", "unable to parry for 2 rounds", "cannot parry for 1 round", "can't parry for 1 round",
    "no parry for 2 rounds", "Stunned 1 round and unable to parry", "(-20) for 3 rounds", "she dies.", "it dies.",
    "foe dies.", "suffocates in 3 rounds", "drops dead", "-20 to activity for 3 hours",
])
def test_the_guard_skips_no_documented_spelling(text):
    assert_guard_skips_nothing(text)


# "Effects in words": a death with its time later in the sentence is never instant (a review's finding)
@pytest.mark.parametrize("text, death", [
    ("dies of shock 3 rounds later", 3), ("falls dead in 3 rounds", 3), ("drops dead after 3 rounds", 3),
    ("dies from blood loss in 12 hours", None), ("in shock for 12 hours, then dies", None),
    ("immobile for 2 hours, then he dies", None),
])
def test_a_later_death_is_never_instant(text, death):
    assert parse_effects(text).death_in == death


# "Effects in words": parries as books word them (a review's finding: they were lost)
@pytest.mark.parametrize("text, expected", [
    ("must parry 2 rounds", {"must_parry": 2}), ("Foe must parry for 2 rounds.", {"must_parry": 2}),
    ("Foe must parry next round.", {"must_parry": 1}),
    ("no parry for 2 rounds", {"no_parry": 2}), ("unable to parry for 2 rounds", {"no_parry": 2}),
    ("Stunned 1 round and unable to parry.", {"stun": 1, "no_parry": 1}),
    ("stunned 2 rounds and must parry 1 round", {"stun": 2, "must_parry": 1}),
])
def test_parries_in_words(text, expected):
    assert read(text) == expected
    assert read(text, RMFRP) == expected


# "No silent misread": a sign left in a bracket around a read effect, a count spaced from its letter
@pytest.mark.parametrize("text, token", [("(-20H)", "(-20H)"), ("(-3∑)", "(-3∑)"), ("+5 H", "+5")])
def test_a_bracket_or_a_space_around_an_effect_is_refused(text, token):
    with pytest.raises(ValueError, match="^" + re.escape(f"{token!r} is not an effect")):
        parse_effects(text)


def test_has_effects_counts_an_instant_death_and_leaves_out_what_it_is_told():
    from tables_app.domain.effects import has_effects

    assert has_effects(parse_effects("instant death")) and not has_effects(parse_effects("Foe reels."))
    assert not has_effects(parse_effects("(+10)"), but=("attacker_bonus",)) and has_effects(parse_effects("(+10)"))
