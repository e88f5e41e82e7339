"""Conditions as Against the Darkmaster words them, branches on several
features, and the "instead" reading (issue 40, items 3-5;
docs/workbook-format.md, "Branches inside a cell"; docs/table-system.md,
step 10).

Every entry here is invented, in the shape the books print.
"""

from __future__ import annotations

import pytest

from tables_app.domain.branches import MAX_BRANCHES, parse_branches
from tables_app.domain.ranges import Range
from tables_app.domain.tables import ConditionReading, Entry, choose_branch


def conditions(text):  # type: ignore[no-untyped-def]
    return [b.condition for b in parse_branches(text)]


def read(text, reading=ConditionReading.ALSO):  # type: ignore[no-untyped-def]
    """(condition, hits, stun, bleed, death_in) of each branch."""
    return [(b.condition, b.effects.hits, b.effects.stun, b.effects.bleed, b.effects.death_in)
            for b in parse_branches(text, reading=reading)]


# ---------------------------------------------------------------- each spelling, a feature named as written

# docs/workbook-format.md, "Branches inside a cell", "The target as subject" and "Gear and parts of the target"
@pytest.mark.parametrize("text, expected", [
    # `is armored` is the feature `armored` as written; `unarmored` and `is not armored` its negation
    ("If the target is armored: +2H. If the target is unarmored: +6H.", ["armored", "not armored"]),
    ("If the target is armored, +2H. If the target is not armored, +6H.", ["armored", "not armored"]),
    ("If the target isn't armored, +6H. If not, +2H.", ["not armored", "armored"]),
    ("If the target was helmed: 1∑. If not: +6H.", ["helmed", "not helmed"]),
    # beside `armor`, `armored` is one feature with it, named without `-ed` (as `visored` / `visor`)
    ("If the target is armored: +2H. If the target has no armor: +6H.", ["armor", "not armor"]),
    # `some sort of`, `some kind of`, `any` are no part of the feature
    ("If the target is wearing some sort of head protection, 1∑. If not, +6H.", ["head protection", "not head protection"]),
    ("If the target is wearing some kind of head protection: 1∑. If not: +6H.", ["head protection", "not head protection"]),
    ("If foe has any armor, +1H. Otherwise, +5H.", ["armor", "not armor"]),
    # a part of the target in a state: the part, then the state as written
    ("If the target's neck is protected by rigid armor, 2∑. If not, dies in 6 rounds.",
     ["neck protected by rigid armor", "not neck protected by rigid armor"]),
    ("If the neck is exposed, dies in 2 rounds.", ["neck exposed", "not neck exposed"]),
    ("If his throat is unprotected: +9H. If not: 1∑.", ["not throat protected", "throat protected"]),
    # the past: `was wearing`, `wore`, `had`; `was not wearing`, `had no`
    ("If the target was wearing a helm: dazed, 1∑. If not: dies in 3 rounds.", ["helm", "not helm"]),
    ("If he wore a helm, 1∑. If he had no helm, +9H.", ["helm", "not helm"]),
    ("If the target had a shield, 1∑. If the target was not wearing a shield, +9H.", ["shield", "not shield"]),
    # `'s wearing` is `is wearing`; `foe's has` an obvious typo for `foe has`
    ("Cut. If the target's wearing non-metal armor, +4H.", ["non-metal armor", "not non-metal armor"]),
    ("If foe's has no metal armor, +3H.", ["not metal armor", "metal armor"]),
    # no comma: the clause's subject ends the condition; `, then` after it is fine
    ("Foe out. If no helmet he dies instantly.", ["not helmet", "helmet"]),
    ("If the target has no helm, then +5H.", ["not helm", "helm"]),
    # `Otherwise` and `If not` in prose with no comma after a conditional sentence
    ("If foe has helm, 1∑. Otherwise +6H.", ["helm", "not helm"]),
    ("If foe has helm, 1∑. Otherwise he dies in 2 rounds.", ["helm", "not helm"]),
    ("If foe has helm, 1∑. If not +6H.", ["helm", "not helm"]),
    # MERP's `If none:` after a condition is its negation (alone, it is unread: test_branches.py)
    ("With helm: 1∑. If none: +6H.", ["helm", "not helm"]),
])
def test_conditions_as_the_darkmaster_words_them(text, expected):
    assert conditions(text) == expected


