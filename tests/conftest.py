"""Shared fixtures: workbooks written on the fly, databases in tmp_path.

Only fixtures live here; the helpers tests import are in tests/helpers.py."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Callable

import pytest
from click.testing import CliRunner

from helpers import MINI_ATTACK, MINI_CREATURES, MINI_CRITICAL, MINI_FUMBLE, MINI_SEVERITIES, MINI_WEAPONS, Rows, build_workbook, db_dump

from tables_app.cli.root import cli
from tables_app.services.database_setup import init_database, open_database


@pytest.fixture
def write_workbook(tmp_path: Path) -> Callable[..., Path]:
    def write(name: str, sheets: dict[str, Rows], **kwargs: object) -> Path:
        return build_workbook(tmp_path / name, sheets, **kwargs)

    return write


@pytest.fixture(autouse=True)
def no_user_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No test reads ``$TABLES_DB`` or the real user data directory: the
    default location is under ``tmp_path/user-data`` (returned).
    XDG_DATA_HOME carries it to subprocesses too (platformdirs on Linux)."""
    from tables_app.storage import location

    monkeypatch.delenv(location.ENV_VAR, raising=False)
    data_home = tmp_path / "user-data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data_home))
    default = data_home / "tables-app" / "tables.db"  # where platformdirs puts it under XDG_DATA_HOME
    monkeypatch.setattr(location, "default_database_path", lambda: default)
    return default


# ------------------------------------------------------------------ the collector's work
# A full collection walks every object the worker holds (modules, caches, the
# apps of earlier tests), and the heavy HTTP requests ask for one each
# (http/fights.py give_back): ~0.5 s each, a third of the suite's time. As
# `tables serve` freezes what it keeps for its life (http/app.py
# freeze_long_lived), what exists before a test's body is frozen while it runs:
# its collections walk what the test made. The garbage cycles thereby kept
# from those collections go in a full one every COLLECT_EVERY tests.
COLLECT_EVERY = 500
_tests_since_collect = 0

# FastAPI classifies each endpoint (a coroutine? a generator?) through
# lru_caches of 4,096 entries that hold the endpoint itself: a server has one
# app, but a test process makes one app a test, and those caches kept ~40 of
# them (~400,000 objects) alive. Emptied after each test, the apps go with their tests.
FASTAPI_CALL_CACHES = ("_is_gen_callable_cached", "_is_async_gen_callable_cached", "_is_coroutine_callable_cached")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    import gc

    gc.freeze()
    try:
        return (yield)
    finally:
        gc.unfreeze()


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    import gc
    import sys

    global _tests_since_collect
    models = sys.modules.get("fastapi.dependencies.models")
    for name in FASTAPI_CALL_CACHES:
        cached = getattr(models, name, None)
        if cached is not None:
            cached.cache_clear()
    _tests_since_collect += 1
    if _tests_since_collect >= COLLECT_EVERY:
        _tests_since_collect = 0
        gc.collect()


# ------------------------------------------------------------------ the test database, on SQLite or PostgreSQL
# `pytest --postgres` runs every test that uses the test database (db_path,
# opened, run, dump) on a PostgreSQL database of $TABLES_TEST_POSTGRES's
# server instead of a SQLite file, and deselects the others (the plain
# `pytest` runs them); tests of what only a SQLite file has are marked
# sqlite_only, and so is, without saying, a test that opens the file with
# sqlite3 itself. README, "Tests".
DATABASE_FIXTURES = {"db_path", "opened", "run", "dump"}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--postgres", action="store_true",
                     help="run the tests that use the test database on PostgreSQL ($TABLES_TEST_POSTGRES) instead of SQLite")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--postgres"):
        return
    import inspect

    kept, dropped = [], []
    for item in items:
        uses = set(getattr(item, "fixturenames", ()))
        function = getattr(item, "function", None)
        opens_the_file = function is not None and "sqlite3" in inspect.getsource(function)
        on_database = uses & DATABASE_FIXTURES and not item.get_closest_marker("sqlite_only") and not opens_the_file
        (kept if on_database else dropped).append(item)
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept


