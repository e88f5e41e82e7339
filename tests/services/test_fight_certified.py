"""`odds fight --certified --json` (services/fight_certified.py): the bounds as printed still hold the bounds
worked out (a lower bound rounded down, an upper bound and the width and the mass dropped rounded up) and each
share printed is the middle of its bounds."""

from __future__ import annotations

from random import Random

from tables_app.domain.fights.certified import Bounds, CertifiedOdds, CertifiedRound
from tables_app.services.fight_certified import FightCertified

NAMES = ("Hero", "Orc")
SIDES = ("A", "B")
SLACK = 1e-15  # a float's own rounding, far below the 1e-12 a wrong rounding moves a bound


def random_bounds(rng: Random, most: float = 1.0) -> Bounds:
    low = rng.random() * most * 0.9
    return Bounds(low, low + rng.random() * 0.01 * most)


def random_odds(rng: Random) -> CertifiedOdds:
    rounds = tuple(CertifiedRound(r, random_bounds(rng), {s: random_bounds(rng) for s in SIDES},
                                  {n: random_bounds(rng) for n in NAMES}, {n: random_bounds(rng) for n in NAMES},
                                  states=10, dropped=rng.random() * 1e-3) for r in range(1, 6))
    return CertifiedOdds(1, rounds, random_bounds(rng, 5.0), random_bounds(rng), dropped=rng.random() * 1e-3,
                         threshold=1e-6, sides=SIDES)


def leaves(shares: object, path: tuple[object, ...] = ()) -> dict[tuple[object, ...], object]:
    if isinstance(shares, dict):
        return {k: v for key, value in shares.items() for k, v in leaves(value, (*path, key)).items()}
    return {path: shares}


def test_printed_bounds_hold_the_bounds_worked_out_and_the_share_is_their_middle() -> None:
    rng = Random(42)
    for _ in range(20):
        odds = random_odds(rng)
        data = FightCertified("F", 3, odds, NAMES, {s: s for s in SIDES}, 0.01).to_json()
        widest = 0.0
        for worked, printed in zip(odds.rounds, data["rounds"]):
            bounds = leaves({"over": worked.over, "sides": worked.sides,
                             "combatants": {n: {"down": worked.down[n], "dead": worked.dead[n]} for n in NAMES}})
            shares = leaves({k: printed[k] for k in ("over", "sides", "combatants")})
            lower, upper = leaves(printed["lower"]), leaves(printed["upper"])
            assert set(bounds) == set(shares) == set(lower) == set(upper)
            for key, b in bounds.items():
                assert isinstance(b, Bounds)
                assert lower[key] <= b.lower + SLACK and upper[key] >= b.upper - SLACK, key  # type: ignore[operator]
                assert abs(shares[key] - (b.lower + b.upper) / 2) <= 1e-12, key  # type: ignore[operator]
                widest = max(widest, b.upper - b.lower)
        assert data["width"] >= widest - SLACK and data["dropped"] >= odds.dropped - SLACK
        for key in ("expected_rounds", "unfinished"):
            b = getattr(odds, key)
            assert data["lower"][key] <= b.lower + SLACK and data["upper"][key] >= b.upper - SLACK, key
            assert abs(data[key] - (b.lower + b.upper) / 2) <= 1e-12, key
