"""Names listed as sentences say them (domain/kinds.py): "A, B and C", a
kind once, in the plural when several (the refusals of `tables remove`)."""

from __future__ import annotations

import pytest

from tables_app.domain.kinds import and_list, named_by_kind


@pytest.mark.parametrize(("items", "said"), [
    (["Orc"], "Orc"), (["Orc", "Wolf"], "Orc and Wolf"), (["A", "B", "C"], "A, B and C"), (["A", "B", "C", "D"], "A, B, C and D")])
def test_a_list_is_joined_with_and_before_its_last(items, said):
    assert and_list(items) == said


@pytest.mark.parametrize(("groups", "said"), [
    ([("weapon", ["Great Axe"])], "weapon Great Axe"),
    ([("weapon", ["Great Axe", "Hatchet"])], "weapons Great Axe and Hatchet"),
    ([("weapon", ["A", "B", "C"])], "weapons A, B and C"),
    ([("weapon", ["Great Axe"]), ("creature", ["Orc"])], "weapon Great Axe and creature Orc"),
    ([("weapon", ["Great Axe"]), ("attack table", [])], "weapon Great Axe"),  # a kind with none is not said
    ([("weapon", ["Great Axe", "Hatchet"]), ("attack table", ["Poke"])], "weapons Great Axe and Hatchet, and attack table Poke"),
    ([("weapon", ["A"]), ("attack table", ["B"]), ("critical table", ["C"])], "weapon A, attack table B, and critical table C"),
])
def test_names_are_grouped_by_kind_the_kind_plural_when_several(groups, said):
    assert named_by_kind(groups) == said
