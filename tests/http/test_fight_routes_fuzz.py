"""A seeded fuzz of the fight routes and the chances of a fight over a real
`tables serve`, on SQLite and on PostgreSQL (`pytest --postgres`):
requests to every fight route (new, join, attacks, rounds, undo, edits,
adjustments, departures, show, log, list, remove) and to the chances
(`/api/v1/fights/{name}/odds`, `/simulate`), with valid values (the fight's
own `after`, its combatants, the chances' bounds at their maximum) and
hostile ones (huge, negative, NaN and infinite numbers; names with NUL,
`%`, lone surrogates, 10,000 characters; lists, objects, null; bytes that
are no JSON), on a duel on the tables and on a fight of formula-system
combatants whose damage has gaps (issue 43, item 2's costly case).

Each answer must be as docs/api.md promises: a status it lists (never a
500), the error object on a failure, within 10 s (the slowest is counted);
a refusal changes nothing (the fight, fight_event and party rows compared
before and after, tests/fight_tables.py); and the server's log holds no
traceback. Small by default; a long run, with the statuses and the slowest
answer (docs/security.md, "Fuzzing"):

    TABLES_FUZZ_EXAMPLES=5000 TABLES_FUZZ_SEED=N pytest -q -s -n 0 --timeout=0 -p no:cacheprovider \\
        tests/http/test_fight_routes_fuzz.py [--postgres]
"""

from __future__ import annotations

import http.client
import json
import os
import random
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fight_tables import fight_rows

EXAMPLES = int(os.environ.get("TABLES_FUZZ_EXAMPLES", "120"))
SEED = int(os.environ.get("TABLES_FUZZ_SEED", "4340"))
SLOWEST = 10.0  # seconds an answer may take: past it, a hang
STATUSES = {200, 400, 404, 405, 409, 413, 415, 422, 503}  # docs/api.md's (503: the chances' gate, Heavy)
FIGHTS = "/api/v1/fights"
PARTIES = "/api/v1/parties"
DUEL, RISE = "Ambush", "Gaps"
HERO = {"as": "Hero", "hits": 50, "def": 20, "armor": "MA", "weapon": "Longsword", "cmb": 60, "parry": 10}
ORC = {"creature": "Orc Warrior", "weapon": "Scimitar", "cmb": 55}
RISERS = [{"as": name, "side": side, "hits": 100_000, "def": 10, "system": "rise",
           "option": ["accuracy=6", "damage=1d2+100" if side == "A" else "damage=1d2", "multiplier=100"]}
          for name, side in (("Riser", "A"), ("Sinker", "B"))]
SETUP = [(FIGHTS, {"name": DUEL}), (f"{FIGHTS}/{DUEL}/combatants", HERO), (f"{FIGHTS}/{DUEL}/combatants", ORC),
         (PARTIES, {"name": "Band", "from": DUEL, "only": ["Hero"]}),
         (FIGHTS, {"name": RISE}), *((f"{FIGHTS}/{RISE}/combatants", riser) for riser in RISERS)]
RESET = 200  # requests between two remakes of the fights
COMBATANTS = {DUEL: ["Hero", "Orc Warrior #1", "Orc Warrior"], RISE: ["Riser", "Sinker"]}

HOSTILE_NAMES = ["", " ", "\x00", "Am\x00bush", "%", "%s", "%(name)s", "\ud800", "Long\udc80sword", "x" * 10_000, "..",
                 "../../etc/passwd", "\u202eevil", "Hero\u200b", "ａｍｂｕｓｈ", "AMBUSH", "Nope", "🎲", "a/b", "?", "#"]
HOSTILE_VALUES: list[Any] = [0, -1, 1, 5, 10**20, -(10**20), 2**63, 10**400, 1e308, float("nan"), float("inf"), float("-inf"),
                             True, False, None, "", "5", "x", "\x00", "\ud800", "x" * 10_000, [], [1, 2], {}, {"a": 1},
                             *HOSTILE_NAMES[:8]]
