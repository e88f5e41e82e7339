"""Every exact odds of a fight these tests work out (test_fight_odds and those
built on it: death, crippling, hits only, the review's, formula systems' pte)
is worked out in float64 too and must agree within 1e-12 (float_agreement)."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from float_agreement import checking

from tables_app.domain.fights import odds


@pytest.fixture(autouse=True)
def float64_agrees(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    checked: list[int] = []
    wrapped = checking(odds.fight_odds, checked)
    for module in list(sys.modules.values()):  # the test modules that imported fight_odds by name
        name = getattr(module, "__name__", "")
        if name.startswith("test_") and getattr(module, "fight_odds", None) is odds.fight_odds:
            monkeypatch.setattr(module, "fight_odds", wrapped)
    yield checked
