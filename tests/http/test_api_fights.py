"""The fight endpoints of `tables serve` (docs/api.md, "Fights"): every answer
is what the same `tables fight ...` command prints with ``--json``, for the
same events; a writer whose ``after`` is behind the log is refused with 409;
unknown names are 404 with suggestions, bad fields and refused steps 422
naming the fields, a database that cannot be written 503."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fastapi.testclient import TestClient
from helpers import LOCAL_BASE, command_line

from tables_app.http.app import create_app, fields_named

FIGHTS = "/api/v1/fights"
HERO = {"as": "Hero", "hits": 50, "def": 20, "armor": "MA", "weapon": "Longsword", "cmb": 60, "parry": 10}
ORC = {"creature": "Orc Warrior", "weapon": "Scimitar", "cmb": 55}


@pytest.fixture
def served(request: pytest.FixtureRequest, db_path: Path, tmp_path: Path, on_postgres: bool) -> Path:
    """A copy of the CLI's database (db_path) for the server: the same events on both give the same fights."""
    if on_postgres:
        return request.getfixturevalue("new_postgres")(request.getfixturevalue("postgres_template"))  # type: ignore[no-any-return]
    path = tmp_path / "served.db"
    shutil.copyfile(db_path, path)
    return path


@pytest.fixture
def client(served: Path):  # type: ignore[no-untyped-def]
    with TestClient(create_app(served), base_url=LOCAL_BASE) as test_client:
        yield test_client


def cli(run, *args: str) -> tuple[int, Any]:  # type: ignore[no-untyped-def]
    result = run("fight", *args, "--json")
    return result.exit_code, json.loads(result.stdout)


def same(response, run, *args: str, status: int = 200, drop: tuple[str, ...] = ()) -> Any:  # type: ignore[no-untyped-def]
    """The response is `tables fight ARGS --json` (byte for byte, but for the
    keys ``drop`` names: times), with a 422's options named as fields."""
    code, printed = cli(run, *args)
    if status == 422 and "error" in printed:
        printed["error"]["message"] = fields_named(printed["error"]["message"], ("fight", args[0]))
    assert response.status_code == status, response.text
    answer = response.json()
    if drop:
        answer, printed = undated(answer, drop), undated(printed, drop)
    else:
        assert response.content == json.dumps(printed, ensure_ascii=False).encode()
    assert answer == printed
    assert (code == 0) == (status == 200), code
    return answer


def undated(data: Any, keys: tuple[str, ...]) -> Any:
    if isinstance(data, dict):
        return {k: undated(v, keys) for k, v in data.items() if k not in keys}
    if isinstance(data, list):
        return [undated(v, keys) for v in data]
    return data


def started(client: TestClient, run) -> None:  # type: ignore[no-untyped-def]
    """Ambush, with Hero (by hand) and Orc Warrior #1 (the bestiary's), on both databases."""
    same(client.post(FIGHTS, json={"name": "Ambush"}), run, "new", "Ambush")
    same(client.post(f"{FIGHTS}/Ambush/combatants", json={**HERO, "after": 0}), run, "join", "Ambush", *command_line(HERO), "--after", "0")
    same(client.post(f"{FIGHTS}/Ambush/combatants", json=ORC), run, "join", "Ambush", *command_line(ORC))


def test_every_endpoint_answers_the_commands_json(client, run):
    started(client, run)
    attack = {"attacker": "Hero", "target": "Orc Warrior #1", "dice": [50], "after": 2}
    done = same(client.post(f"{FIGHTS}/Ambush/attacks", json=attack), run, "attack", "Ambush", "Hero", "Orc Warrior #1",
                *command_line({k: v for k, v in attack.items() if k not in ("attacker", "target")}))
    assert done["attack"]["dice"] == [50] and done["fight"]["seq"] == 3
    same(client.post(f"{FIGHTS}/Ambush/attacks", json={"attacker": "Orc Warrior #1", "target": "Hero", "seed": 7,
                                                       "attack": "Scimitar", "mod": ["+5", "flank=+10"]}),
         run, "attack", "Ambush", "Orc Warrior #1", "Hero", "--seed", "7", "--attack", "Scimitar", "--mod", "+5",
         "--mod", "flank=+10")
    same(client.post(f"{FIGHTS}/Ambush/rounds", json={"after": 4}), run, "round", "Ambush", "--after", "4")
    rounds = same(client.post(f"{FIGHTS}/Ambush/rounds", json={"auto": True, "seed": 5}), run, "round", "Ambush",
                  "--auto", "--seed", "5")
    assert len(rounds["attacks"]) == 2 and rounds["fight"]["round"] == 3
    same(client.post(f"{FIGHTS}/Ambush/edits", json={"combatant": "Hero", "taken": 3, "bleed": 1, "status": "up"}),
         run, "edit", "Ambush", "Hero", "--taken", "3", "--bleed", "1", "--status", "up")
    same(client.post(f"{FIGHTS}/Ambush/undo", json={"after": 9}), run, "undo", "Ambush", "--after", "9")
    same(client.post(f"{FIGHTS}/Ambush/undo", json={}), run, "undo", "Ambush")  # the --auto round: its 3 events
    shown = same(client.get(f"{FIGHTS}/Ambush"), run, "show", "Ambush")
    assert shown["seq"] == 5 and [c["name"] for c in shown["combatants"]] == ["Hero", "Orc Warrior #1"]
    same(client.get(f"{FIGHTS}/Ambush?at=3"), run, "show", "Ambush", "--at", "3")
    log = same(client.get(f"{FIGHTS}/Ambush/log"), run, "log", "Ambush", drop=("at",))
    assert [e["seq"] for e in log["events"]] == list(range(1, 6))
    same(client.get(FIGHTS), run, "list", drop=("created_at", "last_event_at"))
    same(client.delete(f"{FIGHTS}/Ambush"), run, "remove", "Ambush")
    assert client.get(FIGHTS).json() == {"fights": []}


