"""Issue 41, item 8: what the HTTP API says back.

- A path the API takes in another method answers 405, with ``Allow`` and the
  error object of docs/api.md, not a 404 of the catch-all routes
  (`GET /api/v1/resolve/table` was "'kind': 'resolve' is not one of …").
- A value a message quotes back is spelled as JSON spells it (`true`, not
  Python's `True`).
- A refusal whose hint is a command says it in the request's terms
  (`ask for rounds=2`, not `(tables odds fight Duel 'rounds' 2)`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from helpers import LOCAL_BASE

from tables_app.http.app import create_app

API = "/api/v1"
BODY = {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA"}
HERO = {"as": "Hero", "hits": 50, "def": 20, "armor": "MA", "weapon": "Longsword", "cmb": 60, "parry": 10}


@pytest.fixture
def client(db_path: Path):  # type: ignore[no-untyped-def]
    with TestClient(create_app(db_path), base_url=LOCAL_BASE) as test_client:
        test_client.post(f"{API}/fights", json={"name": "Ambush"})
        yield test_client


def refused(response, allow: str) -> str:  # type: ignore[no-untyped-def]
    assert response.status_code == 405, response.text
    assert response.headers["allow"] == allow
    error = response.json()["error"]
    assert set(error) >= {"message", "workbook", "sheet", "cell"}
    return str(error["message"])


@pytest.mark.parametrize(("method", "path", "allow"), [
    ("GET", "/resolve/table", "POST"),  # was 404: "'kind': 'resolve' is not one of attack, critical, ..."
    ("GET", "/odds/rise", "POST"),
    ("GET", "/simulate/d10-pool", "POST"),
    ("GET", "/import", "POST"),  # was 404: "'kind': 'import' is not one of ..."
    ("DELETE", "/resolve/table", "POST"),
    ("POST", "/critical/Cut", "GET"),  # was 404: "no such endpoint"
    ("POST", "/weapons/Longsword", "GET"),
    ("POST", "/query/critical", "GET"),  # was 404: "no such endpoint"
    ("DELETE", "/critical/Cut", "GET"),  # was Allow: POST (the first route's, POST /{verb}/{system})
    ("POST", "/weapons", "GET"),
    ("POST", "/health", "GET"),
    ("PUT", "/fights", "GET, POST"),
    ("POST", "/fights/Ambush", "GET, DELETE"),  # was 404: "no such endpoint"
    ("GET", "/fights/Ambush/attacks", "POST"),  # was 404: "no fight named 'Ambush/attacks'"
    ("GET", "/fights/Ambush/undo", "POST"),
    ("DELETE", "/fights/Ambush/combatants", "POST"),
    ("DELETE", "/fights/Ambush/log", "GET"),
    ("POST", "/fights/Ambush/odds", "GET"),
])
def test_a_path_taken_in_another_method_is_405_with_allow(client, method, path, allow):
    message = refused(client.request(method, f"{API}{path}", json={}), allow)
    takes = " or ".join(allow.split(", "))
    assert message == f"{API}{path} does not take {method}: send {takes} (see /docs)"


def test_every_route_answers_405_in_the_methods_it_does_not_take(client):
    """Each route of the API, asked in each other method, names the methods its path takes."""
    taken: dict[str, set[str]] = {}
    for route in client.app.routes:
        if isinstance(route, APIRoute) and route.path.startswith(API) and "{kind}" not in route.path \
                and "{verb}" not in route.path:
            taken.setdefault(route.path.replace("{name:path}", "Ambush"), set()).update(route.methods)
    assert len(taken) >= 20
    for path, methods in taken.items():
        for method in {"GET", "POST", "DELETE"} - methods:
            response = client.request(method, path, json={})
            assert response.status_code == 405, (method, path, response.text)
            assert set(response.headers["allow"].split(", ")) == methods, (method, path)


def test_what_no_route_takes_is_still_404_and_the_right_method_answers(client):
    assert client.get(f"{API}/nosuch").status_code == 404
    assert client.post(f"{API}/nosuch/thing", json={}).json()["error"]["message"] == \
        f"no such endpoint: {API}/nosuch/thing (see /docs)"
    assert client.get(f"{API}/critical/Cut").status_code == 200
    assert client.get(f"{API}/fights/Ambush").status_code == 200
    named = client.post(f"{API}/fights", json={"name": "Bridge / night"}).json()  # a name may hold a slash
    assert client.get(f"{API}/fights/Bridge%20%2F%20night").json()["fight"] == named["fight"]
    assert client.post(f"{API}/resolve/nosuch", json={}).status_code == 404  # the system is what is wrong
    nothing = client.get(f"{API}/query/nosuch")  # was "'kind': 'query' is not one of attack, critical, fumble, ..."
    assert (nothing.status_code, nothing.json()["error"]["message"]) == (
        404, f"no such endpoint: {API}/query/nosuch (query attack, critical or fumble; see /docs)")


@pytest.mark.parametrize(("field", "value", "message"), [
    ("cmb", True, "'cmb': true is not a whole number"),  # was `True`
    ("cmb", {"x": [True, None]}, "'cmb': {\"x\": [true, null]} is not a whole number"),
    ("cmb", "sixty", "'cmb': 'sixty' is not a whole number"),  # text as the command line quotes it
    ("weapon", True, "'weapon': one text value, not true"),  # was `not bool`
    ("armor", None, None),  # null: not given
    ("has", [False], "'has': one text value, not false"),
    ("mod", [{"flank": 10}], "'mod': one text value, not an object"),  # was `not dict`
    ("ignore_crit_reduction", "yes", "'ignore_crit_reduction': true or false, not 'yes'"),
    ("ignore_crit_reduction", [1], "'ignore_crit_reduction': true or false, not [1]"),
])
def test_values_are_echoed_as_json_spells_them(client, field, value, message):
    response = client.post(f"{API}/resolve/table", json={**BODY, field: value, "seed": 1})
    if message is None:
        assert response.status_code == 422 and "armor" in response.json()["error"]["message"]
        return
    assert (response.status_code, response.json()["error"]["message"]) == (422, message)


def test_a_body_that_is_no_object_is_named_in_jsons_words(client):
    response = client.post(f"{API}/resolve/table", json=[True])
    assert response.json()["error"]["message"] == \
        "the request is not as expected (the body must be a JSON object), not a list"


def test_a_flag_and_its_value_are_a_field_and_its_value(client):
    """`--at 7` of the command line's message is `at=7` over HTTP, not `'at' 7`."""
    client.post(f"{API}/fights/Ambush/combatants", json=HERO)
    assert client.get(f"{API}/fights/Ambush?at=7").json()["error"]["message"] == \
        "at=7: the fight 'Ambush' has events 0 to 1"
    assert client.post(f"{API}/resolve/rise", json={"accuracy": 6, "def": 5, "damage": "2d6-1d4"}).json()["error"][
        "message"] == "damage=2d6-1d4: subtracted dice are not allowed"
    assert client.post(f"{API}/resolve/table", json={**BODY, "dice": [50, 300]}).json()["error"]["message"] == \
        "die 2 of 'dice' is 300, but the critical roll on Cut is a d100 (1-100)"


