"""The bundled tables (table_sources/) keep the shape issue #2 promises, and
the shipped example ruleset `Printed` (table_sources/examples/printed.xlsx,
`tables example printed`) the printed layouts of issue 15.

Every value of printed.xlsx is invented (table_sources/generate.py); the
expected values below are read off its formulas and checked by hand."""

import json
from fractions import Fraction as F

import pytest
from helpers import error_lines

from tables_app.services import database_setup as database
from tables_app.domain.cells import Outcome
from tables_app.domain.tables import ColumnChoice, TableKind


@pytest.fixture
def reader(opened):
    return opened.reader()


@pytest.fixture
def printed(run, opened):  # type: ignore[no-untyped-def]
    """The bundled database with the example `Printed` ruleset imported: a reader."""
    path = run("example", "printed").stdout.strip()
    imported = run("import", path)
    assert imported.exit_code == 0, imported.output
    return opened.reader()


def attack_tables(reader, ruleset="default"):
    return [reader.load_attack_table(t["name"], ruleset) for t in reader.list_named("attack", ruleset)]


def test_bundled_workbooks_ship_with_the_package():
    names = [p.name for p in database.bundled_workbooks()]
    assert names == list(database.BUNDLED_ORDER) == ["criticals.xlsx", "attacks.xlsx", "armory.xlsx", "bestiary.xlsx"]
    assert {name: path.name for name, path in database.example_workbooks().items()} == {"printed": "printed.xlsx"}


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
    criticals = reader.list_named("critical", "default")
    assert len(criticals) >= 6
    branched = 0
    for item in criticals:
        table = reader.load_effect_table(TableKind.CRITICAL, item["name"])
        assert table.rows.lowest == 1 and (table.rows.highest in (150, None)), table.name
        branched += any(len(entries) == 2 for entries in table.rows.values)
        assert item["code"], table.name
    assert branched >= 2
    fumbles = reader.list_named("fumble", "default")
    assert len(fumbles) == 2


def test_weapons_and_creatures(reader):
    weapons = reader.list_named("weapons", "default")
    assert len(weapons) >= 20
    max_results = [w["max_result"] for w in weapons]
    assert min(max_results) == 80 and max(max_results) == 175
    assert {w["clumsy"] for w in weapons} <= set(range(1, 9)) and min(w["clumsy"] for w in weapons) == 1
    assert max(w["clumsy"] for w in weapons) == 8
    assert any(w["secondary_critical"] for w in weapons)
    assert len({w["fumble_modifier"] for w in weapons}) > 2
    creatures = reader.list_named("creatures", "default")
    assert len(creatures) >= 8
    assert {"heroic", "epic"} <= {c["rank"] for c in creatures}
    assert any("helm" in c["features"] for c in creatures)


def test_every_bundled_creature_attacks_with_bundled_weapons(reader):
    weapons = {w["name"] for w in reader.list_named("weapons", "default")}
    creatures = reader.list_named("creatures", "default")
    assert all(c["attacks"] for c in creatures)
    assert {a["weapon"] for c in creatures for a in c["attacks"]} <= weapons  # in the weapon's own spelling
    assert all(0 < a["cmb"] <= 150 for c in creatures for a in c["attacks"])
    orc = reader.load_creature("Orc Warrior", "default")
    assert orc.attacks[0].weapon == "Scimitar"  # the first: used unless another is named


# ---------------------------------------------------------------- the Printed ruleset (printed.xlsx)
PRINTED_ARMORS = tuple(str(k) for k in range(20, 0, -1))


