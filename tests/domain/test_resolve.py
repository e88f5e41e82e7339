"""The table system's resolution, one test per rule of docs/table-system.md.

Tables here are built in memory; each test cites the step of docs/table-system.md it pins.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from small_tables import TABLES, attack

from tables_app.domain.cells import Outcome
from tables_app.domain.dice import ForcedDice, SeededDice
from tables_app.domain.resolve import resolve_attack
from tables_app.domain.severity import DEFAULT_SCALE
from tables_app.domain.tables import Rank, RollKind


def run(dice, **changes):
    forced = ForcedDice(values=dice)
    result = resolve_attack(attack(**changes), TABLES, forced)
    assert forced.missing == [], forced.missing
    return result, forced


# Step 2: "if U is within the weapon's Clumsy Range (1..N), the attack
# automatically misses and fumbles, whatever the modifiers ... No open-ended
# rerolls are made. Roll d100 + the weapon's Fumble Modifier."
def test_clumsy_range_fumbles_whatever_the_modifiers_without_rerolls():
    result, dice = run([2, 40], cmb=500)
    assert result.outcome is Outcome.FUMBLE and result.damage == 0
    assert result.fumble.roll == 40 and result.fumble.modified_roll == 50 and result.fumble.entry.text == "stumble"
    assert dice.used == [2, 40]  # 2 would open low, but fumbles first
    assert result.cell is None


def test_the_top_of_the_clumsy_range_fumbles_and_one_above_does_not():
    assert run([3, 1])[0].outcome is Outcome.FUMBLE
    assert run([4, 1])[0].outcome is not Outcome.FUMBLE


def test_fumble_modifier_can_read_past_the_table():
    result, _ = run([1, 95], fumble_modifier=25)
    assert result.fumble.modified_roll == 120 and result.fumble.entry.text == "fall"


# "The open-ended d100": 96+ adds and keeps adding while the new die is 96+.
def test_high_chain_adds_while_96_or_more():
    result, dice = run([96, 100, 96, 30], cmb=0, defense=300, max_result=None)
    assert result.roll.total == 96 + 100 + 96 + 30 and dice.used == [96, 100, 96, 30]


# "U ≤ 5: roll again and subtract; keep rolling and subtracting while the new die is ≥ 96."
def test_low_chain_subtracts_and_continues_only_on_96_to_100():
    result, _ = run([5, 97, 20], clumsy=0)
    assert result.roll.total == 5 - 97 - 20 and result.roll.extra == (97, 20)
    result, _ = run([4, 50], clumsy=0)
    assert result.roll.total == 4 - 50 and result.outcome is Outcome.MISS


# The issue 13 review: a chain that also went on after a 95 passed every test.
def test_a_95_after_an_opening_die_stops_the_chain():
    result, dice = run([96, 95, 30], cmb=0, defense=300, max_result=None)
    assert result.roll.extra == (95,) and result.roll.total == 96 + 95 and dice.unused == (30,)
    result, dice = run([3, 95, 30], clumsy=0)
    assert result.roll.extra == (95,) and result.roll.total == 3 - 95 and dice.unused == (30,)


@pytest.mark.parametrize("first, extra", [(96, (10,)), (95, ()), (5, (10,)), (6, ())])
def test_96_opens_high_and_5_opens_low_their_neighbours_do_not(first, extra):
    result, dice = run([first, 10], clumsy=0, cmb=0, defense=300)
    assert result.roll.extra == extra
    assert dice.unused == () if extra else dice.unused == (10,)


@pytest.mark.parametrize(
    "kind, dice, total",
    [
        (RollKind.OEH, [3], 3), (RollKind.OEH, [97, 10], 107),
        (RollKind.OEL, [97], 97), (RollKind.OEL, [3, 10], -7),
        (RollKind.D100, [97], 97), (RollKind.D100, [3], 3),
    ],
)
def test_roll_kinds_open_only_their_ends(kind, dice, total):
    result, used = run(dice, roll=kind, clumsy=0, cmb=0, defense=90)
    assert result.roll.total == total and used.used == dice


# Steps 3-4: R = T + CMB + modifiers - DEF.
def test_modified_result_adds_every_named_modifier_and_subtracts_def():
    result, _ = run([50], cmb=40, modifiers=(("flank", 10), ("wounded", -20)), defense=15)
    assert result.effective_cmb == 30 and result.result == 50 + 30 - 15


# Step 5: "Max Result: R = min(R, weapon Max Result). Applied last."
def test_max_result_caps_last():
    result, _ = run([80, 50], cmb=100)
    assert (result.uncapped, result.result, result.capped) == (180, 130, True)
    assert result.cell.row == "121-150"


# Step 5 after step 4: cap the result, not the roll. DEF 40 tells the two
# orders apart: 80 + 100 - 40 = 140 → 130 ("15 Let"); capping before DEF would give 90.
def test_the_cap_comes_after_def():
    result, _ = run([80, 50], cmb=100, defense=40)
    assert (result.uncapped, result.result) == (140, 130)
    assert result.cell.row == "121-150" and result.critical.rolled_severity == "Let"


# Step 6: "if the effective CMB is below 0, the attack deals no damage and no
# critical, whatever the table says ... the table cell is still shown".
@pytest.mark.parametrize("changes", [{"cmb": -5}, {"cmb": 10, "modifiers": (("wounded", -20),)}])
def test_negative_cmb_is_ineffective_but_shows_the_cell(changes):
    result, dice = run([95], defense=-60, **changes)
    assert result.outcome is Outcome.INEFFECTIVE and result.damage == 0
    assert result.cell is not None and result.cell.cell.outcome is Outcome.CRITICAL
    assert result.critical is None and dice.used == [95]  # no critical die


def test_ineffective_comes_before_the_automatic_miss():
    result, _ = run([20], cmb=-15, clumsy=0)
    assert result.result == 5 and result.outcome is Outcome.INEFFECTIVE and result.cell is None


def test_a_cmb_of_0_is_effective():
    result, _ = run([70], cmb=0)
    assert result.outcome is Outcome.HIT and result.damage == 6


# Step 7: "R ≤ 10 → outcome miss" (rows below 11 are never read).
@pytest.mark.parametrize("defense, outcome", [(120, Outcome.MISS), (121, Outcome.MISS)])
def test_ten_or_less_misses_even_where_the_table_has_a_row(defense, outcome):
    result, _ = run([80], defense=defense)
    assert result.result <= 10 and result.outcome is outcome and result.cell is None


def test_eleven_reads_the_table():
    result, _ = run([80], defense=119)
    assert result.result == 11 and result.cell.row == "11-40" and result.outcome is Outcome.MISS


# Step 8: "R above the top row reads the top row." Cell kinds → outcomes.
def test_results_above_the_top_row_read_it():
    result, _ = run([80, 10], cmb=200, max_result=None)
    assert result.result == 280 and result.cell.row == "121-150"


@pytest.mark.parametrize(
    "armor, defense, outcome, damage",
    [("NA", 100, Outcome.MISS, 0), ("NA", 80, Outcome.NO_DAMAGE, 0), ("HA", 80, Outcome.MISS, 0), ("NA", 60, Outcome.HIT, 6)],
)
def test_cells_give_their_outcomes(armor, defense, outcome, damage):
    result, _ = run([80], armor=armor, defense=defense)
    assert (result.outcome, result.damage) == (outcome, damage)


# Step 9: heroic 1, epic 2, plus extra reduction; below the lowest cancels.
@pytest.mark.parametrize(
    "changes, severity, modified_roll",
    [
        ({}, "Mod", 10 + 20), ({"rank": Rank.HEROIC}, "Lig", 10 + 10), ({"rank": Rank.EPIC}, "Sup", 10 + 0),
        ({"crit_reduction": 1}, "Lig", 10 + 10), ({"rank": Rank.HEROIC, "crit_reduction": 1}, "Sup", 10 + 0),
        ({"rank": Rank.EPIC, "ignore_crit_reduction": True, "crit_reduction": 2}, "Mod", 10 + 20),
    ],
)
def test_critical_reduction(changes, severity, modified_roll):
    result, _ = run([50, 10], cmb=50, **changes)  # 100: "10 Mod"
    assert result.critical.rolled_severity == "Mod" and result.critical.severity == severity
    # Step 10: the roll adds the *reduced* severity's modifier (Sup 0, Lig 10, Mod 20)
    assert result.critical.modified_roll == modified_roll


def test_reduction_below_the_lowest_cancels_the_critical():
    result, dice = run([50], cmb=50, rank=Rank.EPIC, crit_reduction=1)
    assert result.outcome is Outcome.HIT and result.damage == 10
    assert result.critical is None and result.cancelled_critical.rolled_severity == "Mod"
    assert dice.used == [50]  # no critical die is rolled
    assert any("cancelled" in step for step in result.steps)


# Step 10: "the cell's CRIT code if present, else the weapon's primary critical".
def test_a_cells_own_critical_table_wins():
    result, _ = run([80, 50], cmb=100, armor="HA")
    assert result.cell.cell.text == "12 Gri Impact" and result.critical.table == "Impact"
    result, _ = run([80, 50], cmb=100, armor="NA")
    assert result.critical.table == "Cut"


# Step 10: branches by feature; unknown feature → the "not" branch, and the trace reports the other.
def test_branches_follow_the_targets_features():
    bare, _ = run([50, 40], cmb=50)  # Mod: 40 + 20 = 60 → 51-100
    assert bare.critical.entry.text == "scalp opens" and bare.critical.other.text == "helm rings"
    assert any(step.startswith("  (if helm:") for step in bare.steps)
    helmed, _ = run([50, 40], cmb=50, features=frozenset({"helm"}))
    assert helmed.critical.entry.text == "helm rings" and helmed.damage == 10 + 2


# Step 11: the secondary critical two degrees lower: Mod→Sup, Gri→Lig, Let→Mod; Sup and Lig none.
@pytest.mark.parametrize(
    "cmb, armor, rank, primary, secondary, modifier",
    [
        (100, "NA", Rank.NORMAL, "Let", "Mod", 20),
        (100, "HA", Rank.NORMAL, "Gri", "Lig", 10),
        (50, "NA", Rank.NORMAL, "Mod", "Sup", 0),
        (50, "NA", Rank.HEROIC, "Lig", None, None),
        (50, "HA", Rank.NORMAL, "Sup", None, None),
    ],
)
def test_secondary_critical_two_degrees_lower(cmb, armor, rank, primary, secondary, modifier):
    result, dice = run([50, 30, 70][: 3 if secondary else 2], cmb=cmb, armor=armor, rank=rank, secondary_critical="Impact")
    assert result.critical.severity == primary
    if secondary is None:
        assert result.secondary_critical is None
    else:
        s = result.secondary_critical
        assert (s.table, s.severity, s.roll) == ("Impact", secondary, 70)  # primary die first, then secondary
        assert s.modified_roll == 70 + modifier


# Step 11 with step 9: the secondary is two degrees below the *reduced*
# severity, and is not reduced again. Let (15) → heroic Gri → secondary Lig.
def test_secondary_critical_of_a_reduced_critical():
    result, _ = run([80, 50, 70], cmb=100, rank=Rank.HEROIC, secondary_critical="Impact")
    primary, secondary = result.critical, result.secondary_critical
    assert (primary.rolled_severity, primary.severity, primary.reduction) == ("Let", "Gri", 1)
    assert (secondary.rolled_severity, secondary.severity, secondary.reduction) == ("Gri", "Lig", 0)
    assert (primary.modified_roll, secondary.modified_roll) == (50 + 30, 70 + 10)
    assert result.damage == 15 + 4 + 3  # Cut 80: scalp opens; Impact 80: thud


# Step 12: damage = the cell's hits + every rolled critical's extra hits.
def test_damage_sums_the_cell_and_every_critical():
    result, _ = run([80, 60, 90], cmb=100, secondary_critical="Impact")  # 15 Let; Cut 60+50 → 101+; Impact Mod 90+20 → 101+
    assert result.damage == 15 + 9 + 7


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    cmb=st.integers(-20, 150),
    defense=st.integers(-20, 80),
    armor=st.sampled_from(["NA", "HA"]),
    rank=st.sampled_from(list(Rank)),
    clumsy=st.integers(0, 8),
    kind=st.sampled_from(list(RollKind)),
    secondary=st.sampled_from([None, "Impact"]),
    max_result=st.one_of(st.none(), st.integers(20, 160)),
    max_critical=st.sampled_from([None, "Sup", "Mod", "Gri"]),
)
def test_seeds_and_fed_back_dice_reproduce_the_attack(seed, cmb, defense, armor, rank, clumsy, kind, secondary, max_result,
                                                      max_critical):
    chosen = attack(cmb=cmb, defense=defense, armor=armor, rank=rank, clumsy=clumsy, roll=kind,
                    secondary_critical=secondary, max_result=max_result, max_critical=max_critical)
    first_dice, again_dice = SeededDice(seed=seed), SeededDice(seed=seed)
    first = resolve_attack(chosen, TABLES, first_dice)
    assert resolve_attack(chosen, TABLES, again_dice) == first
    forced = ForcedDice(values=tuple(first_dice.used))
    assert resolve_attack(chosen, TABLES, forced) == first
    assert forced.missing == [] and forced.unused == ()
    if first.result is not None and max_result is not None:
        assert first.result <= max_result  # the cap is never exceeded
    if first.critical is not None:  # reduction never raises a severity
        degree = [s.code for s in DEFAULT_SCALE.levels]
        assert degree.index(first.critical.severity) <= degree.index(first.critical.rolled_severity)
        if max_critical is not None:  # step 9: nothing the weapon delivers is above its Max critical
            assert all(degree.index(c.severity) <= degree.index(max_critical)
                       for c in (first.critical, first.secondary_critical) if c is not None)


def test_running_out_of_forced_dice_lists_what_is_missing():
    forced = ForcedDice(values=(80,))
    resolve_attack(attack(cmb=100, secondary_critical="Impact"), TABLES, forced)
    assert forced.missing == ["critical roll on Cut (d100)", "secondary critical roll on Impact (d100)"]


@pytest.mark.parametrize("severity", ["Sup", "Mod", "Let"])
def test_the_whole_critical_die_reads_as_one_die_at_a_time(severity):
    """Odds and simulate read the critical die row by row (critical_faces),
    resolve one face (critical_read): face for face the same entries."""
    from tables_app.domain.table_rules import CriticalPlan, critical_faces, critical_read

    level = DEFAULT_SCALE.get(severity)
    for table in TABLES.criticals.values():
        plan = CriticalPlan(table, level, level, 0)
        for features in (frozenset(), table.features):
            faces = [choice for count, choice in critical_faces(plan, features) for _ in range(count)]
            assert faces == [critical_read(plan, die, features)[1] for die in range(1, 101)]


@settings(max_examples=80, deadline=None)
@given(
    attacks=st.lists(st.tuples(st.integers(-60, 250), st.integers(-50, 150), st.sampled_from(["NA", "HA"]),
                               st.sampled_from(list(Rank)), st.integers(0, 3)), min_size=1, max_size=8),
    dice=st.lists(st.integers(1, 100), min_size=8, max_size=8), printed=st.booleans(),
)
def test_rules_moved_to_another_attack_resolve_as_rules_built_anew(attacks, dice, printed):
    """AttackRules.for_attack shares the rows one attacker read (as the HTTP
    API keeps them, storage/compiled.py) with the next attack of the same
    shape, and builds anew for another: every attack of a run, on either side
    of CMB 0 (step 6), resolves exactly as with rules built for it alone."""
    from dataclasses import replace

    import test_printed_attack_rules as printed_rules

    from tables_app.domain.table_rules import AttackRules

    tables = printed_rules.TABLES if printed else TABLES
    base = printed_rules.attack() if printed else attack()
    kept = AttackRules(base, tables)
    for cmb, defense, armor, rank, reduction in attacks:
        one = replace(base, cmb=cmb, defense=defense, rank=rank, crit_reduction=reduction,
                      armor=armor if not printed else tables.attack.armors[(cmb + defense) % len(tables.attack.armors)])
        moved = kept.for_attack(one)
        assert moved.attack is one and moved.tables is tables
        if one.shape == kept.attack.shape:
            assert moved.readings_by_result is kept.readings_by_result
        fresh = resolve_attack(one, tables, ForcedDice(values=list(dice)))
        assert resolve_attack(one, tables, ForcedDice(values=list(dice)), moved) == fresh
        kept = moved


def test_rules_are_shared_by_attacks_of_one_shape_only():
    """An attack's shape leaves out what only moves its result (CMB, DEF,
    modifiers: steps 3-4) but keeps the side of 0 its CMB is on (step 6)."""
    from dataclasses import replace

    from tables_app.domain.table_rules import AttackRules

    rules = AttackRules(attack(cmb=60, defense=20), TABLES)
    for same in (attack(cmb=90, defense=0), attack(cmb=0, defense=50), replace(attack(cmb=10), modifiers=(("flank", 10),))):
        assert rules.for_attack(same).readings_by_result is rules.readings_by_result
    for other in (attack(cmb=-5), attack(cmb=60, armor="HA"), replace(attack(cmb=60), rank=Rank.EPIC)):
        moved = rules.for_attack(other)
        assert moved.readings_by_result is not rules.readings_by_result
        assert moved.readings_by_result == AttackRules(other, TABLES).readings_by_result


def test_rules_of_another_attack_are_not_used():
    """resolve_attack takes the rules check_columns built only when they are
    this attack's on these tables; given another attack's, it builds its own."""
    from dataclasses import replace

    from tables_app.domain.table_rules import AttackRules

    one, other = attack(cmb=60), attack(cmb=-40)
    dice = [50, 50, 50, 50]
    wrong = AttackRules(other, TABLES)
    assert resolve_attack(one, TABLES, ForcedDice(values=list(dice)), wrong) == resolve_attack(one, TABLES, ForcedDice(values=list(dice)))
    assert AttackRules.given_or_built(one, TABLES, wrong) is not wrong
    mine = AttackRules(one, TABLES)
    assert AttackRules.given_or_built(one, TABLES, mine) is mine
    assert AttackRules.given_or_built(replace(one), TABLES, mine) is not mine  # equal, yet not this very attack
