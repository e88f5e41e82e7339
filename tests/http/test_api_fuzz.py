"""A fuzzer of the HTTP API (docs/api.md): random requests to every endpoint,
with valid and invalid fields (the commands' own option names and junk
ones; numbers huge, negative, NaN and infinite as Python's JSON reads
them; strings empty, long, unicode, control characters, lone surrogates; lists, objects,
booleans, null), random query strings, and random bytes as bodies;
valid attacks with one text field holding a lone surrogate; and uploads of
real workbooks (.xlsx, .ods, .xls) damaged, or with a part declaring an
encoding no reader reads; the fight routes, with their own fields (a
fight and its combatants made first, so that most steps get far). Every answer must be as the API promises: a
status the docs list (never 500), a JSON body, and on a failure the error
object with a message; an upload refused leaves the database as it was.

``test_api_fuzz_over_sockets`` sends the same requests to a real
`tables serve`, many at once, some of them as slow clients do: in pieces,
headers a byte at a time, a body that stops arriving, nothing at all. Each
is answered (408 for the ones that stall) well within 10 s.

Derandomized (the same requests on every run), 300 by default. A longer
run, with a summary of the statuses:

    TABLES_FUZZ_EXAMPLES=3000 pytest -q -s -n 0 -m "" --timeout=0 -p no:cacheprovider tests/http/test_api_fuzz.py

(over sockets, in batches of 50 at once, as many requests in all).

TABLES_FUZZ_SEED=N draws a different (still reproducible) set.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
from collections import Counter
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from helpers import LOCAL_BASE, VALID_ATTACKS, db_dump

from tables_app.http.app import create_app

EXAMPLES = int(os.environ.get("TABLES_FUZZ_EXAMPLES", "300"))
SEED = int(os.environ.get("TABLES_FUZZ_SEED", "0"))
DEADLINE = timedelta(seconds=10)
TOKEN = "the-fuzzers-token-0123456789"
STATUSES = {200, 400, 401, 403, 404, 405, 409, 413, 415, 422, 503}
ENCODINGS = ("bogus-enc", "utf-16", "utf-32", "cp037", "rot13", "")  # none of them a reader reads

SYSTEMS = ["table", "rise", "worlds-awakening", "d10-pool", "pte", "rice", "", "TABLE", "%2e%2e"]
FIELDS = ["weapon", "cmb", "def", "defense", "armor", "dice", "seed", "target", "mod", "has", "rank", "crit_reduction",
          "ignore_crit_reduction", "max_result", "clumsy", "critical", "critical_column", "ruleset", "sweep_cmb",
          "sweep_def", "count", "accuracy", "damage", "stat", "level", "bonus", "attacks", "ad", "toughness",
          "modifier", "ac", "evasion", "damage_base", "effectiveness", "stab", "explode_on", "json", "plot", "help",
          "table", "result", "roll", "severity", "column", "name", "kind", "bogus", "cmb=5", "-", "é", "\ud800"]
NAMES = ["Longsword", "Edged", "Impact", "Melee Fumbles", "Orc Warrior", "MA", "NA", "Printed:S", "default:Edged"]
VALID = VALID_ATTACKS
TEXT_FIELDS = {"table": ["weapon", "armor", "target", "critical", "ruleset", "has", "sweep_cmb"],
               "rise": ["damage"], "worlds-awakening": ["damage"], "d10-pool": ["damage", "modifier"],
               "pte": ["effectiveness"]}
SURROGATES = "surrogatepass"  # a lone surrogate in a URL: its (invalid) UTF-8 bytes
FIGHT_FIELDS = ["name", "ruleset", "creature", "hits", "def", "armor", "weapon", "cmb", "as", "side", "parry", "has",
                "rank", "after", "attacker", "target", "dice", "seed", "attack", "mod", "auto", "at", "combatant", "taken",
                "bleed", "stun", "no_parry", "must_parry", "bonus", "dying", "penalty", "status", "system", "option", "bogus",
                "heal", "damage", "wield"]
FIGHT_NAMES = ["Ambush", "ambush", "Ambsh", "Bridge / night", "", " ", "%2F", "..", "\ud800"]
COMBATANTS = ["Hero", "Orc Warrior #1", "Orc Warrior", "Heor", "", "\udc80"]
FIGHT_BODIES = {  # a valid body of each route, changed by a few fields
    "combatants": {"as": "Hero 2", "hits": 40, "def": 10, "armor": "MA", "weapon": "Longsword", "cmb": 50},
    "attacks": {"attacker": "Hero", "target": "Orc Warrior #1", "seed": 3},
    "rounds": {"auto": True, "seed": 5},
    "undo": {},
    "edits": {"combatant": "Hero", "taken": 0},
    "adjustments": {"combatant": "Orc Warrior", "heal": 3, "bleed": -1},
    "departures": {"combatant": "Orc Warrior #1"},
}
HUGE = [10**20, -(10**20), 2**63, -(2**63), 10**400, 1e308, -1e308, float("nan"), float("inf"), float("-inf")]

scalars = st.one_of(
    st.integers(-300, 300), st.integers(-(10**12), 10**12), st.sampled_from(HUGE), st.floats(allow_nan=True),
    st.booleans(), st.none(),
    st.sampled_from(NAMES), st.sampled_from(["", " ", "\x00", "é", "🎲", "x" * 10_000, "0:150:10", "2d6+3", "97,99",
                                             "flank=+10", "helm", "--json", "../..", "\ud800", "\udfff",
                                             "Long\udc80sword"]),
    st.text(max_size=12), st.text(st.characters(categories=["Cs", "L"]), max_size=6),  # lone surrogates too
)
values = st.one_of(scalars, st.lists(scalars, max_size=5), st.dictionaries(st.text(max_size=3), scalars, max_size=2))


@functools.cache
def uploads() -> tuple[tuple[str, bytes], ...]:
    """(suffix, bytes) of workbooks to upload: a small fumble table as .xlsx,
    .ods and .xls, clean; each XML part declaring each encoding above; and
    seeded mutants of each (tests/sheets/test_guard_mutations.py's)."""
    import sys
    import tempfile
    import zipfile

    from helpers import build_workbook, declaring, rewrite
    from ods_files import xlsx_to_ods
    from xls_files import xlsx_to_xls

    sys.path.insert(0, str(Path(__file__).parents[1] / "sheets"))
    from test_guard_mutations import ROWS, part_mutants, xls_mutants

    found: list[tuple[str, bytes]] = []
    with tempfile.TemporaryDirectory() as folder:
        xlsx = build_workbook(Path(folder) / "book.xlsx", {"F": ROWS})
        clean = {"xlsx": xlsx, "ods": xlsx_to_ods(xlsx, Path(folder) / "book.ods"),
                 "xls": xlsx_to_xls(xlsx, Path(folder) / "book.xls")}
        for suffix, path in clean.items():
            found.append((suffix, path.read_bytes()))
            if suffix != "xls":
                with zipfile.ZipFile(path) as archive:
                    xml_parts = [name for name in archive.namelist() if name.endswith((".xml", ".rels"))]
                for part in xml_parts:
                    for encoding in ENCODINGS:
                        damaged = rewrite(path, Path(folder) / f"bad.{suffix}", part, declaring(encoding))
                        found.append((suffix, damaged.read_bytes()))
            made = (xls_mutants(path.read_bytes(), 5, 40) if suffix == "xls"
                    else part_mutants(path.read_bytes(), 5, 40, suffix))
            found.extend((suffix, mutant) for mutant in made)
    return tuple(found)


def body_bytes(body: object) -> bytes:
    return json.dumps(body, allow_nan=True).encode()  # NaN and Infinity: Python's json.loads reads them


@st.composite
def requests(draw):  # type: ignore[no-untyped-def]
    """(method, path, body bytes or None, headers)."""
    kind = draw(st.sampled_from(["post", "post", "post", "query", "look", "raw", "import", "surrogate", "surrogate",
                                 "upload", "fight", "fight"]))
    headers = {} if draw(st.integers(0, 19)) == 19 else {"Authorization": f"Bearer {TOKEN}"}
    if kind == "surrogate":  # a valid attack but for one text field, holding a lone surrogate
        action = draw(st.sampled_from(["resolve", "odds", "simulate"]))
        system = draw(st.sampled_from(["table", "table", *VALID]))
        body = dict(VALID[system], **({"count": 10} if action == "simulate" else {}))
        field = draw(st.sampled_from(TEXT_FIELDS[system]))
        body[field] = draw(st.text(st.characters(categories=["Cs", "L", "N"]), min_size=1, max_size=6).map(
            lambda text: text if any("\ud800" <= c <= "\udfff" for c in text) else text + "\udc80"))
        return "POST", f"/api/v1/{action}/{system}", body_bytes(body), {**headers, "Content-Type": "application/json"}
    if kind == "post":
        action = draw(st.sampled_from(["resolve", "odds", "simulate"]))
        system = draw(st.sampled_from(SYSTEMS))
        # Mostly a valid attack with a few fields changed, so that most requests get past the checks.
        body = dict(VALID.get(system, {})) if draw(st.integers(0, 3)) else {}
        body.update(draw(st.dictionaries(st.sampled_from(FIELDS), values, max_size=3 if body else 8)))
        if action == "simulate" and "count" not in body:
            body["count"] = draw(st.integers(1, 5000))  # the default count (100,000) is slow to no purpose here
        return "POST", f"/api/v1/{action}/{system}", body_bytes(body), {**headers, "Content-Type": "application/json"}
    if kind == "fight":
        name = quote(draw(st.one_of(st.sampled_from(FIGHT_NAMES), st.text(max_size=8))), safe="", errors=SURROGATES)
        route = draw(st.sampled_from([*FIGHT_BODIES, "show", "log", "list", "new", "remove"]))
        if route in ("show", "log", "list"):
            fields = draw(st.lists(st.tuples(st.sampled_from(FIGHT_FIELDS), scalars), max_size=3))
            query = "&".join(f"{quote(str(k), errors=SURROGATES)}={quote(str(v), errors=SURROGATES)}" for k, v in fields)
            path = {"show": f"/api/v1/fights/{name}", "log": f"/api/v1/fights/{name}/log", "list": "/api/v1/fights"}[route]
            return "GET", f"{path}?{query}", None, headers
        if route == "remove":
            return "DELETE", f"/api/v1/fights/{name}", None, headers
        body = dict(FIGHT_BODIES.get(route, {"name": "Skirmish"})) if draw(st.integers(0, 3)) else {}
        body.update(draw(st.dictionaries(st.sampled_from(FIGHT_FIELDS), values, max_size=3)))
        if route in ("attacks", "edits", "adjustments", "departures") and draw(st.booleans()):
            body[draw(st.sampled_from(["attacker", "target", "combatant"]))] = draw(st.sampled_from(COMBATANTS))
        path = "/api/v1/fights" if route == "new" else f"/api/v1/fights/{name}/{route}"
        return "POST", path, body_bytes(body), {**headers, "Content-Type": "application/json"}
    if kind == "query":
        what = draw(st.sampled_from(["attack", "critical", "fumble", "sideways"]))
        fields = draw(st.lists(st.tuples(st.sampled_from(FIELDS), scalars), max_size=6))
        query = "&".join(f"{quote(str(k), errors=SURROGATES)}={quote(str(v), errors=SURROGATES)}" for k, v in fields)
        return "GET", f"/api/v1/query/{what}?{query}", None, headers
    if kind == "look":
        kind_name = draw(st.sampled_from(["attack", "critical", "fumble", "weapons", "weapon", "creatures", "rulesets",
                                          "severities", "nothing", "import"]))
        name = draw(st.one_of(st.sampled_from(NAMES), st.text(max_size=10)))
        path = f"/api/v1/{kind_name}" + (f"/{quote(name, safe='', errors=SURROGATES)}" if name and draw(st.booleans()) else "")
        return "GET", path, None, headers
    if kind == "upload":  # a real workbook, clean, damaged or declaring an encoding no reader reads
        suffix, data = draw(st.integers(0, len(uploads()) - 1).map(lambda n: uploads()[n]))
        flags = draw(st.sampled_from(["", "&dry_run=true", "&replace=true", "&strict=true"]))
        return "POST", f"/api/v1/import?name=upload.{suffix}{flags}", data, headers
    if kind == "import":
        query = draw(st.sampled_from(["name=a.xlsx", "name=a.xlsx&dry_run=true", "", "name=%00", "name=a.xlsx&strict=2"]))
        data = draw(st.one_of(st.binary(max_size=300), st.sampled_from([b"PK\x03\x04" + b"\x00" * 100, b"\xd0\xcf\x11\xe0"])))
        return "POST", f"/api/v1/import?{query}", data, headers
    action = draw(st.sampled_from(["resolve/table", "odds/rise", "simulate/pte"]))
    data = draw(st.one_of(st.binary(max_size=200), st.sampled_from([b"[" * 100_000, b"{}" * 10, b'{"a": 1e999}', b"\xff\xfe"])))
    declared = draw(st.sampled_from(["application/json", "application/json", "text/plain", "application/x-www-form-urlencoded", None]))
    return "POST", f"/api/v1/{action}", data, {**headers, **({"Content-Type": declared} if declared else {})}


@pytest.fixture(scope="module")
def fuzzed_app(tmp_path_factory: pytest.TempPathFactory, bundled_db_template: Path):  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("api-fuzz") / "tables.db"
    shutil.copyfile(bundled_db_template, path)
    app = create_app(path, token=TOKEN, allow_import=True, upload_limit=1 << 20)
    with TestClient(app, raise_server_exceptions=False, base_url=LOCAL_BASE) as client:
        a_fight(client)
        yield client, Database(path)


def a_fight(client: TestClient) -> None:
    """Ambush, with Hero and Orc Warrior #1: the fight routes' requests mostly name it."""
    auth = {"Authorization": f"Bearer {TOKEN}"}
    for path, body in (("/api/v1/fights", {"name": "Ambush"}),
                       ("/api/v1/fights/Ambush/combatants", dict(FIGHT_BODIES["combatants"], **{"as": "Hero"})),
                       ("/api/v1/fights/Ambush/combatants", {"creature": "Orc Warrior", "weapon": "Scimitar", "cmb": 55})):
        assert client.post(path, json=body, headers=auth).status_code == 200


def tables_dump(path: Path) -> list[str]:
    """The database's dump but its fights (which the fight routes write on every server)."""
    return [line for line in db_dump(path) if not line.startswith(('INSERT INTO "fight', "INSERT INTO \"sqlite_sequence\" VALUES('fight"))]


class Database:
    """The fuzzed database's dump (but its fights), taken again only after an import that wrote."""

    def __init__(self, path: Path):
        self.path, self.dump = path, tables_dump(path)

    def after_import(self, wrote: bool, request: tuple) -> None:
        now = tables_dump(self.path)
        if not wrote:
            assert now == self.dump, ("a refused (or dry-run) import changed the database", request[:2])
        self.dump = now


def check(client: TestClient, request: tuple, statuses: Counter, database: Database | None = None) -> None:
    method, path, body, headers = request
    response = client.request(method, path, content=body, headers=headers)
    statuses[response.status_code] += 1
    assert response.status_code in STATUSES, (request[:2], body and body[:300], response.status_code, response.text[:500])
    if database is not None and path.startswith("/api/v1/import"):
        database.after_import(response.status_code == 200 and "dry_run" not in path, request)
    check_answer(path, response.status_code, response.json())


def check_answer(path: str, status: int, answer: dict) -> None:
    if status != 200 and "error" in answer:
        assert isinstance(answer["error"]["message"], str) and answer["error"]["message"], answer
    elif status != 200:  # an import refused with its report
        assert path.startswith("/api/v1/import") and answer["errors"], answer


def test_api_fuzz(fuzzed_app) -> None:  # type: ignore[no-untyped-def]
    client, database = fuzzed_app
    statuses: Counter = Counter()

    @seed(SEED)
    @settings(max_examples=EXAMPLES, derandomize=SEED == 0, database=None, deadline=DEADLINE,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(requests())
    def one(request: tuple) -> None:
        check(client, request, statuses, database)

    one()
    assert statuses[200] > 0 and statuses[422] > 0  # the fuzzer reaches answers, not only refusals
    if os.environ.get("TABLES_FUZZ_EXAMPLES"):
        print(f"\nfuzzed {sum(statuses.values())} requests: " + ", ".join(f"{code}: {n}" for code, n in sorted(statuses.items())))


# -- over sockets, with slow clients ------------------------------------------

TIMEOUT = 0.5  # the server's --header-timeout and --body-timeout here (their least)
MARGIN = 4.0  # seconds past a timeout the server may take, on a loaded machine
BATCH = 50  # requests per example, sent at once from as many threads
# How a request is sent: whole; in pieces, each well within the timeout
# (answered as if whole); headers a byte at a time past the header timeout,
# a body that stops half-way, nothing at all (each a 408); half a request
# and gone (no answer to hear; the server must simply go on).
PACINGS = ("whole", "whole", "whole", "pieces", "pieces", "slow_headers", "stalled_body", "silent", "gone")


def raw_request(method: str, path: str, body: bytes | None, headers: dict[str, str]) -> tuple[bytes, bytes]:
    head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", "Connection: close"]
    head += [f"{name}: {value}" for name, value in headers.items()]
    if body is not None:
        head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode("utf-8", "surrogateescape"), body or b""


def exchange(address: tuple[str, int], request: tuple, pacing: str, pieces: int) -> tuple[int | None, bytes, float]:
    """Send ``request`` as ``pacing`` says; (status or None, answer, seconds until the server closed)."""
    import socket
    import time

    head, body = raw_request(*request)
    started = time.monotonic()
    with socket.create_connection(address, timeout=10) as sock:
        try:
            match pacing:
                case "whole":
                    sock.sendall(head + body)
                case "pieces":  # the headers all within the header timeout, each piece of body within the body's
                    for data, pause in ((head, TIMEOUT / (3 * pieces)), (body, TIMEOUT / 5)):
                        step = max(1, -(-len(data) // pieces))
                        for at in range(0, len(data), step):
                            sock.sendall(data[at:at + step])
                            time.sleep(pause)
                case "slow_headers":
                    sock.sendall(head[:head.index(b"\r\n") + 2])
                    for byte in b"X-Slow: " + b"a" * 200:  # each byte quick, the headers never end
                        sock.sendall(bytes([byte]))
                        time.sleep(TIMEOUT / 5)
                case "stalled_body":
                    sock.sendall(head + body[:len(body) // 2] if body else head.replace(b"\r\n\r\n", b"\r\nContent-Length: 9\r\n\r\n"))
                case "silent":
                    pass
                case "gone":
                    sock.sendall((head + body)[:len(head) // 2])
                    return None, b"", time.monotonic() - started
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server cut us off (a 408, or 413 for a body too large) and closed: read what it said
        answer = b""
        sock.settimeout(0.2)
        while time.monotonic() - started < 10:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                continue
            except ConnectionResetError:
                break
            if not chunk:
                break
            answer += chunk
        else:
            pytest.fail(f"the server held a {pacing} connection past 10 s: {request[:2]}")
    status = int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else None
    return status, answer, time.monotonic() - started


@pytest.fixture(scope="module")
def fuzzed_server(tmp_path_factory: pytest.TempPathFactory, bundled_db_template: Path):  # type: ignore[no-untyped-def]
    from helpers import serving

    path = tmp_path_factory.mktemp("socket-fuzz") / "tables.db"
    shutil.copyfile(bundled_db_template, path)
    options = ("--allow-import", "--max-upload", "1", "--header-timeout", str(TIMEOUT), "--body-timeout", str(TIMEOUT),
               "--keep-alive", "1", "--max-connections", str(BATCH + 14))
    with serving(path, env={**os.environ, "TABLES_TOKEN": TOKEN}, options=options) as (base, process):
        yield ("127.0.0.1", int(base.rsplit(":", 1)[1])), process


@pytest.mark.slow  # ~15 s: real connections, some held until the server's timeouts (`pytest -m slow`, and CI)
def test_api_fuzz_over_sockets(fuzzed_server) -> None:  # type: ignore[no-untyped-def]
    from concurrent.futures import ThreadPoolExecutor

    address, process = fuzzed_server
    statuses: Counter = Counter()
    slowest = 0.0

    @seed(SEED)
    @settings(max_examples=max(1, EXAMPLES // BATCH), derandomize=SEED == 0, database=None, deadline=None,
              phases=[Phase.explicit, Phase.generate],  # a batch's failure names its request; shrinking 50 real exchanges would take minutes
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(st.lists(st.tuples(requests(), st.sampled_from(PACINGS), st.integers(2, 6)), min_size=BATCH, max_size=BATCH))
    def batch(sent: list) -> None:
        nonlocal slowest
        with ThreadPoolExecutor(len(sent)) as pool:
            answers = list(pool.map(lambda one: exchange(address, *one), sent))
        for (request, pacing, _), (status, answer, seconds) in zip(sent, answers):
            slowest = max(slowest, seconds)
            statuses[status if status is not None else pacing] += 1
            if pacing == "gone":
                continue
            assert status is not None, (pacing, request[:2], answer[:300])
            if pacing in ("slow_headers", "silent"):  # cut off in time (the most connections, 503, may come first)
                assert status in (408, 503), (pacing, request[:2], answer[:300])
                assert seconds < TIMEOUT + MARGIN, (pacing, request[:2], seconds)
            elif pacing == "stalled_body":  # cut off in time, or answered at once by a refusal that reads no body
                assert status in STATUSES | {408}, (pacing, request[:2], answer[:300])
                assert seconds < TIMEOUT + MARGIN, (pacing, request[:2], seconds)
            else:
                assert status in STATUSES, (pacing, request[:2], answer[:500])
                _, _, payload = answer.partition(b"\r\n\r\n")
                check_answer(request[1], status, json.loads(payload))
        assert process.poll() is None, "the server stopped"

    batch()
    assert statuses[200] > 0 and statuses[408] > 0  # answers and cut-offs both
    if os.environ.get("TABLES_FUZZ_EXAMPLES"):
        print(f"\nover sockets, {sum(statuses.values())} requests, slowest {slowest:.2f} s: "
              + ", ".join(f"{code}: {n}" for code, n in sorted(statuses.items(), key=str)))
