"""The game master's page (docs/api.md, "The page"): `/` and its two static
files come from the package, with their types and a Content-Security-Policy;
nothing else is served from there; the files name no address outside the
server; and every API call the script makes exists and answers."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from helpers import LOCAL_BASE

from tables_app.http.app import create_app
from tables_app.http.page import FILES

PAGE_FILES = ("index.html", "app.js", "style.css", "favicon.svg")


@pytest.fixture
def client(db_path: Path):  # type: ignore[no-untyped-def]
    with TestClient(create_app(db_path), base_url=LOCAL_BASE) as test_client:
        yield test_client


def text_of(name: str) -> str:
    return resources.files("tables_app.http.page").joinpath(name).read_text(encoding="utf-8")


# ------------------------------------------------------------------ the page
def test_the_page_is_html_for_a_phone_with_its_script_and_style(client):
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"] == "text/html; charset=utf-8"
    html = response.text
    assert html == text_of("index.html")
    assert re.search(r'<meta name="viewport" content="width=device-width, initial-scale=1">', html)
    assert '<script src="/static/app.js"' in html
    assert '<link rel="stylesheet" href="/static/style.css">' in html
    assert client.head("/").status_code == 200


def test_the_page_has_a_content_security_policy_it_can_keep(client):
    response = client.get("/")
    assert response.headers["content-security-policy"] == "default-src 'self'"
    assert response.headers["x-content-type-options"] == "nosniff"
    html = text_of("index.html")
    # default-src 'self' refuses inline script, inline style and handlers: the page has none.
    assert re.findall(r"<script(?![^>]*\bsrc=)", html) == []
    assert "<style" not in html
    assert re.search(r"\sstyle=", html) is None
    assert re.search(r"\son[a-z]+=", html) is None
    assert "setAttribute(\"style\"" not in text_of("app.js")


@pytest.mark.parametrize(("name", "content_type"), [("app.js", "text/javascript; charset=utf-8"),
                                                    ("style.css", "text/css; charset=utf-8")])
def test_the_static_files_are_served_with_their_types(client, name, content_type):
    response = client.get(f"/static/{name}")
    assert response.status_code == 200
    assert response.headers["content-type"] == content_type
    assert response.headers["content-security-policy"] == "default-src 'self'"
    assert response.text == text_of(name)
    assert FILES[name] == content_type


@pytest.mark.parametrize("path", [
    "/static/../api.py", "/static/%2e%2e/api.py", "/static/..%2Fapi.py", "/static/..%2F..%2Fpyproject.toml",
    "/static/api.py", "/static/__init__.py", "/static/index.html", "/static/", "/static/APP.JS",
    "/static/app.js%00.py", "/static/nothing.css", "/api.py", "/index.html",
])
def test_nothing_else_is_served(client, path):
    response = client.get(path)
    assert response.status_code == 404, path
    assert "error" in response.json()
    assert "import" not in response.text  # no source file's text


def test_the_page_is_not_in_the_api_schema(client):
    paths = client.get("/openapi.json").json()["paths"]
    assert "/" not in paths
    assert not any(path.startswith("/static") for path in paths)


@pytest.mark.parametrize("name", PAGE_FILES)
def test_the_page_files_name_no_address_outside_the_server(name):
    text = text_of(name).lower().replace('xmlns="http://www.w3.org/2000/svg"', "")  # a namespace's name, never fetched
    assert "http://" not in text
    assert "https://" not in text
    assert "//cdn" not in text
    assert not re.search(r"""(src|href)=["']//""", text)
    assert "@import" not in text and "url(" not in text  # no font, image or stylesheet to fetch


def test_the_page_files_ship_in_the_package():
    """FILES names exactly the files of the package's web folder (the wheel
    takes the whole tables_app folder)."""
    folder = resources.files("tables_app.http.page")
    shipped = {entry.name for entry in folder.iterdir() if entry.name not in ("__init__.py", "__pycache__")}
    assert shipped == set(FILES) == set(PAGE_FILES)


# ------------------------------------------------------------------ the API calls the script makes
def fetched_paths() -> set[str]:
    """The /api/v1 paths app.js calls: call("/...") with a literal or template string."""
    script = text_of("app.js")
    return set(re.findall(r"""call\(\s*[`"'](/[^`"'?$]*)""", script)) | set(
        re.findall(r"""\[((?:\s*"/[a-z]+",?)+)\]\.map\(\(path\) => call\(path\)\)""", script)[0].replace('"', "")
        .replace(" ", "").strip(",").split(","))