def test_the_log_and_list_are_the_commands_on_the_same_database(client, run, served):
    """The times of the log and the list too: read by the command on the server's own database."""
    started(client, run)
    for route, args in ((f"{FIGHTS}/Ambush/log", ("log", "Ambush")), (FIGHTS, ("list",))):
        result = run("fight", *args, "--json", db=served)
        assert client.get(route).content == result.stdout.rstrip("\n").encode()


def test_a_fight_named_with_a_slash_and_spaces(client, run):
    same(client.post(FIGHTS, json={"name": "Bridge / night", "ruleset": "default"}), run, "new", "Bridge / night",
         "--ruleset", "default")
    same(client.post(f"{FIGHTS}/Bridge%20%2F%20night/combatants", json=HERO), run, "join", "Bridge / night", *command_line(HERO))
    same(client.get(f"{FIGHTS}/Bridge / night/log"), run, "log", "Bridge / night", drop=("at",))
    same(client.get(f"{FIGHTS}/bridge%20%2F%20NIGHT"), run, "show", "bridge / NIGHT")


def test_two_writers_that_read_the_same_seq(served, run):
    """Two GMs' pages read seq 2; the first attack is written, the second refused with 409 (and nothing written)."""
    with TestClient(create_app(served), base_url=LOCAL_BASE) as one, \
            TestClient(create_app(served), base_url=LOCAL_BASE) as other:
        started(one, run)
        seen = [one.get(f"{FIGHTS}/Ambush").json()["seq"], other.get(f"{FIGHTS}/Ambush").json()["seq"]]
        assert seen == [2, 2]
        body = {"attacker": "Hero", "target": "Orc Warrior #1", "dice": [50], "after": 2}
        assert one.post(f"{FIGHTS}/Ambush/attacks", json=body).status_code == 200
        for refused in (other.post(f"{FIGHTS}/Ambush/attacks", json={**body, "dice": [30]}),
                        other.post(f"{FIGHTS}/Ambush/rounds", json={"after": 2}),
                        other.post(f"{FIGHTS}/Ambush/undo", json={"after": 2}),
                        other.post(f"{FIGHTS}/Ambush/edits", json={"combatant": "Hero", "stun": 1, "after": 2}),
                        other.post(f"{FIGHTS}/Ambush/combatants", json={**ORC, "after": 2})):
            assert refused.status_code == 409, refused.text
            assert refused.json()["error"]["message"] == \
                "the fight 'Ambush' changed (its log is at event 3, not 2): show it again, then retry"
        assert other.get(f"{FIGHTS}/Ambush").json()["seq"] == 3
        # The command refuses the same write the same way (exit 1).
        assert run("fight", "attack", "Ambush", "Hero", "Orc Warrior #1", "--dice", "50", "--after", "2").exit_code == 0
        same(other.post(f"{FIGHTS}/Ambush/rounds", json={"after": 2}), run, "round", "Ambush", "--after", "2", status=409)


