"""Benchmark: exact odds of one attack, tables_app against icepool, same run.

    pip install ".[bench]"
    python bench/odds_vs_icepool.py

1. In-process: tables_app's table_odds (its caches cleared every time, so
   each run rebuilds the open-ended distribution) against icepool computing
   the same distribution. Both answers are printed and compared.
2. Whole process: `tables odds table ... --json` against
   `python bench/icepool_attack.py`, each started fresh.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from icepool_attack import attack_distribution  # noqa: E402

from tables_app.services.attacks import TargetParts, WeaponParts, prepare  # noqa: E402
from tables_app.domain import odds as odds_module  # noqa: E402
from tables_app.domain.odds import critical_hits_over_die, table_odds  # noqa: E402
from tables_app.domain.table_rules import CriticalPlan  # noqa: E402
from tables_app.services.database_setup import init_database  # noqa: E402

ARGS = ["--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA"]


def best_of(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def peer_spec(attack, tables) -> dict:
    """The attack table column and critical means as plain data for the peer."""
    column = tables.attack.column(attack.armor)
    scale = tables.attack.scale
    rows = []
    for row_range, cells in zip(tables.attack.rows.ranges, tables.attack.rows.values):
        cell = cells[column]
        crit_mean = 0.0
        outcome = cell.outcome.value
        if cell.severity:
            severity = scale.lower(scale.get(cell.severity), attack.reduction)
            if severity is None:
                outcome = "hit"
            else:
                plan = CriticalPlan(tables.criticals[cell.critical or attack.weapon.critical], severity, severity, 0)
                crit_mean = float(critical_hits_over_die(plan, attack.features)) / 100
        rows.append([row_range.low, outcome, cell.hits, crit_mean])
    return {"rows": rows, "shift": attack.effective_cmb - attack.defense, "cap": attack.weapon.max_result, "clumsy": attack.weapon.clumsy}


def main() -> None:
    db = Path(tempfile.mkdtemp()) / "bench.db"
    engine = init_database(str(db))
    prepared = prepare(engine, WeaponParts(name="Longsword"), TargetParts(defense=20, armor="MA"), cmb=60)
    attack, tables = prepared.attack, prepared.tables
    spec = peer_spec(attack, tables)

    def ours():
        odds_module.attack_roll.cache_clear()
        odds_module.open_ended_tail.cache_clear()
        odds_module._tail_prefix.cache_clear()
        return table_odds(attack, tables)

    def theirs():
        return attack_distribution(spec)

    mine, peer = ours(), theirs()
    print("tables_app:", {k: round(float(v), 12) for k, v in mine.outcomes.items() if v}, "E[damage] =", float(mine.expected_damage))
    print("icepool:   ", {k: round(v, 12) for k, v in peer[0].items() if v}, "E[damage] =", peer[1])
    worst = max(abs(float(mine.outcomes[k]) - peer[0].get(k, 0.0)) for k in mine.outcomes)
    print(f"largest difference in an outcome probability: {worst:.2e}; in expected damage: {abs(float(mine.expected_damage) - peer[1]):.2e}")
    t_ours, t_theirs = best_of(ours, 20), best_of(theirs, 3)
    print(f"in-process: tables_app {t_ours * 1000:.2f} ms, icepool {t_theirs * 1000:.1f} ms, ratio {t_theirs / t_ours:.0f}x")

    spec_file = db.parent / "spec.json"
    spec_file.write_text(json.dumps(spec))
    env = dict(os.environ, TABLES_DB=str(db))
    # Bytecode caches on, as after a normal `pip install` (this workplace sets
    # PYTHONDONTWRITEBYTECODE, which would make every run recompile tables_app
    # from source while icepool's caches were written at install time).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    tables_cmd = [sys.executable, "-m", "tables_app", "odds", "table", *ARGS, "--json"]
    peer_cmd = [sys.executable, str(HERE / "icepool_attack.py"), str(spec_file)]
    runs = {"tables odds": [], "icepool script": []}
    for command in (tables_cmd, peer_cmd):  # warm-up: caches written, files in the page cache
        subprocess.run(command, env=env, check=True, capture_output=True)
    for _ in range(7):
        for name, command in (("tables odds", tables_cmd), ("icepool script", peer_cmd)):
            start = time.perf_counter()
            subprocess.run(command, env=env, check=True, capture_output=True)
            runs[name].append(time.perf_counter() - start)
    a, b = statistics.median(runs["tables odds"]), statistics.median(runs["icepool script"])
    print(f"whole process (median of 7): tables odds {a:.3f} s, icepool script {b:.3f} s, ratio {a / b:.2f} (aim <= 0.5)")


if __name__ == "__main__":
    main()
