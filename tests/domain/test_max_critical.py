"""A weapon's Max critical (docs/table-system.md, step 9; docs/workbook-format.md,
"weapons"): every critical it delivers is lowered to it, before the target's
critical reduction; resolve says so, and odds and simulate read the lowered
severity. Tables and numbers are invented."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from small_tables import TABLES, attack

from tables_app.domain.cells import Outcome
from tables_app.domain.dice import ForcedDice
from tables_app.domain.odds import table_odds
from tables_app.domain.resolve import resolve_attack
from tables_app.domain.simulate import simulate_table
from tables_app.domain.table_rules import check_columns
from tables_app.domain.tables import Rank, RollKind

import test_printed_critical_rules as printed

TOP = {"roll": RollKind.D100, "clumsy": 0, "cmb": 200, "max_result": None}  # always the top row: "15 Let" (NA)


def resolved(dice, **changes):  # type: ignore[no-untyped-def]
    forced = ForcedDice(values=dice)
    result = resolve_attack(attack(**changes), TABLES, forced)
    assert forced.missing == [] and forced.unused == ()
    return result


def test_the_max_critical_lowers_the_cells_severity_and_says_so():
    result = resolved([50, 30], **TOP, max_critical="Mod")
    # Mod on Cut: 30 + Mod's 20 = 50 (1-50, cut low, 1 hit), not Let's 30 + 50 = 80
    assert (result.critical.severity, result.critical.rolled_severity, result.critical.reduction) == ("Mod", "Let", 0)
    assert (result.critical.modified_roll, result.damage) == (50, 15 + 1)
    assert "Max critical Mod lowers Let to Mod." in result.steps
    assert result.steps.index("Max critical Mod lowers Let to Mod.") == result.steps.index("T 121-150 NA: 15 Let.") + 1


def test_a_severity_at_or_below_the_max_critical_is_left_and_nothing_is_said():
    for cap in ("Let", "lethal"):  # a code or a name, any letter case
        result = resolved([50, 30], **TOP, max_critical=cap)
        assert result.critical.severity == "Let" and not any("Max critical" in step for step in result.steps)


def test_the_max_critical_comes_before_the_targets_reduction():
    # Let → Mod (the cap) → Lig (heroic): the reduction starts from what the weapon delivers
    result = resolved([50, 30], **TOP, max_critical="Mod", rank=Rank.HEROIC)
    assert (result.critical.severity, result.critical.rolled_severity, result.critical.reduction) == ("Lig", "Let", 1)
    steps = list(result.steps)
    lowered, reduced = steps.index("Max critical Mod lowers Let to Mod."), steps.index("Critical Mod reduced to Lig (heroic -1).")
    assert lowered < reduced


def test_a_capped_critical_the_reduction_cancels_is_a_hit():
    result = resolved([50], **TOP, max_critical="Lig", rank=Rank.EPIC)  # Let → Lig → below Sup
    assert (result.outcome, result.damage, result.critical) == (Outcome.HIT, 15, None)
    assert (result.cancelled_critical.rolled_severity, result.cancelled_critical.reduction) == ("Let", 2)
    assert "Max critical Lig lowers Let to Lig." in result.steps and "Critical Lig reduced to cancelled (epic -2)." in result.steps


def test_the_secondary_critical_is_two_degrees_below_the_lowered_primary():
    result = resolved([50, 30, 40], **TOP, max_critical="Gri", secondary_critical="Impact")
    assert (result.critical.severity, result.secondary_critical.severity) == ("Gri", "Lig")
    result = resolved([50, 30], **TOP, max_critical="Lig", secondary_critical="Impact")
    assert result.secondary_critical is None and "Secondary critical (Impact): none, Lig is too light." in result.steps


def test_every_critical_of_a_cell_is_lowered_and_a_severity_column_is_the_lowered_ones():
    # printed: `20 ES + DS + AS`, Max critical C: E and D read column C, A is left (docs/table-system.md, step 10)
    chosen, tables = printed.attack_on("20 ES + DS + AS", fumble_column="2H", max_critical="C")
    forced = ForcedDice(values=[40, 70, 70, 70])
    result = resolve_attack(chosen, tables, forced)
    read = [result.critical, *result.more_criticals]
    assert [(c.severity, c.rolled_severity, c.entry.column, c.entry.text) for c in read] == [
        ("C", "E", "C", "C 51-100"), ("C", "D", "C", "C 51-100"), ("A", "A", "A", "A 51-100")]
    assert result.damage == 20 + 30 + 30 + 10
    assert "Max critical C lowers E and D to C." in result.steps
    assert "Critical: C on Slash, column C, roll 70 (51-100; +30 hits)." in result.steps


def test_a_max_critical_not_on_the_attack_tables_scale_is_refused_before_any_die():
    chosen, tables = printed.attack_on("9ES", fumble_column="2H", max_critical="Mod")
    with pytest.raises(ValueError, match=r"^Blade's Max critical 'Mod' is not a severity of attack table 'Blade' "
                                         r"\(severities: A, B, C, D, E\)$"):
        check_columns(chosen, tables)


def test_odds_and_simulate_read_the_lowered_severity_column():
    # `9ES` capped at B: column B of Slash, 50/100 × 2 + 50/100 × 20 = 11 (faces 1-2 fumble)
    chosen, tables = printed.attack_on("9ES", fumble_column="2H", max_critical="b")
    odds = table_odds(chosen, tables)
    assert odds.critical_severity == {"A": 0, "B": Fraction(98, 100), "C": 0, "D": 0, "E": 0}
    assert odds.expected_damage == Fraction(98, 100) * (9 + 11)
    tally = simulate_table(chosen, tables, 100_000, seed=3)
    assert tally.extra["critical_severity"]["B"] == tally.outcomes["critical"] > 0
    assert abs(tally.damage_sum / tally.count - float(odds.expected_damage)) < 0.15


def test_a_weapon_without_a_max_critical_is_as_before():
    chosen = attack(**TOP)
    assert chosen.weapon.max_critical is None
    assert resolve_attack(chosen, TABLES, ForcedDice(values=[50, 30])).critical.severity == "Let"
    assert replace(chosen.weapon, max_critical=None) == chosen.weapon


def test_ignoring_the_reduction_does_not_ignore_the_weapons_max_critical():
    # docs/table-system.md step 9: --ignore-crit-reduction ignores the target's reduction, not what the weapon delivers
    result = resolved([50, 30], **TOP, max_critical="Mod", rank=Rank.EPIC, ignore_crit_reduction=True)
    assert (result.critical.severity, result.critical.reduction) == ("Mod", 0)
    assert "Max critical Mod lowers Let to Mod." in result.steps and not any("reduced" in step for step in result.steps)
