"""The OpenAPI document tells the truth about errors (issue 28, item 4):
every error the server really sends, for each status it sends, is valid
against the schema the document declares for that route and status; and
FastAPI's own ``{"detail": [...]}``, which the server never sends, is
declared nowhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator

from helpers import LOCAL_BASE, build_workbook

from tables_app.http.app import create_app
from tables_app.http.openapi_errors import statuses

TOKEN = "the-openapi-test-token-0123456789"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
JSON = {**AUTH, "Content-Type": "application/json"}
ATTACK = {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "seed": 1}


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory, bundled_db_template: Path) -> Path:
    path = tmp_path_factory.mktemp("openapi") / "tables.db"
    shutil.copyfile(bundled_db_template, path)
    return path


@pytest.fixture(scope="module")
def client(database: Path):  # type: ignore[no-untyped-def]
    app = create_app(database, token=TOKEN, allow_import=True, upload_limit=1 << 16)
    with TestClient(app, raise_server_exceptions=False, base_url=LOCAL_BASE) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def read_only(database: Path):  # type: ignore[no-untyped-def]
    with TestClient(create_app(database, token=None), raise_server_exceptions=False, base_url=LOCAL_BASE) as test_client:
        yield test_client


def check_against_document(document: dict, route: str, method: str, status: int, body: object) -> None:
    declared = document["paths"][route][method]["responses"]
    assert str(status) in declared, (route, method, status, sorted(declared))
    schema = declared[str(status)]["content"]["application/json"]["schema"]
    validator = Draft202012Validator({**schema, "components": document["components"]})
    problems = [error.message for error in validator.iter_errors(body)]
    assert problems == [], (route, method, status, body, problems)


def bad_workbook(tmp_path: Path) -> bytes:
    path = build_workbook(tmp_path / "bad.xlsx", {"Crit": [["Kind", "critical"], ["Name", "Knocks"], [],
                                                           ["Roll", "Text", "Hits"], ["01-50", "x", 1]]})
    return path.read_bytes()


def test_every_error_sent_is_as_declared(client: TestClient, read_only: TestClient, tmp_path: Path) -> None:
    document = client.get("/openapi.json").json()
    sent = [  # (route template, method, the request, the status it must answer)
        ("/api/v1/resolve/table", "post", lambda: client.post("/api/v1/resolve/table", json=ATTACK), 401),
        ("/api/v1/resolve/table", "post", lambda: client.post("/api/v1/resolve/table", headers=JSON,
                                                              content=json.dumps({**ATTACK, "weapon": "Lnogsword"})), 404),
        ("/api/v1/resolve/table", "post", lambda: client.post("/api/v1/resolve/table", headers=JSON,
                                                              content=json.dumps({**ATTACK, "cmb": 10**9})), 422),
        ("/api/v1/resolve/table", "post", lambda: client.post("/api/v1/resolve/table", headers=JSON,
                                                              content=json.dumps({**ATTACK, "armr": "MA"})), 422),
        ("/api/v1/resolve/table", "post", lambda: client.post("/api/v1/resolve/table", headers={**AUTH, "Content-Type": "text/plain"},
                                                              content=json.dumps(ATTACK)), 415),
        ("/api/v1/resolve/table", "post", lambda: client.post("/api/v1/resolve/table", headers=JSON,
                                                              content=b" " * 70_000), 413),
        ("/api/v1/resolve/table", "post", lambda: client.delete("/api/v1/resolve/table", headers=AUTH), 405),
        ("/api/v1/odds/rise", "post", lambda: client.post("/api/v1/odds/rise", headers=JSON, content=b"[1]"), 422),
        ("/api/v1/simulate/table", "post", lambda: client.post("/api/v1/simulate/table", headers=JSON,
                                                               content=json.dumps({**ATTACK, "count": -1})), 422),
        ("/api/v1/query/attack", "get", lambda: client.get("/api/v1/query/attack?table=Egded&result=50&armor=MA",
                                                           headers=AUTH), 404),
        ("/api/v1/query/critical", "get", lambda: client.get("/api/v1/query/critical?table=Cut", headers=AUTH), 422),
        ("/api/v1/{kind}/{name}", "get", lambda: client.get("/api/v1/weapon/Lnogsword", headers=AUTH), 404),
        ("/api/v1/{kind}/{name}", "get", lambda: client.get("/api/v1/nothing/Longsword", headers=AUTH), 404),
        ("/api/v1/{kind}", "get", lambda: client.get("/api/v1/weapons", headers={"Authorization": "Bearer wrong"}), 401),
        ("/api/v1/{kind}", "get", lambda: read_only.get("/api/v1/weapons", headers={"Host": "evil.example"}), 400),
        ("/api/v1/import", "post", lambda: read_only.post("/api/v1/import?name=a.xlsx", content=b"x"), 403),
        ("/api/v1/{kind}", "get", lambda: read_only.get("/api/v1/weapons", headers={"Sec-Fetch-Site": "cross-site"}), 403),
        ("/api/v1/health", "get", lambda: read_only.get("/api/v1/health", headers={"Origin": "https://elsewhere.example"}), 403),
        ("/api/v1/resolve/table", "post", lambda: client.post("/api/v1/resolve/table", headers=JSON,
                                                              content=b'{"cmb": 1, "cmb": 2}'), 422),
        ("/api/v1/import", "post", lambda: client.post("/api/v1/import?name=a.xlsx&bogus=1", headers=AUTH,
                                                       content=b"x"), 422),
        ("/api/v1/import", "post", lambda: client.post("/api/v1/import?name=bad.xlsx", headers=AUTH,
                                                       content=bad_workbook(tmp_path)), 422),
        ("/api/v1/import", "post", lambda: client.post("/api/v1/import?name=big.xlsx", headers=AUTH,
                                                       content=b"x" * 70_000), 413),
    ]
    fights = "/api/v1/fights"
    client.post(fights, headers=JSON, content=json.dumps({"name": "Declared"}))
    sent += [
        (f"{fights}/{{name}}", "get", lambda: client.get(f"{fights}/Declred", headers=AUTH), 404),
        (f"{fights}/{{name}}", "get", lambda: client.get(f"{fights}/Declared?at=x", headers=AUTH), 422),
        (f"{fights}/{{name}}", "delete", lambda: client.delete(f"{fights}/Declred", headers=AUTH), 404),
        (f"{fights}/{{name}}/log", "get", lambda: client.get(f"{fights}/Declred/log", headers=AUTH), 404),
        (fights, "post", lambda: client.post(fights, headers=JSON, content=json.dumps({"name": ""})), 422),
        (f"{fights}/{{name}}/undo", "post", lambda: client.post(f"{fights}/Declared/undo", headers=JSON,
                                                                  content=json.dumps({"after": 0})), 422),
        (f"{fights}/{{name}}/combatants", "post", lambda: client.post(
            f"{fights}/Declared/combatants", headers=JSON,
            content=json.dumps({"as": "One", "hits": 5, "armor": "MA", "weapon": "Longsword", "cmb": 5})), 200),
        (f"{fights}/{{name}}/combatants", "post", lambda: client.post(
            f"{fights}/Declared/combatants", headers=JSON,
            content=json.dumps({"as": "Hero", "hits": 5, "armor": "MA", "weapon": "Longsword", "cmb": 5, "after": 0})), 409),
        (f"{fights}/{{name}}/attacks", "post", lambda: client.post(f"{fights}/Declared/attacks", headers=AUTH,
                                                                     content=b"{}"), 415),
    ]
    for route, method, request, status in sent:
        if status == 200:
            assert request().status_code == 200
            continue
        response = request()
        assert response.status_code == status, (route, status, response.status_code, response.text[:300])
        check_against_document(document, route, method, status, response.json())
    held = client.app.state.import_running  # type: ignore[attr-defined]
    assert held.acquire(blocking=False)
    try:  # another import running: 409
        response = client.post("/api/v1/import?name=a.xlsx", headers=AUTH, content=b"x")
        assert response.status_code == 409
        check_against_document(document, "/api/v1/import", "post", 409, response.json())
    finally:
        held.release()


def test_fastapis_own_error_shape_is_declared_nowhere(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    text = json.dumps(document)
    assert "HTTPValidationError" not in text and '"detail"' not in text
    for route, operations in document["paths"].items():
        for method, operation in operations.items():
            assert set(operation["responses"]) == {"200", *statuses(route, method)}, (route, method)
    assert set(document["paths"]["/api/v1/health"]["get"]["responses"]) == {"200", "400", "403", "405", "408", "414", "431", "503"}
    assert statuses("/docs", "get") == [] and statuses("/", "get") == []  # the pages are not the API


def test_a_declared_error_schema_refuses_what_the_server_never_sends(client: TestClient) -> None:
    """The schema could fail: FastAPI's shape, and an error without a message, are not valid against it."""
    document = client.get("/openapi.json").json()
    for wrong in ({"detail": [{"loc": ["body"], "msg": "x", "type": "y"}]}, {"error": {"workbook": None}}):
        with pytest.raises(AssertionError):
            check_against_document(document, "/api/v1/resolve/table", "post", 422, wrong)
