"""Names are not split across lines (issue 28): `tables list` and the
import and removal summaries wrap between names, and break a name (at its
spaces) only when it alone is wider than the room it has."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.cells import cell_len

from tables_app.cli import layout, render, unbroken
from tables_app.cli.root import cli
from tables_app.domain.rulesets import shown

WIDTHS = (40, 60, 80, 120)
LONG = "Grandmother of All the Marsh Lurkers Beneath the Hollow Hill"  # 60 columns: wider than 40 and 60
FEATURES = "helm, metal armor, keen nose, thick hide, night sight, many legs, undead"
LONG_NAMES = {"Creatures": [
    ["Kind", "creatures"], [],
    ["Name", "DEF", "Armor", "Rank", "HP", "Features"],
    [LONG, 30, "HA", "epic", 400, FEATURES],
    ["Hill Brigand Captain of the Eastern Marches", 20, "LA", None, 60, "helm, metal armor"],
    ["Old Grey Wolf", 25, "NA", None, 35, None],
]}


def invoke(db: Path, *args: str, width: int) -> str:
    result = CliRunner().invoke(cli, ["--db", str(db), *args], env={"COLUMNS": str(width)}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def many_names(db_path: Path, write_workbook) -> Path:  # type: ignore[no-untyped-def]
    """The bundled tables, the printed example and invented long names."""
    for path in (invoke(db_path, "example", "printed", width=80).strip(), str(write_workbook("long.xlsx", LONG_NAMES))):
        invoke(db_path, "import", path, width=80)
    return db_path


def listed_names(db: Path, kind: str) -> set[str]:
    """Every name a listing shows: the item's own, qualified outside default,
    the tables it names and each of its features."""
    names: set[str] = set()
    for items in json.loads(invoke(db, "list", kind, "--json", width=80)).values():
        for item in items:
            names.add(shown(item.get("ruleset", "default"), item["name"]))
            for key in ("attack_table", "critical", "secondary_critical", "fumble_table", "workbook"):
                if item.get(key) and key in render.LIST_COLUMNS[kind]:
                    names.add(item[key])
            names.update(item.get("features") or [])
    return names


def assert_whole(out: str, names: set[str], width: int) -> None:
    """Every line fits; each name that fits a line (records indent by two)
    is on one line; a longer one has every word printed."""
    lines = out.splitlines()
    for line in lines:
        assert cell_len(line) <= width, (width, line)
        assert line == line.rstrip(), repr(line)
    printed = {word.strip("(),;:") for word in out.split()}
    for name in names:
        if cell_len(name) <= width - 2:
            assert any(name in line for line in lines), (width, name)
        else:
            assert {word.strip(",") for word in name.split()} <= printed, (width, name)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("kind", ["creatures", "weapons", "attack", "critical"])
def test_a_listing_never_splits_a_name_that_fits(many_names, kind, width):
    assert_whole(invoke(many_names, "list", kind, width=width), listed_names(many_names, kind), width)


def test_armoured_knight_stays_on_one_line_at_80_columns(db_path):
    out = invoke(db_path, "list", "creatures", width=80)
    assert any("Armoured Knight" in line for line in out.splitlines())
    assert any("metal armor" in line for line in out.splitlines() if "Armoured Knight" in line or "features" in line)


def test_a_name_wider_than_the_screen_breaks_at_its_spaces(many_names):
    out = invoke(many_names, "list", "creatures", width=40)
    assert "Grandmother of All the Marsh Lurkers\n" in out  # as much of it as fits, then the rest
    assert "\nBeneath the Hollow Hill\n" in out


@pytest.mark.parametrize("width", WIDTHS)
def test_the_import_summary_never_splits_a_name_that_fits(db_path, write_workbook, width):
    for path in (invoke(db_path, "example", "printed", width=80).strip(), str(write_workbook("long.xlsx", LONG_NAMES))):
        report = json.loads(invoke(db_path, "import", path, "--dry-run", "--json", width=80))
        names = {name for workbook in report["workbooks"] for items in workbook["defined"].values() for name in items}
        assert_whole(invoke(db_path, "import", path, "--dry-run", width=width), names, width)


def test_the_printed_example_summary_at_80_columns(db_path):
    out = invoke(db_path, "import", invoke(db_path, "example", "printed", width=80).strip(), "--dry-run", width=80)
    lines = out.splitlines()
    assert any("Printed:Recurve Bow" in line for line in lines)
    assert any("Printed:Printed letters" in line for line in lines)


@pytest.mark.parametrize("width", (40, 60, 80))
def test_the_removal_summary_never_splits_a_name_that_fits(many_names, width):
    removed = json.loads(invoke(many_names, "remove", "printed.xlsx", "long.xlsx", "--dry-run", "--json", width=80))["removed"]
    out = invoke(many_names, "remove", "printed.xlsx", "long.xlsx", "--dry-run", width=width)
    assert_whole(out, {name for names in removed.values() for name in names}, width)


@pytest.mark.parametrize("width", (20, 30, 45))
def test_plain_lines_keep_names_whole(monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    names = ["Printed:Recurve Bow", "Printed:Hill Brigand", "A Name Wider Than Twenty Columns"]
    line = "Imported x.xlsx: 3 weapons (" + ", ".join(unbroken.unbroken(n) for n in names) + ")"
    out = layout.plain_lines(line)
    assert unbroken.JOIN not in out
    for name in names:
        if len(name) + 1 <= width - 2:  # with its comma, on an indented line
            assert any(name in row for row in out.splitlines()), (width, name, out)


@pytest.mark.parametrize("width", (30, 40, 80))
def test_show_keeps_the_names_it_lists_whole(many_names, width):
    for kind, name in (("creature", LONG), ("creature", "Armoured Knight"), ("weapon", "Large Bite")):
        data = json.loads(invoke(many_names, "show", kind, name, "--json", width=80))
        names = {data[key] for key in render.NAMED_FIELDS if data.get(key)} | set(data.get("features") or [])
        assert_whole(invoke(many_names, "show", kind, name, width=width), names, width)