FIELDS = ["name", "creature", "hits", "def", "armor", "weapon", "cmb", "as", "side", "parry", "has", "rank", "after",
          "attacker", "target", "dice", "seed", "attack", "mod", "auto", "combatant", "taken", "bleed", "stun", "no_parry",
          "must_parry", "bonus", "dying", "penalty", "status", "system", "option", "heal", "damage", "wield", "party",
          "only", "bogus", "rounds", "count", "exact", "certified", "width", "time"]
# The chances' values: mostly valid (the first VALID of each; from the 8th, refused), up to their bounds over HTTP (fights.py: count × rounds
# at most 2,000,000, time at most 5 s) in a long run; the suite's short run asks the cheap ones only (a few seconds)
ROUNDS = [1, 1, 2, 3, 5, 20, 200, 0, -1, 201, "x", 10**20, "nan"]
COUNTS = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 0, -5, 10**20, "1e3"]
TIMES = [0.05, 0.1, 0.5, 1, 5, 5.01, 600, 0, "nan", "inf", -1]
VALID = 7 if "TABLES_FUZZ_EXAMPLES" in os.environ else 4  # the values of a list before [VALID:7] are refused


def hostile(rng: random.Random) -> Any:
    return rng.choice(HOSTILE_VALUES)


def fight_name(rng: random.Random) -> str:
    return rng.choice([DUEL, DUEL, DUEL, RISE, RISE, DUEL.lower(), rng.choice(HOSTILE_NAMES)])


def in_path(name: str) -> str:
    return quote(name.encode("utf-8", "surrogatepass"), safe="")


def last_seq(rows: list[tuple], name: str) -> int:
    """The seq a client that just read the fight ``name`` sends as ``after`` (0 for an empty log or no such fight)."""
    ids = [row[1] for row in rows if row[0] == "fight" and row[2] == name]
    return max((row[3] for row in rows if row[0] == "fight_event" and ids and row[2] == ids[0]), default=0)


def chances_query(rng: random.Random, word: str) -> str:
    def pick(values: list[Any], valid: int = VALID) -> Any:
        return rng.choice(values[:valid]) if rng.random() < 0.8 else rng.choice(values[7:])

    fields: list[tuple[str, Any]] = [("rounds", pick(ROUNDS))] if rng.random() < 0.9 else []
    if word == "simulate":
        fields += [("count", pick(COUNTS))] if rng.random() < 0.9 else []
    else:
        how = rng.choice(["", "", "exact", "certified", "count"])
        fields += [(how, "true")] if how in ("exact", "certified") else []
        timed = how in ("", "certified") and (rng.random() < 0.7 or VALID < 7)  # untimed: its default, long runs only
        fields += [("count", pick(COUNTS))] if how == "count" else [("time", pick(TIMES, 2 if VALID < 7 else VALID))] if timed else []
        fields += [("width", rng.choice([0.01, 0.0001, 0.5, 0, 1]))] if how == "certified" and rng.random() < 0.5 else []
    fields += [("seed", pick([1, 7, 0, 2**63 - 1, 12345, 99, 3, -1, 2**63, 10**30]))] if rng.random() < 0.5 else []
    fields += [(rng.choice(FIELDS), hostile(rng))] if rng.random() < 0.2 else []
    return "&".join(f"{quote(str(k))}={quote(str(v).encode('utf-8', 'surrogatepass'), safe='')}" for k, v in fields)