def test_the_printed_ruleset_imports_beside_the_default_one(printed):
    # the issue: "add an invented ruleset in the printed layouts to table_sources/ (20 armor-type
    # columns, A–E criticals in printed notation with branches, a fumble table by category, weapons)"
    counts = {kind: sorted(t["name"] for t in printed.list_named(kind, "Printed"))
              for kind in ("attack", "critical", "fumble", "weapons", "creatures")}
    assert counts == {
        "attack": ["Barbed Shafts", "Bladework", "Bludgeons"],
        "critical": ["Hacking", "Mauling", "Skewering"],
        "fumble": ["Weapon Mishaps"],
        "weapons": ["Falchion", "Great Chopper", "Hewing Sword", "Hunting Bow", "Iron Cudgel", "Knobbed Club",
                    "Recurve Bow", "Spiked Maul", "Windlass Bow"],
        "creatures": ["Border Rider", "Cave Stalker", "Hill Brigand", "Iron Sentinel", "Marsh Lurker"],
    }
    # its own names: none of them is also a name of the default ruleset
    for kind, names in counts.items():
        assert not set(names) & {t["name"] for t in printed.list_named(kind, "default")}, kind


def test_printed_attack_tables_have_the_printed_shape(printed):
    # printed layouts: "Rows may start at 1 (`01-02`)"; "`Automatic miss | ... none` (Rolemaster: every row is read)";
    # "a range written `UM 96-100` or `UM 100` is matched against the unmodified first die"
    um_rows = {}
    for table in attack_tables(printed, "Printed"):
        assert table.armors == PRINTED_ARMORS, table.name
        assert table.automatic_miss is None, table.name
        assert (table.rows.lowest, table.rows.highest, table.rows.ranges[-1].label) == (1, None, "151+"), table.name
        um_rows[table.name] = [r.label for r in table.unmodified.ranges]
        outcomes = {cell.outcome for cells in table.rows.values for cell in cells}
        assert outcomes == {Outcome.FUMBLE, Outcome.MISS, Outcome.NO_DAMAGE, Outcome.HIT, Outcome.CRITICAL}, table.name
        first = table.rows.values[0]
        assert {c.outcome for c in first} == {Outcome.FUMBLE}, table.name  # `F` cells low in the table
    assert um_rows == {"Bladework": ["99-100"], "Bludgeons": ["100"], "Barbed Shafts": ["98-100"]}  # the unmodified die's
    bladework = printed.load_attack_table("Bladework", "Printed")
    top = bladework.rows.values[-1]
    # `18ES` cells; several criticals in one cell (`24 DS + AK`), hits once; plate (types 17-20) turns light blows to Mauling
    assert (top[0].text, top[-1].text) == ("15 E Hacking", "34 E Hacking + B Mauling")
    assert bladework.rows.values[20][0].text == "6 A Mauling"  # 101-105 against type 20


def test_printed_damage_rises_with_the_result_and_falls_with_armor(printed):
    for table in attack_tables(printed, "Printed"):
        for column, armor in enumerate(table.armors):
            hits = [cells[column].hits for cells in table.rows.values]
            assert hits == sorted(hits), (table.name, armor)
        for row, cells in zip(table.rows.ranges, table.rows.values):
            hits = [c.hits for c in cells]  # type 20 first: the heaviest armor takes the fewest hits
            assert hits == sorted(hits), (table.name, row.label)


def test_printed_critical_and_fumble_tables_are_read_by_column(printed):
    # printed layouts: "Header row `Roll | A | B | C | D | E` ... The roll is **not** modified by the severity"
    for name in ("Hacking", "Mauling", "Skewering"):
        table = printed.load_effect_table(TableKind.CRITICAL, name, "Printed")
        assert (table.choice, table.columns) == (ColumnChoice.SEVERITY, ("A", "B", "C", "D", "E")), name
        assert [r.label for r in table.rows.ranges] == [
            "1-5", "6-15", "16-30", "31-45", "46-60", "61-75", "76-85", "86-95", "96-99", "100"], name
        assert [table.row(100, table.column(c))[1][0].death_in for c in "CDE"] != [None] * 3, name
    mauling = printed.load_effect_table(TableKind.CRITICAL, "Mauling", "Printed")
    # `+5H` hits, `2∑∏`, `(-20)`, and a branch in the cell (`With helm: ... Without helm: ...`)
    helm, bare = mauling.row(50, mauling.column("C"))[1]
    assert (helm.condition, helm.hits, helm.must_parry, helm.attacker_bonus) == ("helm", 4, 1, 5)
    assert (bare.condition, bare.hits, bare.no_parry, bare.penalty) == ("not helm", 10, 1, -20)
    assert mauling.row(100, mauling.column("E"))[1][0].text == "Head smashed flat. instant death"
    # printed layouts: "Header row `Roll | 1HE | 1HC | 2H | PA | MIS | TH` (any names)"
    mishaps = printed.load_effect_table(TableKind.FUMBLE, "Weapon Mishaps", "Printed")
    assert (mishaps.choice, mishaps.columns) == (ColumnChoice.ATTACK, ("1HE", "1HC", "2H", "MIS"))
    fall = mishaps.row(95, mishaps.column("2H"))[1][0]
    assert (fall.text, fall.stun, fall.penalty) == ("Weapon breaks on the swing. 3∑ – (-20)", 3, -20)


