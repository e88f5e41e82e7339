"""The Python API of docs/library.md: every example there runs, as written,
against a new database (DATABASE), and the library's answers are the CLI's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import tables_app

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "library.md").read_text(encoding="utf-8"), re.S)


def test_the_page_has_examples():
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_each_example_of_the_library_page_runs(index, tmp_path):
    database = tmp_path / "library.db"
    if "Tables.create" not in EXAMPLES[index]:
        tables_app.Tables.create(database).close()
    exec(compile(EXAMPLES[index], f"docs/library.md example {index + 1}", "exec"), {"DATABASE": database})


@pytest.fixture
def tables(db_path):  # type: ignore[no-untyped-def]
    with tables_app.Tables(db_path) as opened:
        yield opened


def test_a_resolution_is_the_commands_json(tables, run):
    hit = tables.resolve(weapon="Morning Star", cmb=60, target="Orc Warrior", seed=3)
    printed = run("resolve", "table", "--weapon", "Morning Star", "--cmb", "60", "--target", "Orc Warrior", "--seed", "3",
                  "--json")
    assert hit.to_json() == json.loads(printed.stdout)
    assert hit.setup.target == "Orc Warrior" and hit.dice.seed == 3


def test_odds_are_exact_and_their_json_the_commands(tables, run):
    odds = tables.odds(weapon="Longsword", cmb=60, defense=20, armor="MA")
    assert sum(odds.odds.outcomes.values()) == 1  # Fractions: exactly 1
    printed = run("odds", "table", "--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA", "--json")
    assert odds.to_json() == json.loads(printed.stdout)


def test_the_attack_block_is_the_same_in_resolve_odds_and_simulate(tables):
    options = dict(weapon="Longsword", cmb=60, defense=20, armor="MA", features=("helm",))
    blocks = [tables.resolve(seed=1, **options).to_json()["attack"], tables.odds(**options).to_json()["attack"],
              tables.simulate(count=100, seed=1, **options).to_json()["attack"],
              tables.odds(sweep_cmb="60:60", **options).to_json()["attack"]]
    assert all(block == blocks[0] for block in blocks)
    assert blocks[0]["critical"] == "Cut" and blocks[0]["features"] == ["helm"]


@pytest.mark.parametrize("options, field", [
    ({"weapon": "Longsword", "armor": "MA"}, "cmb"),  # required
    ({"weapon": "Longsword", "cmb": 5, "armor": "MA", "clumsy": 101}, "clumsy"),
    ({"weapon": "Longsword", "cmb": 5, "armor": "MA", "rank": "legendary"}, "rank"),
    ({"weapon": "Longsword", "cmb": 5, "armor": " "}, "armor"),
    ({"weapon": "Longsword", "cmb": 5, "armor": "MA", "features": "helm"}, "has"),  # a tuple, not one string
    ({"weapon": "Longsword", "cmb": 5, "armor": "MA", "modifiers": {"flank": 20_000}}, "mod"),
    ({"weapon": "Longsword", "cmb": 5, "armor": "MA", "sharpness": 3}, "sharpness"),
])
def test_values_are_checked_by_the_declarations(tables, options, field):
    with pytest.raises(tables_app.ParamError) as refused:
        tables.resolve(**options)
    assert refused.value.field == field


def test_imports_are_all_or_nothing(tables, tmp_path):
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"not a workbook")
    report = tables.import_workbooks(broken)
    assert report.problems and "broken.xlsx" in str(report.problems[0])
    assert [r["name"] for r in tables.list("rulesets")["rulesets"]] == ["default"]
