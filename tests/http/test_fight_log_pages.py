"""`fight log` a page at a time (issue 43, item 6: a fight at its bound of
100,000 events answered an 80 MB log): `--from SEQ --limit N` on the command
line, `?from=SEQ&limit=N` over HTTP, the same declared operation; `next`,
the next page's first event (null on the last); the keys of before kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from helpers import LOCAL_BASE

from tables_app.http.app import create_app
from tables_app.operations import fights as declared
from tables_app.services import fights

BY_HAND = ("--hits", "30", "--armor", "MA", "--weapon", "Dagger", "--cmb", "10")


@pytest.fixture
def brawl(run: Any) -> Any:
    """A fight of 6 events: 2 joins, 4 rounds."""
    run("fight", "new", "Brawl")
    run("fight", "join", "Brawl", "--as", "Hero", *BY_HAND)
    run("fight", "join", "Brawl", "--as", "Orc", "--side", "B", *BY_HAND)
    for _ in range(4):
        assert run("fight", "round", "Brawl").exit_code == 0
    return run


def test_the_log_comes_a_page_at_a_time_with_the_next_pages_first_event(brawl: Any) -> None:
    whole = json.loads(brawl("fight", "log", "Brawl", "--json").stdout)
    assert set(whole) == {"fight", "ruleset", "events", "seq", "next"}
    assert ([e["seq"] for e in whole["events"]], whole["seq"], whole["next"]) == ([1, 2, 3, 4, 5, 6], 6, None)
    pages, first = [], 1
    while first is not None:
        page = json.loads(brawl("fight", "log", "Brawl", "--from", str(first), "--limit", "4", "--json").stdout)
        pages.append([e["seq"] for e in page["events"]])
        first = page["next"]
    assert pages == [[1, 2, 3, 4], [5, 6]]
    # an event's words on a later page are those of the whole log: the fight before it is replayed
    later = json.loads(brawl("fight", "log", "Brawl", "--from", "5", "--json").stdout)["events"]
    assert later == whole["events"][4:]
    printed = brawl("fight", "log", "Brawl", "--limit", "2").output.splitlines()
    assert printed[0] == "Brawl: 6 events"
    assert printed[-1] == "… events 3 to 6 follow: tables fight log 'Brawl' --from 3"
    past = json.loads(brawl("fight", "log", "Brawl", "--from", "9", "--json").stdout)
    assert (past["events"], past["next"]) == ([], None)


@pytest.mark.parametrize("limit", ["0", str(declared.MAX_LOG_PAGE + 1)])
def test_a_page_is_bounded(brawl: Any, limit: str) -> None:
    refused = brawl("fight", "log", "Brawl", "--limit", limit)
    assert refused.exit_code == 2
    assert "--limit" in refused.output


def test_the_bounds_are_the_services(brawl: Any) -> None:
    assert (declared.LOG_PAGE, declared.MAX_LOG_PAGE) == (fights.LOG_PAGE, fights.MAX_LOG_PAGE)


def test_over_http_a_page_is_the_commands(brawl: Any, db_path: Path) -> None:
    with TestClient(create_app(db_path), base_url=LOCAL_BASE) as client:
        answer = client.get("/api/v1/fights/Brawl/log", params={"from": 2, "limit": 3})
        assert answer.status_code == 200, answer.text
        printed = json.loads(brawl("fight", "log", "Brawl", "--from", "2", "--limit", "3", "--json").stdout)
        assert answer.json() == printed
        assert answer.json()["next"] == 5
        assert client.get("/api/v1/fights/Brawl/log", params={"limit": 0}).status_code == 422
