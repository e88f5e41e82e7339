"""Branches inside one printed cell, as books word them (issue 25, item 4):
markers on one line, `If no X:` and `No X:`, and conditions in prose
(`If foe has X, … If not, …`). docs/workbook-format.md, "Branches inside a
cell". The branch tests that predate these are in test_effects.py.

Every entry here is invented, in the shape the books print.
"""

from __future__ import annotations

import pytest
from helpers import Work, counted_work

from tables_app.domain.branches import parse_branches
from tables_app.domain.legend import Legend, Meaning
from tables_app.domain.tables import condition_feature


def read(text):  # type: ignore[no-untyped-def]
    """(condition, hits, stun, bleed, death_in) of each branch."""
    return [(b.condition, b.effects.hits, b.effects.stun, b.effects.bleed, b.effects.death_in) for b in parse_branches(text)]


def conditions(text):  # type: ignore[no-untyped-def]
    return [b.condition for b in parse_branches(text)]


# ---------------------------------------------------------------- a line break, and markers on one line

def test_a_line_break_before_the_second_marker_opens_it_and_is_folded():
    # the first case (the sheet side is tests/sheets/test_branch_cells.py)
    found = parse_branches("With helm: +4H – 1∑\nWithout helm: +7H")
    assert [(b.condition, b.text, b.effects.hits) for b in found] == [
        ("helm", "With helm: +4H – 1∑", 4), ("not helm", "Without helm: +7H", 7)]


@pytest.mark.parametrize("text, expected", [
    # one line, two markers, no full stop: the negation of the open marker opens the second branch where it stands
    ("with leg greaves: +2H – 3∑ w/o leg greaves: +4H – 1∫",
     [("leg greaves", 2, 3, 0, None), ("not leg greaves", 4, 0, 1, None)]),
    ("With helm: +3H without helm: +5H – 2∫", [("helm", 3, 0, 0, None), ("not helm", 5, 0, 2, None)]),
    ("w/o helm: 2∫ w/ helm: +3H – 3∑", [("not helm", 0, 0, 2, None), ("helm", 3, 3, 0, None)]),
    ("If shield: +3H, if not shield: dies in 2 rounds", [("shield", 3, 0, 0, None), ("not shield", 0, 0, 0, 2)]),
    ("If helm: 1∑ If not: +6H", [("helm", 0, 1, 0, None), ("not helm", 6, 0, 0, None)]),
])
def test_the_negation_of_the_open_marker_opens_its_branch_mid_sentence(text, expected):
    assert read(text) == expected


def test_one_line_markers_with_a_books_legend():
    # the case as an RMFRP-style book prints it: `π` is must parry in its legend (docs, "Legends")
    legend = Legend((("H", Meaning.HITS), ("∑", Meaning.STUN), ("∏", Meaning.NO_PARRY), ("π", Meaning.MUST_PARRY),
                     ("∫", Meaning.BLEED)))
    found = parse_branches("with leg greaves: +2H – π w/o leg greaves: +2H – ∫", legend)
    assert [(b.condition, b.effects.hits, b.effects.must_parry, b.effects.bleed) for b in found] == [
        ("leg greaves", 2, 1, 0), ("not leg greaves", 2, 0, 1)]


def test_a_marker_of_another_feature_mid_sentence_stays_prose():
    # decision: only the negation of the open marker opens mid-sentence; `struck with shield:` is prose as before
    assert read("With helm: struck with shield: +1H. Without helm: +3H.") == [
        ("helm", 1, 0, 0, None), ("not helm", 3, 0, 0, None)]


# ---------------------------------------------------------------- `If no X:`, `No X:`, subjects, articles

@pytest.mark.parametrize("text, expected", [
    ("If no helmet: +5H. If helmet: 1∑.", ["not helmet", "helmet"]),  # not a feature called `no helmet`
    ("No shield: +6H. +2H.", ["not shield", "shield"]),
    ("If foe has no leg armor: 2∫. If foe has leg armor: +1H.", ["not leg armor", "leg armor"]),
    ("If he wears a helm: 1∑. If not: +6H.", ["helm", "not helm"]),
    ("With an amulet: 1∑. Without an amulet: +6H.", ["amulet", "not amulet"]),  # articles dropped
    ("WITH THE HELM: 1∑. w/o Helm: +6H.", ["helm", "not helm"]),  # lower case, as written
])
def test_negations_subjects_and_articles_are_read(text, expected):
    assert conditions(text) == expected
    feature = expected[0].removeprefix("not ")
    assert {condition_feature(c)[0] for c in expected} == {feature}


