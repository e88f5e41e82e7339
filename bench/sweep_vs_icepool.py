"""Benchmark: a 16-step CMB sweep over every armor column, tables_app against
icepool computing the same distributions, whole processes, same run.

    pip install ".[bench]"
    python bench/sweep_vs_icepool.py [PAIRS]

Ours: `python -m tables_app odds table --weapon Longsword --cmb 0 --def 20
--armor MA --sweep-cmb 0:150:10 --json` (16 CMBs × the 4 armor columns of
Edged: 64 exact outcome distributions and expected damages).

The peer: `python bench/sweep_vs_icepool.py --peer SPEC.json`, an icepool
script that reads the same attack table (every armor column, exported here
as plain data, as bench/odds_vs_icepool.py does for one column) and computes,
for the same 16 CMBs × every armor column, the outcome distribution and the
expected damage: open-ended d100 with the Clumsy Range's fumbles (explosion
depth 12 ≈ tables_app's 1e-15 cut), DEF and CMB, the Max Result, the
automatic miss, the cell, and critical extra hits averaged over the critical
die. It builds the attack roll once, clips it to the readable results once
per CMB (below the automatic miss and above the Max Result every total reads
alike) and maps those ~150 results once per (CMB, armor).

First both answers are compared (the largest difference is printed; they
must agree), then PAIRS (default 7) interleaved pairs of whole processes
are timed, wall and CPU (user + system of the child), bytecode caches on.
"""

from __future__ import annotations

import json
from bisect import bisect_right
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AIM = 0.25
SWEEP = "0:150:10"
ARGS = ["--weapon", "Longsword", "--cmb", "0", "--def", "20", "--armor", "MA", "--sweep-cmb", SWEEP]
DEPTH = 12  # explosion depth: 0.05**12 ≈ 2.4e-16 of mass left, as tables_app's 1e-15 cut
FUMBLE = -(10**6)  # below any total a chain can reach (icepool outcomes must sort)


# ------------------------------------------------------------------ the peer
def peer_sweep(spec: dict) -> list[dict]:
    """Every (CMB, armor) outcome distribution and expected damage, with icepool."""
    import icepool

    clumsy, cap, defense, automatic = spec["clumsy"], spec["cap"], spec["defense"], spec["automatic_miss"]
    chain = icepool.d100.explode([96, 97, 98, 99, 100], depth=DEPTH)

    def total(first: int):
        if first <= clumsy:
            return FUMBLE
        if first >= 96:
            return first + chain
        if first <= 5:
            return first - chain
        return first

    roll = icepool.d100.map(total)  # the attack roll, once
    grid = []
    for cmb in spec["values"]:
        shift = cmb - defense
        # The result once per CMB: below the automatic miss every total reads alike,
        # above the Max Result too, so the per-armor maps see ~150 outcomes, not ~2,400.
        result = roll.map(lambda t, shift=shift: FUMBLE if t == FUMBLE else max(automatic, min(t + shift, cap)))
        for armor in spec["armors"]:
            rows = spec["rows"][armor]  # [[low, outcome, hits, crit_mean], ...] ascending
            lows = [row[0] for row in rows]

            def read(r, rows=rows, lows=lows):
                if r == FUMBLE:
                    return ("fumble", 0)
                if r <= automatic or r < lows[0]:
                    return ("miss", 0)
                row = rows[bisect_right(lows, r) - 1]
                return (row[1], row[2] + row[3])

            outcome = result.map(read)
            outcomes = dict.fromkeys(spec["words"], 0.0)
            damage = 0.0
            denominator = outcome.denominator()
            for (word, hits), quantity in outcome.items():
                p = quantity / denominator
                outcomes[word] += p
                damage += p * hits
            grid.append({"cmb": cmb, "armor": armor, "outcomes": outcomes, "expected_damage": damage})
    return grid