def test_the_darkmaster_branches_read_their_own_effects():
    assert read("If the target was wearing a helm: dazed, 1∑. If not: dies in 3 rounds.") == [
        ("helm", 0, 1, 0, None), ("not helm", 0, 0, 0, 3)]
    assert read("If the target's neck is protected by rigid armor, 2∑. Otherwise dies in 6 rounds.") == [
        ("neck protected by rigid armor", 0, 2, 0, None), ("not neck protected by rigid armor", 0, 0, 0, 6)]


@pytest.mark.parametrize("text", [
    "If the target is prone, +5H.",  # a state, not gear: never silently taken as absent
    "If the target is stunned, +5H.",
    "If the shield is struck, +5H.",  # a part of something else than the target
    "If the target's shield is broken, +5H.",
    "If the neck is struck, +5H.",  # a part of the target, in a state no feature names
    "If the target's neck is protected by his own arm, +5H.",  # too many words, and `his`/`own` no part of a feature
    "If attacker maintains hold, +5H.",  # the attacker: no feature of the target
])
def test_states_and_parts_no_feature_names_are_unread(text):
    [branch] = parse_branches(text)
    assert (branch.condition, branch.effects.hits, branch.unread) == (None, 0, (text,))


# ---------------------------------------------------------------- two spellings of one feature

# docs/workbook-format.md, "Branches inside a cell", "Two spellings of one feature"
@pytest.mark.parametrize("text, expected", [
    ("If the target has a full metal helm: 1∑. If the target has no full helm: +8H.",
     [("full metal helm", 0, 1, 0, None), ("not full metal helm", 8, 0, 0, None)]),
    ("With chest armor: +2H. If no armor: +6H – 1∫.", [("chest armor", 2, 0, 0, None), ("not chest armor", 6, 0, 1, None)]),
    ("If no full helm: +8H. If full metal helm: 1∑.", [("not full helm", 8, 0, 0, None), ("full helm", 0, 1, 0, None)]),
])
def test_two_spellings_of_one_feature_pair_named_by_the_first_and_said(text, expected):
    found = parse_branches(text)
    assert read(text) == expected
    # a book may mean two features (`leather armor` … `no armor`): the reading is said on the cell
    assert all(b.warning and "is read as the negation of" in b.warning for b in found)


@pytest.mark.parametrize("text", [
    "With metal helm: 1∑. If no shield: +8H.",  # another last word
    "With full metal helm: 1∑. With full helm: +8H.",  # both positive: two features
    "With leather: 1∑. If no armor: +8H.",  # no word in common
])
def test_other_words_do_not_pair(text):
    assert "not metal helm" not in conditions(text)
    assert all(not b.warning for b in parse_branches(text))


# ---------------------------------------------------------------- several features

ARMOR = ("Foe reels. If the target is wearing metal armor: +3H. If the target's wearing non-metal armor: +5H – 1∑. "
         "If the target is unarmored: +9H – 2∫.")


def test_three_exclusive_features_are_three_branches_and_one_for_everyone_else():
    # docs/workbook-format.md, "Branches inside a cell", "Several features"
    found = parse_branches(ARMOR)
    assert [(b.condition, b.text, b.effects.hits) for b in found] == [
        ("metal armor", "Foe reels. If the target is wearing metal armor: +3H.", 3),
        ("non-metal armor", "Foe reels. If the target's wearing non-metal armor: +5H – 1∑.", 5),
        ("not armored", "Foe reels. If the target is unarmored: +9H – 2∫.", 9),
        (None, "Foe reels.", 0)]


def entries(text):  # type: ignore[no-untyped-def]
    return tuple(Entry(Range(1, 5), b.text, hits=b.effects.hits, condition=b.condition) for b in parse_branches(text))


@pytest.mark.parametrize("features, hits", [
    ({"metal armor"}, 3),
    ({"metal armor", "armored"}, 3),
    ({"non-metal armor", "armored"}, 5),
    ({"non-metal armor", "metal armor"}, 3),  # both: the first in printed order
    (set(), 9),  # unknown features: the first "not" branch whose feature it lacks
    ({"armored"}, 0),  # armored, but neither metal nor non-metal: everyone else's
])
def test_a_target_takes_the_first_feature_it_has_else_the_first_it_lacks_else_everyone_elses(features, hits):
    # docs/table-system.md, step 10
    choice = choose_branch(entries(ARMOR), frozenset(features))
    assert choice.entry.hits == hits
    assert len(choice.others) == 3 and choice.entry not in choice.others