def body_of(rng: random.Random, route: str, name: str, rows: list[tuple]) -> dict[str, Any]:
    """A valid body of ``route`` on the fight ``name`` (most of the time), with a few fields changed."""
    people = COMBATANTS.get(name, COMBATANTS[DUEL])
    who, other = rng.choice(people), rng.choice(people)
    valid: dict[str, Any] = {
        "combatants": ({**RISERS[0], "as": f"Riser {rng.randint(2, 9)}"} if name == RISE  # no armor: tables, no
                       else rng.choice([{**HERO, "as": f"Hero {rng.randint(2, 9)}"}, dict(ORC), {"party": "Band", "side": "C"}])),
        "attacks": {"attacker": who, "target": other, "seed": rng.randint(0, 10**6)},
        "rounds": rng.choice([{}, {"auto": True, "seed": rng.randint(0, 10**6)}]),
        "undo": {},
        "edits": rng.choice([{"combatant": who, "taken": 0, "bleed": 0, "status": "up", "dying": 0},
                             {"combatant": who, "stun": rng.randint(0, 3)},
                             {"combatant": who, **({"wield": "Dagger", "cmb": 40} if name == DUEL else {"def": 5})}]),
        "adjustments": {"combatant": who, rng.choice(["heal", "damage", "bleed", "stun"]): rng.randint(-3, 20)},
        # mostly one who joined later: a fight of one side has no chances (it is made again when removed)
        "departures": {"combatant": who if rng.random() < 0.1 else rng.choice(["Hero 2", "Hero 3", "Orc Warrior #2", "Riser 2"])},
    }[route]
    body = dict(valid) if rng.random() < 0.75 else {}
    if rng.random() < 0.7:
        body["after"] = last_seq(rows, name) if rng.random() < 0.8 else rng.choice([0, 1, 99, -1, 10**20, "x"])
    for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):
        body[rng.choice(FIELDS)] = hostile(rng)
    return body


def request(rng: random.Random, rows: list[tuple]) -> tuple[str, str, bytes | None]:
    """One request: (method, path and query, body)."""
    name = fight_name(rng)
    route = rng.choice(["show", "log", "list", "new", "remove", "combatants", "attacks", "attacks", "rounds", "rounds", "undo",
                        "edits", "adjustments", "departures", "odds", "odds", "odds", "simulate", "simulate", "junk"])
    named = f"{FIGHTS}/{in_path(name)}"
    if route in ("odds", "simulate"):
        return "GET", f"{named}/{route}?{chances_query(rng, route)}", None
    if route == "show":
        return "GET", f"{named}?{rng.choice(['', 'at=0', 'at=1', 'at=-1', 'at=99', 'at=x', 'json=1'])}", None
    if route == "log":
        return "GET", f"{named}/log?{rng.choice(['', 'limit=1', 'from=0', 'limit=0', 'limit=10000000', 'bogus=1'])}", None
    if route == "list":
        return "GET", FIGHTS, None
    if route == "remove":  # the two fights rarely: they are made again when gone
        gone = rng.choice([name, "Other", "Nope"]) if rng.random() < 0.3 else rng.choice(["Other", "Nope", *HOSTILE_NAMES])
        return "DELETE", f"{FIGHTS}/{in_path(gone)}?after={rng.choice([last_seq(rows, gone), 0, 99, 'x'])}", None
    if route == "new":
        return "POST", FIGHTS, encoded({"name": rng.choice(["Other", DUEL, *HOSTILE_NAMES]),
                                        **({rng.choice(FIELDS): hostile(rng)} if rng.random() < 0.3 else {})})
    if route == "junk":  # bodies that are no JSON object
        target = f"{named}/{rng.choice(['attacks', 'rounds', 'combatants', 'undo'])}"
        return "POST", target, rng.choice([b"", b"[]", b"null", b"{", b"\xff\xfe", b'{"after": 1, "after": 2}', b"[" * 10_000,
                                           b'{"a": 1e999}', rng.randbytes(40)])
    return "POST", f"{named}/{route}", encoded(body_of(rng, route, name, rows))


def encoded(body: dict[str, Any]) -> bytes:
    return json.dumps(body, allow_nan=True).encode()  # NaN and Infinity as Python's json.loads reads them


