"""Exact odds of pte (docs/formula-systems.md, "pte"; docs/cli.md, "JSON shape of odds").

The d20 is the only die: the odds are checked by hand, against all 20
naturals given to ``resolve`` as ForcedDice, and against 20,000 seeded attacks.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from fractions import Fraction

import pytest
from helpers import assert_agrees, assert_mean_agrees, seeded_resolutions

from tables_app.domain.dice import ForcedDice
from tables_app.domain.systems.base import Odds
from tables_app.domain.systems.pte import SYSTEM, Pte, odds

REQUIRED = {"accuracy": 0, "ac": 2, "evasion": 0, "stat": 10, "db": 5, "defense": 0}
F = Fraction


def params(**given: object) -> Pte:
    values = {o.key: (o.default if o.default is not None else (False if o.kind == "flag" else None)) for o in SYSTEM.options}
    values.update(REQUIRED)
    values.update(given)
    return SYSTEM.build(values)


def test_registered() -> None:
    assert SYSTEM.odds is odds


# ---------------------------------------------------------------- by hand
def test_thresholds_and_damage_by_hand() -> None:
    # Accuracy 2 against AC 6 + evasion 4 = 10: natural + 2 ≥ 10 ⇔ natural ≥ 8 (13 faces);
    # critical range 18: 18, 19, 20 are criticals (3), 8..17 hits (10), 1..7 miss (7).
    # Damage: stat 10 + DB 5 = 15, minus defense 5 → 10; critical 2 · 15 − 5 = 25.
    # Expected = (10 · 10 + 3 · 25) / 20 = 175/20 = 35/4.
    result = odds(params(accuracy=2, ac=6, evasion=4, stat=10, db=5, defense=5, crit_range=18))
    assert result.outcomes == {"miss": F(7, 20), "hit": F(10, 20), "critical": F(3, 20)}
    assert result.expected_damage == F(35, 4)
    assert result.extras == {}  # no injuries without max-hp/hp, no healing without absorb


def test_natural_1_and_20_by_hand() -> None:
    # Accuracy 30 against 5: every natural hits but the 1 (always misses): miss 1/20.
    high = odds(params(accuracy=30, ac=5))
    assert high.outcomes == {"miss": F(1, 20), "hit": F(18, 20), "critical": F(1, 20)}
    # Accuracy −30: only the 20 hits (always), and it is in the default critical range.
    low = odds(params(accuracy=-30, ac=5))
    assert low.outcomes == {"miss": F(19, 20), "hit": F(0), "critical": F(1, 20)}
    # 15 + 0 (stat 10 + DB 5, defense 0) doubled: 30 / 20 = 3/2.
    assert low.expected_damage == F(3, 2)


def test_pp_makes_every_hit_critical_by_hand() -> None:
    # Natural ≥ 10 hits (accuracy 0 against 10): 11 faces, all criticals; 2 · 15 = 30 each.
    result = odds(params(ac=10, pp=True))
    assert result.outcomes == {"miss": F(9, 20), "hit": F(0), "critical": F(11, 20)}
    assert result.expected_damage == F(11 * 30, 20)


def test_effectiveness_and_dr_by_hand() -> None:
    # Hits on natural ≥ 2 (AC 2): 18 hits and a critical (20). (10 + 5 − 3 DR) × 3/2 = 18;
    # critical (30 − 3) × 3/2 = 40.5 → 40. Expected (18 · 18 + 40) / 20 = 364/20 = 91/5.
    result = odds(params(dr=3, effectiveness="se"))
    assert result.expected_damage == F(91, 5)


def test_absorb_heals_by_hand() -> None:
    # Absorb: hits heal (10 + 5 − 4) = 11, critical (30 − 4) = 26; effectiveness ignored.
    # Natural ≥ 2 hits: expected damage −(18 · 11 + 26) / 20 = −224/20 = −56/5; healed 56/5.
    result = odds(params(defense=4, absorb=True, effectiveness="se"))
    assert result.expected_damage == F(-56, 5)
    assert result.extras == {"healed": F(56, 5)}


def test_direct_damage_by_hand() -> None:
    # Direct 7: no defense, never doubled; hits on natural ≥ 2 → 19 · 7 / 20 = 133/20.
    result = odds(params(direct=7, defense=50))
    assert result.expected_damage == F(133, 20)


def test_range_penalty_by_hand() -> None:
    # Short range, tier 1: max 4 m, increment 1 m; 6 m is 2 increments beyond: −2.
    # Accuracy 0 − 2 ≥ AC 10 ⇔ natural ≥ 12: 9 faces hit (12..20), 20 critical.
    far = odds(params(ac=10, range="short", distance=6))
    assert far.outcomes == {"miss": F(11, 20), "hit": F(8, 20), "critical": F(1, 20)}
    # 1 m is within the minimum distance (inclusive): −8 → natural ≥ 18 (3 faces).
    close = odds(params(ac=10, range="short", distance=1))
    assert close.outcomes == {"miss": F(17, 20), "hit": F(2, 20), "critical": F(1, 20)}


def test_injuries_by_hand() -> None:
    # Max HP 20, HP 20. A hit deals 10: massive (2 · 10 ≥ 20) + the 50% marker (10) crossed = 2.
    # A critical deals 2 · 10 = 20: massive + markers 10 and 0 crossed (HP 0 reaches the 0 marker) = 3.
    # Natural ≥ 2 hits (18 faces), 20 critical, 1 miss (0 injuries).
    result = odds(params(stat=5, db=5, max_hp=20, hp=20))
    assert result.extras["injuries"] == {0: F(1, 20), 2: F(18, 20), 3: F(1, 20)}
    # HP 12 of 20, a critical of 2 · 15 = 30 (HP −18): massive + markers 10, 0, −10 = 4;
    # a hit of 15 (HP −3): massive + markers 10, 0 = 3.
    deep = odds(params(max_hp=20, hp=12))
    assert deep.extras["injuries"] == {0: F(1, 20), 3: F(18, 20), 4: F(1, 20)}
    # Direct 10 is never massive: only the 50% marker: 1 injury on every hit.
    direct = odds(params(direct=10, max_hp=20, hp=20))
    assert direct.extras["injuries"] == {0: F(1, 20), 1: F(19, 20)}


# ---------------------------------------------------------------- sums to 1
SETS = [
    {},
    {"accuracy": 3, "ac": 4, "evasion": 6, "crit_range": 16},
    {"accuracy": -4, "ac": 8, "evasion": 2, "crit_range": 1},
    {"accuracy": 40, "ac": 2, "pp": True},
    {"accuracy": -40, "ac": 2, "crit_range": 19},
    {"stat": 14, "db": 8, "db_multiplier": 1.5, "tier": 3, "stab": True, "damage_mod": 4, "defense": 9},
    {"defense": 12, "dr": 5, "effectiveness": "double-resisted"},
    {"stat": 7, "db": 6, "defense": 3, "effectiveness": "double-se", "crit_range": 18},
    {"absorb": True, "defense": 3, "effectiveness": "resisted"},
    {"absorb": True, "defense": 40},
    {"direct": 12, "pp": True, "max_hp": 25, "hp": 13},
    {"direct": 0, "max_hp": 25, "hp": 20},
    {"max_hp": 25, "hp": 25, "stat": 20, "db": 9, "crit_range": 17},
    {"max_hp": 10, "hp": 3, "absorb": True},
    {"range": "medium", "distance": 3, "ac": 4},
    {"range": "long", "distance": 260, "tier": 2, "ac": 4},
    {"range": "short", "distance": 4.5, "evasion": 2, "crit_range": 15, "pp": True},
]


@pytest.mark.parametrize("given", SETS)
def test_outcomes_sum_to_exactly_one(given: dict) -> None:
    p = params(**given)
    result = odds(p)
    assert isinstance(result, Odds)
    assert tuple(result.outcomes) == SYSTEM.outcomes
    assert sum(result.outcomes.values()) == 1
    assert all(isinstance(x, Fraction) and x >= 0 for x in result.outcomes.values())
    assert isinstance(result.expected_damage, Fraction)
    if p.max_hp is not None:
        assert sum(result.extras["injuries"].values()) == 1
    else:
        assert "injuries" not in result.extras
    assert ("healed" in result.extras) == p.absorb


# ---------------------------------------------------------------- brute force
@pytest.mark.parametrize("given", SETS)
def test_exact_agreement_with_all_20_naturals(given: dict) -> None:
    p = params(**given)
    outcomes = {word: F(0) for word in SYSTEM.outcomes}
    injuries: dict[int, Fraction] = defaultdict(Fraction)
    damage = healed = F(0)
    for natural in range(1, 21):
        resolution = SYSTEM.resolve(p, ForcedDice(values=[natural]))
        outcomes[resolution.outcome] += F(1, 20)
        damage += F(resolution.damage, 20)
        healed += F(resolution.extras["healed"], 20)
        injuries[resolution.extras["injuries"]] += F(1, 20)
    result = odds(p)
    assert result.outcomes == outcomes
    assert result.expected_damage == damage
    if p.max_hp is not None:
        assert result.extras["injuries"] == dict(injuries)
    if p.absorb:
        assert result.extras["healed"] == healed == -damage


# ---------------------------------------------------------------- sampling
SAMPLED = [
    {"accuracy": 2, "ac": 6, "evasion": 4, "stat": 10, "db": 5, "defense": 5, "crit_range": 18,
     "max_hp": 30, "hp": 22},
    {"accuracy": 1, "ac": 5, "evasion": 3, "absorb": True, "defense": 2, "range": "short", "distance": 5.5},
]


@pytest.mark.parametrize("given", SAMPLED)
def test_chi_square_agreement_at_a_fixed_seed(given: dict) -> None:
    p = params(**given)
    result = odds(p)
    resolutions = seeded_resolutions(SYSTEM, p)
    assert_agrees(Counter(r.outcome for r in resolutions), result.outcomes)
    if p.max_hp is not None:
        assert_agrees(Counter(r.extras["injuries"] for r in resolutions), result.extras["injuries"])
    assert_mean_agrees([r.damage for r in resolutions], result.expected_damage)