def test_unknown_fights_and_combatants_are_404_with_suggestions(client, run):
    started(client, run)
    for response, args in (
            (client.get(f"{FIGHTS}/Ambsh"), ("show", "Ambsh")),
            (client.get(f"{FIGHTS}/Ambsh/log"), ("log", "Ambsh")),
            (client.delete(f"{FIGHTS}/Ambsh"), ("remove", "Ambsh")),
            (client.post(f"{FIGHTS}/Ambsh/undo", json={}), ("undo", "Ambsh")),
            (client.post(f"{FIGHTS}/Ambush/attacks", json={"attacker": "Hero", "target": "Orc Wrrior #1", "dice": [50]}),
             ("attack", "Ambush", "Hero", "Orc Wrrior #1", "--dice", "50")),
            (client.post(f"{FIGHTS}/Ambush/attacks", json={"attacker": "Heor", "target": "Orc Warrior #1", "seed": 1}),
             ("attack", "Ambush", "Heor", "Orc Warrior #1", "--seed", "1")),
            (client.post(f"{FIGHTS}/Ambush/edits", json={"combatant": "Hreo", "stun": 1}), ("edit", "Ambush", "Hreo", "--stun", "1")),
            (client.post(f"{FIGHTS}/Ambush/combatants", json={**HERO, "as": "Two", "weapon": "Lngsword"}),
             ("join", "Ambush", *command_line({**HERO, "as": "Two", "weapon": "Lngsword"}))),
            (client.post(f"{FIGHTS}/Ambush/attacks", json={"attacker": "Hero", "target": "Orc Warrior #1", "seed": 1,
                                                           "attack": "Longswrd"}),
             ("attack", "Ambush", "Hero", "Orc Warrior #1", "--seed", "1", "--attack", "Longswrd"))):
        error = same(response, run, *args, status=404)["error"]
        assert error.get("suggestions"), error
    assert client.get(f"{FIGHTS}/Ambsh").json()["error"]["suggestions"] == ["Ambush"]
    wrong = client.post(f"{FIGHTS}/Ambush/attacks", json={"attacker": "Hero", "target": "Orc Wrrior #1", "dice": [50]})
    assert wrong.json()["error"]["suggestions"] == ["Orc Warrior #1"]
    assert client.get(f"{FIGHTS}/Ambush").json()["seq"] == 2  # nothing written


def test_bad_fields_and_refused_steps_are_422_naming_the_fields(client, run):
    started(client, run)
    attack = f"{FIGHTS}/Ambush/attacks"
    cases = [
        (client.post(f"{FIGHTS}/Ambush/combatants", json={"as": "X", "hits": "many", "armor": "MA"}),
         "'hits': 'many' is not a whole number"),
        (client.post(f"{FIGHTS}/Ambush/combatants", json={"as": "X", "hitz": 5}), "'hitz': no such field (did you mean 'hits'?)"),
        (client.post(f"{FIGHTS}/Ambush/combatants", json={"weapon": "Longsword", "cmb": 50}),
         "give 'creature' NAME, or the combatant by hand ('as' and 'hits' and 'armor' missing)"),
        (client.post(f"{FIGHTS}/Ambush/combatants", json={**HERO, "cmb": 10**6}), "'cmb': 1000000 is not between -10000 and 10000"),
        (client.post(f"{FIGHTS}/Ambush/combatants", json={**HERO, "name": "Ambush"}),
         "'name': the fight is named in the path (/api/v1/fights/NAME/combatants), not in the body"),
        (client.post(attack, json={"attacker": "Hero"}), "'target': a value is required"),
        (client.post(attack, json={"attacker": "Hero", "target": "Orc Warrior #1", "dice": [50], "seed": 1}),
         "give 'seed' or 'dice', not both"),
        (client.post(attack, json={"attacker": "Hero", "target": "Orc Warrior #1", "dice": [50, 50]}),
         "'dice': 1 of the given dice was not needed (50); nothing was written: give exactly the dice the attacks read"),
        (client.post(attack, json={"attacker": "Hero", "target": "Hero", "seed": 1}), "Hero cannot attack itself"),
        (client.post(f"{FIGHTS}/Ambush/rounds", json={"seed": 1}), "'dice' and 'seed' roll the attacks of 'auto': give 'auto' too"),
        (client.post(f"{FIGHTS}/Ambush/edits", json={"combatant": "Hero"}), "give what to set ('taken' N, 'stun' N, 'status' down, 'def' N, 'wield' WEAPON, ...)"),
        (client.post(f"{FIGHTS}/Ambush/edits", json={"combatant": "Hero", "status": "asleep"}),
         "'status': 'asleep' is not one of up, down, dead"),
        (client.get(f"{FIGHTS}/Ambush?at=9"), "at=9: the fight 'Ambush' has events 0 to 2"),
        (client.get(f"{FIGHTS}/Ambush?at=x"), "'at': 'x' is not a whole number"),
        (client.post(FIGHTS, json={"name": "ambush"}),
         "a fight named 'Ambush' exists (show it: GET /api/v1/fights/Ambush, or remove it first)"),
        (client.post(FIGHTS, json={"name": "  "}), "'name': must not be empty"),
        (client.post(FIGHTS, json={}), "'name': a value is required"),
    ]
    for response, message in cases:
        assert response.status_code == 422, (message, response.text)
        assert response.json()["error"]["message"] == message
    # past the log's end: another writer undid what the caller saw (issue 43): 409, as a writer behind is
    ahead = client.post(attack, json={"attacker": "Hero", "target": "Orc Warrior #1", "after": 7})
    assert (ahead.status_code, ahead.json()["error"]["message"]) == (
        409, "the fight 'Ambush' changed (its log is at event 2, not 7): show it again, then retry")
    assert client.get(f"{FIGHTS}/Ambush").json()["seq"] == 2  # nothing written
    # Each refusal is the command's, its options named as the fields.
    same(client.post(f"{FIGHTS}/Ambush/edits", json={"combatant": "Hero"}), run, "edit", "Ambush", "Hero", status=422)
    same(client.post(f"{FIGHTS}/Ambush/rounds", json={"seed": 1}), run, "round", "Ambush", "--seed", "1", status=422)