class ServerDatabase(str):
    """The test database on PostgreSQL: its URL, where a SQLite test has its
    path (``str(db_path)``). ``read_bytes()``, which a test compares before
    and after to say "nothing changed", is its every table and row (helpers.db_dump)."""

    def read_bytes(self) -> bytes:
        return "\n".join(db_dump(self)).encode()  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def on_postgres(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--postgres"))


@pytest.fixture(scope="session")
def bundled_db_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database built once (migrated + bundled tables) for copying."""
    path = tmp_path_factory.mktemp("template") / "tables.db"
    init_database(str(path)).dispose()
    return path


class _Reused:
    """One database of the test server per worker, put back as the bundled
    database was after each test (a new database per test would cost a
    second each): every table emptied and refilled from a pristine copy held
    in a schema of its own, the id sequences set past the ids; a database
    whose tables or columns a test changed is made afresh instead."""

    def __init__(self, server: str, template: str):
        import psycopg

        self.server, self.template = server, template
        self.name = f"tables_reused_{uuid.uuid4().hex[:16]}"
        _create(server, self.name, template)
        self.url = on_database(server, self.name)
        with psycopg.connect(self.url, autocommit=True) as connection:
            self.tables = [name for (name,) in connection.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' "
                "ORDER BY table_name")]
            self.shape = self._shape(connection)
            connection.execute("CREATE SCHEMA pristine")
            for table in self.tables:
                connection.execute(f'CREATE TABLE pristine."{table}" AS SELECT * FROM public."{table}"')

    @staticmethod
    def _shape(connection) -> list[tuple]:  # type: ignore[no-untyped-def]
        return connection.execute(
            "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns "
            "WHERE table_schema = 'public' ORDER BY table_name, column_name").fetchall()

    def reset(self) -> None:
        import psycopg

        with psycopg.connect(self.server, autocommit=True) as admin:  # a server or a thread a test left behind
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                          (self.name,))
            admin.execute(f'ALTER DATABASE "{self.name}" RESET ALL')
        with psycopg.connect(self.url) as connection:
            if self._shape(connection) != self.shape:
                connection.close()
                _drop(self.server, self.name)
                self.__init__(self.server, self.template)  # type: ignore[misc]
                return
            listed = ", ".join(f'public."{table}"' for table in self.tables)
            connection.execute(f"TRUNCATE {listed} RESTART IDENTITY CASCADE")
            connection.execute("SET CONSTRAINTS ALL DEFERRED")
            # attack cells last: their references are checked when each statement ends (storage/cell_keys.py)
            for table in sorted(self.tables, key=lambda table: table == "attack_cell"):
                connection.execute(f'INSERT INTO public."{table}" SELECT * FROM pristine."{table}"')
            for (sequence, table) in connection.execute(
                    "SELECT pg_get_serial_sequence(quote_ident(table_name), 'id'), table_name FROM information_schema.columns "
                    "WHERE table_schema = 'public' AND column_name = 'id'").fetchall():
                if sequence:
                    connection.execute(f"SELECT setval(%s, coalesce((SELECT max(id) FROM public.\"{table}\"), 0) + 1, false)",
                                       (sequence,))
            connection.commit()


@pytest.fixture(scope="session")
def reused_postgres(postgres_server: str, postgres_template: str) -> Iterator[_Reused]:
    reused = _Reused(postgres_server, postgres_template)
    yield reused
    _drop(postgres_server, reused.name)


@pytest.fixture
def db_path(request: pytest.FixtureRequest, tmp_path: Path, on_postgres: bool) -> Iterator[Path]:
    """A fresh copy of the bundled database for one test (with --postgres, the URL of one on the test server)."""
    if on_postgres:
        reused: _Reused = request.getfixturevalue("reused_postgres")
        yield ServerDatabase(reused.url)  # type: ignore[misc]
        reused.reset()
        return
    path = tmp_path / "tables.db"
    shutil.copyfile(request.getfixturevalue("bundled_db_template"), path)
    yield path


@pytest.fixture
def opened(db_path: Path):  # type: ignore[no-untyped-def]
    """The test database, opened as the CLI opens it."""
    database = open_database(str(db_path))
    yield database
    database.dispose()


@pytest.fixture
def run(db_path: Path) -> Callable[..., object]:
    """Run the CLI on the test database: run("query", "attack", ...).

    Output is piped, at a width so large that nothing wraps (exact-text
    tests stay exact; tests/cli/test_render.py tests the widths)."""
    runner = CliRunner(env={"COLUMNS": "10000"})

    def invoke(*args: str, db: Path | None = None):  # type: ignore[no-untyped-def]
        return runner.invoke(cli, ["--db", str(db or db_path), *args], catch_exceptions=False)

    return invoke


# ------------------------------------------------------------------ PostgreSQL
POSTGRES_ENV = "TABLES_TEST_POSTGRES"  # a server URL whose user may create and drop databases (README, "Tests")
REQUIRE_POSTGRES_ENV = "TABLES_REQUIRE_POSTGRES"  # CI: a missing server fails the PostgreSQL tests instead of skipping them


def on_database(server: str, name: str) -> str:
    """The URL of database ``name`` on the server of ``server`` (user, host, port and options kept)."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(server)
    return urlunsplit((parts.scheme, parts.netloc, "/" + name, parts.query, ""))


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """$TABLES_TEST_POSTGRES; the test is skipped without it (failed, under $TABLES_REQUIRE_POSTGRES)."""
    url = os.environ.get(POSTGRES_ENV)
    if not url:
        if os.environ.get(REQUIRE_POSTGRES_ENV):
            pytest.fail(f"${POSTGRES_ENV} is not set, and ${REQUIRE_POSTGRES_ENV} asks for the PostgreSQL tests")
        pytest.skip(f"no PostgreSQL server to test on (${POSTGRES_ENV})")
    return url


def _create(server: str, name: str, template: str | None = None) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))


