"""Printed critical and fumble tables in the rules (docs/table-system.md,
step 10 with printed columns; step 2's fumble by weapon category), worked
by hand and by brute force: a column per severity (the roll is read as it
fell), a column the attack picks, `Roll kind | oeh`, a column per weapon
category. Tables and numbers are invented."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from tables_app.domain.cells import parse_attack_cell
from tables_app.domain.dice import ForcedDice
from tables_app.domain.odds import critical_hits_over_die, open_ended_tail, table_odds
from tables_app.domain.ranges import Range, RangeTable, parse_range
from tables_app.domain.resolve import resolve_attack
from tables_app.domain.severity import Severity, SeverityScale
from tables_app.domain.simulate import simulate_table
from tables_app.domain.table_rules import Attack, TableSet, check_columns, critical_read, CriticalPlan
from tables_app.domain.tables import AttackTable, ColumnChoice, EffectTable, Entry, RollKind, TableKind, Weapon

LETTERS = SeverityScale("RM letters", tuple(Severity(code, code, 5 * i) for i, code in enumerate("ABCDE")))


def printed(kind: TableKind, name: str, columns: tuple[str, ...], rows: list[tuple[str, list[int]]], choice: ColumnChoice,
            roll: RollKind = RollKind.D100) -> EffectTable:
    """A table with one hits number per row and column (entry text says where it is)."""
    per_column = []
    for i, column in enumerate(columns):
        pairs = []
        for label, hits in rows:
            span = parse_range(label)
            pairs.append((span, (Entry(span, f"{column} {label}", hits=hits[i], column=column),)))
        per_column.append(RangeTable(pairs))
    return EffectTable(kind, name, per_column[0], "S", LETTERS, choice=choice, columns=columns,
                       column_rows=tuple(per_column), roll=roll)


# Slash: hits by column A..E; rows of 50 (read by the die as it fell: no modifier)
SLASH = printed(TableKind.CRITICAL, "Slash", tuple("ABCDE"),
                [("1-50", [1, 2, 3, 4, 5]), ("51-100", [10, 20, 30, 40, 50])], ColumnChoice.SEVERITY)
HUGE = printed(TableKind.CRITICAL, "Huge", ("Normal", "Slaying"),
               [("1-50", [1, 100]), ("51-100", [2, 200]), ("101+", [7, 700])], ColumnChoice.ATTACK, RollKind.OEH)
TRIP = printed(TableKind.FUMBLE, "Trip", ("1HE", "2H"), [("1-60", [0, 0]), ("61+", [0, 0])], ColumnChoice.ATTACK)


def attack_on(cell: str, critical: str = "Slash", **weapon) -> tuple[Attack, TableSet]:
    parsed = parse_attack_cell(cell, LETTERS, lambda text: {"s": "Slash", "slash": "Slash", "huge": "Huge"}.get(text.casefold()))
    table = AttackTable("Blade", ("1",), RangeTable([(Range(1, None), (parsed,))]), LETTERS, automatic_miss=None)
    armed = Weapon("Blade", "Blade", None, 2, critical, None, "Trip", 0, RollKind.D100, **weapon)
    return Attack(armed, cmb=0, armor="1"), TableSet(table, {"Slash": SLASH, "Huge": HUGE}, TRIP)


def test_a_severity_column_is_read_with_the_die_as_it_fell():
    attack, tables = attack_on("9ES", fumble_column="2H")
    result = resolve_attack(attack, tables, ForcedDice(values=[40, 70]))
    # column E, roll 70 (not 70 + E's modifier 20): 51-100, 50 hits
    assert (result.critical.modified_roll, result.critical.entry.text, result.damage) == (70, "E 51-100", 9 + 50)
    assert "Critical: E on Slash, column E, roll 70 (51-100; +50 hits)." in result.steps


def test_odds_read_the_severity_column_too():
    attack, tables = attack_on("9CS", fumble_column="2H")
    odds = table_odds(attack, tables)
    # faces 1-2 fumble (Clumsy); 98 faces read the one row: 9 + C's column, 50/100 × 3 + 50/100 × 30 = 16.5
    assert odds.expected_damage == Fraction(98, 100) * (9 + Fraction(33, 2))
    read = CriticalPlan(SLASH, LETTERS.get("C"), LETTERS.get("C"), 0, 2)
    assert Fraction(critical_hits_over_die(read, frozenset()), 100) == Fraction(33, 2)


def test_an_attack_chosen_column_needs_the_weapons_column_or_the_attacks():
    attack, tables = attack_on("5 A Huge", critical="Huge", fumble_column="1HE")
    with pytest.raises(ValueError, match=r"^critical table 'Huge' is read by column \(Normal, Slaying\): give Blade a Critical column, or --critical-column$"):
        check_columns(attack, tables)
    check_columns(replace(attack, critical_column="slaying"), tables)  # any letter case
    result = resolve_attack(replace(attack, critical_column="Slaying"), tables, ForcedDice(values=[40, 60]))
    assert (result.critical.entry.text, result.damage) == ("Slaying 51-100", 5 + 200)


def test_a_category_fumble_table_needs_the_weapons_fumble_column():
    attack, tables = attack_on("3", fumble_column=None)
    with pytest.raises(ValueError, match=r"^fumble table 'Trip' is read by weapon category \(1HE, 2H\), and Blade has no Fumble column$"):
        check_columns(attack, tables)
    attack, tables = attack_on("3", fumble_column="2h")
    result = resolve_attack(attack, tables, ForcedDice(values=[1, 70]))
    assert result.fumble.entry.text == "2H 61+"
    assert "Fumble: Trip, column 2H, 70 + 0 = 70 (61+)." in result.steps


def test_an_open_ended_critical_die_rolls_again_on_96_and_adds():
    attack, tables = attack_on("5 A Huge", critical="Huge", fumble_column="1HE", critical_column="Normal")
    result = resolve_attack(attack, tables, ForcedDice(values=[40, 97, 99, 12]))
    assert (result.critical.roll, result.critical.open_ended, result.critical.modified_roll) == (97, (99, 12), 208)
    assert result.critical.entry.text == "Normal 101+" and result.damage == 5 + 7
    assert "Critical: A on Huge, column Normal, roll 97 + 99 + 12 = 208 (open-ended) (101+; +7 hits)." in result.steps


def test_the_open_ended_critical_mean_is_exact_against_enumeration():
    """Faces 1-95 read as they fell; 96-100 add the open-ended tail (the same
    tail the attack roll uses): brute force over the tail's weights."""
    plan = CriticalPlan(HUGE, LETTERS.get("A"), LETTERS.get("A"), 0, 0)
    tail, denominator = open_ended_tail()
    by_hand = Fraction(0)
    for face in range(1, 101):
        if face < 96:
            by_hand += Fraction(critical_read(plan, face, frozenset())[1].entry.hits, 100)
        else:
            for added, weight in enumerate(tail):
                by_hand += Fraction(weight, denominator * 100) * critical_read(plan, face + added, frozenset())[1].entry.hits
    assert critical_hits_over_die(plan, frozenset()) / 100 == by_hand
    # by the table's shape: 50 faces of 1 hit, 45 of 2; a face f of 96-100 stays at or below 100 (2 hits)
    # only when the next die adds at most 100 - f (4, 3, 2, 1, 0 of its 100 faces), else passes it (7 hits):
    # (50 + 90 + 5 × 7 - 5 × 10/100) / 100 = 1.745 (the tail beyond the cut weighs below 1e-15)
    assert float(by_hand) == pytest.approx(1.745, abs=1e-12)


