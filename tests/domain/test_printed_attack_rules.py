"""Slice 1 of the printed layouts, pinned through the domain: `F` cells, `UM`
rows, `Automatic miss | none` (and other values), weapons without a Max
Result; in resolve (dice forced by hand), in the exact odds (against a
brute-force enumeration written here from the rules, and against odds
worked out by hand) and in the vectorised simulation.

The tables are invented, in the shape of a printed Rolemaster attack table:
armor columns 20, 10 and 1, rows from `01-08` up to `>120`, `UM` rows, an
A-E scale.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from fractions import Fraction as F
from functools import lru_cache

import pytest
from helpers import assert_agrees
from small_tables import effect_table

from tables_app.domain.cells import Outcome, parse_attack_cell
from tables_app.domain.dice import ForcedDice
from tables_app.domain.odds import table_odds
from tables_app.domain.ranges import NO_BOTTOM, Range, RangeTable, parse_row_label
from tables_app.domain.resolve import Attack, TableSet, resolve_attack
from tables_app.domain.severity import Severity, SeverityScale
from tables_app.domain.simulate import simulate_table
from tables_app.domain.tables import AttackTable, Rank, RollKind, TableKind, Weapon

LETTERS = SeverityScale("printed letters", tuple(Severity(c, c, m) for c, m in (("A", 0), ("B", 5), ("C", 10), ("D", 15), ("E", 20))))
CODES = {"s": "Slash", "slash": "Slash", "k": "Krush", "krush": "Krush"}
ARMORS = ("20", "10", "1")
# printed layouts: "Rows may start at 1 (`01-02`)", "`>250` (= `251+`)", "`UM 96-100` or `UM 100`".
ROWS = [
    ("01-08", "F", "—", "F"),
    ("09-30", "—", "—", "0"),
    ("31-60", "3", "—", "5"),
    ("61-90", "6", "2", "8A"),
    ("91-120", "9B", "5 A", "12C"),
    (">120", "14D", "10C", "18E"),
]
UNMODIFIED_ROWS = [
    ("UM 96-99", "20E", "12D", "F"),
    ("UM 100", "30E", "25 E K", "25EK"),
]
# Critical and fumble tables (version 1's one-column layout: the severity adds its modifier).
# Slash over d100 + modifier, by hand: A (+0) 3.7, B (+5) 4.3, C (+10) 4.9, D (+15) 5.5, E (+20) 6.1.
SLASH = effect_table(TableKind.CRITICAL, "Slash", [
    ("1-20", "graze", 0, None), ("21-50", "cut", 2, None), ("51-80", "gash", 5, None),
    ("81-100", "slash", 8, None), ("101+", "sever", 12, None),
])
# Krush: E (+20) reads 21-50 on 30 faces (1 hit), 51+ on 70 (6): 4.5.
KRUSH = effect_table(TableKind.CRITICAL, "Krush", [("1-50", "bruise", 1, None), ("51+", "crack", 6, None)])
# The fumble table's top row has hits: a fumble still deals no damage (docs/table-system.md step 2).
FUMBLES = effect_table(TableKind.FUMBLE, "Blade fumbles", [
    ("1-30", "slip", 0, None), ("31-70", "drop the blade", 0, None), ("71+", "fall on it", 3, None),
])
BLADE = Weapon("Blade", "Printed", None, 2, "Slash", None, "Blade fumbles", 15, RollKind.OE)


def _cells(texts) -> tuple:  # type: ignore[no-untyped-def]
    return tuple(parse_attack_cell(t, LETTERS, lambda name: CODES.get(name.casefold())) for t in texts)


def printed_table(rows=ROWS, unmodified=UNMODIFIED_ROWS, automatic_miss: int | None = None) -> AttackTable:  # type: ignore[no-untyped-def]
    read = RangeTable((parse_row_label(label)[0], _cells(cells)) for label, *cells in rows)
    by_die = [(parse_row_label(label), _cells(cells)) for label, *cells in unmodified]
    assert all(flag for (_, flag), _ in by_die)
    return AttackTable("Printed", ARMORS, read, LETTERS, automatic_miss=automatic_miss,
                       unmodified=RangeTable((span, cells) for (span, _), cells in by_die) if by_die else None)


TABLES = TableSet(printed_table(), {"Slash": SLASH, "Krush": KRUSH}, FUMBLES)
NO_FUMBLE_TABLE = TableSet(TABLES.attack, TABLES.criticals, None)


def attack(cmb: int = 0, armor: str = "20", **changes) -> Attack:  # type: ignore[no-untyped-def]
    weapon_changes = {k: changes.pop(k) for k in list(changes) if k in Weapon.__dataclass_fields__}
    return Attack(replace(BLADE, **weapon_changes), cmb=cmb, armor=armor, **changes)


def forced(dice, tables=TABLES, **changes):  # type: ignore[no-untyped-def]
    """Resolve with exactly these dice: none missing, none left over."""
    given = ForcedDice(values=tuple(dice))
    result = resolve_attack(attack(**changes), tables, given)
    assert given.missing == [] and given.unused == (), (given.missing, given.unused)
    return result


# ------------------------------------------------------------------ F cells
# printed layouts: "`F`: the attack fumbles (outcome `fumble`: roll on the
# weapon's fumble table with its modifier, exactly as a Clumsy-range fumble)".
def test_an_f_cell_fumbles_through_the_weapons_fumble_table_with_its_modifier():
    result = forced([7, 40], roll=RollKind.D100)  # 7 reads 01-08 in column 20: F; 40 + 15 = 55 reads 31-70
    assert (result.outcome, result.damage, result.result) == (Outcome.FUMBLE, 0, 7)
    assert result.cell.row == "1-8" and result.cell.cell.text == "F"
    assert (result.fumble.table, result.fumble.roll, result.fumble.modified_roll) == ("Blade fumbles", 40, 55)
    assert result.fumble.entry.text == "drop the blade" and result.critical is None
    assert result.steps == (
        "Roll 7.",
        "CMB 0; 7 + 0 - DEF 0 = 7.",
        "Printed 1-8 20: F.",
        "The cell fumbles.",
        "Fumble: Blade fumbles, 40 + 15 = 55 (31-70).",
        "  drop the blade",
    )


def test_an_f_cells_fumble_deals_no_damage_even_where_the_fumble_entry_has_hits():
    # 90 + 15 = 105 reads 71+ "fall on it" (3 hits): step 2, "no damage".
    result = forced([5, 90], roll=RollKind.D100, armor="1")
    assert (result.outcome, result.damage, result.fumble.entry.text) == (Outcome.FUMBLE, 0, "fall on it")


def test_an_f_cell_without_a_fumble_table_says_so_and_rolls_nothing():
    result = forced([7], tables=NO_FUMBLE_TABLE, roll=RollKind.D100)
    assert (result.outcome, result.fumble, result.damage) == (Outcome.FUMBLE, None, 0)
    assert result.steps[-2:] == ("The cell fumbles.", "Blade has no fumble table.")


def test_an_opened_low_roll_can_read_an_f_cell():
    # docs/table-system.md "The open-ended d100": 4 − 2 = 2, which reads 01-08 (column 1: F).
    result = forced([4, 2, 10], armor="1")
    assert result.roll.total == 2 and result.outcome is Outcome.FUMBLE and result.fumble.modified_roll == 25


# ------------------------------------------------------------------ UM rows
# printed layouts: "a range written `UM 96-100` or `UM 100` is matched against
# the **unmodified** first die, after the Clumsy check and before the modified
# result; its cell is the result whatever the modifiers".
@pytest.mark.parametrize("first", [96, 97, 98, 99])
@pytest.mark.parametrize("cmb, defense", [(0, 0), (150, 0), (0, 300), (-40, 0)])
def test_a_um_row_reads_its_faces_whatever_cmb_and_def(first, cmb, defense):
    result = forced([first, 40], cmb=cmb, defense=defense)  # no open-ended die after 96-99: the critical die is next
    assert result.cell.row == "UM 96-99" and result.cell.cell.text == "20 E"
    assert result.outcome is Outcome.CRITICAL  # even with a CMB below 0: not ineffective
    assert result.roll.extra == () and result.result is None
    # E on Slash: 40 + 20 = 60 reads 51-80 (+5)
    assert (result.critical.table, result.critical.severity, result.critical.modified_roll) == ("Slash", "E", 60)
    assert result.damage == 25


def test_a_um_trace_is_exact():
    result = forced([100, 90], cmb=-40, defense=50)
    assert result.steps == (
        "Unmodified roll 100 reads row UM 100, whatever the modifiers.",
        "Printed UM 100 20: 30 E.",
        "Critical: E on Slash, 90 + 20 = 110 (101+; +12 hits).",
        "  sever",
        "Damage: 30 + 12 = 42.",
    )
    assert (result.outcome, result.damage) == (Outcome.CRITICAL, 42)


def test_a_um_cell_naming_its_own_critical_table_rolls_there():
    # docs/table-system.md step 10: "Read the cell's own critical table if it names one".
    result = forced([100, 90], cmb=-40, defense=50, armor="10")  # UM 100, column 10: "25 E K"
    assert (result.critical.table, result.critical.modified_roll, result.critical.entry.text) == ("Krush", 110, "crack")
    assert (result.outcome, result.damage) == (Outcome.CRITICAL, 25 + 6)


def test_a_um_row_caps_nothing_and_is_read_under_an_automatic_miss():
    # A Max Result and an automatic miss are steps 5 and 7, on the modified result; a UM row has none.
    tables = TableSet(printed_table(automatic_miss=1000), TABLES.criticals, FUMBLES)
    result = forced([99, 1], tables=tables, max_result=5)
    assert result.cell.row == "UM 96-99" and result.uncapped is None and not result.capped
    # E on Slash: 1 + 20 = 21 reads 21-50 (+2)
    assert (result.critical.modified_roll, result.damage) == (21, 20 + 2)


def test_a_um_f_cell_fumbles():
    result = forced([97, 10], armor="1")  # UM 96-99 in column 1: F; 10 + 15 = 25 reads 1-30
    assert result.outcome is Outcome.FUMBLE and result.fumble.entry.text == "slip"
    assert result.steps[:3] == ("Unmodified roll 97 reads row UM 96-99, whatever the modifiers.", "Printed UM 96-99 1: F.",
                                "The cell fumbles.")


# A UM row at the low end, overlapping the Clumsy Range 1-2: the Clumsy check comes first.
LOW_UM = TableSet(printed_table(unmodified=[("UM 01-03", "20E", "12D", "F"), *UNMODIFIED_ROWS]), TABLES.criticals, FUMBLES)


@pytest.mark.parametrize("first", [1, 2])
def test_a_clumsy_face_in_a_um_row_fumbles(first):
    result = forced([first, 50], tables=LOW_UM)
    assert result.outcome is Outcome.FUMBLE and result.cell is None and result.fumble.roll == 50
    assert result.steps[0] == f"Unmodified roll {first} is within the Clumsy Range 1-2: the attack fumbles."


def test_the_face_above_the_clumsy_range_reads_the_um_row_and_opens_nothing():
    result = forced([3, 40], tables=LOW_UM)  # 3 would open low (oe); the UM row reads it first
    assert result.cell.row == "UM 1-3" and result.roll.extra == () and result.damage == 20 + 5


@pytest.mark.parametrize("cmb, defense", [(0, 0), (-30, 80)])
def test_with_clumsy_0_face_1_reads_a_um_row_and_opens_nothing(cmb, defense):
    # docs/table-system.md step 2: Clumsy 0 fumbles on no face ("U ≤ N"), so face 1 is past the Clumsy
    # check; a `UM` row holding it reads it "whatever the modifiers: no open-ended dice are rolled"
    # (1 would open low, oe), not even a negative CMB makes it ineffective.
    result = forced([1, 40], tables=LOW_UM, clumsy=0, cmb=cmb, defense=defense)
    assert (result.outcome, result.cell.row, result.roll.extra, result.result) == (Outcome.CRITICAL, "UM 1-3", (), None)
    assert result.steps[0] == "Unmodified roll 1 reads row UM 1-3, whatever the modifiers."
    assert result.damage == 20 + 5  # E on Slash: 40 + 20 = 60 reads 51-80 (+5)


def test_with_clumsy_0_the_odds_weigh_face_1_in_the_um_row():
    # docs/table-system.md, "Odds": "each face a `UM` row reads weighs 1/100 for its row's cell (and opens no roll)"
    odds = table_odds(attack(clumsy=0, cmb=-30), LOW_UM)
    assert dict(odds.rows)["UM 1-3"] == F(3, 100)  # faces 1, 2 and 3
    assert odds.outcomes["fumble"] == 0 and odds.outcomes["ineffective"] == F(100 - 3 - 5, 100)  # UM 96-99, UM 100
    with_clumsy = table_odds(attack(clumsy=1, cmb=-30), LOW_UM)
    assert dict(with_clumsy.rows)["UM 1-3"] == F(2, 100) and with_clumsy.outcomes["fumble"] == F(1, 100)


# ------------------------------------------------------------ automatic miss
# printed layouts: "`Automatic miss | 10` (default, VsD ...) or `none`
# (Rolemaster: every row is read)"; "Results below the lowest row miss".
@pytest.mark.parametrize("first, outcome, row", [(3, Outcome.FUMBLE, "1-8"), (8, Outcome.FUMBLE, "1-8"),
                                                 (9, Outcome.MISS, "9-30"), (10, Outcome.MISS, "9-30")])
def test_with_no_automatic_miss_results_1_to_10_read_the_rows(first, outcome, row):
    result = forced([first] + ([50] if outcome is Outcome.FUMBLE else []), roll=RollKind.D100)
    assert (result.outcome, result.cell.row) == (outcome, row)


def test_with_no_automatic_miss_a_result_below_the_lowest_row_misses():
    result = forced([7], defense=10, roll=RollKind.D100)
    assert (result.outcome, result.result, result.cell) == (Outcome.MISS, -3, None)
    assert result.steps[-1] == "Result -3 is below the lowest row (1-8): a miss."


def test_a_table_starting_above_11_misses_below_its_lowest_row():
    tables = TableSet(printed_table(rows=[("12-30", "—", "—", "0"), *ROWS[2:]]), TABLES.criticals, FUMBLES)
    result = forced([11], tables=tables, roll=RollKind.D100)
    assert result.steps[-1] == "Result 11 is below the lowest row (12-30): a miss."
    assert forced([12], tables=tables, roll=RollKind.D100, armor="1").outcome is Outcome.NO_DAMAGE


def test_an_open_bottom_row_reads_every_low_result():
    # printed layouts: "`<71` (= everything below 71, first row only)".
    tables = TableSet(printed_table(rows=[("<31", "—", "—", "F"), *ROWS[2:]]), TABLES.criticals, FUMBLES)
    result = forced([3, 99, 40, 20], tables=tables, armor="1")  # 3 − 99 − 40 = −136
    assert result.result == -136 and result.cell.row == "<31" and result.outcome is Outcome.FUMBLE
    assert tables.attack.rows.ranges[0].low == NO_BOTTOM


def test_automatic_miss_10_is_the_old_behaviour():
    # docs/table-system.md step 7: "R ≤ 10 is a `miss`; the table is not read".
    tables = TableSet(printed_table(automatic_miss=10), TABLES.criticals, FUMBLES)
    result = forced([7], tables=tables, roll=RollKind.D100)
    assert (result.outcome, result.cell) == (Outcome.MISS, None)
    assert result.steps[-1] == "Result 7 is 10 or less: an automatic miss."
    assert forced([11], tables=tables, roll=RollKind.D100).cell.row == "9-30"  # 11 reads the row holding it


def test_a_custom_automatic_miss():
    tables = TableSet(printed_table(automatic_miss=20), TABLES.criticals, FUMBLES)
    result = forced([20], tables=tables, roll=RollKind.D100, armor="1")
    assert result.steps[-1] == "Result 20 is 20 or less: an automatic miss." and result.cell is None
    above = forced([21], tables=tables, roll=RollKind.D100, armor="1")
    assert (above.outcome, above.cell.row) == (Outcome.NO_DAMAGE, "9-30")


# ------------------------------------------------------------ no Max Result
# printed layouts: "`Max result` may be blank (no cap)".
def test_no_max_result_caps_nothing():
    result = forced([90, 30], cmb=300)  # 90 + 300 = 390 reads the top row, 121+ "14D"; D on Slash: 30 + 15 = 45 (+2)
    assert (result.result, result.uncapped, result.capped) == (390, 390, False)
    assert result.cell.row == "121+" and result.damage == 14 + 2 and not any("caps" in step for step in result.steps)
    capped = forced([90, 30], cmb=300, max_result=150)  # the same attack with a Max Result: step 5 bites
    assert (capped.result, capped.uncapped, capped.steps[2]) == (150, 390, "Max Result 150 caps the result at 150.")


# -------------------------------------------------------- exact odds by hand
def test_odds_of_a_closed_roll_by_hand():
    """Closed d100, CMB 0, column 20, no automatic miss: faces 1-2 Clumsy and
    3-8 `F` fumble (8); 9-30 miss (22); 31-60 "3", 61-90 "6" (60); 91-95 "9B"
    (5); UM 96-99 "20E" (4), UM 100 "30E" (1). Slash B 4.3, E 6.1."""
    odds = table_odds(attack(roll=RollKind.D100), TABLES)
    assert odds.outcomes == {"fumble": F(8, 100), "miss": F(22, 100), "ineffective": 0, "no_damage": 0,
                             "hit": F(60, 100), "critical": F(10, 100)}
    assert {k: v for k, v in odds.critical_severity.items() if v} == {"B": F(5, 100), "E": F(5, 100)}
    # 30 × 3 + 30 × 6 + 5 × (9 + 4.3) + 4 × (20 + 6.1) + 1 × (30 + 6.1), over 100
    assert odds.expected_damage == F(477, 100)
    # d100 + 15: 1-30 on 15 faces, 31-70 on 40, 71+ on 45; every fumble, Clumsy and `F` alike
    assert odds.fumble_rows == {"1-30": F(8, 100) * F(15, 100), "31-70": F(8, 100) * F(40, 100), "71+": F(8, 100) * F(45, 100)}
    assert odds.rows == [("1-8", F(6, 100)), ("9-30", F(22, 100)), ("31-60", F(30, 100)), ("61-90", F(30, 100)),
                         ("91-120", F(5, 100)), ("UM 96-99", F(4, 100)), ("UM 100", F(1, 100))]


def test_odds_of_a_um_row_whatever_the_cmb():
    # CMB -40: every modified face is ineffective (step 6), but UM faces 96-100 read their cells (5 in 100).
    odds = table_odds(attack(cmb=-40, roll=RollKind.D100, clumsy=0), TABLES)
    assert {k: v for k, v in odds.outcomes.items() if v} == {"ineffective": F(95, 100), "critical": F(5, 100)}
    assert odds.expected_damage == (4 * (20 + F(61, 10)) + 30 + F(61, 10)) / 100


def test_f_cell_odds_without_a_fumble_table():
    odds = table_odds(attack(roll=RollKind.D100), NO_FUMBLE_TABLE)
    assert odds.outcomes["fumble"] == F(8, 100) and odds.fumble_rows == {}


# ------------------------------------------------ exact odds by brute force
CHAIN_DEPTH = 6  # the chain's dice enumerated one by one; deeper chains are lumped (see _tail)


@lru_cache(maxsize=None)
def _tail() -> tuple[tuple[int, F], ...]:
    """What an opened roll adds: d100 again while 96+, die by die. Chains
    still going after CHAIN_DEPTH dice (mass 20**-6) are lumped at their sum
    so far, at least 576: every attack here reads the same there as at any
    larger sum (the top row, the cap, or below the lowest row), so the lump is exact."""
    found: dict[int, F] = {}
    going = {0: F(1)}
    for _ in range(CHAIN_DEPTH):
        after: dict[int, F] = {}
        for base, p in going.items():
            for die in range(1, 101):
                if die >= 96:
                    after[base + die] = after.get(base + die, 0) + p / 100
                else:
                    found[base + die] = found.get(base + die, 0) + p / 100
        going = after
    for base, p in going.items():
        found[base] = found.get(base, 0) + p
    return tuple(sorted(found.items()))


def brute_odds(chosen: Attack, tables: TableSet) -> dict:  # type: ignore[type-arg]
    """The rules written out again, face by face: the first die 1-100, the
    open-ended chain, the critical dice 1-100 and the fumble die 1-100."""
    weapon, table = chosen.weapon, tables.attack
    column = table.armors.index(chosen.armor)
    scale = table.scale.levels
    # docs/workbook-format.md, "attack": a printed `XX-30` row runs from the top of the Clumsy Range + 1 to 30
    # (no row when that is empty); `UM 01-XX` is the Clumsy Range itself, whose faces fumble first
    rows = [(Range(weapon.clumsy + 1, span.high) if span.clumsy else span, cells[column])
            for span, cells in zip(table.rows.ranges, table.rows.values)
            if not (span.clumsy and span.high is not None and weapon.clumsy + 1 > span.high)]
    um = {}
    if table.unmodified is not None:
        for span, cells in zip(table.unmodified.ranges, table.unmodified.values):
            if not span.clumsy:
                um.update({face: cells[column] for face in range(span.low, span.high + 1)})
    effective = chosen.cmb + sum(v for _, v in chosen.modifiers)
    reduction = 0 if chosen.ignore_crit_reduction else chosen.rank.critical_reduction + chosen.crit_reduction
    outcomes = dict.fromkeys(("fumble", "miss", "ineffective", "no_damage", "hit", "critical"), F(0))
    severities = {level.code: F(0) for level in scale}
    fumble_rows: dict[str, F] = {}
    damage = [F(0)]

    def entry_at(effect_table, roll):  # type: ignore[no-untyped-def]
        ranges = effect_table.rows.ranges
        for span, entries in zip(ranges, effect_table.rows.values):
            if span.contains(roll):
                return span, entries[0]
        return (ranges[-1], effect_table.rows.values[-1][0]) if roll > ranges[-1].low else (ranges[0], effect_table.rows.values[0][0])

    def mean_hits(effect_table, modifier):  # type: ignore[no-untyped-def]
        return F(sum(entry_at(effect_table, die + modifier)[1].hits for die in range(1, 101)), 100)

    def fumble(weight):  # type: ignore[no-untyped-def]
        outcomes["fumble"] += weight
        if tables.fumble is not None:
            for die in range(1, 101):
                label = entry_at(tables.fumble, die + weapon.fumble_modifier)[0].label
                fumble_rows[label] = fumble_rows.get(label, 0) + weight / 100

    def settle(cell, weight):  # type: ignore[no-untyped-def]
        if cell.outcome is Outcome.FUMBLE:
            return fumble(weight)
        if cell.outcome is not Outcome.CRITICAL:
            outcomes[cell.outcome.value] += weight
            damage[0] += weight * cell.hits
            return None
        degree = [level.code for level in scale].index(cell.severity) - reduction
        if degree < 0:  # cancelled: a hit
            outcomes["hit"] += weight
            damage[0] += weight * cell.hits
            return None
        outcomes["critical"] += weight
        severities[scale[degree].code] += weight
        extra = mean_hits(tables.criticals[cell.critical or weapon.critical], scale[degree].modifier)
        if weapon.secondary_critical and degree >= 2:
            extra += mean_hits(tables.criticals[weapon.secondary_critical], scale[degree - 2].modifier)
        damage[0] += weight * (cell.hits + extra)
        return None

    def read(total, weight):  # type: ignore[no-untyped-def]
        result = total + effective - chosen.defense
        if weapon.max_result is not None:
            result = min(result, weapon.max_result)
        if effective < 0:
            outcomes["ineffective"] += weight
        elif table.automatic_miss is not None and result <= table.automatic_miss:
            outcomes["miss"] += weight
        else:
            holding = [cell for span, cell in rows if span.contains(result)]
            top_span, top_cell = max(rows, key=lambda pair: pair[0].low)
            if holding:
                settle(holding[0], weight)
            elif result > top_span.low:
                settle(top_cell, weight)
            else:
                outcomes["miss"] += weight  # below the lowest row

    opens_high = weapon.roll in (RollKind.OE, RollKind.OEH)
    opens_low = weapon.roll in (RollKind.OE, RollKind.OEL)
    for first in range(1, 101):
        if first <= weapon.clumsy:
            fumble(F(1, 100))
        elif first in um:
            settle(um[first], F(1, 100))
        elif first >= 96 and opens_high:
            for x, p in _tail():
                read(first + x, p / 100)
        elif first <= 5 and opens_low:
            for x, p in _tail():
                read(first - x, p / 100)
        else:
            read(first, F(1, 100))
    return {"outcomes": outcomes, "critical_severity": severities, "fumble_rows": fumble_rows, "expected_damage": damage[0]}


AM10 = TableSet(printed_table(automatic_miss=10), TABLES.criticals, FUMBLES)
AM20 = TableSet(printed_table(automatic_miss=20), TABLES.criticals, FUMBLES)
OPEN_BOTTOM = TableSet(printed_table(rows=[("<31", "—", "—", "F"), *ROWS[2:]]), TABLES.criticals, FUMBLES)
NO_UM = TableSet(printed_table(unmodified=[]), TABLES.criticals, FUMBLES)
# Arms Law's rows bounded by the weapon's Clumsy Range (docs/workbook-format.md, "attack"): `UM 01-XX`, `XX-30`.
CLUMSY_ROWS = [("XX-30", "—", "F", "0"), *ROWS[2:]]
CLUMSY_UM = [("UM 01-XX", "F", "F", "F"), *UNMODIFIED_ROWS]
BY_CLUMSY = TableSet(printed_table(rows=CLUMSY_ROWS, unmodified=CLUMSY_UM), TABLES.criticals, FUMBLES)
BY_CLUMSY_AM10 = TableSet(printed_table(rows=CLUMSY_ROWS, unmodified=CLUMSY_UM, automatic_miss=10), TABLES.criticals, FUMBLES)
BRUTE_CASES = [
    ("F cells and UM rows, closed", TABLES, {"roll": RollKind.D100}),
    ("F cells and UM rows, oe", TABLES, {}),
    ("opened low reads F, column 1", TABLES, {"armor": "1"}),
    ("oel, DEF 30, column 1", TABLES, {"armor": "1", "roll": RollKind.OEL, "defense": 30}),
    ("oeh, CMB 60, column 10", TABLES, {"armor": "10", "roll": RollKind.OEH, "cmb": 60}),
    ("a UM row in the Clumsy Range", LOW_UM, {"clumsy": 4, "cmb": 20}),
    ("a UM row at face 1, Clumsy 0", LOW_UM, {"clumsy": 0, "cmb": 20, "armor": "1"}),
    ("UM rows whatever a negative CMB", TABLES, {"cmb": -15, "armor": "1"}),
    ("automatic miss 10", AM10, {"armor": "1", "cmb": 5}),
    ("automatic miss 20", AM20, {"armor": "1", "cmb": 5}),
    ("a cap and F cells", TABLES, {"max_result": 100, "cmb": 40, "armor": "1"}),
    ("no cap, a high CMB", TABLES, {"cmb": 90, "armor": "10"}),
    ("an open bottom row", OPEN_BOTTOM, {"armor": "1", "defense": 40, "fumble_modifier": -20}),
    ("heroic, secondary critical", TABLES, {"cmb": 70, "rank": Rank.HEROIC, "secondary_critical": "Krush"}),
    ("epic cancels UM criticals", LOW_UM, {"cmb": 30, "armor": "10", "rank": Rank.EPIC, "crit_reduction": 3}),
    ("no fumble table", NO_FUMBLE_TABLE, {"armor": "1"}),
    ("no UM rows, no automatic miss", NO_UM, {"armor": "1", "clumsy": 0}),
    ("XX-30 from Clumsy 4 + 1, closed", BY_CLUMSY, {"clumsy": 4, "armor": "1", "roll": RollKind.D100, "defense": 20}),
    ("XX-30 from 1 with Clumsy 0", BY_CLUMSY, {"clumsy": 0, "armor": "1", "defense": 25}),
    ("XX-30 empty above Clumsy 35", BY_CLUMSY, {"clumsy": 35, "armor": "1", "cmb": 10}),
    ("XX-30 F cells, oe", BY_CLUMSY, {"clumsy": 2, "armor": "10", "defense": 10}),
    ("XX-30 under automatic miss 10", BY_CLUMSY_AM10, {"clumsy": 3, "armor": "1", "defense": 15}),
]


@pytest.mark.parametrize("tables, changes", [(t, c) for _, t, c in BRUTE_CASES], ids=[n for n, _, _ in BRUTE_CASES])
def test_odds_equal_brute_force_enumeration(tables, changes):
    # docs/table-system.md "Odds": exact; F-cell fumbles count in `fumble` and `fumble_rows` (printed layouts §6).
    chosen = attack(**changes)
    expected = brute_odds(chosen, tables)
    odds = table_odds(chosen, tables)
    assert odds.outcomes == expected["outcomes"]
    assert odds.critical_severity == expected["critical_severity"]
    assert odds.fumble_rows == expected["fumble_rows"]
    assert odds.expected_damage == expected["expected_damage"]
    assert sum(odds.outcomes.values()) == 1 and sum(odds.fumble_rows.values()) == (odds.outcomes["fumble"] if tables.fumble else 0)


def test_the_brute_force_tells_an_f_cell_from_a_miss():
    """The enumeration can fail: read as a miss, the `F` faces 3-8 of the
    closed roll would move 6 in 100 from `fumble` to `miss`."""
    as_miss = TableSet(printed_table(rows=[("01-08", "—", "—", "—"), *ROWS[1:]]), TABLES.criticals, FUMBLES)
    chosen = attack(roll=RollKind.D100)
    assert brute_odds(chosen, as_miss)["outcomes"]["fumble"] == F(2, 100)
    assert brute_odds(chosen, TABLES)["outcomes"]["fumble"] == F(8, 100) == table_odds(chosen, TABLES).outcomes["fumble"]


@pytest.mark.slow  # ~1.5 s: 20,000 attacks (`pytest -m slow`, and CI)
def test_seeded_resolutions_agree_with_the_brute_force():
    # resolve and the odds read the same rules: 20,000 seeded attacks, chi-square.
    from tables_app.domain.dice import SeededDice

    chosen = attack(armor="1", cmb=10)
    expected = brute_odds(chosen, TABLES)
    dice = SeededDice(seed=15)
    results = [resolve_attack(chosen, TABLES, dice) for _ in range(20_000)]
    assert_agrees(Counter(r.outcome.value for r in results), expected["outcomes"])


# ------------------------------------------------------------------ simulate
SIMULATED = [(t, c) for name, t, c in BRUTE_CASES if name in (
    "F cells and UM rows, oe", "opened low reads F, column 1", "a UM row in the Clumsy Range", "a UM row at face 1, Clumsy 0",
    "UM rows whatever a negative CMB", "automatic miss 20", "heroic, secondary critical", "an open bottom row",
    "XX-30 from 1 with Clumsy 0", "XX-30 F cells, oe")]


@pytest.mark.parametrize("tables, changes", SIMULATED)
def test_the_simulation_agrees_with_the_exact_odds(tables, changes):
    chosen = attack(**changes)
    odds = table_odds(chosen, tables)
    tally = simulate_table(chosen, tables, 200_000, seed=15)
    assert tally.count == 200_000
    assert_agrees(tally.outcomes, odds.outcomes)
    severities = tally.extra["critical_severity"]
    assert_agrees(severities | {"none": tally.count - sum(severities.values())},
                  odds.critical_severity | {"none": 1 - odds.outcomes["critical"]})
    mean = tally.damage_sum / tally.count
    error = ((tally.damage_squares / tally.count - mean**2) / tally.count) ** 0.5
    assert abs(mean - float(odds.expected_damage)) <= 4 * error + 1e-12, (mean, float(odds.expected_damage))
