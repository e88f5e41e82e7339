"""The pte system (docs/formula-systems.md, "pte")."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tables_app.domain.dice import ForcedDice, SeededDice
from tables_app.domain.systems.base import OptionError, Resolution
from tables_app.domain.systems.pte import SYSTEM, markers_crossed

# Required options get neutral values; every test states what matters to it.
REQUIRED = {"accuracy": 0, "ac": 2, "evasion": 0, "stat": 10, "db": 5, "defense": 0}


def values(**given: object) -> dict:
    """Option values as the CLI passes them: defaults from SYSTEM.options, then REQUIRED, then ``given``."""
    filled = {o.key: (o.default if o.default is not None else (False if o.kind == "flag" else None)) for o in SYSTEM.options}
    filled.update(REQUIRED)
    for key, value in given.items():
        assert key in filled, key
        filled[key] = value
    return filled


def attack(*dice: int, **given: object) -> Resolution:
    return SYSTEM.resolve(SYSTEM.build(values(**given)), ForcedDice(values=dice))


def test_defaults_come_from_the_options():
    # docs/cli.md, pte options: db-multiplier 1, tier 1, damage-mod 0, dr 0, effectiveness neutral, crit-range 20
    v = values()
    assert (v["db_multiplier"], v["tier"], v["damage_mod"], v["dr"], v["effectiveness"], v["crit_range"]) == (1, 1, 0, 0, "neutral", 20)
    assert v["stab"] is v["absorb"] is v["pp"] is False
    assert v["direct"] is v["max_hp"] is v["hp"] is v["range"] is v["distance"] is None


# ------------------------------------------------------------------ accuracy
@pytest.mark.parametrize("natural, outcome", [(11, "miss"), (12, "hit"), (13, "hit")])
def test_hit_when_roll_meets_or_exceeds_ac_plus_evasion(natural, outcome):
    # seed: "to hit this must meet or exceed the Accuracy Check" = base AC + Evasion
    r = attack(natural, accuracy=3, ac=6, evasion=9)
    assert r.outcome == outcome
    assert r.extras["accuracy_total"] == natural + 3 and r.extras["check"] == 15 and r.extras["natural"] == natural


def test_natural_1_always_misses():
    # seed: "A 1 is always a miss"
    r = attack(1, accuracy=100)
    assert (r.outcome, r.damage) == ("miss", 0)


def test_natural_20_always_hits():
    # seed: "a 20 is always a hit" (and a 20 is in the default critical range)
    assert attack(20, ac=50, evasion=50).outcome == "critical"


def test_miss_deals_no_damage():
    # docs/formula-systems.md: a miss deals 0
    r = attack(5, ac=20, stat=50)
    assert (r.outcome, r.damage, r.extras["healed"]) == ("miss", 0, 0)


# ------------------------------------------------------------------ criticals
def test_crit_range_uses_the_natural_roll():
    # seed: "Modifiers to this roll do not affect ... [effects] that increase Critical Hit range"
    assert attack(17, accuracy=10, crit_range=18).outcome == "hit"  # total 27, natural 17
    assert attack(18, accuracy=0, crit_range=18).outcome == "critical"


def test_crit_range_needs_a_hit():
    # docs/formula-systems.md: "a hit whose natural roll is in the critical range"
    assert attack(18, ac=30, crit_range=18).outcome == "miss"


def test_pp_makes_any_hit_critical():
    # seed: "Critical Hits happen on a Roll of 20, or by spending 1 PP"
    assert attack(2, ac=2, pp=True).outcome == "critical"
    assert attack(1, pp=True).outcome == "miss"  # a miss stays a miss


# ------------------------------------------------------------------ damage
@pytest.mark.parametrize("tier, damage", [(1, 10 + 8 + 3), (2, 10 + 8 + 6), (5, 10 + 8 + 15)])
def test_damage_formula_with_stab_per_tier(tier, damage):
    # seed: "Attacking Stat + DB + STAB(+3/Tier)" then modifiers
    assert attack(10, stat=10, db=8, stab=True, tier=tier).damage == damage
    assert attack(10, stat=10, db=8, stab=True, tier=tier, damage_mod=-4).damage == damage - 4


def test_damage_without_stab_ignores_tier():
    # seed: STAB only "if you have STAB"
    assert attack(10, stat=10, db=8, tier=4).damage == 18


def test_db_multiplier():
    # docs/formula-systems.md: "Damage Base (an integer; optional DB multiplier)"
    assert attack(10, stat=10, db=8, db_multiplier=1.5).damage == 22
    assert attack(10, stat=0, db=5, db_multiplier=0.1, effectiveness="double-se").damage == 1  # 0.5 × 2, exact


def test_critical_doubles_before_defenses_and_effectiveness_after():
    # seed: "Critical Hits double the damage of an attack, before considering Type Effectiveness";
    # docs/formula-systems.md [decision]: before defenses
    r = attack(20, stat=10, db=5, defense=6, dr=2, effectiveness="se")
    assert r.outcome == "critical"
    assert r.damage == 33  # (15 × 2 − 6 − 2) × 1.5 = 33 (after defenses: 14; 21 doubled would be 42)


def test_damage_never_below_zero():
    # seed: "Attacks can deal 0 damage"
    r = attack(10, stat=3, db=2, defense=20, dr=5, effectiveness="double-se")
    assert (r.outcome, r.damage) == ("hit", 0)


@pytest.mark.parametrize(
    "effectiveness, damage",
    [("neutral", 7), ("se", 10), ("double-se", 14), ("resisted", 3), ("double-resisted", 1)],
)
def test_each_effectiveness_factor(effectiveness, damage):
    # seed: "SE x1.5, doubly SE x2, resisted ½, doubly resisted ¼"; 7 after defenses
    assert attack(10, stat=10, db=5, defense=8, effectiveness=effectiveness).damage == damage


def test_floor_only_once_at_the_end():
    # docs/formula-systems.md: "Rounding is always down (floor), once": 7.5 DB + 0 - 2 = 5.5; × 1.5 = 8.25 → 8
    # (flooring DB first would give 5 × 1.5 = 7)
    assert attack(10, stat=0, db=5, db_multiplier=1.5, defense=2, effectiveness="se").damage == 8
    # 5.5 × ¼ = 1.375 → 1, and × ½ = 2.75 → 2 (flooring 5.5 first: 5 × ½ = 2; ×2 = 11, not 10)
    assert attack(10, stat=0, db=5, db_multiplier=1.5, defense=2, effectiveness="double-se").damage == 11


def test_magmar_resisted():
    # seed: "Flamethrower dealing 25 damage ... 15 SPDEF ... take 10 damage and Resist it, ... 5 damage total"
    r = attack(10, stat=15, db=10, defense=15, effectiveness="resisted")
    assert (r.outcome, r.damage, r.extras["healed"]) == ("hit", 5, 0)


def test_magmar_absorbs_and_heals_10():
    # seed: "With the Ability, Magmar simply absorbs the attack and heals for 10 HP" (effectiveness ignored)
    r = attack(10, stat=15, db=10, defense=15, effectiveness="resisted", absorb=True)
    assert (r.damage, r.extras["healed"]) == (-10, 10)


def test_absorb_heals_nothing_when_defenses_stop_it():
    # not below 0 [seed]; a 0 heal is 0 damage
    r = attack(10, stat=1, db=1, defense=15, absorb=True)
    assert (r.damage, r.extras["healed"]) == (0, 0)


def test_direct_damage_skips_defense_dr_and_effectiveness():
    # seed: "Direct Damage does not have any Defensive Stats, DR, or Type Weakness/Resistances applied"
    r = attack(10, direct=12, defense=50, dr=9, effectiveness="double-resisted")
    assert (r.outcome, r.damage) == ("hit", 12)


def test_direct_damage_is_not_doubled_on_a_critical():
    # seed: "simply deals the listed damage, no questions asked" → not doubled [decision]
    r = attack(20, direct=12)
    assert (r.outcome, r.damage) == ("critical", 12)
    assert attack(5, direct=12, pp=True).damage == 12


def test_direct_damage_misses_like_any_attack():
    # docs/formula-systems.md: a miss deals 0
    assert attack(1, direct=12).damage == 0


# ------------------------------------------------------------------ injuries
def test_no_injuries_without_hp():
    # injuries need --max-hp and --hp [brief]
    r = attack(10, stat=100)
    assert (r.extras["injuries"], r.extras["hp_after"]) == (0, None)


@pytest.mark.parametrize(
    "damage, injuries, hp_after",
    [
        (49, 0, 51),  # below 50% of max HP in one hit and no marker reached
        (50, 2, 50),  # massive damage (≥ 50%) and reduced to the 50% marker
        (20, 0, 80),
    ],
)
def test_massive_damage(damage, injuries, hp_after):
    # source: Massive Damage, 50% of max HP or more in one hit, is one injury
    r = attack(10, stat=damage, db=0, max_hp=100, hp=100)
    assert (r.damage, r.extras["injuries"], r.extras["hp_after"]) == (damage, injuries, hp_after)


def test_massive_damage_alone():
    # source: one injury for massive damage, none for markers when none is crossed (hp 40 → −9 crosses 0 only)
    r = attack(10, stat=49, db=0, max_hp=98, hp=40)
    assert (r.extras["injuries"], r.extras["hp_after"]) == (2, -9)  # massive (49 ≥ 49) + marker 0
    r = attack(10, stat=49, db=0, max_hp=98, hp=100)
    assert (r.extras["injuries"], r.extras["hp_after"]) == (1, 51)  # massive only; 49 not reached


@pytest.mark.parametrize(
    "hp, damage, injuries",
    [
        (60, 10, 1),  # 60 → 50: reaches the 50% marker
        (51, 1, 1),  # 51 → 50
        (50, 10, 0),  # already at 50: 50 → 40 crosses nothing
        (30, 30, 1),  # 30 → 0: the 0% marker
        (10, 30, 1),  # 10 → −20: 0%
        (10, 40, 1),  # 10 → −30: 0%, not yet −50%
        (-40, 10, 1),  # −40 → −50: the −50% marker
        (-90, 20, 1),  # −90 → −110: −100%
    ],
)
def test_each_marker_crossed(hp, damage, injuries):
    # source: "reduced to 50% of its Max HP, 0%, -50%, -100%, and so on" (max HP 100; damage < 50: no massive damage)
    r = attack(10, stat=damage, db=0, max_hp=100, hp=hp)
    assert (r.extras["injuries"], r.extras["hp_after"]) == (injuries, hp - damage)


def test_several_markers_in_one_hit():
    # source: 60 → −60 crosses 50%, 0% and −50%, plus massive damage (120 ≥ 50)
    r = attack(10, stat=120, db=0, max_hp=100, hp=60)
    assert (r.extras["injuries"], r.extras["hp_after"]) == (4, -60)
    r = attack(10, direct=160, max_hp=100, hp=60)  # 60 → −100: 50%, 0%, −50%, −100%; direct: no massive
    assert (r.extras["injuries"], r.extras["hp_after"]) == (4, -100)


@pytest.mark.parametrize(
    "hp, damage, injuries",
    [
        (13, 1, 1),  # 13 → 12 crosses 12.5 (a marker rounded up to 13 would not be crossed)
        (14, 1, 0),  # 14 → 13 does not (a marker rounded up to 13 would be)
        (-12, 1, 1),  # −12 → −13 crosses −12.5
        (-11, 1, 0),  # −11 → −12 does not
    ],
)
def test_odd_max_hp_uses_exact_markers(hp, damage, injuries):
    # source: markers at 50% / −50% of max HP 25 are 12.5 / −12.5
    assert attack(10, stat=damage, db=0, max_hp=25, hp=hp).extras["injuries"] == injuries


def test_odd_max_hp_massive_damage_is_exact():
    # 50% of 25 is 12.5: 12 damage is not massive, 13 is (hp 100 keeps markers out of it)
    assert attack(10, stat=12, db=0, max_hp=25, hp=100).extras["injuries"] == 0
    assert attack(10, stat=13, db=0, max_hp=25, hp=100).extras["injuries"] == 1


def test_direct_damage_never_massive():
    # seed: Direct Damage "does not cause Injuries from Massive Damage"; 40 → −10 crosses the 0% marker either way
    direct = attack(10, direct=50, max_hp=100, hp=40)
    formula = attack(10, stat=50, db=0, max_hp=100, hp=40)
    assert (direct.damage, direct.extras["injuries"], direct.extras["hp_after"]) == (50, 1, -10)
    assert (formula.damage, formula.extras["injuries"], formula.extras["hp_after"]) == (50, 2, -10)


def test_no_injuries_when_healing():
    # docs/formula-systems.md: injuries come from damage; absorb heals (hp capped at max HP [decision])
    r = attack(20, stat=200, db=0, absorb=True, max_hp=100, hp=-60)
    assert (r.damage, r.extras["healed"], r.extras["injuries"], r.extras["hp_after"]) == (-400, 400, 0, 100)
    r = attack(10, stat=15, db=10, defense=15, absorb=True, max_hp=100, hp=40)
    assert (r.extras["injuries"], r.extras["hp_after"]) == (0, 50)


def test_miss_leaves_hp():
    r = attack(1, stat=200, max_hp=100, hp=70)
    assert (r.extras["injuries"], r.extras["hp_after"]) == (0, 70)


@pytest.mark.parametrize("max_hp", [1, 2, 7, 25])
def test_marker_count_matches_brute_force(max_hp):
    # a marker m = max_hp × (1 − k)/2 is crossed when hp > m ≥ hp_after
    markers = [Fraction(max_hp * (1 - k), 2) for k in range(20)]
    for hp in range(-3 * max_hp, 2 * max_hp):
        for after in range(hp - 3 * max_hp, hp + 1):
            expected = sum(1 for m in markers if hp > m >= after)
            assert markers_crossed(max_hp, hp, after) == expected, (hp, after)


# ------------------------------------------------------------------ range
@pytest.mark.parametrize(
    "range_, tier, distance, penalty",
    [
        ("short", 1, 4, 0),  # at the maximum: no penalty
        ("short", 1, 5, -1),  # one increment (1 m) beyond
        ("short", 1, 8, -4),  # four increments
        ("short", 1, 4.5, -1),  # a partial increment counts
        ("short", 2, 12.5, -3),  # max 8, increment 2: 4.5 beyond → 3
        ("medium", 1, 20, 0),
        ("medium", 1, 25, -1),  # increment 5
        ("medium", 1, 25.1, -2),  # partial
        ("medium", 3, 75, -1),  # max 60, increment 15
        ("long", 1, 100, 0),
        ("long", 1, 125, -1),  # increment 25
        ("long", 4, 401, -1),  # seed: "a Tier 4 Long Ranged Attack's Range Increment is 100 meters"
        ("long", 4, 600, -2),
    ],
)
def test_range_increments(range_, tier, distance, penalty):
    # seed: "-1 Accuracy Penalty" per "Range Increment beyond your attack's maximum distance"; increment = max/4
    r = attack(10, range=range_, tier=tier, distance=distance)
    assert r.extras["range_penalty"] == penalty
    assert r.extras["accuracy_total"] == 10 + penalty


@pytest.mark.parametrize(
    "range_, minimum",
    [("short", 1), ("medium", 5), ("long", 20)],
)
def test_point_blank_penalty_inclusive(range_, minimum):
    # seed: "Cannot target anyone within 1/5/20 meter(s) without penalty" → −8; inclusive [decision]
    assert attack(10, range=range_, distance=minimum).extras["range_penalty"] == -8
    assert attack(10, range=range_, distance=minimum - 0.5).extras["range_penalty"] == -8
    assert attack(10, range=range_, distance=minimum + 0.5).extras["range_penalty"] == 0


def test_minimum_distance_does_not_scale_with_tier():
    # seed: the minimum distances are fixed (1 / 5 / 20 m); only the maximum range is per Tier
    assert attack(10, range="medium", tier=3, distance=6).extras["range_penalty"] == 0


def test_range_penalty_can_turn_a_hit_into_a_miss():
    # seed: the penalty applies to the Accuracy Roll; ac 2 + evasion 10 = 12
    assert attack(12, evasion=10).outcome == "hit"
    r = attack(12, evasion=10, range="short", distance=0.5)
    assert (r.outcome, r.extras["accuracy_total"]) == ("miss", 4)


def test_range_penalty_does_not_narrow_the_crit_range():
    # seed: modifiers do not affect critical range; natural 20 always hits
    assert attack(20, range="short", distance=1).outcome == "critical"


# ------------------------------------------------------------------ options
@pytest.mark.parametrize(
    "given, message",
    [
        ({"distance": 10.0}, "--range"),
        ({"range": "short"}, "--distance"),
        ({"max_hp": 10}, "--hp"),
        ({"hp": 10}, "--max-hp"),
        ({"max_hp": 0, "hp": 0}, "--max-hp"),
        ({"tier": 0}, "--tier"),
        ({"crit_range": 0}, "--crit-range"),
        ({"crit_range": 21}, "--crit-range"),
        ({"db_multiplier": -0.5}, "--db-multiplier"),
        ({"range": "long", "distance": -1.0}, "--distance"),
        ({"absorb": True, "direct": 5}, "--absorb"),
        ({"direct": -1}, "--direct"),
        ({"db_multiplier": float("inf")}, "--db-multiplier"),
        ({"effectiveness": "weak"}, "--effectiveness"),
    ],
)
def test_option_errors(given, message):
    # docs/formula-systems.md, "Common ground": impossible options are one-line usage errors
    with pytest.raises(OptionError, match=message) as raised:
        SYSTEM.build(values(**given))
    assert "\n" not in str(raised.value)


def test_option_names_match_the_contract():
    # docs/cli.md: resolve|odds pte options
    assert [o.name for o in SYSTEM.options] == [
        "accuracy", "ac", "evasion", "stat", "damage-base", "db-multiplier", "tier", "stab", "damage-mod", "def", "dr",
        "effectiveness", "absorb", "direct", "crit-range", "pp", "max-hp", "hp", "range", "distance",
    ]
    required = {o.name for o in SYSTEM.options if o.required}
    assert required == {"accuracy", "ac", "evasion", "stat", "damage-base", "def"}


# ------------------------------------------------------------------ dice
def test_rolls_only_the_d20():
    # docs/cli.md: pte — the d20
    dice = ForcedDice(values=(15,))
    SYSTEM.resolve(SYSTEM.build(values(stab=True, max_hp=30, hp=30, range="long", distance=150.0)), dice)
    assert (dice.used, dice.purposes, dice.missing) == ([15], ["accuracy roll"], [])


@pytest.mark.parametrize("seed", [0, 1, 7, 2024])
def test_seeded_dice_reproduce(seed):
    # dice.py: the same seed gives the same result; its dice fed back as forced dice replay it
    params = SYSTEM.build(values(accuracy=4, ac=4, evasion=6, stat=12, db=7, stab=True, max_hp=40, hp=25))
    first_dice = SeededDice(seed=seed)
    first = SYSTEM.resolve(params, first_dice)
    assert SYSTEM.resolve(params, SeededDice(seed=seed)) == first
    assert SYSTEM.resolve(params, ForcedDice(values=tuple(first_dice.used))) == first


def test_steps_are_readable():
    r = attack(20, stat=10, db=5, stab=True, defense=3, dr=1, effectiveness="se", max_hp=30, hp=30, range="short", distance=6.0)
    text = "\n".join(r.steps)
    for piece in ("Accuracy roll 20", "-2 range", "STAB", "Critical", "defense 3", "DR 1", "x1.5", "floor", "injuries"):
        assert piece in text, piece