# One column, opened high, a row above 200: docs/table-system.md, "Roll kinds": on a `Roll kind | oeh`
# table "its die then opens high ... and the total is read — a critical's with the severity's modifier on
# a one-column table"; step 10: "A modified roll above the top row reads the top row".
GIANT = EffectTable(TableKind.CRITICAL, "Giant", RangeTable(
    (parse_range(label), (Entry(parse_range(label), label, hits=hits),)) for label, hits in (("1-100", 1), ("101-200", 5), ("201+", 20))),
    "G", LETTERS, roll=RollKind.OEH)


def giant_attack() -> tuple[Attack, TableSet]:
    attack, tables = attack_on("5 B", critical="Giant", fumble_column="1HE")  # B: +5
    return attack, TableSet(tables.attack, {"Giant": GIANT}, tables.fumble)


@pytest.mark.parametrize("dice, total, row, hits", [
    ([40, 97, 97, 1], 200, "101-200", 5),  # 97 + 97 + 1 = 195, + 5 = 200
    ([40, 97, 98, 1], 201, "201+", 20),  # 196 + 5 = 201: past 200, the row above it
    ([40, 99, 99, 99, 50], 352, "201+", 20),  # four dice: 347 + 5
])
def test_an_open_ended_critical_total_past_200_reads_the_row_it_falls_in(dice, total, row, hits):
    attack, tables = giant_attack()
    given = ForcedDice(values=tuple(dice))
    result = resolve_attack(attack, tables, given)
    assert given.unused == () and given.missing == []
    assert (result.critical.modified_roll, result.critical.entry.text, result.damage) == (total, row, 5 + hits)


