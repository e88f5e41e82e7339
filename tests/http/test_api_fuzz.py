"""A fuzzer of the HTTP API (docs/api.md): random requests to every endpoint,
with valid and invalid fields (the commands' own option names and junk
ones; numbers huge, negative, NaN and infinite as Python's JSON reads
them; strings empty, long, unicode, control characters, lone surrogates; lists, objects,
booleans, null), random query strings, and random bytes as bodies; and
valid attacks with one text field holding a lone surrogate.
Every answer must be as the API promises: a status the docs list (never
500), a JSON body, and on a failure the error object with a message.

Derandomized (the same requests on every run), 300 by default. A longer
run, with a summary of the statuses:

    TABLES_FUZZ_EXAMPLES=3000 pytest -q -s -n 0 -m "" --timeout=0 -p no:cacheprovider tests/http/test_api_fuzz.py

TABLES_FUZZ_SEED=N draws a different (still reproducible) set.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import Counter
from datetime import timedelta
from pathlib import Path
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from helpers import LOCAL_BASE, VALID_ATTACKS

from tables_app.http.app import create_app

EXAMPLES = int(os.environ.get("TABLES_FUZZ_EXAMPLES", "300"))
SEED = int(os.environ.get("TABLES_FUZZ_SEED", "0"))
DEADLINE = timedelta(seconds=10)
TOKEN = "the-fuzzers-token-0123456789"
STATUSES = {200, 400, 401, 403, 404, 405, 409, 413, 415, 422, 503}

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


def body_bytes(body: object) -> bytes:
    return json.dumps(body, allow_nan=True).encode()  # NaN and Infinity: Python's json.loads reads them


@st.composite
def requests(draw):  # type: ignore[no-untyped-def]
    """(method, path, body bytes or None, headers)."""
    kind = draw(st.sampled_from(["post", "post", "post", "query", "look", "raw", "import", "surrogate", "surrogate"]))
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
    if kind == "import":
        query = draw(st.sampled_from(["name=a.xlsx", "name=a.xlsx&dry_run=true", "", "name=%00", "name=a.xlsx&strict=2"]))
        data = draw(st.one_of(st.binary(max_size=300), st.sampled_from([b"PK\x03\x04" + b"\x00" * 100, b"\xd0\xcf\x11\xe0"])))
        return "POST", f"/api/v1/import?{query}", data, headers
    action = draw(st.sampled_from(["resolve/table", "odds/rise", "simulate/pte"]))
    data = draw(st.one_of(st.binary(max_size=200), st.sampled_from([b"[" * 100_000, b"{}" * 10, b'{"a": 1e999}', b"\xff\xfe"])))
    declared = draw(st.sampled_from(["application/json", "application/json", "text/plain", "application/x-www-form-urlencoded", None]))
    return "POST", f"/api/v1/{action}", data, {**headers, **({"Content-Type": declared} if declared else {})}


@pytest.fixture(scope="module")
def fuzzed_app(tmp_path_factory: pytest.TempPathFactory, bundled_db_template: Path) -> TestClient:
    path = tmp_path_factory.mktemp("api-fuzz") / "tables.db"
    shutil.copyfile(bundled_db_template, path)
    app = create_app(path, token=TOKEN, allow_import=True, upload_limit=1 << 20)
    with TestClient(app, raise_server_exceptions=False, base_url=LOCAL_BASE) as client:
        yield client


def check(client: TestClient, request: tuple, statuses: Counter) -> None:
    method, path, body, headers = request
    response = client.request(method, path, content=body, headers=headers)
    statuses[response.status_code] += 1
    assert response.status_code in STATUSES, (request[:2], body and body[:300], response.status_code, response.text[:500])
    answer = response.json()
    if response.status_code != 200 and "error" in answer:
        assert isinstance(answer["error"]["message"], str) and answer["error"]["message"], answer
    elif response.status_code != 200:  # an import refused with its report
        assert path.startswith("/api/v1/import") and answer["errors"], answer


def test_api_fuzz(fuzzed_app: TestClient) -> None:
    statuses: Counter = Counter()

    @seed(SEED)
    @settings(max_examples=EXAMPLES, derandomize=SEED == 0, database=None, deadline=DEADLINE,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
    @given(requests())
    def one(request: tuple) -> None:
        check(fuzzed_app, request, statuses)

    one()
    assert statuses[200] > 0 and statuses[422] > 0  # the fuzzer reaches answers, not only refusals
    if os.environ.get("TABLES_FUZZ_EXAMPLES"):
        print(f"\nfuzzed {sum(statuses.values())} requests: " + ", ".join(f"{code}: {n}" for code, n in sorted(statuses.items())))