def test_if_no_x_alone_is_the_negation():
    assert read("Skull rings. +3H. If no helm: dies in 3 rounds.") == [
        ("not helm", 3, 0, 0, 3), ("helm", 3, 0, 0, None)]


# ---------------------------------------------------------------- conditions in prose

@pytest.mark.parametrize("text, expected", [
    ("If foe has chest armor, he staggers. If not, +6H – 2∑.",
     [("chest armor", 0, 0, 0, None), ("not chest armor", 6, 2, 0, None)]),
    ("If shield, +2H. Without shield, +6H – 1∫.", [("shield", 2, 0, 0, None), ("not shield", 6, 0, 1, None)]),
    ("If foe has no greaves, +3H – 1∫. If foe has greaves, 1∑.",
     [("not greaves", 3, 0, 1, None), ("greaves", 0, 1, 0, None)]),
    ("If he doesn't have greaves, 2∫. If he has greaves, 1∑.", [("not greaves", 0, 0, 2, None), ("greaves", 0, 1, 0, None)]),
    ("If no arm guard, 2∑. If arm guard, +1H.", [("not arm guard", 0, 2, 0, None), ("arm guard", 1, 0, 0, None)]),
    ("If foe has a buckler, 1∑. Otherwise, +4H.", [("buckler", 0, 1, 0, None), ("not buckler", 4, 0, 0, None)]),
    ("If foe has Leg Greaves, 1∑. If not, 2∑.", [("leg greaves", 0, 1, 0, None), ("not leg greaves", 0, 2, 0, None)]),
])
def test_conditions_in_prose_are_branches_on_the_feature(text, expected):
    assert read(text) == expected


def test_a_prose_condition_without_effects_still_splits_them():
    # the case: today the death went to every target
    found = parse_branches("If foe has helm, he is in a coma. If no helm, he dies in 1 round")
    assert [(b.condition, b.text, b.effects.death_in) for b in found] == [
        ("helm", "If foe has helm, he is in a coma.", None), ("not helm", "If no helm, he dies in 1 round", 1)]


def test_visored_and_without_a_visor_are_one_feature():
    # decision: a feature and the same word with `-ed` are one feature, named without it
    assert read("If visored, 2∑ and he dies in 10 rounds. Without a visor, he dies instantly.") == [
        ("visor", 0, 2, 0, 10), ("not visor", 0, 0, 0, 0)]
    assert conditions("If not armored, +5H. If armor, 1∑.") == ["not armor", "armor"]
    assert conditions("If visored, 1∑.") == ["visored", "not visored"]  # alone: as written


def test_a_prose_condition_governs_its_sentence_and_the_rest_is_everyones():
    # decision: unlike a lone marker (whose rest is the other branch's), a condition in prose governs its sentence
    found = parse_branches("Blow to forearm. +5H. If no arm armor, 1∑. Arm numb, 1∫.")
    assert [(b.condition, b.text, b.effects.hits, b.effects.stun, b.effects.bleed) for b in found] == [
        ("not arm armor", "Blow to forearm. +5H. If no arm armor, 1∑. Arm numb, 1∫.", 5, 1, 1),
        ("arm armor", "Blow to forearm. +5H. Arm numb, 1∫.", 5, 0, 1)]
    assert read("If foe has helm, 1∑. If not, 3∑. He drops his weapon, +2H.") == [
        ("helm", 2, 1, 0, None), ("not helm", 2, 3, 0, None)]


def test_if_not_mid_sentence_opens_the_other_branch():
    assert read("If foe has helm, he is dazed 2∑, if not, he dies instantly.") == [
        ("helm", 0, 2, 0, None), ("not helm", 0, 0, 0, 0)]


def test_a_marker_and_a_prose_negation_pair():
    # the marker's branch runs to the negation, the prose negation's is its sentence: `Foe reels` is everyone's
    assert read("With helm: +4H. If no helm, dies in 3 rounds. Foe reels, +1H.") == [
        ("helm", 5, 0, 0, None), ("not helm", 1, 0, 0, 3)]