@pytest.mark.slow  # the duel's exact odds run seconds to their refusal
def test_the_odds_refusal_offers_fewer_rounds_and_the_estimate_as_requests(client, run):
    name = "Duel / night"  # its name in a path, as the page sends it
    client.post(f"{API}/fights", json={"name": name})
    client.post(f"{API}/fights/Duel%20%2F%20night/combatants", json=HERO)
    client.post(f"{API}/fights/Duel%20%2F%20night/combatants", json={"creature": "Orc Warrior"})
    response = client.get(f"{API}/fights/Duel%20%2F%20night/odds", params={"exact": "true"})
    assert response.status_code == 422
    message = response.json()["error"]["message"]
    assert re.fullmatch(
        r"the fight 'Duel / night' is too large to work out exactly: the fight reaches more than 1,000,000 states "
        r"\([\d,]+ by round 2\); ask for rounds=1 \(GET /api/v1/fights/Duel%20%2F%20night/odds\?rounds=1&exact=true\) "
        r"or estimate it instead \(without exact\): GET /api/v1/fights/Duel%20%2F%20night/odds", message), message
    assert "'rounds'" not in message and "tables " not in message
    assert client.get(f"{API}/fights/Duel%20%2F%20night/odds", params={"rounds": 1, "exact": "true"}).status_code == 200
    estimated = client.get(f"{API}/fights/Duel%20%2F%20night/odds", params={"time": 0.3})  # issue 42: one answer
    assert estimated.status_code == 200 and estimated.json()["method"] == "estimated"


def test_a_refusal_offering_a_command_offers_its_route(client, run):
    """The command line's offer (`tables fight show 'Ambush'`) is the route over HTTP."""
    assert client.post(f"{API}/fights", json={"name": "ambush"}).json()["error"]["message"] == \
        "a fight named 'Ambush' exists (show it: GET /api/v1/fights/Ambush, or remove it first)"
    assert client.get(f"{API}/fights/Ambush/odds").json()["error"]["message"] == \
        "the fight 'Ambush' has one side only: add a foe (POST /api/v1/fights/Ambush/combatants)"
    assert run("fight", "new", "Ambush").stderr == \
        "Error: a fight named 'Ambush' exists (show it: tables fight show 'Ambush', or remove it first)\n"
    assert run("odds", "fight", "Ambush").stderr == "Error: the fight 'Ambush' has one side only: add a foe (tables fight join)\n"
