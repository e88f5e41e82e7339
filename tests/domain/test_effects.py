"""Critical-entry effects and branches as printed (tables_app/domain/effects.py).

Every example is our own invention, in the shape of the printed tables.
"""

import pytest
from effect_notation import format_effects
from hypothesis import given
from hypothesis import strategies as st

from tables_app.domain.branches import Branch, parse_branches
from tables_app.domain.effects import Effects, parse_effects
from tables_app.domain.tables import condition_feature

UNREADABLE = "is not an effect: write e.g. +5H, 3∑, 2∏, 2∑∏, 3∫, (-20), (+10), dies in 6 rounds"


def effects_of(text: str) -> dict[str, int | None]:
    """The structured fields only (the text is checked on its own)."""
    found = parse_effects(text)
    return {name: value for name, value in vars(found).items() if name not in ("text", "timed", "unread")}


def fields(**given: int | None) -> dict[str, int | None]:
    base: dict[str, int | None] = dict(
        hits=0, stun=0, must_parry=0, no_parry=0, bleed=0, penalty=0, attacker_bonus=0, death_in=None, parry_penalty=0,
        prone=0, knocked_out=None, blinded=0, drops_weapon=False, breaks_weapon=False, useless_arm=False,
        useless_leg=False, timed_penalties=(),
    )
    return base | given


# printed layouts: "`+5H` extra hits · `3∑` stunned 3 rounds · `2∏` must parry 2 rounds ·
# `2∑∏` stunned and unable to parry 2 rounds · `3∫` bleeds 3 hits per round · `(-20)`
# penalty −20 · `(+10)` bonus +10 to the attacker next round · `dies in 6 rounds`, `instant death`"
@pytest.mark.parametrize(
    "text, expected",
    [
        ("+5H", fields(hits=5)),
        ("3∑", fields(stun=3)),
        ("2∏", fields(must_parry=2)),
        ("2∑∏", fields(stun=2, no_parry=2)),
        ("3∫", fields(bleed=3)),
        ("(-20)", fields(penalty=-20)),
        ("(+10)", fields(attacker_bonus=10)),
        ("dies in 6 rounds", fields(death_in=6)),
        ("instant death", fields(death_in=0)),
    ],
)
def test_printed_notation(text, expected):
    assert effects_of(text) == expected


# printed layouts: "with ASCII spellings that a keyboard can type (document them;
# e.g. `3 stun`, `2 no parry`, `3 bleed`)"
@pytest.mark.parametrize(
    "text, expected",
    [
        ("+5 hits", fields(hits=5)),
        ("5 hits", fields(hits=5)),
        ("+1 hit", fields(hits=1)),
        ("+5hits", fields(hits=5)),
        ("5H", fields(hits=5)),
        ("+5h", fields(hits=5)),
        ("3 stun", fields(stun=3)),
        ("3 stunned", fields(stun=3)),
        ("3 Stunned", fields(stun=3)),
        ("2 parry", fields(must_parry=2)),
        ("2 must parry", fields(must_parry=2)),
        ("2 MUST PARRY", fields(must_parry=2)),
        ("2 no parry", fields(stun=2, no_parry=2)),
        ("2 no-parry", fields(stun=2, no_parry=2)),
        ("3 bleed", fields(bleed=3)),
        ("3 hits per round", fields(bleed=3)),
        ("+3 hits per round", fields(bleed=3)),
        ("( -20 )", fields(penalty=-20)),
        ("( + 10 )", fields(attacker_bonus=10)),
        ("Dies in 6 rounds", fields(death_in=6)),
        ("dies in 1 round", fields(death_in=1)),
        ("death in 4 rounds", fields(death_in=4)),
        ("dies instantly", fields(death_in=0)),
        ("Instant Death", fields(death_in=0)),
        # death as printed books write it in prose
        ("Foe dies after 24 rounds of agony.", fields(death_in=24)),
        ("Foe drops and expires in 12 rounds.", fields(death_in=12)),
        ("Poor fool expires after 6 rounds of inactivity.", fields(death_in=6)),
        ("Foe suffocates in 12 rounds.", fields(death_in=12)),
        ("Foe is down and dies in six rounds.", fields(death_in=6)),
        ("He dies 6 rounds later.", fields(death_in=6)),
        ("Foe is in shock for 12 rounds, then dies.", fields(death_in=12)),
        ("Foe is in shock for 6 rounds and then dies.", fields(death_in=6)),
        ("Disembowel foe, killing him instantly.", fields(death_in=0)),
        ("Foe is killed instantly.", fields(death_in=0)),
        # not deaths: no rounds, or not the target's
        ("Foe dies in rounds.", fields()),
        ("It looked like a killing blow.", fields()),
    ],
)
def test_ascii_spellings(text, expected):
    assert effects_of(text) == expected


