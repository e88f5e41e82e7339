"""`tables serve` (docs/api.md): every answer of the HTTP API is what the same
command prints with ``--json``, errors included, with a status for each kind
of failure; each request reads one snapshot, and sees the next import."""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from fastapi.testclient import TestClient
from helpers import LOCAL_BASE, command_line, serving

from tables_app.http.app import create_app
from tables_app.services.database_setup import example_workbook
from tables_app.storage.database import Database

API = "/api/v1"


@pytest.fixture
def client(db_path: Path):  # type: ignore[no-untyped-def]
    with TestClient(create_app(db_path), base_url=LOCAL_BASE) as test_client:
        yield test_client


@pytest.fixture
def printed(run) -> None:  # type: ignore[no-untyped-def]
    """The example ruleset `Printed` imported beside the bundled tables: its
    critical codes S, K and P are the bundled tables' too."""
    assert run("import", str(example_workbook("printed"))).exit_code == 0


def cli_json(run, *args: str) -> tuple[int, Any]:  # type: ignore[no-untyped-def]
    result = run(*args, "--json")
    return result.exit_code, json.loads(result.stdout)


def same(response, run, *args: str, status: int = 200) -> Any:  # type: ignore[no-untyped-def]
    """The response is the command's --json, with the status for its exit code;
    a 422's message naming the request's fields where the command line's names
    its options (``'ruleset'`` for ``--ruleset``: http/app.py's fields_named)."""
    from tables_app.http.app import fields_named

    code, printed = cli_json(run, *args)
    if status == 422 and "error" in printed:
        words = tuple(args[:2]) if args[0] in ("resolve", "odds", "simulate", "query") else (args[0],)
        printed["error"]["message"] = fields_named(printed["error"]["message"], words)
    assert response.status_code == status, response.text
    assert response.json() == printed
    assert response.content == json.dumps(printed, ensure_ascii=False).encode()  # byte for byte
    assert (code == 0) == (status == 200)
    return printed


# ------------------------------------------------------------------ look-ups
LISTS = ["attack", "critical", "fumble", "weapons", "creatures", "rulesets", "severities", "weapon"]


@pytest.mark.parametrize("kind", LISTS)
def test_list(client, run, kind):
    same(client.get(f"{API}/{kind}"), run, "list", kind)


def test_list_in_a_ruleset(client, run, printed):
    same(client.get(f"{API}/weapons", params={"ruleset": "Printed"}), run, "list", "weapons", "--ruleset", "Printed")
    same(client.get(f"{API}/rulesets", params={"ruleset": "printed"}), run, "list", "rulesets", "--ruleset", "printed")


SHOWN = [("attack", "Edged"), ("critical", "Impact"), ("critical", "K"), ("fumble", "Melee Fumbles"),
         ("weapons", "Longsword"), ("weapon", "Morning Star"), ("creature", "Orc Warrior"), ("attack", "default:Edged"),
         ("weapons", "default:longsword")]


@pytest.mark.parametrize("kind, name", SHOWN)
def test_show(client, run, kind, name):
    same(client.get(f"{API}/{kind}/{name}"), run, "show", kind, name)


@pytest.mark.parametrize("kind, name, ruleset", [
    ("critical", "Printed:S", None), ("critical", "default:S", None), ("weapon", "Printed:Falchion", None),
    ("critical", "S", "Printed"), ("fumble", "Weapon Mishaps", None),
])
def test_show_qualified_names_and_rulesets(client, run, printed, kind, name, ruleset):
    params = {"ruleset": ruleset} if ruleset else {}
    shown = same(client.get(f"{API}/{kind}/{name}", params=params), run, "show", kind, name,
                 *(["--ruleset", ruleset] if ruleset else []))
    assert shown["ruleset"] in ("Printed", "default")


def test_a_creature_shows_its_attacks(client):
    shown = client.get(f"{API}/creature/Orc Warrior").json()
    assert shown["attacks"] == [{"weapon": "Scimitar", "cmb": 55}, {"weapon": "Shortbow", "cmb": 35}]
    listed = {c["name"]: c for c in client.get(f"{API}/creatures").json()["creatures"]}
    assert listed["Orc Warrior"]["attacks"] == shown["attacks"]


