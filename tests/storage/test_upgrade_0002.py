"""A database made by the release before rulesets (schema 0002: the bundled
tables and a user workbook, see data/build_0002.py) upgrades on first use,
and every lookup answers what it answered then; the one addition is the
ruleset beside each name (docs/cli.md, "Names and rulesets")."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tables_app.cli.root import cli
from tables_app.storage.connection import SCHEMA_HEAD

DATA = Path(__file__).parent / "data"
RECORDED = json.loads((DATA / "lookups_0002.json").read_text(encoding="utf-8"))
# keys added since: the ruleset beside names (0003); printed attack tables'
# automatic miss, UM rows and a cell's further criticals (0004)
ADDED = {"ruleset", "target_ruleset", "automatic_miss", "unmodified", "more_criticals",
         # printed critical and fumble tables (0005): an entry's printed effects and column, the column read
         "must_parry", "no_parry", "attacker_bonus", "death_in", "column", "criticals",
         "choice", "columns", "critical_column", "fumble_column", "roll_kind",
         # legends and printed weapons (0006): an entry's parry penalty, a weapon's Max critical
         "parry_penalty", "max_critical", "legend",
         # issue 28: whether an entry's text says its condition itself; an attack grid's compact cells and their key
         "states_condition", "compact", "critical_codes",
         # creatures' attacks (0007): none for a creature of an older database
         "attacks",
         # issue 40 (0009): an entry's printed pieces not read, none for an older entry; every branch not taken
         "unread", "other_branches", "condition_reading",
         # issue 41: an entry's effects in words, the one wording every face uses
         "effect_words", "severity_why",
         # issue 41 (0012): the rest of a critical, none for an older entry
         "prone", "knocked_out", "blinded", "drops_weapon", "breaks_weapon", "useless_arm", "useless_leg",
         "timed_penalties"}
# issue 41: resolve's steps word an entry's effects as show and query do (`bleed 1/rnd`, `stun 1 rnd`)
ONE_WORDING = ((re.compile(r"\bbleed (\d+)/rnd"), r"bleed \1"), (re.compile(r"\bstun (\d+) rnd"), r"stun \1"))


ODDS_ATTACK_ADDED = {"critical", "secondary_critical", "fumble_table", "fumble_modifier", "roll", "modifiers"}


def unpack(folder: Path) -> Path:
    path = folder / "tables_0002.db"
    with gzip.open(DATA / "tables_0002.db.gz") as packed, path.open("wb") as plain:
        shutil.copyfileobj(packed, plain)
    return path


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy for the module: the first command upgrades it."""
    return unpack(tmp_path_factory.mktemp("old"))


def without_added(value: object) -> object:
    """``value`` without the keys added since 0002, at any depth (and its words as they were)."""
    if isinstance(value, str):
        for pattern, then in ONE_WORDING:
            value = pattern.sub(then, value)
        return value
    if isinstance(value, dict):
        return {k: without_added(v) for k, v in value.items() if k not in ADDED and k != "rulesets"}
    if isinstance(value, list):
        return [without_added(v) for v in value]
    return value


def ruleset_keys(value: object) -> set[str]:
    if isinstance(value, dict):
        found = {str(v) for k, v in value.items() if k == "ruleset"}
        return found.union(*(ruleset_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(ruleset_keys(v) for v in value))
    return set()


def test_the_fixture_is_a_0002_database(tmp_path):
    import sqlite3

    connection = sqlite3.connect(unpack(tmp_path))
    try:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchall() == [("0002",)]
        assert connection.execute("SELECT count(*) FROM sqlite_master WHERE name = 'ruleset'").fetchone() == (0,)
    finally:
        connection.close()


@pytest.mark.parametrize("recorded", RECORDED, ids=[" ".join(r["args"][:3]) for r in RECORDED])
def test_every_lookup_answers_as_before_the_upgrade(upgraded, recorded):
    result = CliRunner().invoke(cli, ["--db", str(upgraded), *recorded["args"]])
    assert result.exit_code == 0, result.output
    now = json.loads(result.stdout)
    if recorded["args"][0] == "odds":  # odds' attack block is resolve's since issue 26: the weapon's tables too
        assert set(now["attack"]) - set(recorded["json"]["attack"]) >= ODDS_ATTACK_ADDED
        now["attack"] = {k: v for k, v in now["attack"].items() if k not in ODDS_ATTACK_ADDED}
    if recorded["args"][0] == "simulate":  # simulate gained the attack block (issue 26)
        assert "attack" not in recorded["json"] and now.pop("attack")["weapon"] == recorded["args"][recorded["args"].index("--weapon") + 1]
    assert without_added(now) == without_added(recorded["json"])
    assert ruleset_keys(now) <= {"default"}  # everything is in the default ruleset


def test_the_upgrade_happened_once_and_put_everything_in_default(upgraded):
    runner = CliRunner()
    current = runner.invoke(cli, ["--db", str(upgraded), "db", "current", "--json"])
    assert json.loads(current.stdout)["current"] == SCHEMA_HEAD
    rulesets = json.loads(runner.invoke(cli, ["--db", str(upgraded), "list", "rulesets", "--json"]).stdout)["rulesets"]
    assert [(r["name"], r["weapons"], r["creatures"], r["critical"], r["workbooks"][-1]) for r in rulesets] == [
        ("default", 34, 15, 8, "mine.xlsx")]