# printed layouts: the signs as printed; people paste the Greek capitals for them
@pytest.mark.parametrize(
    "text, expected",
    [
        ("3Σ", fields(stun=3)),  # Greek capital sigma
        ("2Π", fields(must_parry=2)),  # Greek capital pi
        ("2ΣΠ", fields(stun=2, no_parry=2)),
        ("2Σ∏", fields(stun=2, no_parry=2)),
        ("2∑Π", fields(stun=2, no_parry=2)),
        ("3 ∑", fields(stun=3)),
        ("2∑ ∏", fields(stun=2, no_parry=2)),
        ("(−20)", fields(penalty=-20)),  # U+2212 minus sign
        ("(–20)", fields(penalty=-20)),  # en dash
    ],
)
def test_look_alikes_people_paste(text, expected):
    assert effects_of(text) == expected


# printed layouts: "`+5H – 2∑ – 1∫ – (-10)`", separators as printed
@pytest.mark.parametrize("separator", [" – ", " - ", " — ", ", ", "; ", " ", "-", "–", ","])
def test_every_separator(separator):
    text = separator.join(["+5H", "2∑", "1∫", "(-10)", "(+5)", "dies in 3 rounds"])
    assert effects_of(text) == fields(hits=5, stun=2, bleed=1, penalty=-10, attacker_bonus=5, death_in=3)


def test_a_whole_printed_entry():
    text = "Blow lands under the ribs. +6H – 3∑∏ – 2∏ – 1∫ – (-15). Foe dies in 9 rounds."
    assert parse_effects(text) == Effects(
        hits=6, stun=3, no_parry=3, must_parry=2, bleed=1, penalty=-15, death_in=9, text=text
    )


def test_the_text_is_kept_whole_as_printed():
    # decision (module docstring): the text people read keeps its effects and spacing
    text = "  Glancing blow.\n+2H – 1∑ "
    assert parse_effects(text).text == text


def test_prose_alone_has_no_effects():
    text = "Foe steps back, dazed by the noise; he drops his torch (3 feet away)."
    assert parse_effects(text) == Effects(text=text)
    assert parse_effects("") == Effects()


def test_stunned_and_unable_to_parry_adds_to_both_counts():
    # docs/workbook-format.md, "Effects in printed notation": stun counts every round
    # stunned, no_parry every round unable to parry; `2∑∏` adds to both
    found = parse_effects("3∑ – 2∑∏")
    assert (found.stun, found.no_parry) == (5, 2)


# docs/workbook-format.md, "Legends": "a bare sign is 1" (`+3H – ∑`)
@pytest.mark.parametrize("text, expected", [
    ("+3H – ∑", fields(hits=3, stun=1)),
    ("∑ rounds", fields(stun=1)),
    ("Ouch. 2∏.\n∏", fields(must_parry=3)),
    ("+2H – ∑∏ – ∫", fields(hits=2, stun=1, no_parry=1, bleed=1)),
])
def test_a_bare_sign_counts_one(text, expected):
    assert effects_of(text) == expected


def test_a_count_may_carry_a_plus_and_a_dash_before_it_separates():
    # decision: counts are never negative, so `-2∑` is a separator and 2 rounds
    assert effects_of("+3∑ +2∏ +1∫") == fields(stun=3, must_parry=2, bleed=1)
    assert effects_of("+5H-2∑") == fields(hits=5, stun=2)
    assert effects_of("-4H") == fields(hits=4)