# A sensible request for each path the script calls, and the statuses it may answer.
SAMPLES: dict[str, tuple[str, object, tuple[int, ...]]] = {
    "/health": ("GET", None, (200,)),
    "/weapons": ("GET", None, (200,)),
    "/creatures": ("GET", None, (200,)),
    "/attack": ("GET", None, (200,)),
    "/critical": ("GET", None, (200,)),
    "/fumble": ("GET", None, (200,)),
    "/critical/": ("GET", "Cut", (200,)),
    "/fumble/": ("GET", "Melee%20Fumbles", (200,)),
    "/query/fumble": ("GET", {"table": "Melee Fumbles", "roll": "50", "modifier": "0"}, (200,)),
    "/attack/": ("GET", "Edged", (200,)),
    "/query/critical": ("GET", {"table": "Cut", "roll": "50", "severity": "Gri", "ruleset": "default"}, (200,)),
    "/resolve/table": ("POST", {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA",
                                "dice": [97, 99, 45, 30]}, (200,)),
    "/odds/table": ("POST", {"weapon": "Longsword", "cmb": 60, "target": "Orc Warrior", "mod": ["flank=+10"]}, (200,)),
    "/fights": ("GET", None, (200,)),
    "/fights/": ("GET", "Ambush", (200,)),  # a fight's routes (fightPath): the fight made first (ask)
}


def test_the_script_calls_only_known_paths():
    assert fetched_paths() == set(SAMPLES)


