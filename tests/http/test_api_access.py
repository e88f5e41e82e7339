"""Who may use `tables serve` and importing over HTTP (docs/api.md, "Access"
and "Importing over HTTP"): the token, where the server may listen without
one, and POST /api/v1/import: the same guard and report as `tables import
--json`, all or nothing, bounded uploads."""

from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from helpers import LOCAL_BASE, build_workbook, serving

from tables_app.http.app import create_app
from tables_app.http.access import (MIN_TOKEN_LENGTH, TOKEN_ENV, bearer_matches, is_loopback, loopback_host_header,
                                   serving_problem, web_origin)
from tables_app.cli.root import cli
from tables_app.cli.serving import MAX_UPLOAD_MB
from tables_app.services.database_setup import example_workbook, init_database
from tables_app.sheets.guard import MAX_FILE_BYTES

API = "/api/v1"
TOKEN = "a-token-of-the-test-0123456789"
GIVEN = {"Authorization": f"Bearer {TOKEN}"}
ATTACK = {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "dice": [97, 99, 45, 30]}
FOUNDRY = "http://localhost:30000"


# ------------------------------------------------------------ where and with what
@pytest.mark.parametrize("host, loopback", [
    ("127.0.0.1", True), ("127.3.4.5", True), ("::1", True), ("[::1]", True), ("localhost", True), ("LocalHost", True),
    ("0.0.0.0", False), ("::", False), ("192.168.1.20", False), ("10.0.0.1", False), ("example.com", False),
    ("localhost.example.com", False), ("", False),
])
def test_which_hosts_are_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_the_settings_a_server_refuses_to_start_with():
    assert serving_problem("127.0.0.1", None, False) is None  # the default: read-only, this machine only
    assert serving_problem("0.0.0.0", TOKEN, False) is None
    assert serving_problem("0.0.0.0", TOKEN, True) is None
    assert serving_problem("127.0.0.1", TOKEN, True) is None
    assert serving_problem("0.0.0.0", None, False) == (
        f"--host 0.0.0.0 is reachable from other machines: set {TOKEN_ENV} (every request must then give it), "
        "or serve on 127.0.0.1")
    assert serving_problem("127.0.0.1", None, True) == (
        f"--allow-import needs a token: set {TOKEN_ENV} (every request must then give it)")
    short = "x" * (MIN_TOKEN_LENGTH - 1)
    assert serving_problem("127.0.0.1", short, False).startswith(f"{TOKEN_ENV} is 15 characters; a token has 16 to 4096")
    for odd in (" " + TOKEN, TOKEN + "\n", TOKEN + "é"):
        assert "printable ASCII" in serving_problem("127.0.0.1", odd, False)
    assert serving_problem("127.0.0.1", None, False, ("*",)).startswith("--cors-origin '*' lets any web page call the API")
    assert serving_problem("127.0.0.1", TOKEN, False, ("*",)) is None  # every page's request must then give the token
    assert serving_problem("127.0.0.1", None, False, ("http://localhost:30000",)) is None


def test_bearer_header():
    assert bearer_matches(f"Bearer {TOKEN}".encode(), TOKEN)
    assert bearer_matches(f"bearer  {TOKEN} ".encode(), TOKEN)
    for header in (None, b"", TOKEN.encode(), f"Basic {TOKEN}".encode(), f"Bearer {TOKEN}x".encode(),
                   f"Bearer {TOKEN[:-1]}".encode(), "Bearer é".encode()):
        assert not bearer_matches(header, TOKEN), header