def test_a_feature_and_its_negation_choose_as_before():
    # docs/table-system.md, step 10: the "not" branch for a target without the feature, whichever comes first
    for text in ("With helm: +1H. Without helm: +3H.", "Without helm: +3H. With helm: +1H."):
        assert choose_branch(entries(text), frozenset({"helm"})).entry.hits == 1
        choice = choose_branch(entries(text), frozenset())
        assert (choice.entry.hits, choice.other and choice.other.hits, len(choice.others)) == (3, 1, 1)


def test_an_otherwise_after_several_features_is_everyone_elses_branch():
    assert [(b.condition, b.text, b.effects.hits) for b in parse_branches(
        "Hit. With metal armor: +2H. With leather: +3H. Otherwise: +5H.")] == [
        ("metal armor", "Hit. With metal armor: +2H.", 2), ("leather", "Hit. With leather: +3H.", 3),
        (None, "Hit. Otherwise: +5H.", 5)]


def test_conditions_in_prose_on_other_features_are_no_alternatives():
    # decision: a condition in prose governs its sentence (a target may meet two): another feature's is unread
    assert [(b.condition, b.unread) for b in parse_branches("If foe has helm, 1∑. If no shield, 2∑.")] == [
        ("helm", ("If no shield, 2∑.",)), ("not helm", ("If no shield, 2∑.",))]
    # `With X,` in prose beside another feature's condition: unread, never every target's
    assert [(b.condition, b.effects.hits, b.unread) for b in parse_branches("If foe has helm, 1∑. With a shield, +2H.")] == [
        ("helm", 0, ("With a shield, +2H.",)), ("not helm", 0, ("With a shield, +2H.",))]


def test_a_feature_twice_among_several_is_unread():
    found = parse_branches("With helm: 1∑. With shield: 2∑. Without helm: 3∑.")
    assert [(b.condition, b.effects.stun, b.unread) for b in found] == [
        ("helm", 1, ()), ("shield", 2, ("Without helm: 3∑.",)), (None, 0, ())]


def test_at_most_max_branches_features():
    text = " ".join(f"With gear{letter}: {i}∑." for i, letter in enumerate("abcdefgh", start=1))
    found = parse_branches(text)
    assert [b.condition for b in found] == [f"gear{letter}" for letter in "abcdef"[:MAX_BRANCHES]] + [None]
    assert found[MAX_BRANCHES - 1].unread == ("With gearg: 7∑.", "With gearh: 8∑.")
    assert found[MAX_BRANCHES - 1].effects.stun == MAX_BRANCHES


# docs/workbook-format.md, "Branches inside a cell", "A branch that repeats another"
@pytest.mark.parametrize("text, expected", [
    ("If the target is armored: +2H. If the target is unarmored: as above but also +3H.",
     [("armored", 2, 0, 0, None), ("not armored", 5, 0, 0, None)]),
    ("With helm: 1∑. Without helm: All of the above plus 1∫.", [("helm", 0, 1, 0, None), ("not helm", 0, 1, 1, None)]),
    ("Reels, +1H. With helm: 1∑. If not: as above, and 2∑.", [("helm", 1, 1, 0, None), ("not helm", 1, 3, 0, None)]),
    ("With metal armor: +2H. With leather: as above, and 1∑. Otherwise: as above, and 1∫.",
     [("metal armor", 2, 0, 0, None), ("leather", 2, 1, 0, None), (None, 2, 1, 1, None)]),
])
def test_a_branch_that_repeats_the_one_above_takes_its_effects(text, expected):
    assert read(text) == expected
    first, second = parse_branches(text)[:2]
    assert "above" in second.text and first.text not in second.text  # the text as printed, not repeated


# ---------------------------------------------------------------- the "instead" reading

AFTER_EFFECTS = "+3H, 1∫. If the target has no helm, then +6H, dies in 6 rounds. He reels, 1∑."


def test_also_gives_the_conditioned_branch_the_earlier_effects_too():
    # docs/workbook-format.md, "Branches inside a cell", "Conditions | also / instead"
    assert read(AFTER_EFFECTS) == [("not helm", 9, 1, 1, 6), ("helm", 3, 1, 1, None)]