def ask(client, path: str, headers: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    """The script's call of ``path``, made with SAMPLES' request."""
    method, sample, _statuses = SAMPLES[path]
    if path == "/fights/":
        client.post("/api/v1/fights", json={"name": sample}, headers=headers)  # refused if there (or without the token)
    if method == "POST":
        return client.post(f"/api/v1{path}", json=sample, headers=headers)
    if isinstance(sample, dict):
        return client.get(f"/api/v1{path}", params=sample, headers=headers)
    return client.get(f"/api/v1{path}{sample or ''}", headers=headers)


@pytest.mark.parametrize("path", sorted(SAMPLES))
def test_every_call_of_the_script_answers(client, path):
    response = ask(client, path)
    assert response.status_code in SAMPLES[path][2], response.text
    assert "error" not in response.json()


# ------------------------------------------------------------------ the token (TABLES_TOKEN)
TOKEN = "t0ken-for-the-web-test-12345"


class Elements(HTMLParser):
    """The page's elements, in order: (tag, attributes, ids of the elements around it)."""

    VOID = {"meta", "link", "input", "br", "img", "hr", "source", "col", "area", "base", "wbr", "track"}

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None], list[str]]] = []
        self.open: list[tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        attributes = dict(attrs)
        self.found.append((tag, attributes, [tag_id for _tag, tag_id in self.open]))
        if tag not in self.VOID:
            self.open.append((tag, attributes.get("id") or tag))

    def handle_endtag(self, tag):  # type: ignore[no-untyped-def]
        while self.open and self.open.pop()[0] != tag:
            pass


def test_the_page_has_a_hidden_form_that_asks_for_the_token():
    parser = Elements()
    html = text_of("index.html")
    parser.feed(html)
    by_id = {attrs["id"]: (tag, attrs, around) for tag, attrs, around in parser.found if attrs.get("id")}
    assert "hidden" in by_id["token-box"][1]  # a server without a token never shows it
    tag, attrs, around = by_id["token"]
    assert (tag, attrs["type"]) == ("input", "password")
    assert "label" in around and "token-form" in around  # labelled, and in the form
    tag, attrs, around = by_id["token-save"]
    assert (tag, attrs.get("type")) == ("button", "submit") and "token-form" in around
    assert "hidden" in by_id["token-message"][1] and by_id["token-message"][1]["role"] == "alert"
    box = html[html.index('id="token-box"'):html.index('id="attack-view"')]
    assert "TABLES_TOKEN" in box and "refused this token" in box


def test_the_script_calls_the_server_in_one_place_that_sends_the_token():
    script = text_of("app.js")
    assert script.count("fetch(") == 1
    helper = script[script.index("async function call("):]
    helper = helper[:helper.index("\n}\n")]
    assert "fetch(API + path" in helper
    assert re.search(r"headers\.Authorization = `Bearer \$\{token\}`", helper)


@pytest.fixture
def guarded(db_path: Path):  # type: ignore[no-untyped-def]
    with TestClient(create_app(db_path, token=TOKEN), base_url=LOCAL_BASE) as test_client:
        yield test_client


def test_with_a_token_the_page_stays_open_and_health_says_so(guarded):
    for path in ("/", "/static/app.js", "/static/style.css"):
        assert guarded.get(path).status_code == 200, path
    health = guarded.get("/api/v1/health").json()
    assert health["token_required"] is True


@pytest.mark.parametrize("path", sorted(set(SAMPLES) - {"/health"}))
def test_with_a_token_every_call_of_the_script_needs_the_header_it_sends(guarded, path):
    refused = ask(guarded, path)
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
    assert refused.json()["error"]["message"]  # what errorBox shows beside the form
    assert ask(guarded, path, {"Authorization": f"Bearer {TOKEN}x"}).status_code == 401
    response = ask(guarded, path, {"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code in SAMPLES[path][2], response.text


def test_the_answers_have_what_the_script_reads(client):
    """The fields app.js lays out are in the answers (docs/cli.md's shapes)."""
    resolved = client.post("/api/v1/resolve/table", json=SAMPLES["/resolve/table"][1]).json()
    assert {"outcome", "damage", "dice", "steps", "roll", "result", "uncapped_result", "capped", "cell", "critical",
            "secondary_critical", "more_criticals", "cancelled_critical", "fumble", "attack"} <= set(resolved)
    assert {"severity", "rolled_severity", "reduction", "table", "roll", "modified_roll", "entry",
            "other_branch", "severity_why"} <= set(resolved["critical"])
    seeded = client.post("/api/v1/resolve/table", json={"weapon": "Longsword", "cmb": 60, "target": "Orc Warrior"}).json()
    assert isinstance(seeded["seed"], int)  # no dice: the server rolled, and says how
    odds = client.post("/api/v1/odds/table", json=SAMPLES["/odds/table"][1]).json()
    assert set(odds["outcomes"]) == {"fumble", "miss", "ineffective", "no_damage", "hit", "critical"}
    assert abs(sum(odds["outcomes"].values()) - 1) < 1e-9
    assert isinstance(odds["expected_damage"], float) and "critical_severity" in odds
    shown = client.get("/api/v1/attack/Edged").json()
    assert {"table", "armor", "rows", "ruleset", "automatic_miss"} <= set(shown)
    assert {"range", "unmodified", "cells"} <= set(shown["rows"][0])
    armor = {w["name"]: w for w in client.get("/api/v1/attack").json()["attack"]}["Edged"]["armor"]
    assert armor == shown["armor"]


def test_the_page_words_an_entrys_effects_as_the_server_does(client):
    """Issue 41: one wording of an entry's effects; the page shows the entry's `effect_words` (domain/effects.py)
    and words none itself, so an effect the server says is never missing from the page."""
    from tables_app.domain.effects import effect_words

    resolved = client.post("/api/v1/resolve/table", json=SAMPLES["/resolve/table"][1]).json()
    entry = resolved["critical"]["entry"]
    assert entry["effect_words"] == effect_words(entry) != ""
    script = text_of("app.js")
    assert "return e.effect_words" in script
    assert "c.severity_why ?" in script  # why a severity is not the one rolled, as the server says it
    assert "must parry ${e." not in script and "bleed ${e." not in script


@pytest.mark.parametrize(("path", "body"), [
    ("/resolve/table", {"weapon": "Longswrd", "cmb": 60, "def": 20, "armor": "MA", "dice": [50]}),
    ("/resolve/table", {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "dice": "97, x"}),
    ("/resolve/table", {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "dice": [97]}),
    ("/odds/table", {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "mod": ["flank"]}),
])
def test_the_errors_the_script_shows_are_messages(client, path, body):
    """What a game master can get wrong answers 404 or 422 with a message (shown by errorBox)."""
    response = client.post(f"/api/v1{path}", json=body)
    assert response.status_code in (404, 422), response.text
    assert response.json()["error"]["message"]


# ------------------------------------------------------------------ a fight's chances (issue #30)
def script_constant(name: str) -> str:
    found = re.search(rf"^const {name} = (.+?);(?:\s*//.*)?$", text_of("app.js"), re.MULTILINE)
    assert found, name
    return found.group(1)


def test_the_fight_view_has_a_chances_control():
    """docs/api.md, "The page": *Chances* in the fight view: its rounds (1 to 200, as odds fight's) and its button."""
    parser = Elements()
    parser.feed(text_of("index.html"))
    by_id = {attrs["id"]: (tag, attrs, around) for tag, attrs, around in parser.found if attrs.get("id")}
    for name in ("fight-chances-rounds", "fight-chances-go", "fight-chances-out"):
        assert "fight-area" in by_id[name][2] and "fight-chances" in by_id[name][2], name  # in the fight's view
    tag, attrs, around = by_id["fight-chances-rounds"]
    assert (tag, attrs["type"], attrs["min"], attrs["max"]) == ("input", "number", "1", "200")  # odds fight's --rounds
    assert attrs["value"] == script_constant("CHANCES_ROUNDS") == "20"
    assert "label" in around
    assert by_id["fight-chances-go"][0] == "button" and by_id["fight-chances-go"][1]["type"] == "button"
    assert by_id["fight-chances-out"][1]["aria-live"] == "polite"
    script = text_of("app.js")
    assert '$("fight-chances-go").addEventListener("click", fightChances)' in script


def test_the_chances_ask_the_odds_once():
    """issue 42: the script asks …/odds once and shows what it answers, exact or estimated (no refusal to wait for,
    no second request)."""
    script = text_of("app.js")
    asked = script[script.index("async function fightChances()"):]
    asked = asked[:asked.index("\n}\n")]
    assert asked.count("call(") == 1 and "call(`/fights/${encodeURIComponent(name)}/odds?rounds=${rounds}`)" in asked
    assert "/simulate" not in asked


def started_fight(client, name: str, *joining: dict) -> None:  # type: ignore[no-untyped-def]
    assert client.post("/api/v1/fights", json={"name": name}).status_code == 200
    for combatant in joining:
        assert client.post(f"/api/v1/fights/{name}/combatants", json=combatant).status_code == 200


def test_the_chances_of_a_fight_too_large_to_work_out_exactly_come_estimated(client):
    """What the page reads of the odds' answer: `method`, `why`, `largest_se`, each share's `se`; and the refusals
    it shows as they are (an ended fight, one side)."""
    started_fight(client, "Duel", {"as": "Hero", "hits": 50, "def": 20, "armor": "MA", "weapon": "Longsword", "cmb": 60},
                  {"creature": "Orc Warrior"})
    data = client.get("/api/v1/fights/Duel/odds", params={"rounds": script_constant("CHANCES_ROUNDS"), "time": 0.3}).json()
    assert data["method"] == "estimated" and data["why"] and data["largest_se"] > 0
    assert all("se" in r for r in data["rounds"])
    script = text_of("app.js")
    for key in ("data.method", "data.why", "data.largest_se", "r.se.sides[side]", "data.side_names"):
        assert key in script, key
    started_fight(client, "Alone", {"as": "Hero", "hits": 5, "armor": "MA", "weapon": "Longsword", "cmb": 60})
    started_fight(client, "Over", {"as": "Hero", "hits": 5, "armor": "MA", "weapon": "Longsword", "cmb": 60},
                  {"creature": "Goblin Scout", "hits": 3})
    client.post("/api/v1/fights/Over/edits", json={"combatant": "Goblin Scout #1", "status": "dead"})
    for name in ("Alone", "Over"):
        assert client.get(f"/api/v1/fights/{name}/odds").status_code == 422


def test_the_chances_answers_have_what_the_script_reads(client):
    """The fields chancesParts and chancesChart lay out (docs/fights.md's JSON of odds fight and simulate fight)."""
    started_fight(client, "Quick", {"as": "Hero", "hits": 3, "armor": "MA", "weapon": "Longsword", "cmb": 60},
                  {"creature": "Goblin Scout", "hits": 3})
    exact = client.get("/api/v1/fights/Quick/odds", params={"rounds": 2, "exact": True}).json()
    simulated = client.get("/api/v1/fights/Quick/simulate", params={"rounds": 2, "count": 100, "seed": 1}).json()
    for data in (exact, simulated):
        assert {"fight", "seq", "from_round", "rounds", "expected_rounds", "unfinished"} <= set(data)
        assert {"round", "sides", "combatants"} <= set(data["rounds"][-1])
        assert set(data["rounds"][-1]["combatants"]["Hero"]) == {"down", "dead"}
    assert (exact["method"], simulated["method"]) == ("exact", "estimated")  # how the script tells the two apart
    assert {"count", "seed"} <= set(simulated) and "expected_rounds" in simulated["se"]
    assert set(simulated["rounds"][0]["se"]["sides"]) == set(simulated["rounds"][0]["sides"]) == {"A", "B"}
