"""The exact odds count the cells of the arrays they hold their states in, before making one (issue 43, item 2):
a blow whose hits have gaps (a formula system's `damage=1d2, multiplier=100`: 100, 200, ..., 3,600) spreads few
states over a wide box, which was allocated whole (2.4 GiB for `damage=1d2+1000` in round 1). Past the bound the odds
are refused (TooManyCells, a TooManyStates: `--exact` offers the estimate, the automatic answer estimates), having
allocated nothing near it."""

from __future__ import annotations

import tracemalloc
from fractions import Fraction

import pytest

from tables_app.domain.fights import Blow, Harm
from tables_app.domain.fights.odds import MAX_CELLS, TooManyCells, TooManyStates, fight_odds

from fight_states import fighter_on_tiny, tiny_fight

GAPS = 36  # rise's 1d2 × 100 and its explosions, as the fight: 100 to 3,600 hits, by 100


def gapped(state, attacker, target):  # type: ignore[no-untyped-def]
    return {Blow(to_target=Harm(hits=100 * k)): Fraction(1, GAPS) for k in range(1, GAPS + 1)}


def giants():  # type: ignore[no-untyped-def]
    return tiny_fight((fighter_on_tiny("A", "A", 100_000), fighter_on_tiny("B", "B", 100_000)))


@pytest.mark.parametrize("arithmetic", ["rational", "float64"])
def test_a_box_past_the_cells_bound_is_refused_before_it_is_made(arithmetic):  # type: ignore[no-untyped-def]
    # round 1: A's blows spread B's axis over 3,601 cells (from 0), then B's spread A's: a 3,601² box (13 million cells,
    # 98 MB of float64 or pointers) for 36² = 1,296 states
    tracemalloc.start()
    try:
        with pytest.raises(TooManyCells) as refused:
            fight_odds(giants(), gapped, 1, arithmetic=arithmetic)  # type: ignore[call-overload]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert refused.value.states == 3_601 ** 2 > MAX_CELLS == refused.value.limit
    assert refused.value.round == 1
    assert isinstance(refused.value, TooManyStates)  # what the service turns into its refusal, or the estimate
    assert str(refused.value) == f"its states spread over more than {MAX_CELLS:,} cells (12,967,201 by round 1)"
    assert peak < 8 * MAX_CELLS // 4  # not a quarter of the box it would have made


def test_the_cells_bound_is_the_one_asked_for():  # type: ignore[no-untyped-def]
    # the same fight within a bound it fits in: worked out (one attack each way: every state still going)
    odds = fight_odds(giants(), gapped, 1, arithmetic="float64", cells=3_601 ** 2)
    assert odds.rounds[0].states == GAPS ** 2 and odds.unfinished == pytest.approx(1.0)
    with pytest.raises(TooManyCells, match=r"more than 3,000 cells \(3,601 by round 1\)"):
        fight_odds(giants(), gapped, 1, arithmetic="float64", cells=3_000)


def test_the_cells_held_in_all_are_counted_not_only_each_array():  # type: ignore[no-untyped-def]
    # two conditions' boxes, each within the bound, held together past it: the second one's states are kept apart by
    # a blow that leaves B prone (another condition), so neither box alone reaches the bound
    def two_ways(state, attacker, target):  # type: ignore[no-untyped-def]
        return {Blow(to_target=Harm(hits=100 * k, prone=k % 2)): Fraction(1, GAPS) for k in range(1, GAPS + 1)}

    with pytest.raises(TooManyCells) as refused:
        fight_odds(giants(), two_ways, 1, arithmetic="float64", cells=3_601 + 3_000)
    assert refused.value.states == 3_501 + 3_601  # in A's turn: B prone (100-3,500 hits) and not (200-3,600)