def test_a_stunned_attacker_and_a_fight_over_are_refused_as_the_command_refuses_them(client, run):
    started(client, run)
    same(client.post(f"{FIGHTS}/Ambush/edits", json={"combatant": "Hero", "stun": 2}), run, "edit", "Ambush", "Hero",
         "--stun", "2")
    same(client.post(f"{FIGHTS}/Ambush/rounds", json={}), run, "round", "Ambush")
    refused = same(client.post(f"{FIGHTS}/Ambush/attacks", json={"attacker": "Hero", "target": "Orc Warrior #1", "seed": 1}),
                   run, "attack", "Ambush", "Hero", "Orc Warrior #1", "--seed", "1", status=422)
    assert refused["error"]["message"].startswith("Hero cannot attack: stunned")
    same(client.post(f"{FIGHTS}/Ambush/edits", json={"combatant": "Orc Warrior #1", "status": "dead"}), run, "edit",
         "Ambush", "Orc Warrior #1", "--status", "dead")
    over = same(client.post(f"{FIGHTS}/Ambush/rounds", json={}), run, "round", "Ambush", status=422)
    assert over["error"]["message"] == "the fight is over: side A wins (undo to go back)"
    assert same(client.get(f"{FIGHTS}/Ambush"), run, "show", "Ambush")["winner"] == "A"


def test_bodies_that_are_not_json_objects(client):
    client.post(FIGHTS, json={"name": "Ambush"})
    assert client.post(f"{FIGHTS}/Ambush/undo", content=b"{}", headers={"Content-Type": "text/plain"}).status_code == 415
    assert client.post(f"{FIGHTS}/Ambush/undo", json=[1]).status_code == 422
    assert client.post(f"{FIGHTS}/Ambush/undo", content=b"{", headers={"Content-Type": "application/json"}).status_code == 422
    assert client.put(f"{FIGHTS}/Ambush/undo", json={}).status_code == 405
    assert client.post(f"{FIGHTS}/Ambush", json={}).status_code in (404, 405)
    # A form of another site (text/plain needs no preflight) writes nothing.
    plain = {"Content-Type": "text/plain"}
    body = json.dumps({"as": "X", "hits": 5, "armor": "MA", "weapon": "Longsword", "cmb": 5}).encode()
    assert client.post(f"{FIGHTS}/Ambush/combatants", content=body, headers=plain).status_code == 415
    assert client.post(FIGHTS, content=b'{"name": "Other"}', headers=plain).status_code == 415
    assert client.get(FIGHTS).json()["fights"][0]["events"] == 0 and len(client.get(FIGHTS).json()["fights"]) == 1


def test_a_database_that_cannot_be_written_is_503(client, monkeypatch):
    import sqlite3

    from tables_app.storage import connection, database, transactions

    client.post(FIGHTS, json={"name": "Ambush"})

    def connect(path: Path) -> sqlite3.Connection:  # every connection read-only (root may write any file)
        opened = sqlite3.connect(f"{Path(path).absolute().as_uri()}?mode=ro", uri=True, isolation_level=None)
        opened.execute("PRAGMA foreign_keys = ON")
        return opened

    for module in (connection, database, transactions):
        monkeypatch.setattr(module, "connect", connect)
    refused = client.post(f"{FIGHTS}/Ambush/combatants", json=HERO)
    assert refused.status_code == 503, refused.text
    assert "the database is read-only" in refused.json()["error"]["message"]
    assert client.post(FIGHTS, json={"name": "Other"}).status_code == 503
    assert client.get(f"{FIGHTS}/Ambush").json()["seq"] == 0  # reading still works


