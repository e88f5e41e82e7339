"""The vectorised simulation of the table system against odds worked out by
hand (tests/domain/small_tables.py), and against the exact odds."""

import pytest
from helpers import assert_agrees
from small_tables import HAND_CASES, TABLES, attack

from tables_app.domain.odds import table_odds
from tables_app.domain.simulate import simulate_table
from tables_app.domain.tables import Rank


def _mean_and_error(tally) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    mean = tally.damage_sum / tally.count
    return mean, ((tally.damage_squares / tally.count - mean**2) / tally.count) ** 0.5


@pytest.mark.parametrize("case", HAND_CASES, ids=lambda case: case.name)
def test_simulation_agrees_with_the_hand_worked_cases(case):
    tally = simulate_table(attack(**case.changes), TABLES, 1_000_000, seed=11)
    severities = tally.extra["critical_severity"]
    if case.outcomes is None:  # a rare severity: its count within 4.5 standard deviations
        for code, p in case.severities.items():
            expected = float(p) * tally.count
            assert abs(severities[code] - expected) <= 4.5 * (expected * (1 - float(p))) ** 0.5, (code, severities[code], expected)
        return
    assert_agrees(tally.outcomes, case.outcomes)
    critical = sum(case.severities.values())
    assert_agrees(severities | {"none": tally.count - sum(severities.values())}, case.severities | {"none": 1 - critical})
    mean, error = _mean_and_error(tally)
    assert abs(mean - float(case.expected_damage)) <= 4 * error + 1e-12, (mean, float(case.expected_damage))


CASES = [
    {"cmb": 40},
    {"cmb": 90, "armor": "HA", "secondary_critical": "Impact", "features": frozenset({"helm"})},
    {"cmb": 20, "defense": 30, "rank": Rank.EPIC, "clumsy": 6, "max_result": None},
    {"cmb": 70, "rank": Rank.HEROIC, "secondary_critical": "Impact", "max_critical": "Gri"},  # step 9: the cap, then the rank
]


@pytest.mark.parametrize("changes", CASES)
def test_the_vectorised_simulation_agrees_with_the_exact_odds(changes):
    chosen = attack(**changes)
    odds = table_odds(chosen, TABLES)
    tally = simulate_table(chosen, TABLES, 200_000, seed=7)
    assert_agrees(tally.outcomes, odds.outcomes)
    assert_agrees(tally.extra["critical_severity"] | {"none": tally.count - sum(tally.extra["critical_severity"].values())},
                  odds.critical_severity | {"none": 1 - odds.outcomes["critical"]})
    mean, error = _mean_and_error(tally)
    assert abs(mean - float(odds.expected_damage)) <= 4 * error + 1e-12


def test_a_seed_gives_the_same_tally():
    chosen = attack(cmb=60, secondary_critical="Impact")
    first = simulate_table(chosen, TABLES, 30_000, seed=5)
    assert simulate_table(chosen, TABLES, 30_000, seed=5) == first
    assert sum(first.outcomes.values()) == 30_000


def test_small_chunks_widen_the_totals_read_and_still_agree(monkeypatch):
    """Each chunk reads only the totals it drew; later chunks reach further up and down."""
    from tables_app.domain import simulate

    monkeypatch.setattr(simulate, "CHUNK", 997)
    case = next(case for case in HAND_CASES if case.name == "opens low on 5")
    tally = simulate_table(attack(**case.changes), TABLES, 200_000, seed=3)
    assert_agrees(tally.outcomes, case.outcomes)
