"""Severity scales and conditional branches (docs/table-system.md steps 9-11)."""

from tables_app.domain.ranges import Range, RangeTable
from tables_app.domain.severity import DEFAULT_SCALE
from tables_app.domain.tables import EffectTable, Entry, TableKind, choose_branch


def test_default_scale_is_the_specs():
    # docs/table-system.md, "Severity": Sup +0, Lig +10, Mod +20, Gri +30, Let +50
    assert [(s.code, s.name, s.modifier) for s in DEFAULT_SCALE.levels] == [
        ("Sup", "Superficial", 0), ("Lig", "Light", 10), ("Mod", "Moderate", 20),
        ("Gri", "Grievous", 30), ("Let", "Lethal", 50),
    ]
    assert DEFAULT_SCALE.max_modifier == 50


def test_find_by_code_or_name_any_case():
    assert DEFAULT_SCALE.find("gRi").code == "Gri"
    assert DEFAULT_SCALE.find("lethal").code == "Let"
    assert DEFAULT_SCALE.find("huge") is None


def test_lowering_below_the_lowest_cancels():
    mod = DEFAULT_SCALE.get("Mod")
    assert DEFAULT_SCALE.lower(mod, 2).code == "Sup"
    assert DEFAULT_SCALE.lower(mod, 3) is None
    assert DEFAULT_SCALE.lower(mod, 0) is mod


HELM = Entry(Range(51, 80), "ring", condition="helm")
BARE = Entry(Range(51, 80), "cut", condition="not helm")


def test_branch_by_feature():
    assert choose_branch((HELM, BARE), frozenset({"Helm"})).entry is HELM
    chosen = choose_branch((HELM, BARE), frozenset())
    assert chosen.entry is BARE and chosen.other is HELM  # unknown feature: the "not" branch


def test_effect_table_clamps_both_ends():
    table = EffectTable(TableKind.FUMBLE, "F", RangeTable([(Range(1, 50), (Entry(Range(1, 50), "a"),)), (Range(51, 100), (Entry(Range(51, 100), "b"),))]))
    assert table.choose(130).entry.text == "b"
    assert table.choose(-5).entry.text == "a"
