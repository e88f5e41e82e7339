"""Arms Law's rows bounded by the attacking weapon's Clumsy Range
(docs/workbook-format.md, "attack"; docs/table-system.md, step 2): `UM 01-XX`
is the Clumsy Range itself, `F` in every column, and `XX-30` the lowest row,
from the top of the Clumsy Range + 1 up to 30. The bound is the weapon's,
resolved in the one rule resolve, odds and simulate share
(AttackRules, domain/table_rules.py); resolve and the exact odds agree."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_printed_attack_rules import BY_CLUMSY, BY_CLUMSY_AM10, attack, brute_odds, forced

from tables_app.domain.cells import Outcome
from tables_app.domain.dice import ForcedDice
from tables_app.domain.odds import table_odds
from tables_app.domain.ranges import Range, parse_row_label, row_label
from tables_app.domain.resolve import resolve_attack
from tables_app.domain.tables import RollKind


# ----------------------------------------------------------------- reading
@pytest.mark.parametrize("text, expected", [
    ("XX-33", (Range(1, 33, clumsy=True), False)),
    ("xx – 33", (Range(1, 33, clumsy=True), False)),
    ("XX:33", (Range(1, 33, clumsy=True), False)),
    ("UM 01-XX", (Range(1, None, clumsy=True), True)),
    ("um1–xx", (Range(1, None, clumsy=True), True)),
    ("UM 01:XX", (Range(1, None, clumsy=True), True)),
])
def test_rows_bounded_by_the_clumsy_range_read(text, expected):
    assert parse_row_label(text) == expected


def test_their_labels_read_back():
    for text in ("XX-33", "UM 01-XX"):
        span, unmodified = parse_row_label(text)
        assert parse_row_label(row_label(span, unmodified)) == (span, unmodified)
    assert [row_label(*parse_row_label(t)) for t in ("XX-33", "UM 01-XX")] == ["XX-33", "UM 1-XX"]


@pytest.mark.parametrize("text", ["XX", "XX+", "01-XX", "UM 02-XX", "UM XX-33", "34-XX", "XX-0", "UM XX", ">XX", "XX-33+"])
def test_xx_elsewhere_is_refused_saying_where_it_is_read(text):
    with pytest.raises(ValueError, match=r"XX \(the top of the weapon's Clumsy Range\) is read in two rows only: "
                                         r"UM 01-XX \(the Clumsy Range, F in every column\) and XX-33 \(the lowest row\)"):
        parse_row_label(text)


def test_the_table_as_a_weapon_reads_it():
    table = BY_CLUMSY.attack
    assert table.for_clumsy(4).rows.ranges[0] == Range(5, 30)
    assert table.for_clumsy(0).rows.ranges[0] == Range(1, 30)
    assert table.for_clumsy(30).rows.ranges[0] == Range(31, 60)  # the row reads nothing: gone
    assert table.for_clumsy(4).unmodified.ranges == (Range(96, 99), Range(100, 100))  # UM 01-XX: the Clumsy Range's own
    resolved = table.for_clumsy(4)
    assert resolved.for_clumsy(9) is resolved  # a table without such rows is itself


# ----------------------------------------------------------------- resolve
def test_a_result_above_the_clumsy_range_reads_the_row_and_at_its_top_misses():
    # docs/workbook-format.md, "attack": Clumsy 4, XX-30 is 5-30; column 1 holds 0 there
    read = forced([50], tables=BY_CLUMSY, clumsy=4, armor="1", roll=RollKind.D100, defense=45)
    assert (read.outcome, read.cell.row) == (Outcome.NO_DAMAGE, "5-30")
    assert read.steps[-1] == "Printed 5-30 1: 0."
    below = forced([50], tables=BY_CLUMSY, clumsy=4, armor="1", roll=RollKind.D100, defense=46)
    assert below.outcome is Outcome.MISS
    assert below.steps[-1] == "Result 4 is below the lowest row (5-30): a miss."


def test_the_um_01_xx_faces_are_the_clumsy_range():
    # docs/table-system.md step 2: faces 1-4 fumble by the Clumsy Range; 5 is no UM row's
    assert forced([4, 60], tables=BY_CLUMSY, clumsy=4, roll=RollKind.D100).outcome is Outcome.FUMBLE
    assert forced([5], tables=BY_CLUMSY, clumsy=4, armor="1", roll=RollKind.D100).cell.row == "5-30"


# ---------------------------------------------- resolve and odds agree exactly
def resolve_tree(chosen, tables) -> tuple[dict, F]:  # type: ignore[no-untyped-def]
    """Every sequence of dice the attack asks for, resolved (a closed roll:
    a finite tree), weighted: the outcome distribution resolve gives."""
    outcomes: dict[str, F] = {}
    damage = F(0)
    stack = [((), F(1))]
    while stack:
        prefix, weight = stack.pop()
        dice = ForcedDice(values=prefix)
        result = resolve_attack(chosen, tables, dice)
        if dice.missing:
            stack.extend((prefix + (die,), weight / 100) for die in range(1, 101))
            continue
        outcomes[result.outcome.value] = outcomes.get(result.outcome.value, F(0)) + weight
        damage += weight * result.damage
    return outcomes, damage


@pytest.mark.parametrize("tables, changes", [
    (BY_CLUMSY, {"clumsy": 4, "armor": "1", "defense": 20}),
    (BY_CLUMSY, {"clumsy": 0, "armor": "10", "defense": 40}),
    (BY_CLUMSY_AM10, {"clumsy": 7, "armor": "1", "defense": 5}),
])
def test_resolve_and_the_exact_odds_agree_on_every_die(tables, changes):
    chosen = attack(roll=RollKind.D100, **changes)
    outcomes, damage = resolve_tree(chosen, tables)
    odds = table_odds(chosen, tables)
    assert {k: v for k, v in odds.outcomes.items() if v} == outcomes
    assert odds.expected_damage == damage


@settings(max_examples=25, deadline=None)
@given(clumsy=st.integers(0, 40), cmb=st.integers(-20, 90), defense=st.integers(-30, 90),
       armor=st.sampled_from(["20", "10", "1"]), kind=st.sampled_from(list(RollKind)), automatic=st.booleans())
def test_the_exact_odds_equal_the_rules_written_out_for_any_clumsy_range(clumsy, cmb, defense, armor, kind, automatic):
    tables = BY_CLUMSY_AM10 if automatic else BY_CLUMSY
    chosen = attack(clumsy=clumsy, cmb=cmb, defense=defense, armor=armor, roll=kind)
    expected = brute_odds(chosen, tables)
    odds = table_odds(chosen, tables)
    assert odds.outcomes == expected["outcomes"]
    assert odds.expected_damage == expected["expected_damage"]
    assert odds.fumble_rows == expected["fumble_rows"]
