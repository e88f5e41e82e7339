"""Whether a branch's text says its condition itself (domain/tables.py,
states_its_condition; issue 28, item 8): then the branch not taken is shown
as its text alone, not `if leg armor: w/ leg armor: ...`."""

from __future__ import annotations

import pytest

from tables_app.domain.tables import states_its_condition


@pytest.mark.parametrize(("text", "condition", "says"), [
    ("w/ leg armor: Greave takes the stroke.", "leg armor", True),
    ("W/ LEG ARMOR: Greave takes the stroke.", "leg armor", True),  # any letter case
    ("With helm: the blow rings off.", "helm", True),
    ("If helm: the blow rings off.", "helm", True),
    ("w/o leg armor: Calf laid open.", "not leg armor", True),
    ("Without helm: the scalp opens.", "Not helm", True),  # `not` in any case
    ("Without helm: the scalp opens.", "helm", False),  # says the other branch's condition
    ("With helmet on: dazed.", "helm", False),  # another word, no colon after the feature
    ("With helm the blow rings off.", "helm", False),  # no colon: not a branch's heading
    ("Forehead: with helm gone, dazed.", "helm", False),
    ("The blow rings off the helm.", "helm", False),
    ("Anything.", None, False),
])
def test_a_text_says_its_condition_only_as_a_heading(text: str, condition: str | None, says: bool) -> None:
    assert states_its_condition(text, condition) is says


def test_a_marker_glued_to_a_word_is_no_marker() -> None:
    assert not states_its_condition("Swith helm: x", "helm")  # `with` inside `Swith`
    assert not states_its_condition("ow/with helm: x", "helm")  # nor after a slash (`w/` is a marker itself)