def test_a_token_server_needs_the_token_for_fights_and_a_loopback_one_its_host(served):
    token = "the-fights-token-0123456789"
    with TestClient(create_app(served, token=token), base_url=LOCAL_BASE) as guarded:
        assert guarded.post(FIGHTS, json={"name": "Ambush"}).status_code == 401
        assert guarded.get(FIGHTS).status_code == 401
        assert guarded.delete(f"{FIGHTS}/Ambush").status_code == 401
        good = {"Authorization": f"Bearer {token}"}
        assert guarded.post(FIGHTS, json={"name": "Ambush"}, headers=good).status_code == 200
    with TestClient(create_app(served), base_url=LOCAL_BASE) as open_server:  # no token: loopback names only
        assert open_server.post(f"{FIGHTS}/Ambush/undo", json={}, headers={"Host": "evil.example"}).status_code == 400
        assert open_server.get(f"{FIGHTS}/Ambush").json()["seq"] == 0


def test_the_openapi_document_declares_409_on_the_fight_writes(client):
    document = client.get("/openapi.json").json()
    paths = document["paths"]
    for suffix in ("combatants", "attacks", "rounds", "undo", "edits"):
        operation = paths[f"{FIGHTS}/{{name}}/{suffix}"]["post"]
        assert "409" in operation["responses"], suffix
        body = operation["requestBody"]["content"]["application/json"]["schema"]["properties"]
        assert "name" not in body and "after" in body, suffix
    assert "409" not in paths[FIGHTS]["post"]["responses"]
    assert set(paths[f"{FIGHTS}/{{name}}"]) == {"get", "delete"}
    assert [p["name"] for p in paths[f"{FIGHTS}/{{name}}"]["get"]["parameters"]] == ["name", "at"]


def test_the_odds_of_a_fight_over_http_are_the_commands(client, run):  # type: ignore[no-untyped-def]
    quick = {"as": "Hero", "hits": 3, "armor": "MA", "weapon": "Longsword", "cmb": 60}
    goblin = {"creature": "Goblin Scout", "hits": 3}
    same(client.post(FIGHTS, json={"name": "Quick"}), run, "new", "Quick")
    same(client.post(f"{FIGHTS}/Quick/combatants", json=quick), run, "join", "Quick", *command_line(quick))
    same(client.post(f"{FIGHTS}/Quick/combatants", json=goblin), run, "join", "Quick", *command_line(goblin))
    answer = client.get(f"{FIGHTS}/Quick/odds", params={"rounds": 2, "exact": True})
    printed = run("odds", "fight", "Quick", "--rounds", "2", "--exact", "--json")
    assert (answer.status_code, printed.exit_code) == (200, 0)
    assert answer.json() == json.loads(printed.stdout)
    assert client.get(f"{FIGHTS}/Quick/odds", params={"rounds": 0}).status_code == 422
    assert client.get(f"{FIGHTS}/Nope/odds").status_code == 404


# ------------------------------------------------------------------ a fight simulated over HTTP (issue #30)
QUICK = {"as": "Hero", "hits": 3, "armor": "MA", "weapon": "Longsword", "cmb": 60}
GOBLIN = {"creature": "Goblin Scout", "hits": 3}


def quick_fight(client: TestClient, run) -> None:  # type: ignore[no-untyped-def]
    """Quick (3 hits each: over in a round or two), on both databases."""
    same(client.post(FIGHTS, json={"name": "Quick"}), run, "new", "Quick")
    same(client.post(f"{FIGHTS}/Quick/combatants", json=QUICK), run, "join", "Quick", *command_line(QUICK))
    same(client.post(f"{FIGHTS}/Quick/combatants", json=GOBLIN), run, "join", "Quick", *command_line(GOBLIN))


def test_a_simulated_fight_over_http_is_the_commands(client, run):  # type: ignore[no-untyped-def]
    """docs/api.md: GET /api/v1/fights/{name}/simulate answers `tables simulate fight NAME ... --json`."""
    quick_fight(client, run)
    answer = client.get(f"{FIGHTS}/Quick/simulate", params={"rounds": 4, "count": 800, "seed": 9})
    printed = run("simulate", "fight", "Quick", "--rounds", "4", "--count", "800", "--seed", "9", "--json")
    assert (answer.status_code, printed.exit_code) == (200, 0)
    assert answer.content == printed.stdout.rstrip("\n").encode()  # byte for byte
    data = answer.json()
    # every one of the 800 fights had ended by round 3 (a knock-out or a fall may take a round more, #41): the
    # rounds stop there (issue 41), as the odds' do
    assert (data["count"], data["seed"], [r["round"] for r in data["rounds"]]) == (800, 9, [1, 2, 3])
    assert data["rounds"][-1]["over"] == 1.0 > data["rounds"][0]["over"]
    # without a seed the server draws one and says which: asked again with it, the same answer
    drawn = client.get(f"{FIGHTS}/Quick/simulate", params={"count": 300}).json()
    listed = len(drawn["rounds"])  # the command's default rounds, 20, or to the round every fight had ended by
    assert isinstance(drawn["seed"], int) and (listed == 20 or drawn["rounds"][-1]["over"] == 1.0)
    assert all(r["over"] < 1.0 for r in drawn["rounds"][:-1])
    again = client.get(f"{FIGHTS}/Quick/simulate", params={"count": 300, "seed": drawn["seed"]}).json()
    assert again == drawn