def test_the_printed_ruleset_reads_its_entries_with_its_legend(printed):
    # docs/workbook-format.md, "Legends": the example ruleset keys its symbols as an RMFRP-style book
    # does, `π` must parry (bare: 1 round), `∏` no parry, `(π-10)` must parry at -10 to the parry
    mishaps = printed.load_effect_table(TableKind.FUMBLE, "Weapon Mishaps", "Printed")
    assert mishaps.legend.written() == "H hits; ∑ stun; ∑∏ stun no parry; ∏ no parry; π must parry; ∫ bleed"
    grip, = mishaps.row(30, mishaps.column("1HE"))[1]
    assert (grip.text, grip.must_parry, grip.no_parry) == ("Grip slips; recovers. π", 1, 0)
    nock, = mishaps.row(30, mishaps.column("MIS"))[1]
    assert (nock.must_parry, nock.parry_penalty, nock.penalty) == (1, -10, 0)
    back, = mishaps.row(60, mishaps.column("2H"))[1]
    assert (back.text, back.stun, back.no_parry, back.must_parry) == ("Wrenches the back. +2H – 2∏ – (-10)", 0, 2, 0)


def test_printed_weapons_and_creatures(printed):
    weapons = {w["name"]: w for w in printed.list_named("weapons", "Printed")}
    # printed layouts: "`Max result` may be blank (no cap)"
    assert sorted(n for n, w in weapons.items() if w["max_result"] is None) == [
        "Falchion", "Great Chopper", "Hunting Bow", "Knobbed Club", "Spiked Maul", "Windlass Bow"]
    assert {w["fumble_table"] for w in weapons.values()} == {"Weapon Mishaps"}
    creatures = {c["name"]: c for c in printed.list_named("creatures", "Printed")}
    assert (creatures["Iron Sentinel"]["armor"], creatures["Iron Sentinel"]["features"]) == (
        "20", ["helm", "shield", "leg armor"])
    assert all(c["attacks"] for c in creatures.values())
    assert {a["weapon"] for c in creatures.values() for a in c["attacks"]} <= set(weapons)
    assert creatures["Border Rider"]["attacks"] == [{"weapon": "Falchion", "cmb": 70}, {"weapon": "Recurve Bow", "cmb": 55}]


def test_the_printed_workbook_prints_attacks_bonus_first():
    import openpyxl

    sheet = openpyxl.load_workbook(database.example_workbook("printed"))["Creatures"]
    rows = list(sheet.iter_rows(values_only=True))
    column = next(row for row in rows if row[0] == "Name").index("Attacks")
    cells = [row[column] for row in rows[rows.index(next(r for r in rows if r[0] == "Name")) + 1:]]
    assert cells and all(str(cell)[0].isdigit() for cell in cells)  # `70 Falchion; 55 Recurve Bow`, as printed