# ------------------------------------------------------------ the benchmark
def peer_spec(database) -> dict:  # type: ignore[no-untyped-def]
    """Every armor column of the attack table, with critical means, as plain data."""
    from tables_app.domain.odds import OUTCOME_ORDER, critical_hits_over_die
    from tables_app.domain.table_rules import CriticalPlan
    from tables_app.services.attacks import TargetParts, WeaponParts, prepare

    prepared = prepare(database, WeaponParts(name="Longsword"), TargetParts(defense=20, armor="MA"), cmb=0)
    attack, tables = prepared.attack, prepared.tables
    assert tables.attack.unmodified is None and not attack.modifiers and not attack.weapon.secondary_critical
    scale = tables.attack.scale
    columns = {}
    for armor in tables.attack.armors:
        column = tables.attack.column(armor)
        rows = []
        for row_range, cells in zip(tables.attack.rows.ranges, tables.attack.rows.values):
            cell = cells[column]
            crit_mean, outcome = 0.0, cell.outcome.value
            if cell.severity:
                assert len(cell.criticals) == 1
                severity = scale.lower(scale.get(cell.severity), attack.reduction)
                if severity is None:
                    outcome = "hit"
                else:
                    plan = CriticalPlan(tables.criticals[cell.critical or attack.weapon.critical], severity, severity, 0)
                    crit_mean = float(critical_hits_over_die(plan, attack.features)) / 100
            rows.append([row_range.low, outcome, cell.hits, crit_mean])
        columns[armor] = rows
    start, stop, step = (int(part) for part in SWEEP.split(":"))
    return {"values": list(range(start, stop + 1, step)), "armors": list(tables.attack.armors), "rows": columns,
            "defense": attack.defense, "cap": attack.weapon.max_result, "clumsy": attack.weapon.clumsy,
            "automatic_miss": tables.attack.automatic_miss or 0, "words": list(OUTCOME_ORDER)}


def timed(command: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the child) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def largest_difference(ours: list[dict], peer: list[dict]) -> tuple[float, float]:
    assert [(g["cmb"], g["armor"]) for g in ours] == [(g["cmb"], g["armor"]) for g in peer], "not the same grid"
    outcome = max(abs(a["outcomes"][w] - b["outcomes"].get(w, 0.0)) for a, b in zip(ours, peer) for w in a["outcomes"])
    damage = max(abs(a["expected_damage"] - b["expected_damage"]) for a, b in zip(ours, peer))
    return outcome, damage


def main() -> None:
    from tables_app.services.database_setup import init_database

    pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    db = Path(tempfile.mkdtemp()) / "bench.db"
    database = init_database(str(db))
    spec_file = db.parent / "spec.json"
    spec_file.write_text(json.dumps(peer_spec(database)))
    database.dispose()
    env = dict(os.environ, TABLES_DB=str(db))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caches on, as after a normal install
    commands = {"tables sweep": [sys.executable, "-m", "tables_app", "odds", "table", *ARGS, "--json"],
                "icepool sweep": [sys.executable, str(Path(__file__).resolve()), "--peer", str(spec_file)]}
    # Warm-up (bytecode caches written, files in the page cache) and the check that both agree.
    answers = {name: json.loads(subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout)
               for name, command in commands.items()}
    ours, peer = answers["tables sweep"]["grid"], answers["icepool sweep"]
    outcome, damage = largest_difference(ours, peer)
    print(f"{len(ours)} distributions (16 CMBs x {len(answers['tables sweep']['armor'])} armor columns); largest difference "
          f"in an outcome probability {outcome:.2e}, in expected damage {damage:.2e}")
    assert outcome < 1e-9 and damage < 1e-9, "the answers differ"

    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for i in range(pairs):  # interleaved, the first of each pair alternating
        order = list(commands.items()) if i % 2 == 0 else list(commands.items())[::-1]
        for name, command in order:
            runs[name].append(timed(command, env))
    for name, times in runs.items():
        walls, cpus = [w for w, _ in times], [c for _, c in times]
        print(f"{name}: median {statistics.median(walls):.3f} s wall (range {min(walls):.3f}-{max(walls):.3f}), "
              f"{statistics.median(cpus):.3f} s CPU")
    ratios = [a[0] / b[0] for a, b in zip(runs["tables sweep"], runs["icepool sweep"])]
    cpu_ratios = [a[1] / b[1] for a, b in zip(runs["tables sweep"], runs["icepool sweep"])]
    wall_ours, wall_peer = (statistics.median(w for w, _ in runs[n]) for n in commands)
    print(f"ratio, median of {pairs} pairs: {statistics.median(ratios):.3f} wall (pairs {min(ratios):.3f}-{max(ratios):.3f}), "
          f"{statistics.median(cpu_ratios):.3f} CPU; median to median {wall_ours / wall_peer:.3f}")
    print(f"aim: tables sweep <= {AIM} of the icepool script's time (wall, median of pairs): "
          f"{'met' if statistics.median(ratios) <= AIM else 'NOT met'}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--peer"]:
        print(json.dumps(peer_sweep(json.loads(Path(sys.argv[2]).read_text()))))
    else:
        main()
