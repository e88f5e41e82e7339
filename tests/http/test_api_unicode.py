"""Text that is not valid Unicode (a lone surrogate, as JSON's "\\ud800"
reads) is refused by the declared parameters, naming the field: a 422 over
HTTP on every route, a ParamError from the library; never a 500."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from helpers import LOCAL_BASE, VALID_ATTACKS

import tables_app
from tables_app.http.app import create_app
from tables_app.operations import ParamError, find, system_ids
from tables_app.operations.attacks import GROUPS
from tables_app.operations.params import TEXTS

API = "/api/v1"
SURROGATES = ["\ud800", "\udfff", "Long\udc80sword"]
VALID = VALID_ATTACKS


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, bundled_db_template: Path):  # type: ignore[no-untyped-def]
    import shutil

    path = tmp_path_factory.mktemp("unicode") / "tables.db"
    shutil.copyfile(bundled_db_template, path)
    with TestClient(create_app(path), base_url=LOCAL_BASE, raise_server_exceptions=False) as test_client:
        yield test_client


def text_fields(words: tuple[str, ...]) -> list[tuple[str, bool]]:
    return [(p.field, p.multiple) for p in find(words).params if p.kind in TEXTS or p.kind == "dice"]


POSTS = [(verb, system, field, multiple) for verb in GROUPS for system in ("table", *system_ids())
         for field, multiple in text_fields((verb, system))]


def refused(response, field: str) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == 422, (field, response.status_code, response.text[:300])
    assert response.json()["error"]["message"] == f"{field!r}: not valid Unicode (a lone surrogate)"


@pytest.mark.parametrize("surrogate", SURROGATES[:2])
@pytest.mark.parametrize(("verb", "system", "field", "multiple"), POSTS)
def test_a_lone_surrogate_in_any_text_field_of_a_post_is_422(client, verb, system, field, multiple, surrogate):
    body = {**VALID[system], field: [surrogate] if multiple else surrogate}
    if verb == "simulate":
        body["count"] = 10
    response = client.post(f"{API}/{verb}/{system}", content=json.dumps(body).encode(),  # "\ud800", escaped, as JSON has it
                           headers={"Content-Type": "application/json"})
    refused(response, field)


def test_a_lone_surrogate_as_a_field_name_is_422(client):
    response = client.post(f"{API}/resolve/table", content=b'{"\\ud800": 1, "weapon": "Longsword"}',
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 422 and "no such field" in response.json()["error"]["message"]


@pytest.mark.parametrize("what", ["attack", "critical", "fumble"])
def test_a_query_string_cannot_carry_one(client, what):
    """Percent-decoding reads a surrogate's UTF-8 bytes as U+FFFD: an unknown name, never a 500."""
    for field, _ in text_fields(("query", what)):
        response = client.get(f"{API}/query/{what}?{field}=%ED%A0%80")
        assert response.status_code in (404, 422), (field, response.text[:300])
        json.loads(response.text)


@pytest.mark.parametrize("path", ["weapons/%ED%A0%80", "%ED%A0%80", "attack/%ED%A0%80", "critical/Edged?ruleset=%ED%A0%80",
                                  "weapons?ruleset=%ED%A0%80"])
def test_nor_a_path(client, path):
    response = client.get(f"{API}/{path}")
    assert response.status_code in (404, 422), response.text[:300]
    assert response.json()["error"]["message"]


@pytest.mark.parametrize("words", [("list",), ("show",), *[("query", what) for what in ("attack", "critical", "fumble")]])
def test_every_text_parameter_refuses_one(words):
    """The declared parameters (params.py) refuse it, for any face: list and show's path fields too."""
    for field, multiple in text_fields(words):
        param = find(words).by_field[field]
        with pytest.raises(ParamError, match="not valid Unicode"):
            param.read(["\ud800"] if multiple else "\ud800")


def test_the_library_refuses_one(db_path):
    with tables_app.Tables(db_path) as tables:
        with pytest.raises(ParamError, match=r"'weapon': not valid Unicode \(a lone surrogate\)"):
            tables.resolve(weapon="\ud800", cmb=60, defense=20, armor="MA", seed=1)
        with pytest.raises(ParamError, match="not valid Unicode"):
            tables.odds(weapon="Longsword", cmb=60, defense=20, armor="MA", target="\udfff")
