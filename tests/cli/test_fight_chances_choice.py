"""`tables odds fight`'s one answer (issue 42; docs/fights.md, "Odds of a fight"): exact, in float64, when the
states stay few (equal to the fractions of `--exact` within 1e-12); else estimated; and the estimate agrees with
the exact odds, every share of every round, on every fight small enough to work out both ways: a duel on the
bundled tables, a 2-vs-1, death thresholds, one prone and one knocked out mid-fight, a fight in a formula system."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

COUNT = 20_000


def answer(run: Any, *args: str) -> dict[str, Any]:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def done(result: Any) -> None:
    assert result.exit_code == 0, result.output


def quick(run: Any) -> None:
    done(run("fight", "new", "F"))
    done(run("fight", "join", "F", "--as", "Hero", "--hits", "3", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60"))
    done(run("fight", "join", "F", "--creature", "Goblin Scout", "--hits", "3"))


def two_against_one_with_thresholds(run: Any) -> None:
    done(run("fight", "new", "F"))
    done(run("fight", "join", "F", "--as", "Hero", "--hits", "6", "--armor", "MA", "--weapon", "Longsword", "--cmb", "40",
        "--death-at", "-3"))
    done(run("fight", "join", "F", "--as", "Ally", "--hits", "5", "--armor", "MA", "--weapon", "Dagger", "--cmb", "30"))
    done(run("fight", "join", "F", "--creature", "Goblin Scout", "--hits", "8", "--death-at", "-2"))


def crippled_mid_fight(run: Any) -> None:
    quick(run)
    done(run("fight", "join", "F", "--creature", "Goblin Scout", "--hits", "3"))
    done(run("fight", "edit", "F", "Hero", "--prone", "1"))
    done(run("fight", "edit", "F", "Goblin Scout #1", "--out", "1", "--bleed", "1"))


def formula_duel(run: Any) -> None:
    done(run("fight", "new", "F"))
    for name, side in (("Hero", "A"), ("Orc", "B")):
        done(run("fight", "join", "F", "--as", name, "--side", side, "--hits", "6", "--def", "8", "--system", "rise",
            "--option", "accuracy=4", "--option", "damage=1d4+1"))


FIGHTS = {"quick": (quick, 3), "two against one, thresholds": (two_against_one_with_thresholds, 2),
          "prone and knocked out": (crippled_mid_fight, 2), "rise": (formula_duel, 6)}
SLOW = ("two against one, thresholds",)  # its exact odds take seconds


def shares(data: dict[str, Any]) -> dict[tuple[Any, ...], float]:
    """Every share of every round listed, by (round, what)."""
    found: dict[tuple[Any, ...], float] = {}
    for r in data["rounds"]:
        found[(r["round"], "over")] = r["over"]
        for side, p in r["sides"].items():
            found[(r["round"], "won", side)] = p
        for name, fate in r["combatants"].items():
            for key, p in fate.items():
                found[(r["round"], key, name)] = p
    return found


@pytest.mark.parametrize("fight", [pytest.param(f, marks=pytest.mark.slow) if f in SLOW else f for f in FIGHTS])
def test_the_estimate_agrees_with_the_exact_odds(run, fight):  # type: ignore[no-untyped-def]
    setup, rounds = FIGHTS[fight]
    setup(run)
    exact = answer(run, "odds", "fight", "F", "--rounds", str(rounds), "--exact")
    estimated = answer(run, "odds", "fight", "F", "--rounds", str(rounds), "--count", str(COUNT), "--seed", "11")
    assert (exact["method"], exact["arithmetic"], estimated["method"]) == ("exact", "rational", "estimated")
    exactly, drawn = shares(exact), shares(estimated)
    last = max(r["round"] for r in estimated["rounds"])  # its list stops where every fight played had ended
    checked = 0
    for (round_, *what), p in exactly.items():
        sampled = drawn[(min(round_, last), *what)]
        # within 4.5 standard errors of the exact share (its error from p itself: a share drawn as 0 is judged too)
        assert abs(sampled - p) <= 4.5 * math.sqrt(p * (1 - p) / COUNT) + 1e-9, (round_, what, sampled, p)
        checked += 1
    assert checked >= 3 * rounds
    assert abs(estimated["expected_rounds"] - exact["expected_rounds"]) <= 4.5 * estimated["se"]["expected_rounds"] + 1e-9


def test_a_small_fight_is_answered_exactly_in_float64(run):  # type: ignore[no-untyped-def]
    formula_duel(run)
    chosen = answer(run, "odds", "fight", "F", "--time", "30")  # time enough to work it out whatever the load
    assert (chosen["method"], chosen["arithmetic"]) == ("exact", "float64") and "why" not in chosen
    exact = answer(run, "odds", "fight", "F", "--exact")
    assert exact["arithmetic"] == "rational" and len(exact["rounds"]) == len(chosen["rounds"])
    for key, p in shares(exact).items():
        assert abs(shares(chosen)[key] - p) <= 1e-12, key
    text = run("odds", "fight", "F", "--time", "30").stdout
    assert text.splitlines()[0] == "F: exact odds, from round 1 (after event 2)"
    assert "Sides: A (Hero); B (Orc)" in text


def test_a_fight_past_the_exact_share_of_the_time_is_estimated_saying_why(run):  # type: ignore[no-untyped-def]
    quick(run)  # 20 rounds of it take seconds to work out exactly (its fumbles' stun and penalty pile up)
    data = answer(run, "odds", "fight", "F", "--time", "0.3")
    assert data["method"] == "estimated"
    assert data["why"].startswith("not exact: its states take more than 0.045 s to work out (by round "), data["why"]
