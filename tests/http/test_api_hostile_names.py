"""Hostile names over HTTP, on SQLite and on PostgreSQL (`pytest --postgres`):
a NUL character in any name a route takes is a name no table, fight or party
has (404, the error object; docs/api.md, "Names"), the same on both
databases; and a seeded fuzz of hostile names (NUL, percent-encoded lone
surrogates, %, very long, bidirectional controls) never gets a 500."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from helpers import LOCAL_BASE

from tables_app.http.app import create_app

API = "/api/v1"
FIGHTS = f"{API}/fights"
HERO = {"as": "Hero", "hits": 50, "def": 20, "armor": "MA", "weapon": "Longsword", "cmb": 60, "parry": 10}
ORC = {"creature": "Orc Warrior", "weapon": "Scimitar", "cmb": 55, "as": "Orc"}


@pytest.fixture
def served(request: pytest.FixtureRequest, db_path: Path, tmp_path: Path, on_postgres: bool) -> Path:
    if on_postgres:
        return request.getfixturevalue("new_postgres")(request.getfixturevalue("postgres_template"))  # type: ignore[no-any-return]
    path = tmp_path / "served.db"
    shutil.copyfile(db_path, path)
    return path


@pytest.fixture
def client(served: Path):  # type: ignore[no-untyped-def]
    """A server whose database holds the fight Duel (Hero against Orc, 2 events) and the party Heroes."""
    with TestClient(create_app(served), base_url=LOCAL_BASE, raise_server_exceptions=False) as test_client:
        for route, body in ((FIGHTS, {"name": "Duel"}), (f"{FIGHTS}/Duel/combatants", {**HERO, "after": 0}),
                            (f"{FIGHTS}/Duel/combatants", {**ORC, "after": 1}),
                            (f"{API}/parties", {"name": "Heroes", "from": "Duel", "only": ["Hero"]})):
            made = test_client.post(route, json=body)
            assert made.status_code == 200, made.text
        yield test_client


def error_of(response) -> str:  # type: ignore[no-untyped-def]
    """The message of the error object (never a traceback, never plain text)."""
    assert response.headers["content-type"] == "application/json", response.text[:300]
    message: str = response.json()["error"]["message"]
    assert "\n" not in message and "Traceback" not in message
    return message


NUL = "\u0000"
NOT_FOUND = 404
# (method, route, body): a NUL in each name a route takes, as the request carries it: %00 in a path or a
# query string, "\u0000" in a JSON body. Each is a name nothing has: 404, on either database.
NAMED_WITH_NUL: list[tuple[str, str, dict[str, Any] | None]] = [
    ("get", f"{FIGHTS}/%00", None),
    ("get", f"{FIGHTS}/Du%00el", None),
    ("get", f"{FIGHTS}/Duel%00/log", None),
    ("get", f"{FIGHTS}/Duel%00/odds?rounds=1", None),
    ("get", f"{FIGHTS}/Duel%00/simulate?rounds=1&count=1&seed=1", None),
    ("delete", f"{FIGHTS}/Duel%00?after=2", None),
    ("post", f"{FIGHTS}/Duel%00/undo", {"after": 2}),
    ("post", f"{FIGHTS}/Duel%00/rounds", {"after": 2}),
    ("post", f"{FIGHTS}/Duel/combatants", {"creature": f"Orc{NUL}", "weapon": "Scimitar", "cmb": 55, "after": 2}),
    ("post", f"{FIGHTS}/Duel/combatants", {**HERO, "as": "Hero 2", "weapon": f"Long{NUL}sword", "after": 2}),
    ("post", f"{FIGHTS}/Duel/combatants", {**HERO, "as": "Hero 2", "armor": f"M{NUL}A", "after": 2}),
    ("post", f"{FIGHTS}/Duel/combatants", {"party": f"Heroes{NUL}", "after": 2}),
    ("post", f"{FIGHTS}/Duel/attacks", {"attacker": f"Hero{NUL}", "target": "Orc", "seed": 1, "after": 2}),
    ("post", f"{FIGHTS}/Duel/attacks", {"attacker": "Hero", "target": f"Orc{NUL}", "seed": 1, "after": 2}),
    ("post", f"{FIGHTS}/Duel/attacks", {"attacker": "Hero", "target": "Orc", "attack": f"Long{NUL}sword", "seed": 1,
                                        "after": 2}),
    ("post", f"{FIGHTS}/Duel/edits", {"combatant": f"Orc{NUL}", "stun": 1, "after": 2}),
    ("post", f"{FIGHTS}/Duel/edits", {"combatant": "Hero", "wield": f"Long{NUL}sword", "after": 2}),
    ("post", f"{FIGHTS}/Duel/adjustments", {"combatant": f"Orc{NUL}", "heal": 1, "after": 2}),
    ("post", f"{FIGHTS}/Duel/departures", {"combatant": f"Orc{NUL}", "after": 2}),
    ("post", FIGHTS, {"name": "Other", "ruleset": f"default{NUL}"}),
    ("get", f"{API}/parties/Heroes%00", None),
    ("delete", f"{API}/parties/Heroes%00", None),
    ("post", f"{API}/parties", {"name": "Others", "from": f"Duel{NUL}"}),
    ("get", f"{API}/weapons/Long%00sword", None),
    ("get", f"{API}/creatures/Orc%00Warrior", None),
    ("get", f"{API}/attack/Long%00sword", None),
    ("get", f"{API}/critical/Sl%00ash", None),
    ("get", f"{API}/fumble/Melee%00Fumbles", None),
    ("get", f"{API}/weapons/Longsword?ruleset=default%00", None),
    ("get", f"{API}/query/critical?table=Sl%00ash&roll=50&severity=A", None),
    ("get", f"{API}/query/fumble?table=Melee%00Fumbles&roll=50", None),
    ("post", f"{FIGHTS}/Duel/edits", {"combatant": "Hero", "drop": f"Long{NUL}sword", "after": 2}),
    ("get", f"{API}/weapons?ruleset=default%00", None),
    ("get", f"{API}/query/attack?table=Long%00sword&result=50&armor=MA", None),
    ("post", f"{API}/resolve/table", {"weapon": f"Long{NUL}sword", "cmb": 60, "def": 20, "armor": "MA", "seed": 1}),
    ("post", f"{API}/resolve/table", {"weapon": "Longsword", "cmb": 60, "target": f"Orc{NUL}", "seed": 1}),
    ("post", f"{API}/odds/table", {"weapon": f"Long{NUL}sword", "cmb": 60, "def": 20, "armor": "MA"}),
    ("post", f"{API}/simulate/table", {"weapon": "Longsword", "cmb": 60, "target": f"Orc{NUL}", "count": 10, "seed": 1}),
]


@pytest.mark.parametrize(("method", "route", "body"), NAMED_WITH_NUL, ids=[f"{m} {r}" for m, r, _ in NAMED_WITH_NUL])
def test_a_name_with_a_nul_is_no_name_on_either_database(client, method, route, body):
    before = client.get(f"{FIGHTS}/Duel/log").json()
    response = client.request(method.upper(), route, **({"json": body} if body is not None else {}))
    assert response.status_code == NOT_FOUND, response.text[:300]
    assert "\\x00" in error_of(response)  # the name as given, its NUL shown, not dropped
    assert client.get(f"{FIGHTS}/Duel/log").json() == before


def test_a_new_name_with_a_nul_is_refused_and_nothing_is_written(client):
    for route, body in ((FIGHTS, {"name": f"A{NUL}B"}), (f"{FIGHTS}/Duel/combatants", {**HERO, "as": f"He{NUL}ro", "after": 2}),
                        (f"{API}/parties", {"name": f"P{NUL}", "from": "Duel"})):
        response = client.post(route, json=body)
        assert response.status_code == 422, response.text[:300]
        assert "U+0000" in error_of(response)
    assert len(client.get(FIGHTS).json()["fights"]) == 1  # Duel alone
    assert client.get(f"{FIGHTS}/Duel").json()["seq"] == 2


# ------------------------------------------------------------------ a seeded fuzz of hostile names
HOSTILE_PIECES = ["\u0000", "%", "%%", "%s", "%(name)s", "?", "'", "\"", "\\", "\u202e", "\u2066", "\u200b", "\ufeff",
                  "\ud800", "\udfff", "\U0001f5e1", "ǰ", "ß", "ｋａｔａｎａ", "カタナ", "Orc", "Longsword", "Duel", "Hero",
                  " ", "\t", "/", "#", "&", "=", ";", "--", "\u0085", "\x7f"]


def hostile_name(rng: random.Random) -> str:
    """A name of hostile pieces, sometimes very long (past every bound of a name)."""
    name = "".join(rng.choice(HOSTILE_PIECES) for _ in range(rng.randint(1, 6)))
    return name * rng.choice([1, 1, 1, 50, 400])  # a 64 KB URL is the client's limit (and the server's: 414)


def in_path(name: str) -> str:
    """``name`` as a path or query string carries it: percent-encoded UTF-8, a lone surrogate as its
    (invalid) UTF-8 bytes (``%ED%A0%80``), as a hostile client can send it."""
    return quote(name.encode("utf-8", "surrogatepass"), safe="")


def hostile_request(rng: random.Random) -> tuple[str, str, bytes | None]:
    """One request with a hostile name where a route takes a name: (method, route, JSON body or None)."""
    name = hostile_name(rng)
    bodies = {
        "join": ("post", f"{FIGHTS}/Duel/combatants", {**HERO, "as": "Hero 2", rng.choice(["weapon", "armor", "as", "side"]): name,
                                                       "after": 2}),
        "creature": ("post", f"{FIGHTS}/Duel/combatants", {"creature": name, "weapon": "Scimitar", "cmb": 55, "after": 2}),
        "attack": ("post", f"{FIGHTS}/Duel/attacks", {"attacker": "Hero", "target": "Orc", rng.choice(["attacker", "target", "attack"]): name,
                                                      "seed": 1, "after": 2}),
        "edit": ("post", f"{FIGHTS}/Duel/edits", {"combatant": name, "stun": 1, "after": 2}),
        "new": ("post", FIGHTS, {"name": name}),
        "party": ("post", f"{API}/parties", {"name": name, "from": "Duel"}),
        "resolve": ("post", f"{API}/resolve/table", {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "seed": 1,
                                                     rng.choice(["weapon", "target", "armor"]): name}),
    }
    paths = [f"{FIGHTS}/{in_path(name)}", f"{FIGHTS}/{in_path(name)}/log", f"{API}/parties/{in_path(name)}",
             f"{API}/weapons/{in_path(name)}", f"{API}/creatures/{in_path(name)}", f"{API}/critical/{in_path(name)}",
             f"{API}/weapons?ruleset={in_path(name)}", f"{API}/query/attack?table={in_path(name)}&result=50&armor=MA"]
    if rng.random() < 0.5:
        method, route, body = bodies[rng.choice(sorted(bodies))]
        return method, route, json.dumps(body).encode()  # ASCII: a lone surrogate as JSON's "\ud800" escape
    return "get", rng.choice(paths), None


def fuzz(client: TestClient, seed: int, requests: int) -> dict[str, Any]:
    """``requests`` hostile requests of ``seed``: what they answered, by status, and every answer that was
    no error object or a 500 (which should be none). Writes are left to the server: each refusal is a 4xx."""
    rng = random.Random(seed)
    statuses: dict[int, int] = {}
    wrong: list[str] = []
    answered = []  # each request's status, to compare the two databases' runs (TABLES_FUZZ_ANSWERS=FILE)
    for _ in range(requests):
        method, route, body = hostile_request(rng)
        response = client.request(method.upper(), route, content=body,
                                  headers={"Content-Type": "application/json"} if body is not None else {})
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        answered.append(f"{response.status_code} {method} {route[:200]!r} {(body or b'')[:200]!r}")
        if response.status_code >= 500 or response.headers.get("content-type") != "application/json":
            wrong.append(f"{method} {route[:120]} {(body or b'')[:120]!r}: {response.status_code} {response.text[:200]}")
    if (where := os.environ.get("TABLES_FUZZ_ANSWERS")):
        with open(where, "w", encoding="utf-8") as out:
            out.write("\n".join(answered) + "\n")
    return {"statuses": statuses, "wrong": wrong}


def test_a_seeded_fuzz_of_hostile_names_never_gets_a_500(client):
    """Small here; a long run: TABLES_FUZZ_EXAMPLES=2000 TABLES_FUZZ_SEED=N (docs/security.md, "Fuzzing")."""
    requests = int(os.environ.get("TABLES_FUZZ_EXAMPLES", "150"))
    found = fuzz(client, seed=int(os.environ.get("TABLES_FUZZ_SEED", "43")), requests=requests)
    print(f"hostile names: {requests} requests, statuses {dict(sorted(found['statuses'].items()))}")
    assert found["wrong"] == []
    assert found["statuses"].get(404, 0) > 20  # most are names nothing has ...
    assert set(found["statuses"]) <= {200, 404, 409, 422}  # ... and the rest is answered or refused as such
