"""The one rule for names (domain/names.py) and the domain lookups that use it."""

import pytest

from tables_app.domain.cells import AttackCell, Outcome
from tables_app.domain.names import did_you_mean, fold, suggest
from tables_app.domain.ranges import Range, RangeTable
from tables_app.domain.severity import Severity, SeverityScale
from tables_app.domain.tables import AttackTable, EffectTable, Entry, TableKind, choose_branch, unknown_feature_warnings
from tables_app.errors import NotFound

DECOMPOSED_E = "e\u0301"  # e + combining acute: canonically é


@pytest.mark.parametrize(
    "a, b",
    [
        ("Zweihänder Ærø", "zweihänder ærø"),
        ("Épée Ñ", "ÉPÉE ñ"),
        ("Épée", f"{DECOMPOSED_E.upper()}p{DECOMPOSED_E}e"),
        ("ﬁne", "FINE"),  # the fi ligature is fi (NFKC)
        ("Straße", "STRASSE"),  # full Unicode casefold, not lower()
        ("Long  sword ", "long sword"),  # runs of spaces, as the importer stores names
    ],
)
def test_spellings_of_one_name_fold_alike(a, b):
    assert fold(a) == fold(b)


def test_different_names_stay_different():
    assert fold("Ærø") != fold("Aero") and fold("Épée") != fold("Epee")


def test_fold_is_idempotent_even_where_casefold_leaves_a_non_nfkc_string():
    text = "\u01f0"  # ǰ: casefolds to j + combining caron, which NFKC composes again
    assert fold(fold(text)) == fold(text) == fold("J\u030c")


def test_suggest_offers_close_names_as_the_known_spell_them():
    known = ["Longsword", "Short Sword", "Dagger", "Zweihänder Ærø"]
    assert suggest("Longswrd", known) == ["Longsword"]
    assert suggest("ZWEIHANDER ÆRØ", known) == ["Zweihänder Ærø"]
    assert suggest("long", ["Longsword", "Long Bow", "Dagger"]) == ["Long Bow", "Longsword"]
    assert suggest("Xylophone", known) == []
    assert len(suggest("a", [f"a{i}" for i in range(10)])) == 3


@pytest.mark.parametrize(("typed", "meant"), [
    ("Egded", "Edged"), ("Impcat", "Impact"), ("Lnogsword", "Longsword"), ("Wlof", "Wolf"),  # one swap (issue 28)
    ("Edgd", "Edged"), ("Edgee", "Edged"), ("Lnogswrod", "Longsword"),  # a letter missing or added; two swaps
])
def test_a_transposition_is_one_edit(typed: str, meant: str) -> None:
    known = ["Edged", "Impact", "Longsword", "Wolf", "Blunt", "Missile", "Claws and Teeth", "Long Bow"]
    assert suggest(typed, known)[:1] == [meant]


def test_a_short_name_is_allowed_one_edit_a_longer_two() -> None:
    assert suggest("Wxlf", ["Wolf"]) == ["Wolf"]
    assert suggest("Wxlx", ["Wolf"]) == []  # two edits in four letters: another word
    assert suggest("Lgonswrod", ["Longsword"]) == ["Longsword"]


def test_not_found_carries_its_suggestions_in_one_line():
    error = NotFound.unknown("no weapon named 'Longswrd'", "Longswrd", ["Longsword", "Dagger"], "see `tables list weapons`")
    assert str(error) == "no weapon named 'Longswrd' — did you mean 'Longsword'?" and error.suggestions == ["Longsword"]
    none = NotFound.unknown("no weapon named 'Xyz'", "Xyz", ["Longsword"], "see `tables list weapons`")
    assert str(none) == "no weapon named 'Xyz' (see `tables list weapons`)" and none.suggestions == []
    assert did_you_mean(["A", "B", "C"]) == " — did you mean 'A', 'B' or 'C'?"
    assert NotFound("plain").suggestions == []


def test_not_found_survives_pickling_with_its_suggestions():
    import pickle

    error = pickle.loads(pickle.dumps(NotFound("no weapon named 'X'", ["Y"])))
    assert (str(error), error.suggestions) == ("no weapon named 'X'", ["Y"])


def test_armor_columns_and_severities_match_in_any_unicode_spelling():
    cell = AttackCell(Outcome.HIT, 3)
    table = AttackTable("Épée Ñ", ("Ärmor", "Plate"), RangeTable([(Range(1, None), (cell, cell))]))
    assert table.column("ÄRMOR") == 0 and table.column("A\u0308rmor ") == 0 and table.column("Armor") is None
    scale = SeverityScale("Stufen", (Severity("Ä", "Ärger", 0), Severity("Œ", "Übel", 10)))
    assert scale.find("ä") is scale.levels[0] and scale.find("œ") is scale.levels[1] and scale.find("ÜBEL") is scale.levels[1]
    assert scale.find("u\u0308bel") is scale.levels[1]


def _branching(feature: str) -> EffectTable:
    positive = Entry(Range(1, None), "with", condition=feature)
    negative = Entry(Range(1, None), "without", condition=f"not {feature}")
    return EffectTable(TableKind.CRITICAL, "Schnitt", RangeTable([(Range(1, None), (positive, negative))]))


def test_branches_by_a_feature_in_any_unicode_spelling():
    entries = _branching("stirnbänd").rows.values[0]
    assert choose_branch(entries, frozenset({"STIRNBÄND"})).entry.text == "with"
    assert choose_branch(entries, frozenset({"Stirnba\u0308nd"})).entry.text == "with"
    assert choose_branch(entries, frozenset({"helm"})).entry.text == "without"


def test_a_feature_no_branch_asks_about_is_a_warning_with_near_features():
    tables = [_branching("helm"), _branching("metal armor")]
    assert unknown_feature_warnings(["HELM", "Metal Armor"], tables) == []
    (warning,) = unknown_feature_warnings(["hlem"], tables)
    assert warning == ("feature 'hlem' changes nothing: no branch of critical tables 'Schnitt', 'Schnitt' asks about it"
                       " — did you mean 'helm'? (known features: helm, metal armor)")
    plain = EffectTable(TableKind.CRITICAL, "Plain", RangeTable([(Range(1, None), (Entry(Range(1, None), "x"),))]))
    assert unknown_feature_warnings(["helm"], [plain]) == [
        "feature 'helm' changes nothing: no branch of critical table 'Plain' asks about it (no branch asks about any feature)"]


def test_names_that_start_with_what_was_typed_come_first():
    # `long` is the start of Longsword more than it is close to Sling
    assert suggest("long", ["Sling", "Longsword", "Longbow", "Club"]) == ["Longbow", "Longsword", "Sling"]