def test_repeated_effects_of_one_kind_add_up():
    # decision: `+5H … +2H` is 7 hits
    text = "+5H – 1∑ – (-10). Falls: +2H – 2∑ – (-5) – (+5) – (+10) – 1∫ – 2 bleed"
    assert effects_of(text) == fields(hits=7, stun=3, penalty=-15, attacker_bonus=15, bleed=3)


def test_two_deaths_are_an_error():
    with pytest.raises(ValueError) as error:
        parse_effects("Dies in 6 rounds. Instant death.")
    assert str(error.value) == ("two deaths in one entry: 'Dies in 6 rounds' and 'Instant death'"
                                " (for different targets, write branches: With helm: ... Without helm: ...)")


# decision: an effect-like token that reads as no effect is an error naming it
@pytest.mark.parametrize(
    "text, token",
    [
        ("+5H – 3∑x", "3∑x"),
        ("stunned 2∑∏y now", "2∑∏y"),
        ("3∫∫", "3∫∫"),
        ("+5Hx – 2∑", "+5Hx"),
        ("+5 – (-20x)", "(-20x)"),
        ("Ouch. 2∏.\n∏∏", "∏∏"),
        ("Frantic. 4∑ – (+-15)", "(+-15)"),  # two signs: a bonus or a penalty?
    ],
)
def test_unreadable_effects_are_errors_naming_the_token(text, token):
    with pytest.raises(ValueError) as error:
        parse_effects(text)
    assert str(error.value) == f"{token!r} {UNREADABLE}"


def test_numbers_are_bounded():
    with pytest.raises(ValueError) as error:
        parse_effects("+1000001H")
    assert str(error.value) == "'+1000001H': 1,000,001 is more than 1,000,000"
    assert parse_effects("+1000000H").hits == 1_000_000


@pytest.mark.parametrize(
    "made, message",
    [
        (lambda: Effects(hits=-1), "hits -1 is outside 0..1,000,000"),
        (lambda: Effects(no_parry=-2), "no_parry -2 is outside 0..1,000,000"),
        (lambda: Effects(penalty=5), "penalty 5 is outside -1,000,000..0"),
        (lambda: Effects(attacker_bonus=-5), "attacker_bonus -5 is outside 0..1,000,000"),
        (lambda: Effects(death_in=-1), "death_in -1 is outside 0..1,000,000"),
    ],
)
def test_effects_refuse_impossible_values(made, message):
    with pytest.raises(ValueError) as error:
        made()
    assert str(error.value) == message


def test_format_effects_writes_the_canonical_notation():
    full = Effects(hits=5, stun=4, must_parry=2, no_parry=1, bleed=4, penalty=-20, attacker_bonus=10, death_in=6)
    assert format_effects(full) == "+5H – 3∑ – 1∑∏ – 2∏ – 4∫ – (-20) – (+10) – dies in 6 rounds"
    assert format_effects(Effects(death_in=1)) == "dies in 1 round"
    assert format_effects(Effects(death_in=0)) == "instant death"
    assert format_effects(Effects(text="Prose only")) == ""


_COUNTS = st.integers(min_value=0, max_value=1_000_000)


@given(
    hits=_COUNTS,
    stun=_COUNTS,
    must_parry=_COUNTS,
    no_parry=_COUNTS,
    bleed=_COUNTS,
    penalty=st.integers(min_value=-1_000_000, max_value=0),
    attacker_bonus=_COUNTS,
    death_in=st.none() | _COUNTS,
)
def test_format_then_parse_is_the_identity(**numbers):
    # printed layouts: "the importer turns them into the structured columns (and back, on export)";
    # the text of an Effects read from the notation is that notation. The default legend has no
    # sign for no parry without stun (`2∑∏` is both), so no_parry rides on stun here.
    numbers["stun"] = max(numbers["stun"], numbers["no_parry"])
    numbers_only = Effects(**numbers)
    effects = Effects(**numbers, text=format_effects(numbers_only))
    assert parse_effects(format_effects(effects)) == effects