def test_instead_gives_it_its_own_sentence_and_what_follows_only():
    found = parse_branches(AFTER_EFFECTS, reading=ConditionReading.INSTEAD)
    assert [(b.condition, b.effects.hits, b.effects.stun, b.effects.bleed, b.effects.death_in) for b in found] == [
        ("not helm", 6, 1, 0, 6), ("helm", 3, 1, 1, None)]
    assert [b.text for b in found] == [b.text for b in parse_branches(AFTER_EFFECTS)]  # the text shown is unchanged


def test_instead_reads_a_death_the_book_replaces():
    text = "Blow to head, +3H, dies in 9 rounds. If the target has no helm, then dies instantly."
    with pytest.raises(ValueError, match="two deaths in one entry"):
        parse_branches(text)  # read as also: two deaths for the helmless
    assert read(text, ConditionReading.INSTEAD) == [("not helm", 0, 0, 0, 0), ("helm", 3, 0, 0, 9)]


def test_instead_leaves_markers_as_they_read():
    text = "Reels, +2H. With helm: 1∑. Without helm: 3∑."
    assert read(text, ConditionReading.INSTEAD) == read(text) == [("helm", 2, 1, 0, None), ("not helm", 2, 3, 0, None)]


def test_instead_with_every_branch_in_prose_is_said():
    found = parse_branches("+3H. If helm, 1∑. If not, +6H.", reading=ConditionReading.INSTEAD)
    assert [(b.condition, b.effects.hits, b.effects.stun) for b in found] == [("helm", 0, 1), ("not helm", 6, 0)]
    assert all("go to no target" in (b.warning or "") for b in found)


# docs/workbook-format.md, "Branches inside a cell": a branch's own words decide how it reads after effects —
# `also` adds to them under `instead`; `instead` or `only` replaces them under `also`
@pytest.mark.parametrize("reading", [ConditionReading.ALSO, ConditionReading.INSTEAD])
def test_a_branchs_own_words_decide_also_or_instead(reading):
    added = "Jolt: +3 Damage. If the target is wearing metal armor, they're also Stunned."
    assert [(b.condition, b.effects.hits, b.effects.stun) for b in parse_branches(added, reading=reading)] == [
        ("metal armor", 3, 1), ("not metal armor", 3, 0)]
    replaced = "Blow to thigh. +12 Damage and -20 activities. If no leg armor: cracked bone, +15 Damage and -40 activities instead."
    assert [(b.condition, b.effects.hits, b.effects.penalty) for b in parse_branches(replaced, reading=reading)] == [
        ("not leg armor", 15, -40), ("leg armor", 12, -20)]
    only = "Foot crushed. +15 Damage and -40 to all actions. If the target has hooves, then only -10 to all actions."
    assert [(b.condition, b.effects.hits, b.effects.penalty) for b in parse_branches(only, reading=reading)] == [
        ("hooves", 0, -10), ("not hooves", 15, -40)]


def test_under_instead_a_lone_marker_replaces_what_is_before_it():
    text = "Knee struck. +8 Damage and -30 to all actions. If no leg armor: crushed knee, +20 Damage and -60 to all actions."
    assert [(b.condition, b.effects.hits, b.effects.penalty) for b in parse_branches(text, reading=ConditionReading.INSTEAD)] == [
        ("not leg armor", 20, -60), ("leg armor", 8, -30)]
    assert [(b.condition, b.effects.hits, b.effects.penalty) for b in parse_branches(text)] == [
        ("not leg armor", 28, -90), ("leg armor", 8, -30)]


def test_a_state_of_the_target_may_end_at_it():
    # docs/workbook-format.md, "Branches inside a cell": a condition in prose may end at its clause's subject
    # (`he`, `she`, `they`, `it`), as RMSS words `If the neck is exposed it freezes solid`
    found = parse_branches("Sliced. If the neck is exposed it freezes solid and foe dies in 9 rounds.")
    assert [(b.condition, b.effects.death_in) for b in found] == [("neck exposed", 9), ("not neck exposed", None)]


def test_only_replaces_before_a_count_not_in_prose():
    # a review's finding: `only` in ordinary prose is no `instead` (docs/workbook-format.md, "Branches inside a cell")
    text = "Crushing blow, +5 Damage. If the target has no helm, he is only Stunned."
    assert [(b.condition, b.effects.hits, b.effects.stun) for b in parse_branches(text)] == [
        ("not helm", 5, 1), ("helm", 5, 0)]
