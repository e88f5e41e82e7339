"""The bundled tables (table_sources/) keep the shape issue #2 promises."""

import pytest

from tables_app.services import database_setup as database
from tables_app.domain.cells import Outcome
from tables_app.domain.tables import TableKind


@pytest.fixture
def reader(opened):
    return opened.reader()


def attack_tables(reader):
    return [reader.load_attack_table(t["name"]) for t in reader.list_named("attack")]


def test_bundled_workbooks_ship_with_the_package():
    names = [p.name for p in database.bundled_workbooks()]
    assert names[:4] == list(database.BUNDLED_ORDER)


def test_attack_tables_shape(reader):
    tables = attack_tables(reader)
    assert len(tables) >= 6
    seen = set()
    for table in tables:
        assert table.armors == ("NA", "LA", "MA", "HA"), table.name
        read = [r for r in table.rows.ranges if r.low >= 11]
        assert [r.low for r in read] == list(range(11, 175, 5)), table.name
        assert all(r.high in (r.low + 4, None) for r in read), table.name
        seen |= {cell.outcome for cells in table.rows.values for cell in cells}
    assert seen == {Outcome.MISS, Outcome.NO_DAMAGE, Outcome.HIT, Outcome.CRITICAL}


def test_damage_never_falls_as_the_result_rises_and_criticals_grow(reader):
    for table in attack_tables(reader):
        degree = {level.code: i for i, level in enumerate(table.scale.levels)}
        for column, armor in enumerate(table.armors):
            cells = [cells[column] for cells in table.rows.values]
            hits = [c.hits for c in cells]
            assert hits == sorted(hits), (table.name, armor)
            severities = [degree[c.severity] for c in cells if c.severity]
            assert severities == sorted(severities), (table.name, armor)
            assert cells[-1].outcome is Outcome.CRITICAL, (table.name, armor)


def test_heavier_armor_takes_fewer_hits(reader):
    for table in attack_tables(reader):
        for row, cells in zip(table.rows.ranges, table.rows.values):
            hits = [c.hits for c in cells]
            assert hits == sorted(hits, reverse=True), (table.name, row.label)


def test_critical_and_fumble_tables(reader):
    criticals = reader.list_named("critical")
    assert len(criticals) >= 6
    branched = 0
    for item in criticals:
        table = reader.load_effect_table(TableKind.CRITICAL, item["name"])
        assert table.rows.lowest == 1 and (table.rows.highest in (150, None)), table.name
        branched += any(len(entries) == 2 for entries in table.rows.values)
        assert item["code"], table.name
    assert branched >= 2
    fumbles = reader.list_named("fumble")
    assert len(fumbles) == 2


def test_weapons_and_creatures(reader):
    weapons = reader.list_named("weapons")
    assert len(weapons) >= 20
    max_results = [w["max_result"] for w in weapons]
    assert min(max_results) == 80 and max(max_results) == 175
    assert {w["clumsy"] for w in weapons} <= set(range(1, 9)) and min(w["clumsy"] for w in weapons) == 1
    assert max(w["clumsy"] for w in weapons) == 8
    assert any(w["secondary_critical"] for w in weapons)
    assert len({w["fumble_modifier"] for w in weapons}) > 2
    creatures = reader.list_named("creatures")
    assert len(creatures) >= 8
    assert {"heroic", "epic"} <= {c["rank"] for c in creatures}
    assert any("helm" in c["features"] for c in creatures)