# ---------------------------------------------------------------- branches


def branch(condition, text):
    return Branch(condition, text, parse_effects(text))


def test_a_cell_without_markers_is_one_branch_for_everyone():
    text = "Strike to thigh. +4H – 1∫."
    assert parse_branches(text) == (Branch(None, text, Effects(hits=4, bleed=1, text=text)),)


def test_with_and_without():
    # printed layouts: "`With helm: +3H – 2∑. Without helm: +6H – 3∑∏ – 1∫.`"
    found = parse_branches("With helm: +3H – 2∑. Without helm: +6H – 3∑∏ – 1∫.")
    assert found == (
        Branch("helm", "With helm: +3H – 2∑.", Effects(hits=3, stun=2, text="With helm: +3H – 2∑.")),
        Branch(
            "not helm",
            "Without helm: +6H – 3∑∏ – 1∫.",
            Effects(hits=6, stun=3, no_parry=3, bleed=1, text="Without helm: +6H – 3∑∏ – 1∫."),
        ),
    )


# printed layouts: "(`with X` / `without X`, `w/ X` / `w/o X`, `if X` / `if not X`): two
# branches on feature `X` (lower case, singular as written: `helm`, `chest armor`,
# `leg armor`, `shield`)"
@pytest.mark.parametrize(
    "yes, no, feature",
    [
        ("With helm:", "Without helm:", "helm"),
        ("with helm:", "without helm:", "helm"),
        ("WITH CHEST ARMOR:", "WITHOUT CHEST ARMOR:", "chest armor"),
        ("w/ leg armor:", "w/o leg armor:", "leg armor"),
        ("W/leg armor:", "W/o leg armor:", "leg armor"),
        ("If shield:", "If not shield:", "shield"),
        ("if  Shield :", "IF NOT shield:", "shield"),
    ],
)
def test_every_marker(yes, no, feature):
    found = parse_branches(f"{yes} +2H. {no} +5H – 1∑.")
    assert [(b.condition, b.effects.hits, b.effects.stun) for b in found] == [
        (feature, 2, 0),
        (f"not {feature}", 5, 1),
    ]
    assert [condition_feature(b.condition) for b in found] == [(feature, True), (feature, False)]


def test_the_negation_may_come_first():
    found = parse_branches("w/o helm: dies in 3 rounds. w/ helm: 4∑∏.")
    assert [(b.condition, b.effects.death_in, b.effects.no_parry) for b in found] == [
        ("not helm", 3, 0),
        ("helm", None, 4),
    ]


def test_a_branch_runs_to_the_next_marker_over_several_sentences():
    found = parse_branches("With helm: helm dented. +3H. Without helm: skull cracked.\n+9H – 3∑∏. Out cold.")
    assert found == (
        branch("helm", "With helm: helm dented. +3H."),
        branch("not helm", "Without helm: skull cracked. +9H – 3∑∏. Out cold."),  # its line break folded
    )


def test_text_before_the_first_marker_belongs_to_every_branch():
    # decision: a title (and any effects in it) starts each branch's text and counts in each
    found = parse_branches("Strike to head. +2H – (-5). With helm: 1∑. Without helm: 3∑.")
    assert found == (
        branch("helm", "Strike to head. +2H – (-5). With helm: 1∑."),
        branch("not helm", "Strike to head. +2H – (-5). Without helm: 3∑."),
    )
    assert [(b.effects.hits, b.effects.penalty, b.effects.stun) for b in found] == [(2, -5, 1), (2, -5, 3)]


def test_a_single_branch_and_plain_text_for_everyone_else():
    # printed layouts: "A branch may stand alone (`With shield: ...` and plain text for everyone else)";
    # decision: its sentence is the branch, the rest is the negation's
    found = parse_branches("Shield arm struck. With shield: +2H. Arm broken: +6H – 2∑∏ – (-30).")
    assert found == (
        branch("shield", "Shield arm struck. With shield: +2H."),
        branch("not shield", "Shield arm struck. Arm broken: +6H – 2∑∏ – (-30)."),
    )
    assert [b.effects.hits for b in found] == [2, 6]