def test_the_effect_lines_markers_decide_over_a_condition_in_the_description():
    found = parse_branches("Strike to shin. If he doesn't have greaves, you slash his shin open. "
                           "with leg greaves: +2H – 3∑ w/o leg greaves: +2H – 1∫")
    assert [(b.condition, b.text) for b in found] == [
        ("leg greaves", "Strike to shin. If he doesn't have greaves, you slash his shin open. with leg greaves: +2H – 3∑"),
        ("not leg greaves", "Strike to shin. If he doesn't have greaves, you slash his shin open. w/o leg greaves: +2H – 1∫")]


@pytest.mark.parametrize("text", [
    "With a mighty blow, +5H.",  # `With X,` in prose only opens beside its negation
    "Foe is dazed. No parry, +2H.",  # `No X` only as a marker
    "If he survives, he limps for a week. +3H",  # a condition no branch reads, in a sentence without effects
    "Foe falls without his shield, +2H",
])
def test_prose_that_reads_as_no_branch(text):
    assert conditions(text) == [None]


def test_a_condition_no_branch_reads_ends_where_a_branch_begins():
    # `;` opens a sentence (and so a marker) without ending one: the unread condition's text stops at the marker
    assert read("If he survives, he limps; With helm: +3H. Without helm: +5H.") == [
        ("helm", 3, 0, 0, None), ("not helm", 5, 0, 0, None)]


# ---------------------------------------------------------------- what cannot be read is an unread piece

def unread(text):  # type: ignore[no-untyped-def]
    """(condition, hits, stun, death_in, unread) of each branch."""
    return [(b.condition, b.effects.hits, b.effects.stun, b.effects.death_in, b.unread) for b in parse_branches(text)]


# docs/workbook-format.md, "Branches inside a cell": a sentence opened by a condition no branch reads,
# with effects, is an unread piece of every branch whose text holds it; its effects go to no target
@pytest.mark.parametrize("text, expected", [
    ("If foe is prone, +5H.", [(None, 0, 0, None, ("If foe is prone, +5H.",))]),
    ("Strike. If foe is dazed you strike again, +3H.",  # no comma after it, and no condition on a feature either
     [(None, 0, 0, None, ("If foe is dazed you strike again, +3H.",))]),
    ("If metal armor and no shield: 3∑.", [(None, 0, 0, None, ("If metal armor and no shield: 3∑.",))]),
    ("If not, +3H.", [(None, 0, 0, None, ("If not, +3H.",))]),  # it follows no condition
    ("If foe has shield, +2H. With helm: 1∑. Without helm: 3∑.",  # not one of the markers' branches
     [("helm", 0, 1, None, ("If foe has shield, +2H.",)), ("not helm", 0, 3, None, ("If foe has shield, +2H.",))]),
    ("Without a visor, he dies instantly. With helm: 1∑. Without helm: 3∑.",
     [("helm", 0, 1, None, ("Without a visor, he dies instantly.",)),
      ("not helm", 0, 3, None, ("Without a visor, he dies instantly.",))]),
    ("If foe has helm, 1∑. If not, 2∑. If no helm, 3∑.",  # a third condition on the feature: the pair is read
     [("helm", 0, 1, None, ("If no helm, 3∑.",)), ("not helm", 0, 2, None, ("If no helm, 3∑.",))]),
    ("If foe has helm, 1∑. If no shield, 2∑.",  # in prose, another feature's condition is no alternative
     [("helm", 0, 1, None, ("If no shield, 2∑.",)), ("not helm", 0, 0, None, ("If no shield, 2∑.",))]),
    ("If helmed, 1∑. Without a visor, 2∑.",
     [("helmed", 0, 1, None, ("Without a visor, 2∑.",)), ("not helmed", 0, 0, None, ("Without a visor, 2∑.",))]),
    # the sentences (issue 40, item 3)
    ("Hold. If the attacker maintains the hold, +5H.", [(None, 0, 0, None, ("If the attacker maintains the hold, +5H.",))]),
    ("If the shield is struck, 2 stunned", [(None, 0, 0, None, ("If the shield is struck, 2 stunned",))]),
    ("Gut wound. If the target fails a RR, dies in 3 rounds.",
     [(None, 0, 0, None, ("If the target fails a RR, dies in 3 rounds.",))]),
    ("If not using a crossbow, +3H. 1∑", [(None, 0, 1, None, ("If not using a crossbow, +3H.",))]),
    ("If foe is stunned, +5H.", [(None, 0, 0, None, ("If foe is stunned, +5H.",))]),  # a state, not gear: not read
    ("Cold blast. If none: +6 hits.", [(None, 0, 0, None, ("If none: +6 hits.",))]),  # MERP: none of what?
])
def test_a_condition_that_cannot_be_read_is_an_unread_piece(text, expected):
    assert unread(text) == expected


