"""Shell completion of table, weapon, creature and armor names (docs/cli.md)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.shell_completion import ShellComplete

from tables_app.cli.root import cli



def completions(db_path, args: list[str], incomplete: str) -> list[str]:  # type: ignore[no-untyped-def]
    complete = ShellComplete(cli, {}, "tables", "_TABLES_COMPLETE")
    return [item.value for item in complete.get_completions(["--db", str(db_path), *args], incomplete)]


@pytest.mark.parametrize(
    "args, incomplete, expected",
    [
        (["resolve", "table", "--weapon"], "long", ["Longbow", "Longsword"]),
        (["odds", "table", "--weapon"], "MORN", ["Morning Star"]),
        (["resolve", "table", "--target"], "orc", ["Orc Warrior"]),
        (["resolve", "table", "--attack-table"], "ed", ["Edged"]),
        (["resolve", "table", "--armor"], "m", ["MA"]),
        (["query", "attack"], "cla", ["Claws and Teeth"]),
        (["query", "attack", "Edged", "100"], "h", ["HA"]),
        (["query", "fumble"], "mel", ["Melee Fumbles"]),
        (["show", "weapon"], "warh", ["Warhammer"]),
        (["show", "creatures"], "orc w", ["Orc Warrior"]),
        (["show", "critical"], "imp", ["Impact"]),
    ],
)
def test_names_complete_from_the_database(db_path, args, incomplete, expected):
    assert completions(db_path, args, incomplete) == expected


def test_critical_codes_complete_too(db_path):
    assert "Cut" in completions(db_path, ["query", "critical"], "")


def test_a_missing_database_completes_nothing_and_is_not_created(tmp_path):
    missing = tmp_path / "nothing-here.db"
    assert completions(missing, ["resolve", "table", "--weapon"], "") == []
    assert not missing.exists()


def test_the_shell_script_is_offered(db_path):
    env = {"_TABLES_COMPLETE": "bash_source", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-m", "tables_app"], env=env, capture_output=True, text=True)
    assert "_tables_completion" in out.stdout


def test_every_kind_completed_has_its_query():
    from tables_app.cli.completion import COMPLETED
    from tables_app.storage.name_lists import LISTS

    assert set(COMPLETED) == set(LISTS)


@pytest.fixture
def printed_db(run, db_path):  # type: ignore[no-untyped-def]
    from tables_app import example_workbook

    assert run("import", str(example_workbook("printed"))).exit_code == 0
    return db_path


@pytest.mark.parametrize("args", [["resolve", "table", "--weapon", "Printed:Falchion", "--armor"],
                                  ["odds", "table", "--weapon", "falchion", "--armor"],
                                  ["resolve", "table", "--attack-table", "Printed:Bladework", "--armor"],
                                  ["query", "attack", "Printed:Bladework", "50"]])
def test_armor_completes_the_named_tables_columns(printed_db, args):
    """After --weapon or an attack table, --armor offers that table's columns, in its order (issue 28)."""
    offered = completions(printed_db, args, "")
    assert offered == [str(n) for n in range(20, 0, -1)]
    assert completions(printed_db, args, "1") == ["19", "18", "17", "16", "15", "14", "13", "12", "11", "10", "1"]


def test_armor_of_a_bundled_weapon_and_of_an_unknown_one(printed_db):
    assert completions(printed_db, ["resolve", "table", "--weapon", "Longsword", "--armor"], "") == ["NA", "LA", "MA", "HA"]
    every = completions(printed_db, ["resolve", "table", "--weapon", "Nothing", "--armor"], "")
    assert {"NA", "MA", "20", "1"} <= set(every)  # a name no table has: every code, as before


def test_a_fights_combatants_complete_after_its_name(run, db_path):  # type: ignore[no-untyped-def]
    run("fight", "new", "Orc ambush")
    run("fight", "join", "Orc ambush", "--as", "Hero", "--hits", "50", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")
    run("fight", "join", "Orc ambush", "--creature", "Orc Warrior")
    run("fight", "join", "Orc ambush", "--creature", "Orc Warrior")
    assert completions(db_path, ["fight", "attack"], "orc") == ["Orc ambush"]
    assert completions(db_path, ["fight", "attack", "orc ambush"], "") == ["Hero", "Orc Warrior #1", "Orc Warrior #2"]
    assert completions(db_path, ["fight", "attack", "Orc ambush", "Hero"], "orc w") == ["Orc Warrior #1", "Orc Warrior #2"]
    assert completions(db_path, ["fight", "edit", "Orc ambush"], "h") == ["Hero"]
    assert completions(db_path, ["fight", "attack", "No such fight"], "") == []


def test_fights_parties_and_combatants_complete_as_the_group_named_sees_them(run, db_path):  # type: ignore[no-untyped-def]
    """`tables --group NAME` acts as the group: completion offers its fights,
    parties and combatants, not another group's nor the operator's (docs/deploy.md, Groups)."""
    hero = ("--hits", "50", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")
    assert run("group", "new", "Tuesday").exit_code == 0
    for group, fight, who in ((None, "Duel", "Aria"), ("Tuesday", "Duel", "Borin"), ("Tuesday", "Dark cave", "Cora")):
        scope = ("--group", group) if group else ()
        assert run(*scope, "fight", "new", fight).exit_code == 0
        assert run(*scope, "fight", "join", fight, "--as", who, *hero).exit_code == 0
        assert run(*scope, "fight", "party", "save", f"{who}'s party", "--from", fight).exit_code == 0
    tuesday = ["--group", "Tuesday"]
    assert completions(db_path, [*tuesday, "fight", "show"], "d") == ["Dark cave", "Duel"]
    assert completions(db_path, ["fight", "show"], "d") == ["Duel"]
    assert completions(db_path, [*tuesday, "fight", "attack", "duel"], "") == ["Borin"]
    assert completions(db_path, ["fight", "attack", "duel"], "") == ["Aria"]
    assert completions(db_path, [*tuesday, "fight", "party", "show"], "") == ["Borin's party", "Cora's party"]
    assert completions(db_path, ["--group", "Nobody", "fight", "show"], "") == []