def test_a_single_branch_ends_at_a_line_break():
    found = parse_branches("If helm: 1∑\nDies in 2 rounds")
    assert found == (branch("helm", "If helm: 1∑"), branch("not helm", "Dies in 2 rounds"))


def test_a_single_negative_branch_leaves_the_feature_to_everyone_else():
    found = parse_branches("Without leg armor: 2∫. +3H.")
    assert found == (branch("not leg armor", "Without leg armor: 2∫."), branch("leg armor", "+3H."))


def test_a_branch_alone_gives_everyone_else_nothing():
    # decision: exactly one branch applies to every target; the other is empty
    found = parse_branches("With shield: +2H.")
    assert found == (branch("shield", "With shield: +2H."), Branch("not shield", "", Effects()))


@pytest.mark.parametrize(
    "text",
    [
        "Struck with shield: +2H.",  # mid-sentence: prose
        "Foe parries if helm: 1∑",
        "With 2 helms: +3H",  # not words
        "Forthwith helm: +3H",
    ],
)
def test_a_marker_must_open_a_sentence_and_name_a_feature(text):
    assert [b.condition for b in parse_branches(text)] == [None]


@pytest.mark.parametrize("opener", [". ", "! ", "? ", "; ", "\n", ".\n  "])
def test_markers_open_after_a_sentence_end(opener):
    found = parse_branches(f"Hard blow{opener}With helm: 1∑")
    assert [b.condition for b in found] == ["helm", "not helm"]


# docs/workbook-format.md, "Branches inside a cell": markers on distinct features are as many branches and
# one for everyone else; a marker repeating a feature is a condition no branch reads, an unread piece
@pytest.mark.parametrize(
    "text, expected",
    [
        ("With helm: 1∑. Without helm: 2∑. With shield: 3∑.",
         [("helm", 1, ()), ("not helm", 2, ("With shield: 3∑.",))]),
        ("With helm: 1∑. Without shield: 2∑.", [("helm", 1, ()), ("not shield", 2, ()), (None, 0, ())]),
        ("If helm: 1∑. w/ helm: 2∑.", [("helm", 1, ()), ("not helm", 0, ("w/ helm: 2∑.",))]),
    ],
)
def test_branches_are_a_feature_and_its_negation_or_distinct_features(text, expected):
    assert [(b.condition, b.effects.stun, b.unread) for b in parse_branches(text)] == expected


def test_a_branch_with_an_unreadable_effect_names_it():
    with pytest.raises(ValueError) as error:
        parse_branches("With helm: 1∑. Without helm: 2∑q.")
    assert str(error.value) == f"'2∑q.' {UNREADABLE}"


# ---------------------------------------------------------------- hostile entries (issue #17, items 1 and 2)

def test_a_run_of_digits_is_refused_before_int_reads_it():
    # int() of 5,000 digits is Python's own error ("Exceeds the limit (4300 digits)")
    with pytest.raises(ValueError) as error:
        parse_effects("+" + "9" * 5_000 + "H")
    assert str(error.value) == "'+999999999999999999999999999999999999999'… (4,962 more characters): 5,000 digits are more than 1,000,000"


def test_an_entry_longer_than_any_printed_one_is_refused_unread():
    with pytest.raises(ValueError) as error:
        parse_branches("x" * 10_001)
    assert str(error.value) == ("the entry holds 10,001 characters, more than an entry's 10,000 "
                                "(it starts 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')")
    assert parse_branches("x" * 10_000)[0].text == "x" * 10_000


def test_many_markers_are_bounded_and_unread():
    # each marker looked at the whole text before it (quadratic), and the error listed all of them; now the
    # first is the branch and the others, repeating its feature, are one unread piece (as printed, once)
    found = parse_branches("Hit. With helm: 1∑. " * 400)
    assert [(b.condition, b.effects.stun, b.unread) for b in found] == [
        ("helm", 1, ()), ("not helm", 0, ("With helm: 1∑.",))]
