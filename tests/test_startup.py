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
