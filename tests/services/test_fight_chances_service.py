"""services/fight_odds.odds: the chances of a fight stop as soon as the one who asked has gone (``should_stop``),
whichever way they are worked out, and nothing is answered; the estimate's budget counts from ``started``."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tables_app.errors import TablesError
from tables_app.services import fight_odds
from tables_app.services.database_setup import open_database


@pytest.fixture
def duel(run, db_path: Path):  # type: ignore[no-untyped-def]
    run("fight", "new", "Duel")
    run("fight", "join", "Duel", "--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA", "--weapon", "Longsword",
        "--cmb", "60")
    run("fight", "join", "Duel", "--creature", "Orc Warrior")
    database = open_database(str(db_path))
    yield database
    database.dispose()


@pytest.mark.parametrize("asked", [{}, {"exact": True}, {"count": 100_000}, {"certified": True}])
def test_the_chances_stop_when_the_one_who_asked_has_gone(duel, asked):  # type: ignore[no-untyped-def]
    polls = []

    def gone() -> bool:
        polls.append(1)
        return len(polls) > 3  # gone after the work began

    with pytest.raises(TablesError, match="^the chances of the fight 'Duel' were stopped \\(the one who asked has gone\\)$"):
        fight_odds.odds(duel, "Duel", should_stop=gone, **asked)
    assert len(polls) == 4  # not asked again once it said so


def test_an_estimates_budget_counts_from_when_it_was_asked(duel):  # type: ignore[no-untyped-def]
    # asked long ago: its budget is spent, so it plays one chunk of fights and no more
    late = fight_odds.odds(duel, "Duel", seconds=0.5, started=time.monotonic() - 60)
    on_time = fight_odds.odds(duel, "Duel", seconds=5)
    assert late.to_json()["method"] == on_time.to_json()["method"] == "estimated"
    assert late.tally.count < on_time.tally.count  # type: ignore[union-attr]
