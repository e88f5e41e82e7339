"""Typed lookups stay light: no ORM, Alembic, openpyxl, numpy or matplotlib."""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.sqlite_only  # the SQLite file itself (`pytest --postgres` leaves it out)

HEAVY = ("sqlalchemy", "sqlmodel", "alembic", "openpyxl", "numpy", "matplotlib", "pydantic", "fastapi", "uvicorn", "starlette",
         "psycopg")
PROBE = """
import json, sys
from click.testing import CliRunner
from tables_app.cli.root import cli
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


# What each command's start-up no longer loads (issue #16), checked in a real
# process (the probe above runs Click's test runner, which loads tempfile,
# shutil and shlex itself): a lookup needs no attack rules, dice, exact
# fractions or near-name matching; odds roll no dice; a seeded simulation
# neither; a database is made (tempfile) or named in a hint (shlex) only when
# that happens.
PROCESS_PROBE = """
import atexit, json, sys
atexit.register(lambda: sys.stderr.write("MODULES " + json.dumps(sorted(sys.modules)) + "\\n"))
sys.argv[0] = "tables"
from tables_app.cli.root import main

main()
"""
NOT_MADE = ("tempfile", "shutil", "shlex", "difflib")
# the modules of the commands not run (issue #44: cli/root.COMMANDS imports a command's module when it is run)
OTHER_COMMANDS = ("tables_app.cli.fights", "tables_app.cli.serving", "tables_app.cli.workbooks", "tables_app.cli.groups",
                  "tables_app.cli.database")
LOOKUP_LEAVES_OUT = ("tables_app.domain.table_rules", "tables_app.domain.dice", "tables_app.domain.resolve",
                     "tables_app.services.rolling", "fractions", "tables_app.cli.attacks", *OTHER_COMMANDS, *NOT_MADE)
ATTACK = ["--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA"]
# an attack's odds and simulation prepare it (services/attacks.py) without the look-ups' answers
ODDS_LEAVE_OUT = ("tables_app.domain.dice", "tables_app.domain.resolve", "tables_app.services.rolling",
                  "tables_app.services.lookups", *OTHER_COMMANDS, *NOT_MADE)
SIMULATE_LEAVES_OUT = (*ODDS_LEAVE_OUT, "tables_app.services.formulas", "tables_app.domain.systems.base")


@pytest.mark.parametrize("args, left_out", [
    (["query", "attack", "Edged", "100", "NA", "--json"], LOOKUP_LEAVES_OUT),
    (["query", "critical", "Cut", "50", "--json"], LOOKUP_LEAVES_OUT),
    (["show", "attack", "Edged", "--json"], LOOKUP_LEAVES_OUT),
    (["list", "weapons", "--json"], LOOKUP_LEAVES_OUT),
    (["odds", "table", *ATTACK, "--sweep-cmb", "0:150:10", "--json"], ODDS_LEAVE_OUT),
    (["simulate", "table", *ATTACK, "--count", "1000", "--seed", "1", "--json"], SIMULATE_LEAVES_OUT),
    (["simulate", "table", *ATTACK, "--count", "1000", "--json"], SIMULATE_LEAVES_OUT),  # its fresh seed needs no dice
])
def test_each_command_loads_only_what_it_uses(db_path, args, left_out):
    out = subprocess.run([sys.executable, "-c", PROCESS_PROBE, "--db", str(db_path), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    loaded = set(json.loads(out.stderr.rpartition("MODULES ")[2]))
    assert sorted(loaded & set(left_out)) == []
    assert loaded & set(HEAVY) == (set() if args[0] != "simulate" else {"numpy"})


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


def test_ctrl_c_while_the_command_loads_is_one_line_and_exit_130(monkeypatch, capsys):
    """The console script's entry catches Ctrl-C during the imports too (the
    command's own handler, in cli/root.py, is not in place yet then)."""
    from tables_app import __main__ as entry

    class Loading:
        def __getattr__(self, name: str) -> object:
            raise KeyboardInterrupt

    monkeypatch.setitem(sys.modules, "tables_app.cli.root", Loading())
    with pytest.raises(SystemExit) as stopped:
        entry.main()
    assert stopped.value.code == 130
    assert capsys.readouterr().err == "Error: interrupted (Ctrl-C)\n"