@pytest.fixture
def server(db_path: Path, tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """`tables serve` over the test database on a free loopback port, its log written to a file: (port, log)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        process = subprocess.Popen([sys.executable, "-m", "tables_app", "--db", str(db_path), "serve", "--port", str(port)],
                                   stdout=out, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while send(port, "GET", "/api/v1/health", None)[0] != 200:
            assert process.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
            time.sleep(0.1)
        yield port, log
    finally:
        process.terminate()
        process.wait(timeout=10)


def send(port: int, method: str, path: str, body: bytes | None) -> tuple[int | None, bytes, float]:
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.putrequest(method, path, skip_accept_encoding=True)
        if body is not None:
            connection.putheader("Content-Type", "application/json")
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, response.read(), time.monotonic() - started
    except OSError:
        return None, b"", time.monotonic() - started
    finally:
        connection.close()


def made(port: int, rows: list[tuple]) -> None:
    """The two fights and the party, made (again, for a fight a request removed) when missing."""
    fights = {row[2] for row in rows if row[0] == "fight"}
    parties = {row[2] for row in rows if row[0] == "party"}
    for path, body in SETUP:
        missing = (body["name"] not in fights if path == FIGHTS else body["name"] not in parties if path == PARTIES
                   else path.split("/")[4] not in fights)
        if missing:
            status, answer, _ = send(port, "POST", path, encoded(body))
            assert status == 200, (path, answer[:300])


def test_fight_routes_fuzz(server: tuple[int, Path], db_path: Path) -> None:
    port, log = server
    rng = random.Random(SEED)
    statuses: Counter = Counter()
    by_route: Counter = Counter()
    slowest: tuple[float, str] = (0.0, "")
    answering = 0.0  # seconds of answers, all told
    begun = time.monotonic()
    made(port, [])
    for asked in range(EXAMPLES):
        if asked % RESET == RESET - 1:  # the fights as new now and then: one that is over has no chances to work out
            for fight in (DUEL, RISE):
                send(port, "DELETE", f"{FIGHTS}/{fight}", None)
        before = fight_rows(db_path)
        made(port, before)
        before = fight_rows(db_path)
        method, path, body = request(rng, before)
        status, answer, seconds = send(port, method, path, body)
        shown = (method, path[:160], (body or b"")[:160])
        statuses[status] += 1
        by_route[(path.split("?")[0].rsplit("/", 1)[-1] if "/odds" in path or "/simulate" in path else "fights", status)] += 1
        slowest = max(slowest, (seconds, f"{method} {path[:100]}"))
        answering += seconds
        assert status in STATUSES, (shown, status, answer[:500])
        assert seconds < SLOWEST, (shown, f"{seconds:.1f} s")
        parsed = json.loads(answer)
        if status != 200:
            assert isinstance(parsed["error"]["message"], str) and parsed["error"]["message"], (shown, parsed)
            assert "\n" not in parsed["error"]["message"] and "Traceback" not in parsed["error"]["message"], shown
            assert fight_rows(db_path) == before, ("a refusal changed the fights", shown, status, parsed)
    logged = log.read_text(errors="replace")
    assert "Traceback" not in logged and "Exception in ASGI" not in logged, logged[-3000:]
    assert statuses[200] > 0 and statuses[422] > 0 and statuses[404] > 0  # answers and refusals both
    assert any(route in ("odds", "simulate") and status == 200 for route, status in by_route)  # chances answered
    database = "PostgreSQL" if str(db_path).startswith("postgresql") else "SQLite"
    print(f"\n{EXAMPLES} fight and chances requests on {database}, seed {SEED}: "
          + ", ".join(f"{code}: {n}" for code, n in sorted(statuses.items(), key=str))
          + f"; slowest {slowest[0]:.2f} s ({slowest[1]}); answers {answering:.1f} s of {time.monotonic() - begun:.1f} s")
    print("chances: " + ", ".join(f"{route} {code}: {n}" for (route, code), n in sorted(by_route.items(), key=str)
                                  if route != "fights"))