def test_names_are_url_encoded(client, run):
    """A space, a colon, even a slash: the path is decoded once, the name is whole."""
    same(client.get(f"{API}/fumble/Melee%20Fumbles"), run, "show", "fumble", "Melee Fumbles")
    same(client.get(f"{API}/attack/default%3AEdged"), run, "show", "attack", "default:Edged")
    same(client.get(f"{API}/weapon/Sword%2FAxe"), run, "show", "weapon", "Sword/Axe", status=404)


QUERIES = [
    ("attack", {"table": "Edged", "result": 120, "armor": "MA"}, ["Edged", "120", "MA"]),
    ("attack", {"table": "default:Edged", "result": -5, "armor": "ma"}, ["default:Edged", "-5", "ma"]),
    ("attack", {"table": "Blunt", "result": 175, "armor": "HA", "ruleset": "default"}, ["Blunt", "175", "HA", "--ruleset", "default"]),
    ("critical", {"table": "Impact", "roll": 60, "severity": "Lig", "has": "helm"},
     ["Impact", "60", "--severity", "Lig", "--has", "helm"]),
    ("critical", [("table", "K"), ("roll", "60"), ("has", "helm"), ("has", "tail")],  # an unknown feature: a warning
     ["K", "60", "--has", "helm", "--has", "tail"]),
    ("critical", {"table": "Cut", "roll": 1}, ["Cut", "1"]),
    ("fumble", {"table": "Melee Fumbles", "roll": 97, "modifier": 15}, ["Melee Fumbles", "97", "--modifier", "15"]),
    ("fumble", {"table": "Missile Fumbles", "roll": 3}, ["Missile Fumbles", "3"]),
]


@pytest.mark.parametrize("what, params, args", QUERIES)
def test_query(client, run, what, params, args):
    data = same(client.get(f"{API}/query/{what}", params=params), run, "query", what, *args)
    if ("has", "tail") in params:
        assert data["warnings"]


def test_query_printed_tables_by_column(client, run, printed):
    same(client.get(f"{API}/query/critical", params={"table": "Printed:S", "roll": 50, "severity": "C"}),
         run, "query", "critical", "Printed:S", "50", "--severity", "C")
    same(client.get(f"{API}/query/fumble", params={"table": "Weapon Mishaps", "roll": 50, "column": "1HE"}),
         run, "query", "fumble", "Weapon Mishaps", "50", "--column", "1HE")


