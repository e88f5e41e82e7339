"""Groups over HTTP (docs/deploy.md, "Groups"; docs/api.md, "Access"): a request with a group's token acts as
that group, seeing and writing only its fights and parties; it may read the tables, resolve and work out odds,
but not import; a token made anew or revoked stops at once; the operator's token (TABLES_TOKEN) is the
operator's own fights, apart from every group's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from group_tokens import OPERATOR, bearer, groups_served


API = "/api/v1"
HERO = {"as": "Hero", "hits": 30, "def": 20, "armor": "MA", "weapon": "Dagger", "cmb": 10}
ORC = {"as": "Orc", "side": "B", "hits": 30, "def": 20, "armor": "MA", "weapon": "Dagger", "cmb": 10}


@pytest.fixture
def server(db_path: Path, run):  # type: ignore[no-untyped-def]
    with groups_served(db_path, run) as served:
        yield served


def a_duel(client: TestClient, token: str, name: str = "Duel") -> None:
    assert client.post(f"{API}/fights", json={"name": name}, headers=bearer(token)).status_code == 200
    for body in (HERO, ORC):
        added = client.post(f"{API}/fights/{name}/combatants", json=body, headers=bearer(token))
        assert added.status_code == 200, added.text


def test_a_groups_token_sees_and_writes_its_own_fights_only(server):  # type: ignore[no-untyped-def]
    client, tokens = server
    a_duel(client, tokens["Tuesday"])
    for other in ("Friday", "operator"):
        assert client.get(f"{API}/fights", headers=bearer(tokens[other])).json()["fights"] == []
        missing = client.get(f"{API}/fights/Duel", headers=bearer(tokens[other]))
        assert missing.status_code == 404 and missing.json()["error"]["message"].startswith("no fight named 'Duel'")
        attacked = client.post(f"{API}/fights/Duel/attacks", json={"attacker": "Hero", "target": "Orc", "seed": 1},
                               headers=bearer(tokens[other]))
        assert attacked.status_code == 404
        assert client.delete(f"{API}/fights/Duel", headers=bearer(tokens[other])).status_code == 404
        assert client.get(f"{API}/fights/Duel/odds", params={"rounds": 2},
                          headers=bearer(tokens[other])).status_code == 404
    a_duel(client, tokens["Friday"])  # the same name in another group: its own fight
    hit = client.post(f"{API}/fights/Duel/attacks", json={"attacker": "Hero", "target": "Orc", "seed": 5, "after": 2},
                      headers=bearer(tokens["Friday"]))
    assert hit.status_code == 200 and hit.json()["fight"]["seq"] == 3
    assert client.get(f"{API}/fights/Duel", headers=bearer(tokens["Tuesday"])).json()["seq"] == 2
    twice = client.post(f"{API}/fights", json={"name": "DUEL"}, headers=bearer(tokens["Tuesday"]))
    assert twice.status_code == 422 and "a fight named 'Duel' exists" in twice.json()["error"]["message"]
    chances = client.get(f"{API}/fights/Duel/odds", params={"rounds": 2}, headers=bearer(tokens["Tuesday"]))
    assert chances.status_code == 200 and chances.json()["method"] in ("exact", "estimated")


def test_a_groups_parties_are_its_own(server):  # type: ignore[no-untyped-def]
    client, tokens = server
    for group in ("Tuesday", "Friday"):
        a_duel(client, tokens[group])
        saved = client.post(f"{API}/parties", json={"name": "Heroes", "from": "Duel", "only": ["Hero"]},
                            headers=bearer(tokens[group]))
        assert saved.status_code == 200 and saved.json()["replaced"] is False, saved.text
    assert client.get(f"{API}/parties", headers=bearer(OPERATOR)).json()["parties"] == []
    assert [p["name"] for p in client.get(f"{API}/parties", headers=bearer(tokens["Friday"])).json()["parties"]] == [
        "Heroes"]
    assert client.get(f"{API}/parties/Heroes", headers=bearer(OPERATOR)).status_code == 404
    assert client.delete(f"{API}/parties/Heroes", headers=bearer(tokens["Friday"])).status_code == 200
    assert client.get(f"{API}/parties/Heroes", headers=bearer(tokens["Tuesday"])).status_code == 200


def test_a_groups_token_reads_the_tables_but_does_not_import(server):  # type: ignore[no-untyped-def]
    client, tokens = server
    group = bearer(tokens["Tuesday"])
    assert client.get(f"{API}/weapons", headers=group).status_code == 200
    resolved = client.post(f"{API}/resolve/table", headers=group,
                           json={"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "dice": [97, 99, 45, 30]})
    assert resolved.status_code == 200
    refused = client.post(f"{API}/import?name=a.xlsx", content=b"x",
                          headers={**group, "Content-Type": "application/octet-stream"})
    assert refused.status_code == 403
    assert refused.json()["error"]["message"] == ("a group's token cannot import tables: the operator's token "
                                                  "(TABLES_TOKEN) imports")
    by_operator = client.post(f"{API}/import?name=a.xlsx", content=b"x",
                              headers={**bearer(OPERATOR), "Content-Type": "application/octet-stream"})
    assert by_operator.status_code not in (401, 403)  # the operator may import (this upload is no workbook)


def test_a_token_made_anew_or_revoked_stops_at_once(server, run):  # type: ignore[no-untyped-def]
    client, tokens = server
    old = bearer(tokens["Tuesday"])
    assert client.get(f"{API}/fights", headers=old).status_code == 200
    new = json.loads(run("group", "token", "Tuesday", "--json").stdout)["token"]
    assert client.get(f"{API}/fights", headers=old).status_code == 401
    assert client.get(f"{API}/fights", headers=bearer(new)).status_code == 200
    assert run("group", "revoke", "Tuesday").exit_code == 0
    refused = client.get(f"{API}/fights", headers=bearer(new))
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    for odd in ("tg_", "tg_" + "x" * 500, "tg_short", "tg_" + "é" * 20, tokens["Friday"] + "x"):
        given = f"Bearer {odd}".encode()
        assert client.get(f"{API}/fights", headers={"Authorization": given}).status_code == 401, odd


def test_the_guard_knows_a_groups_token_by_the_prefix_groups_are_made_with():
    # http/access.py cannot import services (it is read before the serve extra): the prefix is written twice, kept equal
    from tables_app.http.access import GROUP_TOKEN_PREFIX
    from tables_app.services.groups import TOKEN_PREFIX

    assert GROUP_TOKEN_PREFIX == TOKEN_PREFIX.encode("ascii")
