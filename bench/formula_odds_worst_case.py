"""Benchmark: exact odds of the formula systems at the edges of their bounds.

    python bench/formula_odds_worst_case.py

Every option of every formula system is bounded (a usage error beyond); this
times `odds` in-process (best of 3, caches cleared) for the costliest inputs
the bounds allow, and a few whole processes (`python -m tables_app odds ...`,
start-up included). Each answer's outcomes are checked to sum to exactly 1.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

from tables_app.domain.systems import d10_pool, get


CASES = [
    ("rise", "old slow input 2d20", dict(accuracy=6, defense=12, damage="2d20")),
    ("rise", "old slow input 1d100", dict(accuracy=6, defense=12, damage="1d100")),
    ("rise", "most dice, glancing possible", dict(accuracy=6, defense=12, crit_bonus=100, damage="100d1000+1000")),
    ("rise", "most criticals, 100d1000", dict(accuracy=100, defense=-100, crit_bonus=100, damage="100d1000")),
    ("rise", "most criticals, often below 0", dict(accuracy=100, defense=-100, crit_bonus=100, damage="100d1000-100")),
    ("rise", "most criticals, 100d20-100", dict(accuracy=100, defense=-100, crit_bonus=100, damage="100d20-100")),
    ("rise", "most criticals, 20d10+20d9-100", dict(accuracy=100, defense=-100, crit_bonus=100, damage="20d10+20d9-100")),
    ("rise", "most criticals, mixed small dice", dict(accuracy=100, defense=-100, crit_bonus=100, damage="30d6+30d5-100")),
    ("rise", "glancing x3, 100d1000-100", dict(accuracy=6, defense=12, multiplier=3, damage="100d1000-100")),
    ("rise", "glancing x3, criticals, 100d1000-100", dict(accuracy=0, defense=11, crit_bonus=100, multiplier=3, damage="100d1000-100")),
    ("worlds-awakening", "10 expressions of 100d1000-1000", dict(stat=0, defense=15, damage=("100d1000-1000",) * 10)),
    ("worlds-awakening", "10 expressions, subtracted dice", dict(stat=0, defense=15, damage=("50d1000-50d1000",) * 10)),
    ("d10-pool", "8 chains, heavy, 4d6+6, Toughness 1", dict(bonus=100, ad=0, toughness=1, damage="4d6+6", attacks=6, weapons=3, heavy=True)),
    ("d10-pool", "8 chains, heavy, 1d30, Toughness 1", dict(bonus=100, ad=0, toughness=1, damage="1d30", attacks=6, weapons=3, heavy=True)),
    ("d10-pool", "8 chains, heavy, 4d7+2, Toughness 1", dict(bonus=100, ad=0, toughness=1, damage="4d7+2", attacks=6, weapons=3, heavy=True)),
    ("pte", "largest numbers", dict(accuracy=100, ac=-100, evasion=-100, stat=1000, db=100, db_multiplier=100.0, tier=100,
                                     stab=True, damage_mod=1000, defense=-1000, dr=-1000, max_hp=100_000, hp=-100_000,
                                     range="long", distance=100_000.0)),
]
WHOLE_PROCESS = [
    ["rise", "--accuracy", "6", "--def", "12", "--damage", "1d100"],
    ["rise", "--accuracy", "100", "--def", "-100", "--crit-bonus", "100", "--damage", "20d10+20d9-100"],
    ["d10-pool", "--bonus", "100", "--ad", "0", "--toughness", "1", "--damage", "4d6+6", "--attacks", "6", "--weapons", "3", "--heavy"],
]


def odds_seconds(system_id: str, values: dict) -> float:
    system = get(system_id)
    full = {option.key: option.default for option in system.options}
    full.update(values)
    params = system.build(full)
    best = float("inf")
    for _ in range(3):
        d10_pool._hit_damage.cache_clear()
        d10_pool._chain_damage.cache_clear()
        start = time.perf_counter()
        odds = system.odds(params)
        best = min(best, time.perf_counter() - start)
    assert sum(odds.outcomes.values(), Fraction(0)) == 1
    return best


def main() -> None:
    print("in-process, best of 3:")
    for system_id, label, values in CASES:
        print(f"  {system_id:17} {label:40} {odds_seconds(system_id, values):7.3f} s", flush=True)
    print("whole process (start-up included), median of 3:")
    with tempfile.TemporaryDirectory() as folder:
        database = str(Path(folder) / "bench.db")
        subprocess.run([sys.executable, "-m", "tables_app", "db", "init", database], check=True, capture_output=True)
        for args in WHOLE_PROCESS:
            times = []
            for _ in range(3):
                start = time.perf_counter()
                subprocess.run([sys.executable, "-m", "tables_app", "--db", database, "odds", *args, "--json"],
                               check=True, capture_output=True)
                times.append(time.perf_counter() - start)
            print(f"  {' '.join(args)[:80]:82} {sorted(times)[1]:7.3f} s", flush=True)


if __name__ == "__main__":
    main()
