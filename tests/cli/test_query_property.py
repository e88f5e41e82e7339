"""`tables query` and the rule core agree (docs/cli.md, "Reading a table";
docs/table-system.md, steps 2, 7-8 and 10), on every bundled and example
table and on invented ones in every layout (rows from 1 under the automatic
miss, `XX-30` and `UM` rows, a lowest row open below, an automatic miss of
5; critical tables by severity, by attack kind and in one column, opened
high; fumble tables by weapon category and in one column, opened high):

- `query attack` (services/lookups.py) against what resolve reads at that
  modified result (AttackRules.read, a weapon of the table's with no Clumsy
  Range, as query reads it), for every result from -20 to past the top row
  and every armor column;
- `query critical` against step 10's read of the die (critical_column,
  critical_read), by roll, severity, column and features;
- `query fumble` against step 2's (fumble_read), by roll, modifier and column.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import Rows, build_workbook
from hypothesis import given, settings
from hypothesis import strategies as st
from test_clumsy_rows_cli import ROWS as CLUMSY_ROWS
from test_printed_attack_tables import printed_sheets

from tables_app.cli.root import cli
from tables_app.domain.table_rules import (
    Attack,
    AttackRules,
    CriticalPlan,
    critical_column,
    critical_read,
    fumble_column,
    fumble_read,
)
from tables_app.domain.tables import ColumnChoice, EffectTable, TableKind, Weapon
from tables_app.services import lookups
from tables_app.services.database_setup import example_workbooks, open_database
from tables_app.storage.compiled import CompiledTables

# Invented for this test: every layout a table can be read in, beside the bundled and example ones.
PROBE: dict[str, Rows] = {
    "Ruleset": [["Kind", "ruleset"], ["Name", "Probe"]],
    "Gash": [["Kind", "critical"], ["Name", "Gash"], ["Code", "G"], ["Roll kind", "oeh"], [],
             ["Roll", "Text", "Hits", "Condition"],
             ["01-40", "A scratch.", 1, None], ["41-90", "The helm dents.", 2, "helm"], ["41-90", "The scalp opens.", 5, "not helm"],
             ["91-150", "A deep gash.", 8, None], ["151+", "Cleft.", 20, None]],
    "Maw": [["Kind", "critical"], ["Name", "Maw"], ["Code", "W"], ["Roll kind", "oeh"], [],
            ["Roll", "Normal", "Magic", "Holy"],
            ["01-55", "+2H", "+3H", "+4H – 1∑"], ["56-100", "+5H – 1∑", "+7H – 2∑", "+8H – 2∑∏"],
            ["101+", "+9H", "With helm: +10H. Without helm: +14H – 2∫.", "instant death"]],
    "Jolt": [["Kind", "critical"], ["Name", "Jolt"], ["Code", "J"], [],
             ["Roll", "Sup", "Lig", "Mod", "Gri", "Let"],
             ["01-60", "Static. 1∑", "Tingles. +1H", "Arm numb. 2∏ – (+5)", "+4H – 2∑∏ – 1∫ – (-10)", "Sparks fly. +5H"],
             ["61+", "+1H", "+2H – 1∑", "With helm: helm rings. +3H. Without helm: +6H – 3∑.", "dies in 3 rounds", "instant death"]],
    "Slips": [["Kind", "fumble"], ["Name", "Slips"], ["Roll kind", "oeh"], [], ["Roll", "1HE", "2H"],
              ["01-70", "Loses footing. 1∏", "Overswings. (-5)"], ["71-120", "Drops it. +1H", "Falls flat."],
              ["121+", "Cuts self. +4H", "instant death"]],
    "Falls": [["Kind", "fumble"], ["Name", "Falls"], [], ["Roll", "Text", "Hits"],
              ["01-30", "Slip.", 0], ["31-90", "Tumble.", 1], ["91+", "Crash.", 4]],
    "Pebbles": [["Kind", "attack"], ["Name", "Pebbles"], ["Automatic miss", 5], [], ["Result", "NA", "LA"],
                ["<21", "1", "—"], ["21-50", "4", "2"], ["51-80", "9 Lig", "6"], ["81+", "12 Mod W", "10 Sup J"]],
    "Weapons": [["Kind", "weapons"], [],
                ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Fumble table", "Critical column", "Fumble column"],
                ["Sling", "Pebbles", 120, 2, "Maw", "Slips", "Magic", "2H"],
                ["Stone", "Pebbles", None, 0, "Gash", "Falls", None, None]],
}


@pytest.fixture(scope="module")
def database(tmp_path_factory, bundled_db_template):  # type: ignore[no-untyped-def]
    """The bundled tables, every example workbook, rows from 1 under the
    automatic miss of 10 (ruleset PR, with `XX-30` and `UM` rows) and the
    invented layouts; read through one cache, as `tables serve` reads them."""
    folder = tmp_path_factory.mktemp("query-property")
    path = folder / "tables.db"
    path.write_bytes(Path(bundled_db_template).read_bytes())
    workbooks = [*example_workbooks().values(), build_workbook(folder / "probe.xlsx", PROBE),
                 build_workbook(folder / "low.xlsx", printed_sheets(automatic_miss=10, rows=CLUMSY_ROWS))]
    for workbook in workbooks:
        result = CliRunner().invoke(cli, ["--db", str(path), "import", str(workbook)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    opened = open_database(str(path))
    opened.compiled = CompiledTables()
    with opened.snapshot():
        yield opened
    opened.dispose()


def named(database, kind: str) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return [(item["ruleset"], item["name"]) for item in database.reader().list_named(kind)]


# ---------------------------------------------------------------- query attack
def test_query_attack_reads_what_resolve_reads_at_every_result_and_armor(database):
    reader = database.reader()
    weapons = [reader.load_weapon(reader.locate("weapons", name, ruleset)) for ruleset, name in named(database, "weapons")]
    compared, tables_read = 0, set()
    for ruleset, name in named(database, "attack"):
        table = database.load_attack_table(reader.locate("attack", name, ruleset))
        weapon = next(w for w in weapons if w.attack_table == name)  # its columns suit its critical tables
        # as query reads it: no Clumsy Range (a printed `XX-30` from 1), nothing lowered (no Max critical, rank normal)
        probe = replace(weapon, clumsy=0, max_result=None, max_critical=None)
        tables = reader.load_table_set(probe, ruleset)
        top = table.rows.ranges[-1].high or table.rows.ranges[-1].low
        for armor in table.armors:
            rules = AttackRules(Attack(probe, cmb=0, armor=armor), tables)
            for result in range(-20, top + 30):
                queried = lookups.query_attack(database, name, result, armor.lower(), ruleset=ruleset).to_json()  # any spelling of the armor
                reading = rules.read(result)
                if reading.cell is None:
                    assert (queried["row"], queried["text"], queried["outcome"], queried["hits"]) == (None, "", "miss", 0)
                    assert reading.outcome.value == "miss", (name, armor, result)
                    continue
                cell = reading.cell.cell
                assert queried["row"] == table.rows.ranges[reading.row].label, (name, armor, result)  # as printed
                assert (queried["text"], queried["outcome"], queried["hits"], queried["severity"], queried["critical_table"]) == (
                    cell.text, reading.outcome.value, cell.hits, cell.severity, cell.critical), (name, armor, result)
                assert queried["criticals"] == [{"severity": s, "critical_table": t} for s, t in cell.criticals]
                assert queried["armor"] == armor and queried["ruleset"] == ruleset
                compared += 1
        tables_read.add((ruleset, name))
    assert {("PR", "Printed blade"), ("Probe", "Pebbles"), ("default", "Edged"), ("Printed", "Bladework")} <= tables_read
    assert compared > 15_000


# ---------------------------------------------------------------- query critical and fumble
def effect_tables(database, kind: TableKind) -> list[tuple[str, EffectTable]]:  # type: ignore[no-untyped-def]
    reader = database.reader()
    return [(ruleset, reader.load_effect_table(kind, reader.locate(kind.value, name, ruleset)))
            for ruleset, name in named(database, kind.value)]


@pytest.fixture(scope="module")
def criticals(database) -> list[tuple[str, EffectTable]]:  # type: ignore[no-untyped-def]
    return effect_tables(database, TableKind.CRITICAL)


@pytest.fixture(scope="module")
def fumbles(database) -> list[tuple[str, EffectTable]]:  # type: ignore[no-untyped-def]
    return effect_tables(database, TableKind.FUMBLE)


def test_the_probe_tables_hold_what_the_property_is_about(database, criticals, fumbles):
    """Rows from 1 read under the automatic miss, the open-below row, every column layout, both roll kinds."""
    reader = database.reader()
    low = database.load_attack_table(reader.locate("attack", "Printed blade", "PR"))
    assert low.automatic_miss == 10 and low.rows.ranges[0].low == 1 and low.unmodified is not None
    assert lookups.query_attack(database, "Printed blade", 5, "1", ruleset="PR").row is None  # the defect of issue 26
    pebbles = database.load_attack_table(reader.locate("attack", "Pebbles", "Probe"))
    assert pebbles.automatic_miss == 5 and pebbles.rows.ranges[0].label == "<21"
    layouts = {(kind, table.choice, table.roll.value) for kind, tables in (("critical", criticals), ("fumble", fumbles))
               for _, table in tables}
    assert {("critical", ColumnChoice.NONE, "oeh"), ("critical", ColumnChoice.ATTACK, "oeh"), ("critical", ColumnChoice.SEVERITY, "d100"),
            ("critical", ColumnChoice.NONE, "d100"), ("fumble", ColumnChoice.ATTACK, "oeh"), ("fumble", ColumnChoice.NONE, "d100")} <= layouts


def probe_weapon(**fields: object) -> Weapon:
    """A weapon made of options, as `resolve table --attack-table ... --critical ...` assembles one."""
    return replace(Weapon("probe", attack_table="", max_result=None, clumsy=0, critical=""), **fields)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(data=st.data(), roll=st.integers(1, 100))
def test_query_critical_reads_what_step_10_reads(database, criticals, data, roll):
    ruleset, table = data.draw(st.sampled_from(criticals), label="table")
    severity = data.draw(st.sampled_from(table.scale.levels), label="severity")
    column = data.draw(st.sampled_from(table.columns), label="column") if table.choice is ColumnChoice.ATTACK else None
    features = data.draw(st.sampled_from([(), tuple(sorted(table.features))]), label="features")
    queried = lookups.query_critical(database, table.name, roll, severity=severity.code, features=features, ruleset=ruleset,
                                     column=column).to_json()
    attack = Attack(probe_weapon(critical=table.name), cmb=0, armor="", critical_column=column)  # as --critical-column
    plan = CriticalPlan(table, severity, severity, 0, critical_column(table, severity, attack))
    modified, choice = critical_read(plan, roll, frozenset(features))
    assert queried["modified_roll"] == modified
    assert queried["entry"] == lookups.entry_json(choice.entry)
    assert queried["column"] == (None if plan.column is None else table.columns[plan.column])
    if choice.other is not None:
        assert lookups.entry_json(choice.other) in queried["branches"]


@settings(max_examples=300, deadline=None)
@given(data=st.data(), roll=st.integers(1, 100), modifier=st.integers(-150, 150))
def test_query_fumble_reads_what_step_2_reads(database, fumbles, data, roll, modifier):
    ruleset, table = data.draw(st.sampled_from(fumbles), label="table")
    column = data.draw(st.sampled_from(table.columns), label="column") if table.columns else None
    queried = lookups.query_fumble(database, table.name, roll, modifier=modifier, ruleset=ruleset, column=column).to_json()
    weapon = probe_weapon(fumble_table=table.name, fumble_modifier=modifier, fumble_column=column)
    modified, choice = fumble_read(table, roll, weapon)
    index = fumble_column(table, weapon)
    assert (queried["modified_roll"], queried["entry"]) == (modified, lookups.entry_json(choice.entry))
    assert queried["column"] == (None if index is None else table.columns[index])