def test_a_simulation_over_http_is_bounded(client, run):  # type: ignore[no-untyped-def]
    """The command's bounds (count 1 to 1,000,000, rounds 1 to 200), and the server's: count × rounds
    at most MAX_FIGHT_ROUNDS a request (docs/api.md), refused naming the field, before any work."""
    from tables_app.http.fights import MAX_FIGHT_ROUNDS

    quick_fight(client, run)
    route = f"{FIGHTS}/Quick/simulate"
    for params, field in (({"count": 0}, "count"), ({"count": 1_000_001}, "count"), ({"rounds": 0}, "rounds"),
                          ({"rounds": 201}, "rounds"), ({"count": "many"}, "count"), ({"seed": -1}, "seed")):
        refused = client.get(route, params=params)
        assert refused.status_code == 422, params
        assert refused.json()["error"]["message"].startswith(f"'{field}': "), refused.text
    assert MAX_FIGHT_ROUNDS == 2_000_000  # issue 42: any estimate the odds route makes by itself can be replayed
    over = client.get(route, params={"count": 100_001, "seed": 1})  # 100,001 × the default 20 rounds
    assert (over.status_code, over.json()["error"]["message"]) == (422, (
        "'count': at most 100,000 fights of 20 rounds over HTTP (count × rounds at most 2,000,000 a request; "
        "the command line takes more)"))
    assert client.get(route, params={"count": 10_001, "rounds": 200}).json()["error"]["message"].startswith(
        "'count': at most 10,000 fights of 200 rounds over HTTP")
    at_most = client.get(route, params={"count": 100_000, "rounds": 20, "seed": 1})  # the bound itself is taken
    assert at_most.status_code == 200 and at_most.json()["count"] == 100_000


def test_a_simulation_over_http_refuses_as_the_other_fight_routes(client, run):  # type: ignore[no-untyped-def]
    quick_fight(client, run)
    missing = client.get(f"{FIGHTS}/Quik/simulate", params={"count": 10})
    assert missing.status_code == 404 and missing.json()["error"]["suggestions"] == ["Quick"]
    unknown = client.get(f"{FIGHTS}/Quick/simulate", params={"cuont": 10})
    assert (unknown.status_code, unknown.json()["error"]["message"]) == (422, "'cuont': no such field (did you mean "
                                                                             "'count'?)")
    assert set(unknown.json()["error"]) >= {"message", "workbook", "sheet", "cell"}  # the error object of --json
    client.post(f"{FIGHTS}/Quick/edits", json={"combatant": "Goblin Scout #1", "taken": 3})
    over = client.get(f"{FIGHTS}/Quick/simulate", params={"count": 10})
    assert (over.status_code, over.json()["error"]["message"]) == (422, "the fight 'Quick' is over: side A wins (undo "
                                                                        "to go back, then ask again)")


def test_a_fight_too_large_for_its_exact_odds_is_estimated(client):  # type: ignore[no-untyped-def]
    """What the page does (docs/api.md, "The page"): it asks once; the odds of a fight too large to work out
    exactly come estimated, saying so and why, each share with its standard error."""
    client.post(FIGHTS, json={"name": "Duel"})
    client.post(f"{FIGHTS}/Duel/combatants", json=HERO)
    client.post(f"{FIGHTS}/Duel/combatants", json={"creature": "Orc Warrior"})
    odds = client.get(f"{FIGHTS}/Duel/odds", params={"time": 0.3})
    assert odds.status_code == 200
    data = odds.json()
    assert (data["method"], data["seed"]) == ("estimated", 0) and data["why"].startswith("not exact: ")
    assert data["rounds"][0]["se"]["sides"]["A"] >= 0 and data["side_names"]["B"] == "B (Orc Warrior #1)"
    simulated = client.get(f"{FIGHTS}/Duel/simulate", params={"count": 40, "rounds": 3, "seed": 2})
    assert simulated.status_code == 200 and simulated.json()["count"] == 40
    assert client.get(f"{FIGHTS}/Duel/odds", params={"time": 5.5}).status_code == 422  # the server's bound


def test_the_openapi_document_declares_the_simulation(client):  # type: ignore[no-untyped-def]
    route = client.get("/openapi.json").json()["paths"][f"{FIGHTS}/{{name}}/simulate"]
    assert set(route) == {"get"}
    parameters = {p["name"]: p for p in route["get"]["parameters"]}
    assert list(parameters) == ["name", "rounds", "count", "seed"]
    assert (parameters["count"]["schema"]["minimum"], parameters["count"]["schema"]["maximum"]) == (1, 1_000_000)
    assert "count` × `rounds` is at most 2,000,000" in route["get"]["description"]
    assert route["get"]["summary"] == "= tables simulate fight NAME --json"