def test_the_open_ended_critical_mean_counts_the_totals_past_200():
    """Odds and simulate read the same totals: the mean against the chain
    written out exactly (no cut), and simulate's look-up by total."""
    from functools import cache

    from tables_app.domain.table_rules import critical_hits_by_total

    @cache
    def at_least(m: int) -> Fraction:
        """P(X >= m), X an opened chain: a d100, and another chain added after 96-100."""
        if m <= 1:
            return Fraction(1)
        return sum((at_least(m - die) if die >= 96 else Fraction(die >= m)) for die in range(1, 101)) / 100

    # faces 1-95 read 6-100 (1 hit); a face f of 96-100 reads f + 5 + X >= 102: 5 hits, or 20 past 200
    by_hand = (95 + sum(5 + 15 * at_least(196 - face) for face in range(96, 101))) / Fraction(100)
    attack, tables = giant_attack()
    plan = CriticalPlan(GIANT, LETTERS.get("B"), LETTERS.get("B"), 0)
    assert float(critical_hits_over_die(plan, frozenset()) / 100) == pytest.approx(float(by_hand), abs=1e-12)
    assert float(table_odds(attack, tables).expected_damage) == pytest.approx(98 / 100 * (5 + float(by_hand)), abs=1e-12)
    by_total = critical_hits_by_total(plan, frozenset())  # simulate indexes it by the die's total
    assert (by_total[195 - 1], by_total[196 - 1], by_total[347 - 1], by_total[-1]) == (5, 20, 20, 20)


def test_simulate_reads_the_open_ended_critical_die():
    attack, tables = attack_on("5 A Huge", critical="Huge", fumble_column="1HE", critical_column="Normal")
    exact = float(table_odds(attack, tables).expected_damage)
    tally = simulate_table(attack, tables, 200_000, seed=11)
    mean = tally.damage_sum / tally.count
    assert abs(mean - exact) < 0.02, (mean, exact)  # the standard error here is about 0.003


def test_a_column_the_attack_names_that_the_table_lacks_is_named_as_given():
    attack, tables = attack_on("5 A Huge", critical="Huge", fumble_column="1HE", critical_column="Normal")
    with pytest.raises(ValueError, match=r"^critical table 'Huge' has no column for --critical-column 'Blessed' \(columns: Normal, Slaying\)$"):
        check_columns(replace(attack, critical_column="Blessed"), tables)
    with pytest.raises(ValueError, match=r"^critical table 'Huge' has no column for Blade's critical column 'Holy' \(columns: Normal, Slaying\)$"):
        check_columns(replace(attack, weapon=replace(attack.weapon, critical_column="Holy")), tables)


def test_a_critical_column_where_no_table_is_read_by_one_is_refused():
    attack, tables = attack_on("9ES", fumble_column="2H")
    tables = TableSet(tables.attack, {"Slash": SLASH}, tables.fumble)
    with pytest.raises(ValueError, match=r"^--critical-column 'Magic' given, but no critical table of this attack is read by "
                                         r"the attack's column \(Slash by severity\)$"):
        check_columns(replace(attack, critical_column="Magic"), tables)
