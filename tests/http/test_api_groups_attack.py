"""Groups attacked over HTTP (docs/deploy.md, "Groups"): a group's token tried on every route of another group's
fights and parties (each refused 404 as a name that does not exist, the fight unchanged, no other group's name
suggested); the import route under other spellings of its path; a token look-up that cannot read the database
answered 503 in the error object; a thread's database never keeps a previous request's group."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from group_tokens import OPERATOR, bearer, groups_served
from helpers import LOCAL_BASE

from tables_app.errors import DatabaseError
from tables_app.http import app as app_module
from tables_app.http.app import create_app, operation_response
from tables_app.http.fights import NAMED
from tables_app.services.server_database import PerThreadDatabases

API = "/api/v1"
HERO = {"as": "Hero", "hits": 30, "def": 20, "armor": "MA", "weapon": "Dagger", "cmb": 10}
ORC = {"as": "Orc", "side": "B", "hits": 30, "def": 20, "armor": "MA", "weapon": "Dagger", "cmb": 10}
# A body each write route would take on the fight `Ambush` (its owner's): refused for anyone else before any check
BODIES = {
    "join": {"as": "Spy", "hits": 10, "def": 0, "armor": "MA", "weapon": "Dagger", "cmb": 5},
    "attack": {"attacker": "Hero", "target": "Orc", "seed": 1},
    "round": {"auto": True, "seed": 1},
    "undo": {},
    "edit": {"combatant": "Orc", "taken": 1},
    "adjust": {"combatant": "Orc", "damage": 5},
    "leave": {"combatant": "Orc"},
}


@pytest.fixture
def server(db_path: Path, run):  # type: ignore[no-untyped-def]
    with groups_served(db_path, run) as served:
        yield served


def an_ambush(client: TestClient, token: str) -> dict:  # type: ignore[type-arg]
    assert client.post(f"{API}/fights", json={"name": "Ambush"}, headers=bearer(token)).status_code == 200
    for body in (HERO, ORC):
        assert client.post(f"{API}/fights/Ambush/combatants", json=body, headers=bearer(token)).status_code == 200
    saved = client.post(f"{API}/parties", json={"name": "Raiders", "from": "Ambush"}, headers=bearer(token))
    assert saved.status_code == 200, saved.text
    shown = client.get(f"{API}/fights/Ambush", headers=bearer(token))
    assert shown.status_code == 200
    return shown.json()


@pytest.mark.parametrize("owner", ["Tuesday", "operator"])
def test_no_route_of_another_groups_fight_answers_anything_but_404(server, owner):  # type: ignore[no-untyped-def]
    client, tokens = server
    before = an_ambush(client, tokens[owner])
    for intruder in (t for t in ("Tuesday", "Friday", "operator") if t != owner):
        for method, suffix, word in NAMED:
            for spelled in ("Ambush", "AMBUSH", "Ambsh"):  # the name, another case of it, a near miss
                url = f"{API}/fights/{spelled}{suffix}"
                if method == "post":
                    answer = client.post(url, json=BODIES[word], headers=bearer(tokens[intruder]))
                else:
                    answer = client.request(method.upper(), url, params={"rounds": 1} if suffix in ("/odds", "/simulate")
                                            else {}, headers=bearer(tokens[intruder]))
                assert answer.status_code == 404, (intruder, word, spelled, answer.text)
                told = json.dumps(answer.json()).replace(repr(spelled), "")  # but the name asked for, echoed
                assert "ambush" not in told.lower(), (intruder, word, spelled, told)  # never suggested
    assert client.get(f"{API}/fights/Ambush", headers=bearer(tokens[owner])).json() == before


@pytest.mark.parametrize("owner", ["Tuesday", "operator"])
def test_another_groups_party_is_none_to_join_save_show_or_remove(server, owner):  # type: ignore[no-untyped-def]
    client, tokens = server
    an_ambush(client, tokens[owner])
    intruder = "Friday"
    mine = bearer(tokens[intruder])
    assert client.post(f"{API}/fights", json={"name": "Mine"}, headers=mine).status_code == 200
    for answer in (client.post(f"{API}/fights/Mine/combatants", json={"party": "Raiders"}, headers=mine),
                   client.post(f"{API}/fights/Mine/combatants", json={"party": "Raider"}, headers=mine),
                   client.post(f"{API}/parties", json={"name": "Stolen", "from": "Ambush"}, headers=mine),
                   client.get(f"{API}/parties/Raiders", headers=mine),
                   client.get(f"{API}/parties/raiders", headers=mine),
                   client.delete(f"{API}/parties/Raiders", headers=mine)):
        assert answer.status_code == 404, answer.text
        told = answer.text.replace("'Raiders'", "").replace("'Raider'", "").replace("'raiders'", "").replace("'Ambush'", "")
        assert "raider" not in told.lower() and "ambush" not in told.lower(), answer.text
    assert client.get(f"{API}/parties", headers=mine).json()["parties"] == []
    assert client.get(f"{API}/fights/Mine", headers=mine).json()["combatants"] == []
    assert client.get(f"{API}/parties/Raiders", headers=bearer(tokens[owner])).status_code == 200


@pytest.mark.parametrize("path", ["/import", "/import/", "//import", "/import?name=a.xlsx", "/./import",
                                  "/IMPORT", "/%69mport"])
def test_a_groups_token_never_reaches_the_import(server, path):  # type: ignore[no-untyped-def]
    client, tokens = server
    answer = client.post(f"{API}{path}", content=b"x", follow_redirects=True,
                         headers={**bearer(tokens["Tuesday"]), "Content-Type": "application/octet-stream"})
    assert answer.status_code in (403, 404, 405), (path, answer.status_code, answer.text)
    assert "error" in answer.json()


def test_a_token_look_up_that_cannot_read_the_database_is_503_not_500(db_path: Path, run, monkeypatch):  # type: ignore[no-untyped-def]
    token = json.loads(run("group", "new", "Tuesday", "--json").stdout)["token"]

    def unreadable(_databases: object, _token: str) -> int | None:
        raise DatabaseError("cannot read the database: it is locked")

    monkeypatch.setattr(app_module, "group_of_token", unreadable)
    app = create_app(db_path, token=OPERATOR)
    with TestClient(app, base_url=LOCAL_BASE, raise_server_exceptions=False) as client:
        answer = client.get(f"{API}/fights", headers=bearer(token))
        assert answer.status_code == 503, answer.text
        assert answer.json()["error"]["message"].startswith("cannot read the database")
        assert client.get(f"{API}/fights", headers=bearer(OPERATOR)).status_code == 200  # the operator's: no look-up


def test_a_threads_database_does_not_keep_the_previous_requests_group(db_path: Path, run):  # type: ignore[no-untyped-def]
    from tables_app.http.access import acting_group

    run("group", "new", "Tuesday")
    run("--group", "Tuesday", "fight", "new", "Theirs")
    databases = PerThreadDatabases(db_path)
    acting = acting_group.set(1)  # a group's request on this thread, then the operator's
    try:
        assert json.loads(operation_response(databases, ("fight", "list"), ()).body)["fights"][0]["name"] == "Theirs"
    finally:
        acting_group.reset(acting)
    assert databases.get().group == 1
    assert json.loads(operation_response(databases, ("fight", "list"), ()).body)["fights"] == []
    assert databases.get().group == 0
