"""`tables serve` keeps each weapon's compiled tables between requests
(storage/compiled.py): the answers stay the command line's, byte for byte,
and an import by another process is seen by the very next request."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from helpers import LOCAL_BASE, MINI_ATTACK, MINI_CREATURES, MINI_CRITICAL, MINI_FUMBLE, MINI_SEVERITIES, MINI_WEAPONS

from tables_app.http.app import create_app
from tables_app.storage.compiled import CompiledTables
from tables_app.storage.connection import connect
from tables_app.storage.database import Database

API = "/api/v1"
BODY = {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA", "dice": [42]}


@pytest.fixture
def made(monkeypatch) -> list[CompiledTables]:  # type: ignore[no-untyped-def]
    """The caches the apps made in this test (one per app)."""
    from tables_app.storage import compiled

    caches: list[CompiledTables] = []

    class Recorded(CompiledTables):
        def __init__(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            super().__init__(*args, **kwargs)
            caches.append(self)

    monkeypatch.setattr(compiled, "CompiledTables", Recorded)
    return caches


@pytest.fixture
def app(db_path: Path, made):  # type: ignore[no-untyped-def]
    return create_app(db_path)


def compiled_of(app, made) -> CompiledTables:  # type: ignore[no-untyped-def]
    assert len(made) == 1
    return made[0]


def cli_json(run, *args: str) -> bytes:  # type: ignore[no-untyped-def]
    result = run(*args, "--json")
    return json.dumps(json.loads(result.stdout), ensure_ascii=False).encode()


def test_a_weapon_s_tables_are_read_once_and_answers_stay_the_cli_s(app, made, run):
    """Each weapon's table set is read once, and each attacker's rules (every
    row it reads) built once on it: an attack that differs in CMB and DEF only
    shares them, one whose CMB is below 0 (step 6) has its own."""
    with TestClient(app, base_url=LOCAL_BASE) as client:
        compiled = compiled_of(app, made)
        loads = compiled.loads
        expected = cli_json(run, "resolve", "table", "--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA",
                            "--dice", "42")
        for _ in range(5):
            response = client.post(f"{API}/resolve/table", json=BODY)
            assert response.status_code == 200
            assert response.content == expected
        assert compiled.loads == loads + 2  # its table set, the attacker's rules (the weapon's look-up: look_ups)
        look_ups = compiled.look_ups
        stronger = {**BODY, "cmb": 90, "def": 5, "dice": [42, 50]}  # the same attacker's rules, moved to this CMB and DEF
        response = client.post(f"{API}/resolve/table", json=stronger)
        assert response.status_code == 200  # a critical, read with the second die
        assert response.content == cli_json(run, "resolve", "table", "--weapon", "Longsword", "--cmb", "90", "--def", "5",
                                             "--armor", "MA", "--dice", "42,50")
        assert (compiled.loads, compiled.look_ups) == (loads + 2, look_ups)
        seeded = {**BODY, "dice": None, "seed": 4, "cmb": -5}  # another attacker on the same tables: its rules only
        response = client.post(f"{API}/resolve/table", json=seeded)
        assert response.content == cli_json(run, "resolve", "table", "--weapon", "Longsword", "--cmb", "-5", "--def", "20",
                                             "--armor", "MA", "--seed", "4")
        assert compiled.loads == loads + 3
        client.post(f"{API}/resolve/table", json={**BODY, "weapon": "Morning Star"})
        assert compiled.loads == loads + 5
        orc = {**BODY, "target": "Orc Warrior", "armor": None}  # the creature looked up once too
        for _ in range(3):
            response = client.post(f"{API}/resolve/table", json=orc)
            assert response.status_code == 200
        assert response.content == cli_json(run, "resolve", "table", "--weapon", "Longsword", "--cmb", "60", "--def", "20",
                                             "--target", "Orc Warrior", "--dice", "42")
        assert compiled.loads == loads + 6  # the rules on the creature's armor (the creature: look_ups)


def test_an_attack_table_queried_is_read_once(app, made, run):
    with TestClient(app, base_url=LOCAL_BASE) as client:
        compiled = compiled_of(app, made)
        loads = compiled.loads
        for result in ("5", "100", "400"):
            response = client.get(f"{API}/query/attack", params={"table": "Edged", "result": result, "armor": "MA"})
            assert response.content == cli_json(run, "query", "attack", "Edged", result, "MA")
        assert compiled.loads == loads + 1


def mini(write_workbook, cloth_21_30: object) -> Path:  # type: ignore[no-untyped-def]
    attack = [list(row) for row in MINI_ATTACK]
    row = next(r for r in attack if r and r[0] == "21–30")
    row[1] = cloth_21_30
    return write_workbook("mini.xlsx", {"Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Oops": MINI_FUMBLE,
                                        "Poke": attack, "Weapons": MINI_WEAPONS, "Creatures": MINI_CREATURES})


def test_an_import_while_the_app_is_alive_is_read_by_the_next_resolve(app, made, run, write_workbook):
    needle = {"weapon": "Needle", "cmb": 10, "armor": "Cloth", "dice": [15]}  # 15 + 10 = 25: Poke's row 21-30
    args = ["resolve", "table", "--weapon", "Needle", "--cmb", "10", "--armor", "Cloth", "--dice", "15"]
    assert run("import", str(mini(write_workbook, 5))).exit_code == 0
    with TestClient(app, base_url=LOCAL_BASE) as client:
        compiled = compiled_of(app, made)
        first = client.post(f"{API}/resolve/table", json=needle)
        assert first.json()["damage"] == 5 and first.content == cli_json(run, *args)
        assert client.post(f"{API}/resolve/table", json=needle).content == first.content  # from the cache
        generation = compiled.generation
        assert run("import", str(mini(write_workbook, 8))).exit_code == 0  # the same workbook, one cell changed
        second = client.post(f"{API}/resolve/table", json=needle)
        assert second.json()["damage"] == 8
        assert second.content == cli_json(run, *args)
        assert compiled.generation > generation


@pytest.mark.sqlite_only  # the file's path, SQLite's data_version
def test_a_transaction_older_than_the_cache_neither_reads_nor_fills_it(db_path):
    """Two connections; the second begins after a commit the first's snapshot
    does not hold: each sees its own tables, and the older never fills the cache."""
    compiled = CompiledTables()
    old, new = Database("sqlite:///" + str(db_path), db_path), Database("sqlite:///" + str(db_path), db_path)
    old.compiled = new.compiled = compiled
    writer = connect(db_path)
    try:
        with old.snapshot():
            old_generation = old._generation
            writer.execute("UPDATE weapon SET max_result = 7")  # another process commits (autocommit)
            with new.snapshot():
                assert new._generation == old_generation + 1
                assert compiled.kept(new._generation, "k", lambda: "new") == "new"
            assert compiled.kept(old_generation, "k", lambda: "old") == "old"  # not the newer one
            assert compiled.kept(old_generation, "k", lambda: "again") == "again"  # and not kept
        with new.snapshot():
            assert compiled.kept(new._generation, "k", lambda: "reloaded") == "new"  # nothing committed since
        with old.snapshot():  # its data_version moved: a new generation, the cache emptied
            assert old._generation == old_generation + 2
            assert compiled.kept(old._generation, "k", lambda: "fresh") == "fresh"
    finally:
        writer.close()
        old.dispose()
        new.dispose()


def test_the_cache_holds_at_most_its_limit(db_path):
    compiled = CompiledTables(limit=2)
    connection = sqlite3.connect(db_path)
    try:
        generation = compiled.pin(connection)
        for key in "abc":
            compiled.kept(generation, key, lambda: key)
        assert compiled.kept(generation, "a", lambda: "read again") == "read again"
        assert compiled.kept(generation, "c", lambda: "x") == "c"
    finally:
        connection.close()


def test_the_command_line_never_loads_the_cache(db_path):
    probe = ("import sys; sys.argv[0] = 'tables'\n"
             "from tables_app.cli.root import main\n"
             "try:\n    main()\nfinally:\n    sys.stderr.write('LOADED %s' % ('tables_app.storage.compiled' in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", probe, "--db", str(db_path), "resolve", "table", "--weapon", "Longsword",
                          "--cmb", "60", "--armor", "MA", "--seed", "1", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stderr.endswith("LOADED False")


def test_a_resolve_whose_tables_are_kept_sends_its_generation_and_commit_only_and_sees_the_next_import(
        db_path, made, run, write_workbook, monkeypatch, on_postgres):  # type: ignore[no-untyped-def]
    """The weapon, the creature and the names they use are kept with the
    tables (compiled.KeptReader): a resolve asked again reads only the
    generation, in one round trip with its BEGIN on PostgreSQL (statements
    counted through the seam: a call is a round trip), and its COMMIT. An
    import by another process (a new generation) changes the next answer."""
    from tables_app.storage import postgres

    sent: list[str] = []
    if on_postgres:
        execute = postgres.PgCursor.execute

        def counted(self, statement, params=()):  # type: ignore[no-untyped-def]
            sent.append(statement)
            return execute(self, statement, params)

        monkeypatch.setattr(postgres.PgCursor, "execute", counted)
    else:
        connect = sqlite3.connect

        def traced(*args, **kwargs):  # type: ignore[no-untyped-def]
            made_connection = connect(*args, **kwargs)
            made_connection.set_trace_callback(sent.append)
            return made_connection

        monkeypatch.setattr(sqlite3, "connect", traced)

    def book(needle_max: int, scarecrow_def: int) -> Path:
        weapons = [list(row) for row in MINI_WEAPONS]
        next(row for row in weapons if row and row[0] == "Needle")[2] = needle_max
        creatures = [list(row) for row in MINI_CREATURES]
        next(row for row in creatures if row and row[0] == "Scarecrow")[1] = scarecrow_def
        return write_workbook("mini.xlsx", {"Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Oops": MINI_FUMBLE,
                                            "Poke": MINI_ATTACK, "Weapons": weapons, "Creatures": creatures})

    body = {"weapon": "Needle", "cmb": 10, "target": "Scarecrow", "dice": [15]}
    args = ["resolve", "table", "--weapon", "Needle", "--cmb", "10", "--target", "Scarecrow", "--dice", "15"]
    assert run("import", str(book(60, 0))).exit_code == 0
    app = create_app(db_path)
    with TestClient(app, base_url=LOCAL_BASE) as client:
        first = client.post(f"{API}/resolve/table", json=body)  # 25: Poke's row 21-30 on Cloth
        assert first.json()["damage"] == 5 and first.content == cli_json(run, *args)
        sent.clear()
        assert client.post(f"{API}/resolve/table", json=body).content == first.content
        if on_postgres:
            assert sent == ["BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT number FROM generation WHERE id = 1", "COMMIT"]
        else:
            assert sent == ["BEGIN", "PRAGMA data_version", "COMMIT"]
        for needle_max, scarecrow_def, damage in ((20, 0, 2), (60, 20, 0)):  # capped at 20: row 11-20; 25 - 20: row 1-10
            assert run("import", str(book(needle_max, scarecrow_def))).exit_code == 0
            answer = client.post(f"{API}/resolve/table", json=body)
            assert answer.json()["damage"] == damage
            assert answer.content == cli_json(run, *args)
        assert run("remove", "mini.xlsx").exit_code == 0
        assert client.post(f"{API}/resolve/table", json=body).status_code == 404
