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


@pytest.fixture(scope="session")
def bundled_db_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database built once (migrated + bundled tables) for copying."""
    path = tmp_path_factory.mktemp("template") / "tables.db"
    init_database(str(path)).dispose()
    return path


@pytest.fixture
def db_path(tmp_path: Path, bundled_db_template: Path) -> Path:
    """A fresh copy of the bundled database for one test."""
    path = tmp_path / "tables.db"
    shutil.copyfile(bundled_db_template, path)
    return path


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