def test_resolve_a_um_row_with_two_criticals(run, printed):
    # printed layouts: "a range written `UM 96-100` ... its cell is the result whatever the modifiers";
    # "Several criticals: `36 EH + AK` ... the hits go once"; each critical in its severity's column
    result = run("resolve", "table", "--weapon", "Falchion", "--cmb", "-50", "--armor", "1", "--dice", "100,60,40")
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "Printed:Falchion (Bladework, clumsy 1-3) vs DEF 0, AT 1\n"
        "Unmodified roll 100 reads row UM 99-100, whatever the modifiers.\n"
        "Bladework UM 99-100 1: 37 E Hacking + C Mauling.\n"
        "Critical: E on Hacking, column E, roll 60 (46-60; +10 hits, bleed 3/rnd, stun 1 rnd, no parry 1, penalty -20).\n"
        "  Sword arm slashed; grip falters. +10H – 1∑∏ – 3∫ – (-20)\n"
        "Critical 2: C on Mauling, column C, roll 40 (31-45; +7 hits, stun 1 rnd, penalty -15).\n"
        "  Elbow cracked. +7H – 1∑ – (-15)\n"
        "Damage: 37 + 10 + 7 = 54.\n"
        "CRITICAL, 54 damage.  Dice: 100, 60, 40 (given)\n"
    )


@pytest.mark.parametrize("has, hits, text", [
    (("--has", "helm"), 8, "With helm: Helm strap cut, helm falls +8H – 1∑ – 2∫ – (-15)."),
    ((), 14, "Without helm: Scalp opened to the bone +14H – 2∑∏ – 4∫ – (-25)."),
])
def test_resolve_a_several_critical_cell_and_a_helm_branch(run, printed, has, hits, text):
    # printed layouts: "Branches inside one cell, as printed: `With helm: ... Without helm: ...`"
    # 80 + 60 = 140 reads 136-140 against type 4: `27 ES + AK`; Hacking E at 70 is the helm cell
    result = run("resolve", "table", "--weapon", "Falchion", "--cmb", "60", "--armor", "4", "--dice", "80,70,20",
                 *has, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["cell"]["row"], data["cell"]["text"]) == ("136-140", "27 E Hacking + A Mauling")
    assert data["critical"]["entry"]["text"] == text
    assert data["damage"] == 27 + hits + 2  # Mauling A at 20: `Blow to the forearm. +2H – (+5)`


def test_odds_of_a_printed_weapon_are_exact_and_sum_to_1(run, printed):
    """Falchion (Bladework), CMB 50, type 13, open-ended: Clumsy faces 1-3 fumble; faces
    4 and 5 open low (54 − x and 55 − x): `F` cells below 11 on types 13-20,
    below the lowest row (1) a miss, 11-50 a miss, 51-55 `0`; faces 6-30 give
    56-80 (hits), 31-98 criticals (96-98 open high), UM 99-100 two criticals."""
    result = run("odds", "table", "--weapon", "Falchion", "--cmb", "50", "--armor", "13", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    expected = {"fumble": F(3, 100) + F(10 + 10, 10_000), "miss": F(47 + 46, 10_000) + F(40 + 40, 10_000),
                "ineffective": F(0), "no_damage": F(3 + 4, 10_000), "hit": F(25, 100), "critical": F(70, 100)}
    assert sum(expected.values()) == 1
    assert data["outcomes"] == {k: round(float(v), 12) for k, v in expected.items()}
    assert data["critical_severity"] == {"A": 0.15, "B": 0.15, "C": 0.15, "D": 0.15, "E": 0.1}
    assert data["rows"][-1] == {"row": "UM 99-100", "probability": 0.02}


def test_the_printed_workbook_lints_clean_against_an_empty_database(run, printed, tmp_path):
    # printed layouts: "Quality warnings name a cell" — and the bundled ruleset gives none, errors neither
    empty = tmp_path / "empty.db"
    assert run("db", "init", str(empty), "--empty").exit_code == 0
    linted = run("lint", str(database.example_workbook("printed")), db=empty)
    assert linted.exit_code == 0, linted.output
    assert linted.stdout.startswith(
        "OK printed.xlsx: 1 severity scale (Printed:Printed letters); 3 attack tables (Printed:Bladework, "
        "Printed:Bludgeons, Printed:Barbed Shafts); 3 critical tables (Printed:Hacking, Printed:Mauling, "
        "Printed:Skewering); "
        "1 fumble table (Printed:Weapon Mishaps); 9 weapons (")
    assert error_lines(linted) == ""
    assert [line for line in linted.stderr.splitlines() if line.startswith("Warning:")] == []