def test_an_unread_piece_stays_in_the_text_and_only_in_its_branches():
    # a condition no branch reads, inside a marker's branch, is that branch's unread piece only
    found = parse_branches("Reels, +1H. With helm: +2H. If foe is prone, +5H. Without helm: 3∑.")
    assert [(b.condition, b.text, b.effects.hits, b.unread) for b in found] == [
        ("helm", "Reels, +1H. With helm: +2H. If foe is prone, +5H.", 3, ("If foe is prone, +5H.",)),
        ("not helm", "Reels, +1H. Without helm: 3∑.", 1, ())]


def test_an_unread_piece_may_hold_what_would_be_a_second_death():
    # its effects are never read with the branch's: no `two deaths in one entry` refusal
    found = parse_branches("Dies in 9 rounds. If the target fails a RR, dies instantly.")
    assert [(b.condition, b.effects.death_in, b.unread) for b in found] == [
        (None, 9, ("If the target fails a RR, dies instantly.",))]


def test_only_an_entry_over_the_limit_is_refused():
    with pytest.raises(ValueError, match="more than an entry's 10,000"):
        parse_branches("If foe is prone, +5H. " * 500)
    assert len(parse_branches("If foe is prone, +5H. " * 400)[0].unread) == 1  # one piece, as printed (deduplicated)


# ---------------------------------------------------------------- bounded work

@pytest.mark.parametrize("piece", [
    "If ", "if a ", "If x. ", "If foe has no " + "a " * 20 + ",", "If a, ", "w/o ", "without helm, ", "If foe has helm, 1∑. ",
    "If he doesn't ", "a-", "If\n", "Otherwise, ", "If not, 1∑ ", "If a; ", "Without a helm, x; ",
])
def test_long_hostile_conditions_are_bounded_work(piece):
    """Linear work, counted rather than timed (helpers.counted_work): twice the
    text runs at most twice the lines of Python (up to ~190,000 at 10,000
    characters), in little memory. A pattern that backtracks works inside `re`,
    where lines are not counted: it takes minutes at this length, and the
    per-test timeout (pyproject.toml) fails it."""
    def work(length: int) -> Work:
        text = ("With helm: 1∑ " + piece * 10_000)[:length]
        with counted_work(max_lines=1_000_000) as counted:
            try:
                parse_branches(text)
            except ValueError:
                pass
        return counted

    work(300)  # the modules it needs are loaded now, not while counting
    half, whole = work(5_000), work(10_000)
    assert whole.lines <= 2.1 * half.lines + 100, (half.lines, whole.lines)
    assert whole.peak < 16 << 20, whole.peak  # under 1 MB


# docs/workbook-format.md, "Branches inside a cell": a condition in prose may end at its clause's
# subject instead of a comma (`If foe has no helm you kill him instantly`, as Arms Law words it)
@pytest.mark.parametrize("text", [
    "Foe out for 6 hours. If foe has no helm you kill him instantly. +15H.",
    "Foe out for 6 hours. If foe has no helm, you kill him instantly. +15H.",
])
def test_a_prose_condition_ends_at_its_clauses_subject(text):
    found = {b.condition: (b.effects.hits, b.effects.death_in) for b in parse_branches(text)}
    assert found == {"not helm": (15, 0), "helm": (15, None)}


def test_a_feature_of_either_kind_is_named_as_written():
    # decision: `cloak or armor` is one feature, named as written (give it to targets with either)
    found = {b.condition: (b.effects.hits, b.effects.stun)
             for b in parse_branches("Cold blast. +3 hits. If no cloak or armor: +6 hits and stunned 1 rnd.")}
    assert found == {"not cloak or armor": (9, 1), "cloak or armor": (3, 0)}


# docs/workbook-format.md, "Branches inside a cell": `If not` / `Otherwise` is the negation of the
# condition before it, a negative one too
@pytest.mark.parametrize("text", ["If no helm: +2H. If not: +1H.", "Without helm: +2H. Otherwise: +1H.",
                                  "If foe has no helm you kill him instantly. If not, +3H."])
