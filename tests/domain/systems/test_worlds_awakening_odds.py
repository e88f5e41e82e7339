"""Exact odds of worlds-awakening (docs/formula-systems.md, "worlds-awakening").

One d20 and, on a hit, the damage dice: the odds are pinned to fractions worked
by hand, and checked against every die sequence given to ``resolve``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from helpers import system_params

from tables_app.domain.dice import ForcedDice
from tables_app.domain.systems.worlds_awakening import SYSTEM, odds

F = Fraction


def params(**values):
    return system_params(SYSTEM, **values)


def test_registered() -> None:
    assert SYSTEM.odds is odds


def test_cha_2_widens_the_critical_range_by_hand() -> None:
    # d20 + 2 vs 15, CHA +2: natural 1 a critical failure; 2-12 (4-14) a miss; 13-18 a hit;
    # 19-20 criticals (19: the widened range, 21 ≥ 15). Damage 2d6+1: mean 8; a critical 6 + 6 + 1 = 13.
    # E = 6/20 · 8 + 2/20 · 13 = 37/10.
    result = odds(params(stat=2, defense=15, damage=("2d6+1",), cha=2))
    assert result.outcomes == {"critical_failure": F(1, 20), "miss": F(11, 20), "hit": F(6, 20), "critical": F(2, 20), "success": 0}
    assert result.expected_damage == F(37, 10)
    assert result.extras == {"opponent_advantage": F(1, 20)}


def test_low_cha_and_damage_below_zero_by_hand() -> None:
    # Bonus 0 + 1 + 3 + 1 = 5 vs 20, CHA −4: 1-3 critical failures; a critical only on 20;
    # 4-14 (9-19) a miss; 15-19 a hit. Damage 1d4−3 + 1d2, the sum never below 0: of the 8 faces
    # (d4, d2) the sums −1, 0, 0, 1, 1, 2, 2, 3 count 0 + 0 + 0 + 1 + 1 + 2 + 2 + 3 = 9, mean 9/8
    # (not the unclamped 1); a critical is the maximum 1 + 2 = 3.
    # E = 5/20 · 9/8 + 1/20 · 3 = 69/160.
    result = odds(params(stat=0, weapon_bonus=1, level=3, equipment=1, defense=20, cha=-4, damage=("1d4-3", "1d2")))
    assert result.outcomes == {"critical_failure": F(3, 20), "miss": F(11, 20), "hit": F(5, 20), "critical": F(1, 20), "success": 0}
    assert result.expected_damage == F(69, 160)
    assert result.extras == {"opponent_advantage": F(3, 20)}


def test_a_support_action_by_hand() -> None:
    result = odds(params(stat=0, support=True))
    assert result.outcomes == {"critical_failure": 0, "miss": 0, "hit": 0, "critical": 0, "success": 1}
    assert result.expected_damage == 0 and result.extras == {"opponent_advantage": 0}


def every_resolution(p):  # type: ignore[no-untyped-def]
    """Every natural, and on a hit every face of every damage die, with its probability."""
    sides = [term.sides for expression in p.damage for term in expression.terms for _ in range(term.count)]
    all_faces = list(itertools.product(*(range(1, n + 1) for n in sides)))
    for natural in range(1, 21):
        if SYSTEM.resolve(p, ForcedDice(values=(natural,))).outcome != "hit":  # no damage dice asked for
            yield F(1, 20), SYSTEM.resolve(p, ForcedDice(values=(natural,)))
            continue
        for faces in all_faces:
            forced = ForcedDice(values=(natural, *faces))
            resolution = SYSTEM.resolve(p, forced)
            assert forced.missing == [] and forced.unused == ()
            yield F(1, 20) / len(all_faces), resolution


@pytest.mark.parametrize("given", [
    {"stat": 2, "defense": 15, "damage": ("2d6+1",), "cha": 2},
    {"stat": 0, "weapon_bonus": 1, "level": 3, "equipment": 1, "defense": 20, "cha": -4, "damage": ("1d4-3", "1d2")},
    {"stat": 4, "defense": 12, "cha": 7, "damage": ("1d6-4", "1d4", "2")},
    {"stat": -3, "defense": 30, "cha": -2},
])
def test_exact_agreement_with_every_die_sequence(given: dict) -> None:
    p = params(**given)
    outcomes = {word: F(0) for word in SYSTEM.outcomes}
    damage = F(0)
    for probability, resolution in every_resolution(p):
        outcomes[resolution.outcome] += probability
        damage += probability * resolution.damage
    result = odds(p)
    assert result.outcomes == outcomes and result.expected_damage == damage
