"""Typed lookups stay light: no ORM, Alembic, openpyxl, numpy or matplotlib."""

import json
import subprocess
import sys

import pytest

HEAVY = ("sqlalchemy", "sqlmodel", "alembic", "openpyxl", "numpy", "matplotlib", "pydantic")
PROBE = """
import json, sys
from click.testing import CliRunner
from tables_app.cli import cli
result = CliRunner().invoke(cli, sys.argv[1:])
heavy = sorted({name.split('.')[0] for name in sys.modules} & set(%r))
print(json.dumps({"exit": result.exit_code, "heavy": heavy}))
""" % (HEAVY,)


@pytest.mark.parametrize(
    "args",
    [
        ["query", "attack", "Edged", "100", "NA", "--json"],
        ["query", "critical", "Cut", "50", "--json"],
        ["show", "attack", "Edged", "--json"],
        ["resolve", "table", "--weapon", "Longsword", "--cmb", "60", "--armor", "MA", "--seed", "1", "--json"],
        ["odds", "table", "--weapon", "Longsword", "--cmb", "60", "--armor", "MA", "--json"],
        ["resolve", "rise", "--accuracy", "5", "--def", "10", "--damage", "2d6", "--seed", "1", "--json"],
        ["list", "weapons", "--json"],
    ],
)
def test_typed_commands_import_nothing_heavy(db_path, args):
    out = subprocess.run([sys.executable, "-c", PROBE, "--db", str(db_path), *args], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report == {"exit": 0, "heavy": []}


ORM = ("sqlalchemy", "sqlmodel", "alembic", "pydantic")


@pytest.mark.parametrize("command, written", [
    (["import"], 1), (["import", "--dry-run"], 0), (["lint"], 0), (["remove", "mini.xlsx"], 0),
])
def test_imports_and_removals_write_without_the_orm(db_path, write_workbook, run, command, written):
    """A database at the newest schema is written with sqlite3 alone: the ORM
    and Alembic cost a third of a second of start-up (reading a workbook may
    still load openpyxl)."""
    import sqlite3

    from helpers import MINI_ATTACK, MINI_CREATURES, MINI_CRITICAL, MINI_FUMBLE, MINI_SEVERITIES, MINI_WEAPONS

    path = write_workbook("mini.xlsx", {"S": MINI_SEVERITIES, "C": MINI_CRITICAL, "F": MINI_FUMBLE, "A": MINI_ATTACK,
                                        "W": MINI_WEAPONS, "M": MINI_CREATURES})
    if command[0] == "remove":
        assert run("import", str(path)).exit_code == 0
        args = command
    else:
        args = [*command, str(path)]
    out = subprocess.run([sys.executable, "-c", PROBE, "--db", str(db_path), *args], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["exit"] == 0
    assert set(report["heavy"]) & set(ORM) == set()
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("SELECT count(*) FROM workbook WHERE file_name = 'mini.xlsx'").fetchone() == (written,)