def test_if_not_after_a_negative_condition_is_its_negation(text):
    first, second = parse_branches(text)
    assert (first.condition, second.condition) == ("not helm", "helm")


# docs/workbook-format.md, "Branches inside a cell": never effects for every target — a marker whose
# phrase is no feature, or that lost its colon, carrying effects is an unread piece (a review's findings)
@pytest.mark.parametrize("text, pieces", [
    ("Without armor the foe wears: +4H.", ("Without armor the foe wears: +4H.",)),
    ("W/o a helm or a cap: +3H.", ("W/o a helm or a cap: +3H.",)),
    ("With no helm: +3H. With helm: +1H.", ("With no helm: +3H.",)),
    ("With helm +3H – 2∑", ("With helm +3H – 2∑",)),
    ("With helm +2H. Without helm +5H.", ("With helm +2H.", "Without helm +5H.")),
])
def test_a_marker_that_cannot_be_placed_is_unread(text, pieces):
    found = parse_branches(text)
    assert found[0].unread == pieces
    assert sum(b.effects.hits + b.effects.stun for b in found if b.condition is None) == 0


# docs/workbook-format.md, "Branches inside a cell": a feature of up to six words, an article kept after a
# place (`on the legs`), `or`, `and` and `/` joining what the target wears, `wielding`/`holding` gear
@pytest.mark.parametrize("text, conditions", [
    ("Without armor over the abdomen: +4H. With armor over the abdomen: +1H.",
     ("not armor over the abdomen", "armor over the abdomen")),
    ("If the target is wearing rigid protection in the neck area: +2 Damage. If not: +6 Damage.",
     ("rigid protection in the neck area", "not rigid protection in the neck area")),
    ("If target wears rigid armor around the neck: +1 Damage. If not, +3 Damage.",
     ("rigid armor around the neck", "not rigid armor around the neck")),
    ("If the target is wearing furs or heavy head clothing: +1 Damage. Otherwise: +4 Damage.",
     ("furs or heavy head clothing", "not furs or heavy head clothing")),
    ("If target is wearing armor/heavy clothing: +1 Damage. If not: +4 Damage.",
     ("armor/heavy clothing", "not armor/heavy clothing")),
    ("If wearing heavy armor and clothing: +1 Damage. If not: +4 Damage.",
     ("heavy armor and clothing", "not heavy armor and clothing")),
    ("If the target is wielding a shield: +1 Damage. Otherwise, +4 Damage.", ("shield", "not shield")),
    ("If the target's unarmored: +5 Damage. If not: +1 Damage.", ("not armored", "armored")),
    # a prose negation before the marker it negates is that marker's other branch
    ("Shot. If the target is unarmored, it pierces deep: +8 Damage. If the target is wearing armor: +4 Damage.",
     ("not armor", "armor")),
])
def test_longer_features_as_books_word_them(text, conditions):
    assert tuple(b.condition for b in parse_branches(text)) == conditions


def test_without_x_may_end_at_its_clauses_subject():
    found = {b.condition: b.effects.death_in for b in parse_branches("Foe reels. Without helm he dies instantly.")}
    assert found == {"not helm": 0, "helm": None}


# docs/workbook-format.md, "Branches inside a cell": `Helm: … No helm: …`, the feature printed bare
# as the first marker (a review found the helmed target given the no-helm hits)
@pytest.mark.parametrize("text, hits", [
    ("Helm: +2H. No helm: +5H.", {"helm": 2, "not helm": 5}),
    ("Blow to head. Chest armor: dented, +2H. Without chest armor: +5H – 2∑.", {"chest armor": 2, "not chest armor": 5}),
])
def test_a_feature_printed_bare_before_its_negation_is_its_branch(text, hits):
    assert {b.condition: b.effects.hits for b in parse_branches(text)} == hits


# docs/workbook-format.md, "Branches inside a cell": a condition in mid-sentence opens no branch;
# with effects in its sentence it is said (the import warns on the cell)
def test_a_condition_in_mid_sentence_with_effects_is_said():
    from tables_app.domain.branches import condition_in_mid_sentence

    assert "('if')" in condition_in_mid_sentence("Dies in 3 rounds if no helm.")
    assert "('unless')" in condition_in_mid_sentence("+5H unless foe has helm.")
    assert condition_in_mid_sentence("Foe is dazed if you wish to believe it.") is None
    assert condition_in_mid_sentence("If helm: +2H. Without helm: +5H.") is None