# ------------------------------------------------------------------ resolve and odds
TABLE_ATTACK = {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA"}
ATTACKS = {
    "table": TABLE_ATTACK,
    "rise": {"accuracy": 6, "def": 12, "damage": "2d6+3"},
    "worlds-awakening": {"stat": 2, "weapon_bonus": 1, "level": 3, "def": 15, "damage": ["2d6+1", "1d4"], "cha": 2},
    "d10-pool": {"bonus": 3, "attacks": 2, "ad": 7, "toughness": 4, "damage": "2d6", "modifier": ["flat-footed"]},
    "pte": {"accuracy": 2, "ac": 2, "evasion": 3, "stat": 15, "damage_base": 10, "def": 15, "stab": True},
}


@pytest.mark.parametrize("system", sorted(ATTACKS))
def test_resolve_seeded_then_forced_dice(client, run, system):
    seeded = {**ATTACKS[system], "seed": 11}
    first = same(client.post(f"{API}/resolve/{system}", json=seeded), run, "resolve", system, *command_line(seeded))
    forced = {**ATTACKS[system], "dice": first["dice"]}
    replay = same(client.post(f"{API}/resolve/{system}", json=forced), run, "resolve", system, *command_line(forced))
    assert (replay["outcome"], replay["damage"]) == (first["outcome"], first["damage"])


@pytest.mark.parametrize("body", [
    {**TABLE_ATTACK, "dice": [97, 99, 45, 30]},
    {"weapon": "Morning Star", "cmb": 60, "target": "Orc Warrior", "seed": 3, "mod": ["flank=+10", "haste=-5"]},
    {"attack_table": "Edged", "critical": "Cut", "cmb": 80, "armor": "NA", "has": ["helm"], "rank": "heroic",
     "ignore_crit_reduction": True, "seed": 5},
    {"weapon": "Printed:Falchion", "cmb": 70, "armor": "1", "seed": 2},
    {"weapon": "Falchion", "ruleset": "Printed", "cmb": 70, "armor": "1", "dice": "96, 40, 50, 20"},
])
def test_resolve_table_options(client, run, printed, body):
    same(client.post(f"{API}/resolve/table", json=body), run, "resolve", "table", *command_line(body))


@pytest.mark.parametrize("body", [
    TABLE_ATTACK,
    {"weapon": "Longsword", "cmb": 0, "target": "Orc Warrior", "sweep_cmb": "0:150:10"},
    {**TABLE_ATTACK, "sweep_def": "0:40:20", "has": ["helm"]},
])
def test_odds_table(client, run, body):
    same(client.post(f"{API}/odds/table", json=body), run, "odds", "table", *command_line(body))


@pytest.mark.parametrize("system", sorted(set(ATTACKS) - {"table"}))
def test_odds_of_each_formula_system(client, run, system):
    body = ATTACKS[system]
    same(client.post(f"{API}/odds/{system}", json=body), run, "odds", system, *command_line(body))


def test_the_answers_are_the_rules_not_only_the_commands(client):
    """Answers checked against the bundled tables themselves (docs/table-system.md),
    not against the command line, which calls the same operation."""
    cell = client.get(f"{API}/query/attack", params={"table": "Edged", "result": 120, "armor": "MA"}).json()
    assert (cell["row"], cell["text"], cell["hits"], cell["severity"], cell["outcome"]) == ("116-120", "12 Lig", 12, "Lig",
                                                                                          "critical")
    below = client.get(f"{API}/query/attack", params={"table": "Edged", "result": -5, "armor": "MA"}).json()
    assert (below["row"], below["outcome"], below["hits"]) == (None, "miss", 0)  # below the first row: a miss (step 7)
    fumble = client.get(f"{API}/query/fumble", params={"table": "Melee Fumbles", "roll": 97, "modifier": 15}).json()
    assert (fumble["roll"], fumble["modified_roll"]) == (97, 112)
    # 97 + 99 + 45 opens high twice (241), + CMB 60 - DEF 20 = 281, capped at the Longsword's Max Result 150;
    # the damage is the cell's hits plus the critical's.
    hit = client.post(f"{API}/resolve/table", json={**TABLE_ATTACK, "dice": [97, 99, 45, 30]}).json()
    assert (hit["roll"]["total"], hit["uncapped_result"], hit["result"], hit["capped"]) == (241, 281, 150, True)
    assert hit["outcome"] == "critical" and hit["damage"] == hit["cell"]["hits"] + hit["critical"]["entry"]["hits"] == 22
    assert hit["critical"]["roll"] == 30 and hit["unused_dice"] == []
    odds = client.post(f"{API}/odds/table", json=TABLE_ATTACK).json()
    assert abs(sum(odds["outcomes"].values()) - 1) < 1e-9 and odds["outcomes"]["critical"] == 0.55
    shown = client.get(f"{API}/attack/Edged").json()
    assert shown["armor"] == ["NA", "LA", "MA", "HA"]
    row = next(r for r in shown["rows"] if r["range"] == hit["cell"]["row"] and not r["unmodified"])
    assert row["cells"][shown["armor"].index("MA")] == hit["cell"]["text"]  # the cell resolve read is the table's
    weapons = client.get(f"{API}/weapons").json()["weapons"]
    assert any(w["name"] == "Longsword" and w["ruleset"] == "default" for w in weapons)


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("url, params, args, status", [
    ("/weapons/Longswrd", {}, ["show", "weapon", "Longswrd"], 404),
    ("/attack/Edgd", {}, ["show", "attack", "Edgd"], 404),
    ("/attack/Nope:Edged", {}, ["show", "attack", "Nope:Edged"], 404),
    ("/weapons", {"ruleset": "Nope"}, ["list", "weapons", "--ruleset", "Nope"], 404),
    ("/query/attack", {"table": "Edged", "result": 120, "armor": "XA"}, ["query", "attack", "Edged", "120", "XA"], 404),
    ("/query/critical", {"table": "Impact", "roll": 60, "severity": "Deadly"},
     ["query", "critical", "Impact", "60", "--severity", "Deadly"], 404),
    ("/query/critical", {"table": "Impact", "roll": 160}, ["query", "critical", "Impact", "160"], 422),  # off the die
    ("/query/critical", {"table": "Impact", "roll": 60, "column": "Magic"},
     ["query", "critical", "Impact", "60", "--column", "Magic"], 422),
])
def test_lookup_errors(client, run, url, params, args, status):
    """What the operation refuses is refused alike on both faces."""
    error = same(client.get(API + url, params=params), run, *args, status=status)["error"]
    assert error["message"]
    if status == 404 and "Longswrd" in url:
        assert error["suggestions"] == ["Longsword"]


@pytest.mark.parametrize("url, params, status, message", [
    ("/query/attack", {"table": "Edged", "result": "lots", "armor": "MA"}, 422, "'result': 'lots' is not a whole number"),
    ("/query/attack", {"table": "Edged", "armor": "MA"}, 422, "'result': a value is required"),
    ("/query/attack", {"table": "Edged", "result": 2_000_000, "armor": "MA"}, 422,
     "'result': 2000000 is not between -1000000 and 1000000"),
    ("/query/fumble", {"table": "Melee Fumbles", "roll": 5, "modifier": 5000}, 422,
     "'modifier': 5000 is not between -1000 and 1000"),
    ("/query/critical", {"table": "Impact", "roll": 5, "has": " "}, 422, "'has': must not be empty"),
    ("/weapons", {"ruleset": " "}, 422, "'ruleset': must not be empty"),
    ("/query/fumble", {"table": "Melee Fumbles", "roll": 5, "modifer": 5}, 422, "'modifer': no such field (did you mean 'modifier'?)"),
    ("/nonsense", {}, 404, "'kind': 'nonsense' is not one of attack, critical, fumble, weapons, weapon, creatures, creature, "
                           "severities, severity, rulesets, ruleset"),  # a kind in the path that is none
])
def test_field_errors_name_the_field(client, url, params, status, message):
    """A field the declaration refuses is named as the request wrote it (docs/api.md)."""
    response = client.get(API + url, params=params)
    assert response.status_code == status, response.text
    assert response.json() == {"error": {"message": message, "workbook": None, "sheet": None, "cell": None}}


def test_an_ambiguous_name_is_422_with_the_qualified_names(client, run, printed):
    error = same(client.get(f"{API}/critical/S"), run, "show", "critical", "S", status=422)["error"]
    assert sorted(error["suggestions"]) == ["Printed:Hacking", "default:Cut"]


@pytest.mark.parametrize("system", sorted(ATTACKS))
def test_simulate(client, run, system):
    """Seeded, a simulation answers exactly the command's counts."""
    body = {**ATTACKS[system], "count": 2000, "seed": 5}
    answer = same(client.post(f"{API}/simulate/{system}", json=body), run, "simulate", system, *command_line(body))
    assert sum(answer["counts"].values()) == 2000


def test_simulate_is_bounded_over_http(client, run):
    """The command line takes 100,000,000 attacks; a request at most 1,000,000 (a second of CPU)."""
    body = {**TABLE_ATTACK, "count": 1_000_001, "seed": 1}
    response = client.post(f"{API}/simulate/table", json=body)
    assert response.status_code == 422
    assert response.json()["error"]["message"] == "'count': at most 1,000,000 over HTTP (the command line takes more)"
    past = client.post(f"{API}/simulate/table", json={**body, "count": 100_000_001})
    assert past.json()["error"]["message"] == "'count': 100000001 is not between 1 and 100000000"  # the operation's own bound first


def test_a_body_over_64_kb_is_413(client):
    response = client.post(f"{API}/resolve/table", content=b'{"x": "' + b"a" * 70_000 + b'"}',
                           headers={"content-type": "application/json"})
    assert response.status_code == 413
    assert response.json()["error"]["message"] == "the body is over 65,536 bytes"


@pytest.mark.parametrize("system, body, status", [
    ("table", {**TABLE_ATTACK, "weapon": "Longswrd", "seed": 1}, 404),  # unknown weapon
    ("table", {**TABLE_ATTACK, "target": "Orc Warior", "seed": 1}, 404),
    ("table", {**TABLE_ATTACK, "dice": [97]}, 422),  # too few dice (exit 1)
])
def test_resolve_errors(client, run, system, body, status):
    same(client.post(f"{API}/resolve/{system}", json=body), run, "resolve", system, *command_line(body), status=status)


@pytest.mark.parametrize("system, body, message", [
    ("table", {**TABLE_ATTACK, "cmb": 60_000}, "'cmb': 60000 is not between -10000 and 10000"),
    ("table", {**TABLE_ATTACK, "clumsy": "three"}, "'clumsy': 'three' is not a whole number"),
    ("table", {"cmb": 60, "armor": "MA"}, "give 'weapon', or the weapon's parts ('attack_table' and 'critical' missing)"),
    ("table", {"weapon": "Longsword", "armor": "MA"}, "'cmb': a value is required"),
    ("table", {**TABLE_ATTACK, "seed": 1, "dice": [5]}, "give 'seed' or 'dice', not both"),
    ("table", {**TABLE_ATTACK, "dice": "97,x"}, "'dice': '97,x' is not a list of whole numbers (e.g. 97,34,45)"),
    ("table", {**TABLE_ATTACK, "dice": [97, True]}, "'dice': dice are a list of whole numbers (or text: 97,34,45)"),
    ("table", {**TABLE_ATTACK, "mod": ["flank"]}, "'mod': 'flank' is not NAME=±N (e.g. flank=+10)"),
    ("table", {**TABLE_ATTACK, "mod": ["flank=+20000"]}, "'mod': 'flank=+20000': a modifier must be between -10000 and 10000"),
    ("table", {**TABLE_ATTACK, "rank": "legendary"}, "'rank': 'legendary' is not one of normal, heroic, epic"),
    ("table", {**TABLE_ATTACK, "armr": "MA"}, "'armr': no such field (did you mean 'armor'?)"),
    ("rise", {"accuracy": 1, "def": 5, "damage": "2x6", "seed": 1},
     "'damage': '2x6' is not a dice expression (write e.g. 2d6+3, 1d4 or 2d6+1d4+3)"),
    ("rise", {"accuracy": 1, "def": 5, "explode_on": 99, "seed": 1}, "'explode_on': 99 is not between 1 and 10"),
    ("rise", {"accuracy": 1, "defense": 500, "seed": 1}, "'def': 500 is not between -100 and 100"),  # an older spelling
    ("pte", {"accuracy": 2}, "'ac': a value is required"),
])
def test_resolve_field_errors_name_the_field(client, system, body, message):
    """Over HTTP a refusal names the JSON field, never a command-line option (docs/api.md)."""
    response = client.post(f"{API}/resolve/{system}", json=body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["message"] == message


def test_odds_errors(client, run):
    body = {**TABLE_ATTACK, "armor": "ZZ"}
    same(client.post(f"{API}/odds/table", json=body), run, "odds", "table", *command_line(body), status=404)


@pytest.mark.parametrize("body, message", [
    ({**TABLE_ATTACK, "sweep_cmb": "0:x"}, "sweep_cmb='0:x' is not A:B or A:B:STEP (whole numbers)"),
    ({**TABLE_ATTACK, "sweep_cmb": "0:10", "sweep_def": "0:10"}, "sweep one of 'sweep_cmb' and 'sweep_def' at a time"),
    ({**TABLE_ATTACK, "sweep_cmb": "0:100000"}, "sweep_cmb='0:100000' has more than 2000 steps"),
])
def test_odds_usage_mistakes_name_the_fields(client, run, body, message):
    """The operation's own usage mistakes name the JSON fields over HTTP, the options on the command line."""
    response = client.post(f"{API}/odds/table", json=body)
    assert response.status_code == 422
    assert response.json()["error"]["message"] == message
    assert run("odds", "table", *command_line(body)).stderr.endswith(
        f"Error: {message.replace(chr(39) + 'sweep_cmb' + chr(39), '--sweep-cmb').replace(chr(39) + 'sweep_def' + chr(39), '--sweep-def').replace('sweep_cmb=', '--sweep-cmb ')}\n")


def test_errors_the_command_line_cannot_make(client):
    """Refused before any command runs, in the same error object."""
    def error(response, status):  # type: ignore[no-untyped-def]
        assert response.status_code == status, response.text
        body = response.json()
        assert set(body) == {"error"} and body["error"]["message"]
        return body["error"]

    assert error(client.post(f"{API}/resolve/rice", json={}), 404)["suggestions"] == ["rise"]
    error(client.post(f"{API}/resolve/table", json=[1, 2]), 422)
    error(client.post(f"{API}/resolve/table", content=b"{not json", headers={"content-type": "application/json"}), 422)
    for field in ({"plot": "x.png"}, {"json": True}, {"help": True}, {"sweep-cmb": "0:10"}, {"cmb=5": 1}):
        assert "no such field" in error(client.post(f"{API}/odds/table", json={**TABLE_ATTACK, **field}), 422)["message"]
    assert error(client.post(f"{API}/resolve/table", json={**TABLE_ATTACK, "ignore_crit_reduction": "yes"}), 422)[
        "message"] == "'ignore_crit_reduction': true or false, not 'yes'"
    assert error(client.post(f"{API}/resolve/table", json={**TABLE_ATTACK, "cmb": [1, 2]}), 422)[
        "message"] == "'cmb': [1, 2] is not a whole number"
    error(client.post(f"{API}/resolve/table", json={**TABLE_ATTACK, "cmb": {"a": 1}}), 422)
    assert error(client.get(f"{API}/query/attack", params=[("table", "Edged"), ("table", "Blunt"), ("result", 5),
                                                          ("armor", "MA")]), 422)["message"] == "'table': give it once"
    error(client.get(f"{API}/query/sideways"), 404)
    error(client.get("/api/v2/health"), 404)
    error(client.delete(f"{API}/weapons"), 405)


# ------------------------------------------------------------------ the server
def test_health(client):
    response = client.get(f"{API}/health")
    assert response.status_code == 200
    from tables_app import __version__
    from tables_app.storage.connection import SCHEMA_HEAD

    assert response.json() == {"status": "ok", "version": __version__, "schema": SCHEMA_HEAD, "token_required": False,
                               "import_allowed": False}


def test_openapi_describes_the_api(client):
    assert client.get("/docs").status_code == 200
    spec = client.get("/openapi.json").json()
    assert "--json" in spec["info"]["description"]
    body = spec["paths"][f"{API}/resolve/table"]["post"]["requestBody"]["content"]["application/json"]
    assert body["examples"]["table"]["value"]["dice"] == [97, 99, 45, 30]
    assert body["schema"]["properties"]["cmb"] == {"type": "integer", "minimum": -10_000, "maximum": 10_000,
                                                   "description": "Combat bonus."}
    assert body["schema"]["required"] == ["cmb"]
    for system in ("rise", "worlds-awakening", "d10-pool", "pte"):
        assert f"{API}/resolve/{system}" in spec["paths"] and f"{API}/odds/{system}" in spec["paths"]
    query = {p["name"]: p for p in spec["paths"][f"{API}/query/critical"]["get"]["parameters"]}
    assert query["has"]["schema"]["type"] == "array" and query["roll"]["required"]


def test_each_request_reads_one_snapshot(client, monkeypatch):
    """A resolve reads the weapon, the target and four tables: all in one read
    transaction, so an import committed meanwhile is seen whole or not at all."""
    original = Database.snapshot
    begun: list[int] = []

    def counting(self):  # type: ignore[no-untyped-def]
        if not self._held:
            begun.append(1)
        return original(self)

    monkeypatch.setattr(Database, "snapshot", counting)
    response = client.post(f"{API}/resolve/table", json={"weapon": "Morning Star", "cmb": 60, "target": "Orc Warrior", "seed": 3})
    assert response.status_code == 200
    assert begun == [1]


def test_the_next_request_sees_another_process_import(client, run, mini_workbook):
    assert client.get(f"{API}/attack/Poke").status_code == 404
    assert client.get(f"{API}/weapons/Needle").status_code == 404
    assert run("import", str(mini_workbook)).exit_code == 0  # another process, as far as the app's connections go
    same(client.get(f"{API}/attack/Poke"), run, "show", "attack", "Poke")
    same(client.get(f"{API}/query/attack", params={"table": "Poke", "result": 35, "armor": "Cloth"}),
         run, "query", "attack", "Poke", "35", "Cloth")
    assert client.post(f"{API}/resolve/table", json={"weapon": "Needle", "cmb": 10, "armor": "Plate", "seed": 1}).status_code == 200


def test_a_missing_database_fails_at_creation(tmp_path):
    from tables_app.errors import DatabaseError

    with pytest.raises(DatabaseError):
        create_app(tmp_path / "none.db")


def test_serve_without_the_extra_is_one_line(run, monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # `import uvicorn` fails as if not installed
    result = run("serve")
    assert result.exit_code == 1
    assert result.stderr == "Error: the HTTP API needs the serve extra: pip install 'tables-app[serve]'\n"


def test_serve_answers_over_http(db_path):
    with serving(db_path) as (base, server):
        with urllib.request.urlopen(f"{base}{API}/health", timeout=5) as response:
            assert json.loads(response.read())["status"] == "ok"
        with urllib.request.urlopen(f"{base}{API}/query/attack?table=Edged&result=120&armor=MA", timeout=5) as response:
            assert json.loads(response.read())["text"] == "12 Lig"
    assert "Uvicorn running on http://127.0.0.1" in server.stdout.read()


def test_answers_from_many_threads_at_once_are_each_their_own(db_path):
    """Requests read at the same time in the server's threads (odds and
    simulate run in worker threads) each get their own values, and their
    own errors: nothing of a parse is shared between threads."""
    import threading

    from tables_app.http.app import operation_response
    from tables_app.services.server_database import PerThreadDatabases

    databases = PerThreadDatabases(db_path)
    wrong: list[str] = []

    def ask(index: int) -> None:
        for turn in range(60):
            cmb = index * 100 + turn
            if turn % 3 == 0:  # a bad option, whose error names it
                response = operation_response(databases, ("resolve", "table"), [*TABLE_ATTACK.items(), (f"bogus{index}", 1)])
                data = json.loads(response.body)
                if response.status_code != 422 or f"'bogus{index}'" not in data["error"]["message"]:
                    wrong.append(f"{index}: {data}")
                continue
            response = operation_response(databases, ("resolve", "table"), {**TABLE_ATTACK, "cmb": cmb, "dice": [42, 50, 50, 50, 50]}.items())
            data = json.loads(response.body)
            if response.status_code != 200 or data["attack"]["cmb"] != cmb:
                wrong.append(f"{index}: {response.status_code} {data.get('attack', data)}")

    threads = [threading.Thread(target=ask, args=(index,)) for index in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == []


def test_a_lone_surrogate_in_a_body_is_not_found_or_answered_escaped(client) -> None:  # type: ignore[no-untyped-def]
    """JSON's ``"\\udcff"`` (no Unicode text): over HTTP the field is refused
    by name, 422 (docs/api.md), in a name and in a modifier's label alike, never a 500."""
    headers = {"content-type": "application/json"}
    missing = client.post(f"{API}/resolve/table", content=b'{"weapon": "Long\\udcffsword", "cmb": 50, "armor": "MA"}', headers=headers)
    assert missing.status_code == 422
    assert missing.json()["error"]["message"].startswith("'weapon': not valid Unicode")
    labelled = client.post(f"{API}/resolve/table", content=b'{"weapon": "Dagger", "cmb": 50, "armor": "MA", "mod": ["\\udcff=3"]}',
                           headers=headers)
    assert labelled.status_code == 422
    assert labelled.json()["error"]["message"].startswith("'mod': not valid Unicode")


@pytest.mark.parametrize(("system", "body", "message"), [
    ("table", {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "dice": [5]},
     "'dice' gave 1 die; this attack needs at least 1 more: open-ended roll, low (d100)"),
    ("table", {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "dice": [101]},
     "die 1 of 'dice' is 101, but the attack roll is a d100 (1-100)"),
    ("rise", {"accuracy": 5, "damage": "2d6", "def": 3, "dice": [5]},
     "'dice' gave 1 die; this attack needs 2 more: damage roll (2d6) (d6), damage roll (2d6) (d6)"),
])
def test_dice_that_do_not_fit_are_told_by_the_field(client, system, body, message):
    """Issue 28: over HTTP an error names the JSON field, not the command line's --dice."""
    response = client.post(f"/api/v1/resolve/{system}", json=body)
    assert response.status_code == 422 and response.json()["error"]["message"] == message
