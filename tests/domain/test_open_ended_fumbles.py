"""A fumble table rolled open-ended high (`Roll kind | oeh`, docs/workbook-format.md,
"Open-ended critical and fumble rolls"; docs/table-system.md, step 2): the
fumble die opens on 96-100 and adds, then the weapon's Fumble modifier is
added; resolve and the exact odds read the same rows. Tables and numbers
are invented."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from small_tables import TABLES, attack, effect_table

from tables_app.domain.cells import Outcome
from tables_app.domain.dice import ForcedDice
from tables_app.domain.odds import open_ended_tail, table_odds
from tables_app.domain.resolve import resolve_attack
from tables_app.domain.table_rules import TableSet, fumble_read
from tables_app.domain.tables import RollKind, TableKind

import test_printed_critical_rules as printed

F = Fraction
# One column: 1-50, 51-100, 101+ (a roll past 100 is reached only by opening, or by a modifier)
SPILLS = replace(effect_table(TableKind.FUMBLE, "Spills", [("1-50", "slip", 0, None), ("51-100", "drop", 0, None),
                                                           ("101+", "disaster", 0, None)]), roll=RollKind.OEH)
OPEN_TABLES = TableSet(TABLES.attack, TABLES.criticals, SPILLS)


def fumbled(dice, tables=OPEN_TABLES, **changes):  # type: ignore[no-untyped-def]
    forced = ForcedDice(values=dice)
    result = resolve_attack(attack(**changes), tables, forced)
    assert forced.missing == [] and forced.unused == ()
    return result


def test_the_fumble_die_opens_high_and_the_modifier_is_added_to_the_total():
    result = fumbled([2, 97, 99, 12], fumble_modifier=-20)  # Clumsy 1-3: 2 fumbles
    assert result.outcome is Outcome.FUMBLE
    assert (result.fumble.roll, result.fumble.open_ended, result.fumble.modified_roll) == (97, (99, 12), 208 - 20)
    assert result.fumble.entry.text == "disaster"
    assert "Fumble: Spills, 97 + 99 + 12 = 208 (open-ended) - 20 = 188 (101+)." in result.steps


def test_below_96_the_fumble_die_is_read_as_it_fell():
    result = fumbled([2, 95], fumble_modifier=10)
    assert (result.fumble.roll, result.fumble.open_ended, result.fumble.modified_roll) == (95, (), 105)
    assert "Fumble: Spills, 95 + 10 = 105 (101+)." in result.steps


def test_a_d100_fumble_table_never_opens():
    result = fumbled([2, 97], tables=TABLES)
    assert (result.fumble.roll, result.fumble.open_ended, result.fumble.modified_roll) == (97, (), 107)


def test_an_f_cell_rolls_the_open_ended_fumble_die_too():
    # printed tables (step 8): an `F` cell fumbles exactly as the Clumsy Range does
    chosen, tables = printed.attack_on("F", fumble_column="2H")
    tables = TableSet(tables.attack, tables.criticals, replace(tables.fumble, roll=RollKind.OEH))
    result = resolve_attack(chosen, tables, ForcedDice(values=[40, 100, 3]))
    assert (result.fumble.roll, result.fumble.modified_roll, result.fumble.entry.text) == (100, 103, "2H 61+")
    assert "Fumble: Trip, column 2H, 100 + 3 = 103 (open-ended) + 0 = 103 (61+)." in result.steps


def test_the_fumble_rows_by_hand():
    # Modifier -20: 101+ needs a total of 121: a face f of 96-100 opens and needs 121 - f more
    # (76, 77, 78, 79, 80 of the next die's 100 faces: it reaches 25..21 without opening again);
    # 1-50: faces 1-70; 51-100 the rest.
    odds = table_odds(attack(clumsy=10, fumble_modifier=-20), OPEN_TABLES)
    fumble = F(10, 100)
    top = F(76 + 77 + 78 + 79 + 80, 100 * 100)
    assert odds.fumble_rows == {"1-50": fumble * F(70, 100), "51-100": fumble * (F(30, 100) - top), "101+": fumble * top}
    # a d100 fumble table never reaches 101+ with this modifier
    closed = table_odds(attack(clumsy=10, fumble_modifier=-20), TableSet(TABLES.attack, TABLES.criticals,
                                                                          replace(SPILLS, roll=RollKind.D100)))
    assert closed.fumble_rows == {"1-50": fumble * F(70, 100), "51-100": fumble * F(30, 100)}


@pytest.mark.parametrize("modifier", [-120, -20, 0, 7, 60])
def test_the_fumble_rows_equal_enumeration_over_the_open_ended_tail(modifier):
    """Faces 1-95 read as they fell, 96-100 over the open-ended tail (the
    attack roll's own): each face and each tail total read one by one."""
    chosen = attack(clumsy=5, fumble_modifier=modifier)
    tail, denominator = open_ended_tail()
    by_hand: dict[str, Fraction] = {}
    for face in range(1, 101):
        spread = [(face, F(1))] if face < 96 else [(face + added, F(w, denominator)) for added, w in enumerate(tail) if w]
        for total, p in spread:
            label = fumble_read(SPILLS, total, chosen.weapon)[1].entry.range.label
            by_hand[label] = by_hand.get(label, 0) + F(5, 100) * p / 100
    odds = table_odds(chosen, OPEN_TABLES)
    assert odds.fumble_rows == {label: p for label, p in by_hand.items() if p}
    assert sum(odds.fumble_rows.values()) == odds.outcomes["fumble"] == F(5, 100)