def test_the_gms_moves_over_http_are_the_commands(client, run):
    """docs/api.md, "Fights": adjustments (`fight adjust`), departures (`fight leave`), an edit of the attack in use,
    reinforcements; each answering what its command prints; one undo a command."""
    started(client, run)
    adjust = {"combatant": "Orc Warrior", "damage": 10, "bleed": 2, "penalty": -5, "after": 2}  # its only copy
    done = same(client.post(f"{FIGHTS}/Ambush/adjustments", json=adjust), run, "adjust", "Ambush", "Orc Warrior",
                *command_line({k: v for k, v in adjust.items() if k != "combatant"}))
    assert done["account"] == ["Orc Warrior #1 takes 10 hits by hand (50/60 hits left).",
                               "Orc Warrior #1 by hand: bleeding +2 (now 2/rnd), penalty -5 (now -5)."]
    same(client.post(f"{FIGHTS}/Ambush/adjustments", json={"combatant": "Orc Warrior #1", "heal": 4}), run, "heal",
         "Ambush", "Orc Warrior #1", "4")
    edit = {"combatant": "Hero", "wield": "Dagger", "cmb": 45, "def": 25, "parry": 0}
    edited = same(client.post(f"{FIGHTS}/Ambush/edits", json=edit), run, "edit", "Ambush", "Hero",
                  *command_line({k: v for k, v in edit.items() if k != "combatant"}))
    assert edited["account"] == ["Hero set by hand: DEF 25, parry 0, wields Dagger (CMB 45)."]
    left = same(client.post(f"{FIGHTS}/Ambush/departures", json={"combatant": "Orc Warrior #1", "after": 5}), run, "leave",
                "Ambush", "Orc Warrior #1", "--after", "5")
    assert (left["fight"]["over"], left["fight"]["left"]) == (True, [{"name": "Orc Warrior #1", "side": "B",
                                                                       "creature": "Orc Warrior"}])
    back = same(client.post(f"{FIGHTS}/Ambush/combatants", json=ORC), run, "join", "Ambush", *command_line(ORC))
    assert back["account"][-1] == "The fight goes on: sides A and B stand."
    assert [c["name"] for c in back["fight"]["combatants"]] == ["Hero", "Orc Warrior #2"]
    same(client.post(f"{FIGHTS}/Ambush/rounds", json={"auto": True, "seed": 3}), run, "round", "Ambush", "--auto",
         "--seed", "3")
    undone = same(client.post(f"{FIGHTS}/Ambush/undo", json={}), run, "undo", "Ambush")
    assert undone["account"][0].startswith("Undone: round 1 played by --auto (events 8 to 10): Hero's attack on Orc "
                                           "Warrior #2, Orc Warrior #2's attack on Hero, the end of round 1.")


def test_the_moves_refusals_over_http(client, run):
    started(client, run)
    for response, args, status in (
            (client.post(f"{FIGHTS}/Ambush/adjustments", json={"combatant": "Hreo", "heal": 1}),
             ("adjust", "Ambush", "Hreo", "--heal", "1"), 404),
            (client.post(f"{FIGHTS}/Ambush/departures", json={"combatant": "Hreo"}), ("leave", "Ambush", "Hreo"), 404),
            (client.post(f"{FIGHTS}/Ambush/adjustments", json={"combatant": "Hero"}), ("adjust", "Ambush", "Hero"), 422),
            (client.post(f"{FIGHTS}/Ambush/edits", json={"combatant": "Hero", "wield": "Mace"}),
             ("edit", "Ambush", "Hero", "--wield", "Mace"), 422)):
        same(response, run, *args, status=status)
    assert client.post(f"{FIGHTS}/Ambush/adjustments", json={"combatant": "Hero", "heal": -1}).json()["error"][
        "message"] == "'heal': -1 is not between 0 and 100000"
    hreo = client.post(f"{FIGHTS}/Ambush/departures", json={"combatant": "Hreo"}).json()["error"]
    assert (hreo["message"], hreo["suggestions"]) == ("no combatant named 'Hreo' in the fight — did you mean 'Hero'?",
                                                      ["Hero"])
    stale = client.post(f"{FIGHTS}/Ambush/departures", json={"combatant": "Hero", "after": 1})
    assert stale.status_code == 409
    assert client.get(f"{FIGHTS}/Ambush").json()["seq"] == 2  # nothing written


PARTIES = "/api/v1/parties"