def _drop(server: str, name: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def new_postgres(postgres_server: str) -> Iterator[Callable[..., str]]:
    """``make(template=None)``: the URL of a new database on the test server
    (empty, or a copy of ``template``'s), dropped after the test."""
    made: list[str] = []

    def make(template: str | None = None) -> str:
        name = f"tables_test_{uuid.uuid4().hex[:16]}"
        _create(postgres_server, name, template)
        made.append(name)
        return on_database(postgres_server, name)

    yield make
    for name in made:
        _drop(postgres_server, name)


@pytest.fixture(scope="session")
def postgres_template(postgres_server: str) -> Iterator[str]:
    """The name of a database built once (migrated + bundled tables), for copying."""
    name = f"tables_template_{uuid.uuid4().hex[:16]}"
    _create(postgres_server, name)
    try:
        init_database(on_database(postgres_server, name)).dispose()
        yield name
    finally:
        _drop(postgres_server, name)


@pytest.fixture
def pg_url(new_postgres: Callable[..., str], postgres_template: str) -> str:
    """A fresh copy of the bundled database on the test server, for one test."""
    return new_postgres(postgres_template)


@pytest.fixture
def dump() -> Callable[[Path], list[str]]:
    return db_dump


@pytest.fixture
def mini_workbook(write_workbook: Callable[..., Path]) -> Path:
    return write_workbook(
        "mini.xlsx",
        {
            "Severities": MINI_SEVERITIES, "Slash": MINI_CRITICAL, "Oops": MINI_FUMBLE,
            "Poke": MINI_ATTACK, "Weapons": MINI_WEAPONS, "Creatures": MINI_CREATURES,
        },
    )