@pytest.mark.parametrize("options, token, message", [
    (["--host", "0.0.0.0"], None, "--host 0.0.0.0 is reachable from other machines: set TABLES_TOKEN"),
    (["--host", "192.168.1.20", "--port", "8080"], None, "--host 192.168.1.20 is reachable from other machines"),
    (["--allow-import"], None, "--allow-import needs a token: set TABLES_TOKEN"),
    ([], "short", "TABLES_TOKEN is 5 characters; a token has 16 to 4096"),
    ([], "", "TABLES_TOKEN is set but empty: give it a token, or unset it"),
    (["--max-upload", str(MAX_UPLOAD_MB + 1)], TOKEN, "Invalid value for '--max-upload'"),
    (["--max-upload", "0"], TOKEN, "Invalid value for '--max-upload'"),
    (["--cors-origin", "localhost:30000"], None, "'localhost:30000' is no origin: give scheme://host[:port]"),
    (["--cors-origin", "https://vtt.example.com/game"], None, "is no origin"),
    (["--cors-origin", "*"], None, "--cors-origin '*' lets any web page call the API, writing and removing fights: set "
                                   "TABLES_TOKEN"),
    (["--cors-origin", FOUNDRY, "--cors-origin", "*"], None, "--cors-origin '*' lets any web page call the API"),
])
def test_serve_refuses_to_start(db_path, options, token, message):
    """Refused before anything listens: exit 2, one line, no traceback."""
    env = {TOKEN_ENV: token} if token is not None else {}
    runner = CliRunner(env={**env, "COLUMNS": "10000"})
    if token is None:
        os.environ.pop(TOKEN_ENV, None)
    result = runner.invoke(cli, ["--db", str(db_path), "serve", *options], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_the_upload_bound_is_the_importers_file_limit():
    assert MAX_UPLOAD_MB << 20 == MAX_FILE_BYTES


# ------------------------------------------------------------ the token
@pytest.fixture
def guarded(db_path: Path):  # type: ignore[no-untyped-def]
    with TestClient(create_app(db_path, token=TOKEN), base_url=LOCAL_BASE) as test_client:
        yield test_client


def test_with_a_token_every_api_request_needs_it(guarded, run):
    for headers in ({}, {"Authorization": "Bearer nope-nope-nope-nope"}, {"Authorization": TOKEN}):
        for response in (guarded.get(f"{API}/weapons", headers=headers),
                         guarded.post(f"{API}/resolve/table", json=ATTACK, headers=headers),
                         guarded.get(f"{API}/query/attack", params={"table": "Edged", "result": 100, "armor": "MA"},
                                     headers=headers),
                         guarded.get(f"{API}/no/such/thing", headers=headers),
                         guarded.post(f"{API}/import?name=a.xlsx", content=b"x", headers=headers)):
            assert response.status_code == 401, (headers, response.text)
            assert response.headers["www-authenticate"] == "Bearer"
            assert response.json()["error"]["message"].startswith("this server needs its token")
    answered = guarded.post(f"{API}/resolve/table", json=ATTACK, headers=GIVEN)
    assert answered.status_code == 200
    printed = run("resolve", "table", "--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA",
                  "--dice", "97,99,45,30", "--json")
    assert answered.json() == json.loads(printed.stdout)


def test_with_a_token_health_the_page_and_the_docs_stay_open(guarded):
    health = guarded.get(f"{API}/health")
    assert health.status_code == 200
    assert health.json()["token_required"] is True and health.json()["import_allowed"] is False
    for path in ("/", "/static/app.js", "/docs", "/openapi.json"):
        assert guarded.get(path).status_code == 200, path


def test_without_a_token_nothing_is_asked(client_open):
    assert client_open.get(f"{API}/weapons").status_code == 200
    assert client_open.get(f"{API}/health").json()["token_required"] is False


@pytest.fixture
def client_open(db_path: Path):  # type: ignore[no-untyped-def]
    with TestClient(create_app(db_path), base_url=LOCAL_BASE) as test_client:
        yield test_client


# ------------------------------------------------------------ importing
@pytest.fixture
def importer(db_path: Path):  # type: ignore[no-untyped-def]
    app = create_app(db_path, token=TOKEN, allow_import=True, upload_limit=1 << 20)
    with TestClient(app, base_url=LOCAL_BASE) as test_client:
        test_client.app_state = app.state  # type: ignore[attr-defined]
        yield test_client


def upload(client, data: bytes, query: str = "name=printed.xlsx"):  # type: ignore[no-untyped-def]
    return client.post(f"{API}/import?{query}", content=data, headers={**GIVEN, "Content-Type": "application/octet-stream"})


def rulesets(client) -> list[str]:  # type: ignore[no-untyped-def]
    return [r["name"] for r in client.get(f"{API}/rulesets", headers=GIVEN).json()["rulesets"]]


def test_a_read_only_server_refuses_imports(client_open, db_path):
    before = db_path.read_bytes()
    response = client_open.post(f"{API}/import?name=printed.xlsx", content=example_workbook("printed").read_bytes())
    assert response.status_code == 403
    assert "--allow-import" in response.json()["error"]["message"]
    assert db_path.read_bytes() == before


def test_an_upload_imports_as_the_command_line_does(importer, run, db_path, tmp_path):
    """The answer is `tables import --json` of the same file, byte for byte,
    and the next request sees the new tables."""
    workbook = example_workbook("printed")
    assert "Printed" not in rulesets(importer)
    response = upload(importer, workbook.read_bytes())
    assert response.status_code == 200, response.text
    assert response.json()["written"] is True
    assert "Printed" in rulesets(importer)
    # The same file imported by the command line into another copy of the database answers the same report.
    copy = tmp_path / "fresh" / "printed.xlsx"
    copy.parent.mkdir()
    shutil.copyfile(workbook, copy)
    other = tmp_path / "other.db"
    init_database(str(other)).dispose()
    printed = run("import", str(copy), "--json", db=other)
    assert printed.exit_code == 0
    assert response.content == json.dumps(json.loads(printed.stdout), ensure_ascii=False).encode()
    # Critical S is now ambiguous between the two rulesets: the cache was dropped and the new tables read.
    assert importer.get(f"{API}/critical/S", headers=GIVEN).status_code == 422


def test_a_dry_run_writes_nothing(importer, db_path):
    before = db_path.read_bytes()
    response = upload(importer, example_workbook("printed").read_bytes(), "name=printed.xlsx&dry_run=true")
    assert response.status_code == 200
    assert response.json()["written"] is False and response.json()["workbooks"][0]["defined"]
    assert "Printed" not in rulesets(importer)
    assert db_path.read_bytes() == before


def test_a_bad_workbook_is_refused_with_the_report_and_nothing_changes(importer, db_path, tmp_path):
    bad = build_workbook(tmp_path / "bad.xlsx", {"Mishaps": [["Kind", "fumble"], ["Name", "Mishaps"], [],
                                                             ["Roll", "Text"], ["1-50", "a"], ["40-100", "b"]]})
    before = db_path.read_bytes()
    response = upload(importer, bad.read_bytes(), "name=folder/bad.xlsx")
    assert response.status_code == 422
    report = response.json()
    assert report["written"] is False and report["errors"]
    first = report["errors"][0]
    assert first["workbook"] == "bad.xlsx" and first["sheet"] == "Mishaps" and first["cell"]
    assert db_path.read_bytes() == before


def test_what_is_not_a_workbook_is_refused_by_the_guard(importer, db_path):
    before = db_path.read_bytes()
    for data, words in ((b"PK\x03\x04" + b"\x00" * 200, "bad.xlsx"), (b"Roll,Text\n1-50,a\n", "CSV"),
                        (b"\xd0\xcf\x11\xe0" + os.urandom(600), "bad.xlsx")):
        response = upload(importer, data, "name=bad.xlsx")
        assert response.status_code == 422, response.text
        assert words in json.dumps(response.json()["errors"])
    assert db_path.read_bytes() == before


@pytest.mark.parametrize("query, words", [
    ("", "give the workbook's file name"),
    ("name=", "give the workbook's file name"),
    ("name=%2F", "is no file name"),
    ("name=..", "is no file name"),
    ("name=a%0Ab.xlsx", "is no file name"),
    ("name=" + "a" * 300 + ".xlsx", "is no file name"),
    ("name=a.xlsx&replace=yes", "'replace': true or false, not 'yes'"),
    ("name=a.xlsx&name=b.xlsx", "give 'name' once"),
    ("name=a.xlsx&force=true", "'force': no such field (name, dry_run, replace, strict)"),
])
def test_bad_import_requests_are_422(importer, query, words):
    response = upload(importer, b"x", query)
    assert response.status_code == 422
    assert words in response.json()["error"]["message"]


def test_uploads_over_the_limit_are_refused_whole(importer, db_path):
    before = db_path.read_bytes()
    big = b"x" * ((1 << 20) + 1)
    response = upload(importer, big)
    assert response.status_code == 413
    assert response.json()["error"]["message"] == "printed.xlsx: the upload is 1,048,577 bytes; the limit is 1,048,576"

    def chunks():  # no Content-Length: counted as it streams
        for _ in range(20):
            yield b"x" * 65536

    response = importer.post(f"{API}/import?name=printed.xlsx", content=chunks(), headers=GIVEN)
    assert response.status_code == 413
    assert "over the limit of 1,048,576 bytes" in response.json()["error"]["message"]
    assert upload(importer, b"", "name=a.xlsx").status_code == 422
    assert db_path.read_bytes() == before


def test_one_import_at_a_time(importer):
    lock = importer.app_state.import_running
    assert lock.acquire(blocking=False)
    try:
        response = upload(importer, example_workbook("printed").read_bytes())
        assert response.status_code == 409
        assert "another import is running" in response.json()["error"]["message"]
    finally:
        lock.release()
    assert upload(importer, example_workbook("printed").read_bytes()).status_code == 200


def test_a_bot_imports_and_resolves_on_a_real_server(db_path, tmp_path):
    """Over a socket, as a bot's `fetch` would: the token, an upload, a resolve with hand-rolled dice."""
    env = {key: value for key, value in os.environ.items() if key != "TABLES_DB"}
    env.update({TOKEN_ENV: TOKEN, "XDG_DATA_HOME": str(tmp_path / "home")})
    with serving(db_path, env=env, options=("--allow-import", "--max-upload", "2")) as (base, _process):
        def call(method: str, path: str, data: bytes | None = None, headers: dict | None = None):  # type: ignore[no-untyped-def]
            request = urllib.request.Request(f"{base}{path}", data=data, method=method, headers=headers or {})
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    return response.status, json.loads(response.read())
            except urllib.error.HTTPError as refused:
                return refused.code, json.loads(refused.read())

        assert call("GET", f"{API}/health")[1]["import_allowed"] is True
        assert call("GET", f"{API}/weapons")[0] == 401
        status, report = call("POST", f"{API}/import?name=printed.xlsx", example_workbook("printed").read_bytes(), GIVEN)
        assert status == 200 and report["written"] is True
        status, answer = call("POST", f"{API}/resolve/table",
                              json.dumps({"weapon": "Printed:Falchion", "cmb": 80, "armor": "1", "dice": [90, 50, 50, 50]}).encode(),
                              {**GIVEN, "Content-Type": "application/json"})
        assert status == 200, answer
        assert answer["attack"]["ruleset"] == "Printed"


# ------------------------------------------------------------ other origins (a Foundry VTT macro)
@pytest.mark.parametrize("given, origin", [
    ("*", "*"), ("http://localhost:30000", "http://localhost:30000"), ("https://vtt.example.com/", "https://vtt.example.com"),
    ("HTTPS://VTT.example.com:443", "https://vtt.example.com"), ("http://[::1]:30000", "http://[::1]:30000"),
    ("http://x:8080", "http://x:8080"),
])
def test_origins_are_written_as_browsers_send_them(given, origin):
    assert web_origin(given) == origin


@pytest.mark.parametrize("given", ["", "localhost", "localhost:30000", "ftp://x", "http://x/a", "http://x?a=1",
                                   "http://x:99999", "http://user:pw@x", "https://", "*.example.com"])
def test_what_is_no_origin(given):
    with pytest.raises(ValueError, match="is no origin"):
        web_origin(given)


def test_pages_of_a_given_origin_may_call_the_api(db_path):
    app = create_app(db_path, token=TOKEN, cors_origins=(FOUNDRY,))
    with TestClient(app, base_url=LOCAL_BASE) as client:
        preflight = client.options(f"{API}/resolve/table", headers={
            "Origin": FOUNDRY, "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization, content-type"})
        assert preflight.status_code == 200  # answered without the token: a browser sends none here
        assert preflight.headers["access-control-allow-origin"] == FOUNDRY
        assert "POST" in preflight.headers["access-control-allow-methods"]
        assert {"authorization", "content-type"} <= {h.strip().lower() for h in preflight.headers["access-control-allow-headers"].split(",")}
        answered = client.post(f"{API}/resolve/table", json=ATTACK, headers={**GIVEN, "Origin": FOUNDRY})
        assert answered.status_code == 200 and answered.headers["access-control-allow-origin"] == FOUNDRY
        refused = client.post(f"{API}/resolve/table", json=ATTACK, headers={"Origin": FOUNDRY})
        assert refused.status_code == 401 and refused.headers["access-control-allow-origin"] == FOUNDRY  # readable
        other = client.options(f"{API}/resolve/table", headers={"Origin": "https://elsewhere.example",
                                                               "Access-Control-Request-Method": "POST"})
        assert other.status_code == 400 and "access-control-allow-origin" not in other.headers
        assert "access-control-allow-origin" not in client.get(f"{API}/health", headers={"Origin": "https://elsewhere.example"}).headers


def test_without_origins_no_page_elsewhere_may_read_an_answer(client_open):
    answered = client_open.post(f"{API}/resolve/table", json=ATTACK, headers={"Origin": FOUNDRY})
    assert answered.status_code == 403 and "access-control-allow-origin" not in answered.headers


# ------------------------------------------------------------ pages of other sites, without a token
ELSEWHERE = "https://elsewhere.example"
SIMULATION = f"{API}/fights/Duel/simulate?rounds=1&count=10&seed=1"


def test_without_a_token_no_page_of_another_site_makes_the_server_work(client_open):
    """An <img> or a link on another site's page (Sec-Fetch-Site, no Origin), a form or a script (Origin):
    403 with the error object, before any work; a page of the server's own origin, or no browser at all, passes."""
    assert client_open.post(f"{API}/fights", json={"name": "Duel"}).status_code == 200
    for headers in ({"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"}, {"Origin": ELSEWHERE},
                    {"Origin": "null"}, {"Origin": ELSEWHERE, "Sec-Fetch-Site": "cross-site"},
                    {"Origin": LOCAL_BASE.replace("http:", "https:") + ".evil", "Sec-Fetch-Site": "cross-site"}):
        for response in (client_open.get(f"{API}/weapons", headers=headers), client_open.get(SIMULATION, headers=headers),
                         client_open.post(f"{API}/resolve/table", json=ATTACK, headers=headers),
                         client_open.delete(f"{API}/fights/Duel", headers=headers)):
            assert response.status_code == 403, (headers, response.text)
            message = response.json()["error"]["message"]
            assert message.startswith("this server has no token and answers no page of another site") and "TABLES_TOKEN" in message
    assert client_open.get(f"{API}/fights/Duel").status_code == 200  # not removed
    for headers in ({}, {"Sec-Fetch-Site": "same-origin"}, {"Sec-Fetch-Site": "none"},  # curl; the page; a typed URL
                    {"Origin": LOCAL_BASE, "Sec-Fetch-Site": "same-origin"}):
        assert client_open.get(f"{API}/weapons", headers=headers).status_code == 200, headers
        assert client_open.post(f"{API}/resolve/table", json=ATTACK, headers=headers).status_code == 200, headers
    assert client_open.get("/", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 200  # the page: a link to it is fine


def test_without_a_token_the_given_origins_pages_may_call_the_api(db_path):
    with TestClient(create_app(db_path, cors_origins=(FOUNDRY,)), base_url=LOCAL_BASE) as client:
        answered = client.post(f"{API}/resolve/table", json=ATTACK, headers={"Origin": FOUNDRY, "Sec-Fetch-Site": "same-site"})
        assert answered.status_code == 200 and answered.headers["access-control-allow-origin"] == FOUNDRY
        refused = client.post(f"{API}/resolve/table", json=ATTACK, headers={"Origin": ELSEWHERE})
        assert refused.status_code == 403 and "access-control-allow-origin" not in refused.headers
        assert client.get(f"{API}/weapons", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403  # no Origin: whose?


def test_with_a_token_a_page_of_another_site_needs_the_token_not_its_origin(guarded):
    assert guarded.get(f"{API}/weapons", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 401
    assert guarded.get(f"{API}/weapons", headers={**GIVEN, "Sec-Fetch-Site": "cross-site", "Origin": ELSEWHERE}).status_code == 200


# ------------------------------------------------------------ a key given twice
@pytest.mark.parametrize(("route", "body", "key"), [
    ("/resolve/table", b'{"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "cmb": 6, "seed": 1}', "cmb"),
    ("/odds/table", b'{"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "armor": "MA"}', "armor"),
    ("/resolve/table", b'{"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "x": {"a": 1, "a": 2}}', "a"),
    ("/fights", b'{"name": "One", "name": "Two"}', "name"),
])
def test_a_key_given_twice_in_a_body_is_refused(client_open, route, body, key):
    """json.loads keeps the last of two keys silently: which one the client meant is not known, so neither."""
    response = client_open.post(f"{API}{route}", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["message"] == f"the request is not as expected: the key {key!r} is given twice " \
                                                  "(give each field once)"
    assert client_open.get(f"{API}/fights").json()["fights"] == []


@pytest.mark.slow  # seconds: a real server's worker processes
def test_every_worker_keeps_the_servers_settings(db_path, tmp_path):
    """`--workers 2`: each worker process makes its app from the settings
    the command checked (the token, --allow-import, --max-upload, --cors-origin)."""
    env = {key: value for key, value in os.environ.items() if key != "TABLES_DB"}
    env.update({TOKEN_ENV: TOKEN, "XDG_DATA_HOME": str(tmp_path / "home")})
    options = ("--workers", "2", "--allow-import", "--max-upload", "1", "--cors-origin", FOUNDRY)
    with serving(db_path, env=env, options=options) as (base, _process):
        def call(path: str, data: bytes | None = None, headers: dict | None = None):  # type: ignore[no-untyped-def]
            request = urllib.request.Request(f"{base}{path}", data=data, headers=headers or {},
                                             method="POST" if data is not None else "GET")
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    return response.status, dict(response.headers), json.loads(response.read())
            except urllib.error.HTTPError as refused:
                return refused.code, dict(refused.headers), json.loads(refused.read())

        for _ in range(6):  # new connections: the kernel spreads them over both workers
            status, _headers, health = call(f"{API}/health")
            assert health["token_required"] is True and health["import_allowed"] is True
            assert call(f"{API}/weapons")[0] == 401
            status, headers, _answer = call(f"{API}/weapons", headers={**GIVEN, "Origin": FOUNDRY})
            assert status == 200 and headers.get("access-control-allow-origin") == FOUNDRY
            status, _headers, error = call(f"{API}/import?name=big.xlsx", b"x" * ((1 << 20) + 1), GIVEN)
            assert status == 413 and "the limit is 1,048,576" in error["error"]["message"]



# ------------------------------------------------------------ DNS rebinding, content types, whole bodies
@pytest.mark.parametrize("header, passes", [
    (None, True), (b"localhost", True), (b"localhost:8000", True), (b"127.0.0.1", True), (b"127.0.0.1:8000", True),
    (b"127.9.9.9:1", True), (b"[::1]", True), (b"[::1]:8000", True), (b"LOCALHOST:8000", True),
    (b"attacker.example", False), (b"attacker.example:8000", False), (b"127.0.0.1.nip.io", False), (b"0.0.0.0:8000", False),
    (b"[::]:8000", False), (b"192.168.1.5", False), (b"", False), (b"localhost:x", False), (b"[::1", False),
])
def test_which_host_headers_name_this_machine(header, passes):
    assert loopback_host_header(header) is passes


def test_without_a_token_only_requests_to_a_loopback_name_are_answered(db_path):
    """A page of another site that points its own name at 127.0.0.1 (DNS
    rebinding) sends that name in Host: refused, so it reads nothing."""
    with TestClient(create_app(db_path), base_url="http://attacker.example:8000") as rebound:
        response = rebound.get(f"{API}/weapons")
        assert response.status_code == 400
        assert response.json()["error"]["message"].startswith(
            "this server answers requests to localhost, 127.0.0.1 or [::1] only, not to 'attacker.example:8000'")
        assert rebound.get("/").status_code == 400
    for base in ("http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000"):
        with TestClient(create_app(db_path), base_url=base) as local:
            assert local.get(f"{API}/weapons").status_code == 200, base
    with TestClient(create_app(db_path, token=TOKEN), base_url="http://tables.example:8000") as named:
        assert named.get(f"{API}/weapons", headers=GIVEN).status_code == 200  # with a token, any name


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"])
def test_a_body_not_declared_json_is_415(client_open, content_type):
    """A page of another site may send these without asking first (no
    preflight): refused unread, so it cannot make the server work."""
    headers = {} if content_type is None else {"Content-Type": content_type}
    for action in ("resolve/table", "odds/table", "simulate/table"):
        response = client_open.post(f"{API}/{action}", content=json.dumps(ATTACK).encode(), headers=headers)
        assert response.status_code == 415, (action, content_type)
        assert response.json()["error"]["message"].startswith("send the body as JSON (Content-Type: application/json)")
    typed = client_open.post(f"{API}/resolve/table", content=json.dumps(ATTACK).encode(),
                             headers={"Content-Type": "application/json; charset=utf-8"})
    assert typed.status_code == 200


def test_refusals_are_heard_by_clients_that_send_the_whole_body_first(db_path, tmp_path):
    """urllib sends a body whole before it reads the answer: the server reads
    the rest of a refused body (up to 16 MB) before answering, so the client
    gets the 413 or the 401, not a reset connection; a client gone
    mid-body leaves no traceback."""
    import socket

    env = {key: value for key, value in os.environ.items() if key != "TABLES_DB"}
    env.update({TOKEN_ENV: TOKEN, "XDG_DATA_HOME": str(tmp_path / "home")})
    with serving(db_path, env=env, options=("--allow-import", "--max-upload", "1")) as (base, process):
        def status(path: str, data: bytes, headers: dict) -> int:
            request = urllib.request.Request(f"{base}{path}", data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    return response.status
            except urllib.error.HTTPError as refused:
                return refused.code

        big = b"x" * (2 << 20)
        typed = {**GIVEN, "Content-Type": "application/json"}
        for _ in range(8):
            assert status(f"{API}/import?name=big.xlsx", big, GIVEN) == 413
            assert status(f"{API}/import?name=big.xlsx", big, {}) == 401
            assert status(f"{API}/resolve/rise", big, typed) == 413
            assert status(f"{API}/resolve/rise", big, {**GIVEN, "Content-Type": "text/plain"}) == 415
        port = int(base.rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port)) as gone:  # declares 100,000 bytes, sends 10, leaves
            gone.sendall(b"POST /api/v1/import?name=a.xlsx HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         + f"Authorization: Bearer {TOKEN}\r\nContent-Length: 100000\r\n\r\n".encode() + b"x" * 10)
        assert status(f"{API}/resolve/table", json.dumps(ATTACK).encode(), typed) == 200
        process.terminate()
        output = process.communicate(timeout=20)[0]
    assert "Traceback" not in output, output[-3000:]


def test_an_unknown_xml_encoding_is_refused_by_the_guard_not_a_500(importer, db_path, tmp_path):
    """Issue 27: `encoding="bogus-enc"` in a worksheet was a LookupError and a 500."""
    from helpers import declaring, rewrite

    source = build_workbook(tmp_path / "book.xlsx", {"S": [[1]]})
    bad = rewrite(source, tmp_path / "bad.xlsx", "xl/worksheets/sheet1.xml", declaring("bogus-enc"))
    before = db_path.read_bytes()
    response = upload(importer, bad.read_bytes(), "name=bad.xlsx")
    assert response.status_code == 422, response.text
    assert "the encoding ('bogus-enc') is unknown" in json.dumps(response.json()["errors"])
    assert db_path.read_bytes() == before