def test_parties_over_http_are_the_commands(client, run):  # type: ignore[no-untyped-def]
    """Saved, listed, shown, joined in one request (`party` in the join body), removed: each the command's JSON."""
    started(client, run)
    saved = same(client.post(PARTIES, json={"name": "Heroes", "from": "Ambush", "only": ["Hero"]}), run,
                 "party", "save", "Heroes", "--from", "Ambush", "--only", "Hero", drop=("saved_at",))
    assert [m["name"] for m in saved["members"]] == ["Hero"] and saved["replaced"] is False
    assert client.post(PARTIES, json={"name": "heroes", "from": "Ambush"}).status_code == 422  # taken: --replace
    same(client.get(PARTIES), run, "party", "list", drop=("saved_at",))
    same(client.get(f"{PARTIES}/HEROES"), run, "party", "show", "HEROES", drop=("saved_at",))
    same(client.post(FIGHTS, json={"name": "Crypt"}), run, "new", "Crypt")
    joined = same(client.post(f"{FIGHTS}/Crypt/combatants", json={"party": "Heroes", "side": "C", "after": 0}), run,
                  "join", "Crypt", "--party", "Heroes", "--side", "C", "--after", "0")
    assert [(c["name"], c["side"]) for c in joined["fight"]["combatants"]] == [("Hero", "C")]
    refused = client.post(f"{FIGHTS}/Crypt/combatants", json={"party": "Heroes"})
    assert refused.status_code == 422
    assert refused.json()["error"]["message"] == "the party 'Heroes' cannot join: Hero is already in the fight (nothing joined)"
    assert client.get(f"{PARTIES}/Nobody").status_code == 404
    same(client.delete(f"{PARTIES}/Heroes"), run, "party", "remove", "Heroes")
    assert client.get(PARTIES).json() == {"parties": []}


def test_show_over_http_says_whose_turn_and_the_sides(client, run):  # type: ignore[no-untyped-def]
    started(client, run)
    shown = same(client.get(f"{FIGHTS}/Ambush"), run, "show", "Ambush")
    assert shown["turn"] == "Hero" and shown["sides"] == {"A": {"up": 1, "total": 1}, "B": {"up": 1, "total": 1}}
    assert [c["pending"] for c in shown["combatants"]] == [{}, {}]


def test_a_party_with_a_members_own_field_is_422_naming_it(client, run):  # type: ignore[no-untyped-def]
    started(client, run)
    same(client.post(PARTIES, json={"name": "Heroes", "from": "Ambush"}), run, "party", "save", "Heroes", "--from",
         "Ambush", drop=("saved_at",))
    refused = client.post(f"{FIGHTS}/Ambush/combatants", json={"party": "Heroes", "hits": 5, "has": []})
    assert refused.status_code == 422
    assert refused.json()["error"]["message"] == \
        "'party' joins its members as saved: give only 'side' with it (not 'hits')"  # the fields named; `has: []` is none


def test_the_rest_of_a_critical_is_set_and_cleared_as_the_command_does(client, run):  # type: ignore[no-untyped-def]
    """docs/fights.md, "The rest of a critical": `edits` takes `fight edit`'s options for it, as fields."""
    started(client, run)
    body = {"combatant": "Orc Warrior #1", "prone": 2, "out": "until-woken", "blind": 1, "arm": "useless",
            "drop": ["scimitar"], "break": ["Shortbow"], "timed_penalty": ["-20:3"]}
    done = same(client.post(f"{FIGHTS}/Ambush/edits", json=body), run, "edit", "Ambush", "Orc Warrior #1",
                *command_line({k: v for k, v in body.items() if k != "combatant"}))
    orc = next(c for c in done["fight"]["combatants"] if c["name"] == "Orc Warrior #1")
    assert (orc["prone"], orc["knocked_out"], orc["blinded"], orc["useless_arm"], orc["dropped"], orc["broken"]) == \
        (2, 0, 1, True, ["Scimitar"], ["Shortbow"])
    assert orc["timed_penalties"] == [{"penalty": -20, "rounds": 3}] and orc["attacks_with"] is None
    assert done["fight"]["over"] is True  # its only foe knocked out: side A stands alone
    clear = {"combatant": "Orc Warrior #1", "out": "0", "recover": ["all"], "repair": ["all"], "timed_penalty": ["none"]}
    same(client.post(f"{FIGHTS}/Ambush/edits", json=clear), run, "edit", "Ambush", "Orc Warrior #1",
         *command_line({k: v for k, v in clear.items() if k != "combatant"}))
    bad = client.post(f"{FIGHTS}/Ambush/edits", json={"combatant": "Hero", "out": "soon"})
    assert (bad.status_code, bad.json()["error"]["message"]) == \
        (422, "'out' soon: give the rounds knocked out (0 to 100000; 0 wakes it) or until-woken")
