"""Benchmark: `tables simulate table` throughput against a plain numpy script
doing the same draws (first die, open-ended chains, capped result, table
row, critical die), in the same run.

    python bench/simulate_vs_numpy.py [COUNT]
    python bench/simulate_vs_numpy.py --whole [COUNT] [PAIRS]

The first form times attacks per second in one process (the peer's look-up
arrays prepared outside its timing). ``--whole`` (default 1,000,000 attacks,
7 pairs) times whole processes, interleaved, median of the pairs, wall and
CPU: `python -m tables_app simulate table --weapon Longsword --cmb 60 --def
20 --armor MA --count N --seed 1 --json` against a `python -c` numpy script
that reads the same attack-table column and critical rows (plain data in a
JSON file), builds its look-up arrays in its own process and makes the same
draws in the same order and chunks (so both count exactly the same
outcomes: checked first). Aim (issue #44): tables_app <= 1.0x the script's time.
`tables` keeps numpy's OpenBLAS to one thread (it does no linear algebra); the
script, as a plain numpy script, starts the pool. Run with
OPENBLAS_NUM_THREADS=1 in the environment to give the script one thread too.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tables_app.services.attacks import TargetParts, WeaponParts, prepare
from tables_app.services.database_setup import init_database
from tables_app.domain.simulate import CHUNK, OUTCOMES, simulate_table

WHOLE_AIM = 1.0
ARGS = ["--weapon", "Longsword", "--cmb", "60", "--def", "20", "--armor", "MA"]


def plain_numpy(count: int, seed: int, lows, hits, crit_rows, crit_hits, shift: int, cap: int, clumsy: int) -> float:
    """The same attack as a bare numpy script: returns the mean damage."""
    rng = np.random.default_rng(seed)
    first = rng.integers(1, 101, count)
    total = first.astype(np.int64)
    for mask, sign in ((first >= 96, 1), (first <= 5, -1)):
        active = np.flatnonzero(mask & (first > clumsy))
        while active.size:
            dice = rng.integers(1, 101, active.size)
            total[active] += sign * dice
            active = active[dice >= 96]
    result = np.minimum(total + shift, cap)
    read = (first > clumsy) & (result > 10)
    rows = np.clip(np.searchsorted(lows, result[read], side="right") - 1, 0, len(lows) - 1)
    damage = hits[rows]
    critical = crit_rows[rows] >= 0
    dice = rng.integers(1, 101, int(critical.sum()))
    damage[critical] += crit_hits[crit_rows[rows][critical], dice - 1]
    return float(damage.sum()) / count


def main() -> None:
    if sys.argv[1:2] == ["--whole"]:
        return whole(int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000, int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2_000_000
    database = init_database(str(Path(tempfile.mkdtemp()) / "bench.db"))
    prepared = prepare(database, WeaponParts(name="Longsword"), TargetParts(defense=20, armor="MA"), cmb=60)
    attack, tables = prepared.attack, prepared.tables
    # The peer's look-up arrays, prepared outside its timing.
    column = tables.attack.column(attack.armor)
    scale = tables.attack.scale
    lows = np.array([r.low for r in tables.attack.rows.ranges])
    hits = np.array([cells[column].hits for cells in tables.attack.rows.values])
    crit_rows, crit_tables = [], []
    for cells in tables.attack.rows.values:
        cell = cells[column]
        if cell.severity:
            severity = scale.lower(scale.get(cell.severity), attack.reduction)
            table = tables.criticals[cell.critical or attack.weapon.critical]
            crit_tables.append([table.choose(r + severity.modifier, attack.features).entry.hits for r in range(1, 101)])
            crit_rows.append(len(crit_tables) - 1)
        else:
            crit_rows.append(-1)
    crit_rows_a, crit_hits = np.array(crit_rows), np.array(crit_tables)
    shift = attack.effective_cmb - attack.defense

    start = time.perf_counter()
    tally = simulate_table(attack, tables, count, seed=1)
    ours = time.perf_counter() - start
    start = time.perf_counter()
    peer_mean = plain_numpy(count, 1, lows, hits, crit_rows_a, crit_hits, shift, attack.weapon.max_result, attack.weapon.clumsy)
    theirs = time.perf_counter() - start
    print(f"{count:,} attacks: tables_app {count / ours:,.0f} attacks/s (mean damage {tally.damage_sum / count:.4f}), "
          f"plain numpy {count / theirs:,.0f} attacks/s (mean damage {peer_mean:.4f}); tables_app takes {ours / theirs:.2f}x the time (aim <= 4)")


# The peer of --whole: a bare numpy script. It loads the column (plain data),
# builds its look-up arrays, then draws as tables_app does: per chunk of
# CHUNK attacks the first dice, the high chains, the low chains, then one
# critical die per critical; and counts outcomes, severities and damage.
PEER = """
import json, sys
import numpy as np
spec = json.load(open(sys.argv[1]))
count, seed = int(sys.argv[2]), int(sys.argv[3])
lows = np.array(spec["lows"], dtype=np.int64)
hits = np.array(spec["hits"], dtype=np.int64)
row_outcome = np.array(spec["outcome"], dtype=np.int64)
row_severity = np.array(spec["severity"], dtype=np.int64)
crit_rows = np.array(spec["crit_rows"], dtype=np.int64)
crit_hits = np.array(spec["crit_hits"], dtype=np.int64)
shift, cap, clumsy, automatic, chunk = spec["shift"], spec["cap"], spec["clumsy"], spec["automatic"], spec["chunk"]
fumble_code, miss_code = spec["fumble"], spec["miss"]
rng = np.random.default_rng(seed)
outcomes = np.zeros(spec["outcomes"], dtype=np.int64)
severities = np.zeros(spec["severities"], dtype=np.int64)
damage_sum = squares = 0
done = 0
while done < count:
    n = min(chunk, count - done)
    first = rng.integers(1, 101, n)
    total = first.astype(np.int64)
    for mask, sign in ((first >= 96, 1), (first <= 5, -1)):
        active = np.flatnonzero(mask & (first > clumsy))
        while active.size:
            dice = rng.integers(1, 101, active.size)
            total[active] += sign * dice
            active = active[dice >= 96]
    result = np.minimum(total + shift, cap)
    reached = first > clumsy
    read = reached & (result > automatic)
    rows = np.searchsorted(lows, result[read], side="right") - 1
    outcome = np.full(n, miss_code, dtype=np.int64)
    outcome[~reached] = fumble_code
    outcome[read] = row_outcome[rows]
    damage = hits[rows]
    critical = crit_rows[rows] >= 0
    dice = rng.integers(1, 101, int(critical.sum()))
    damage[critical] += crit_hits[crit_rows[rows][critical], dice - 1]
    severity = row_severity[rows]
    severities += np.bincount(severity[severity >= 0], minlength=len(severities))
    outcomes += np.bincount(outcome, minlength=len(outcomes))
    damage_sum += int(damage.sum())
    squares += int((damage * damage).sum())
    done += n
print(json.dumps({"counts": outcomes.tolist(), "critical_severity": severities.tolist(), "mean_damage": damage_sum / count}))
"""


def peer_spec(attack, tables) -> dict:  # type: ignore[no-untyped-def]
    """The attack-table column and the critical rows it reads, as plain data."""
    assert tables.attack.unmodified is None and not attack.weapon.secondary_critical
    column = tables.attack.column(attack.armor)
    scale = tables.attack.scale
    codes = [level.code for level in scale.levels]
    spec: dict = {"lows": [], "hits": [], "outcome": [], "severity": [], "crit_rows": [], "crit_hits": []}
    for row_range, cells in zip(tables.attack.rows.ranges, tables.attack.rows.values):
        cell = cells[column]
        outcome, severity, crit_row = cell.outcome.value, -1, -1
        if cell.severity:
            assert len(cell.criticals) == 1
            lowered = scale.lower(scale.get(cell.severity), attack.reduction)
            if lowered is None:
                outcome = "hit"
            else:
                table = tables.criticals[cell.critical or attack.weapon.critical]
                spec["crit_hits"].append([table.choose(r + lowered.modifier, attack.features).entry.hits for r in range(1, 101)])
                crit_row, severity = len(spec["crit_hits"]) - 1, codes.index(lowered.code)
        spec["lows"].append(row_range.low)
        spec["hits"].append(cell.hits)
        spec["outcome"].append(OUTCOMES.index(outcome))
        spec["severity"].append(severity)
        spec["crit_rows"].append(crit_row)
    spec.update(shift=attack.effective_cmb - attack.defense, cap=attack.weapon.max_result, clumsy=attack.weapon.clumsy,
                automatic=tables.attack.automatic_miss or 0, chunk=CHUNK, fumble=OUTCOMES.index("fumble"),
                miss=OUTCOMES.index("miss"), outcomes=len(OUTCOMES), severities=len(codes))
    return spec


def timed(command: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the child) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def whole(count: int, pairs: int) -> None:
    db = Path(tempfile.mkdtemp()) / "bench.db"
    database = init_database(str(db))
    prepared = prepare(database, WeaponParts(name="Longsword"), TargetParts(defense=20, armor="MA"), cmb=60)
    spec_file = db.parent / "spec.json"
    spec_file.write_text(json.dumps(peer_spec(prepared.attack, prepared.tables)))
    database.dispose()
    env = dict(os.environ, TABLES_DB=str(db))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caches on, as after a normal install
    commands = {"tables simulate": [sys.executable, "-m", "tables_app", "simulate", "table", *ARGS, "--count", str(count),
                                    "--seed", "1", "--json"],
                "numpy script": [sys.executable, "-c", PEER, str(spec_file), str(count), "1"]}
    # Warm-up (bytecode caches, page cache) and the check: the same draws count the same.
    ours, peer = (json.loads(subprocess.run(c, env=env, check=True, capture_output=True, text=True).stdout)
                  for c in commands.values())
    same = (ours["counts"] == dict(zip(OUTCOMES, peer["counts"]))
            and list(ours["critical_severity_counts"].values()) == peer["critical_severity"]
            and ours["mean_damage"] == peer["mean_damage"])
    print(f"{count:,} attacks, seed 1: tables_app mean damage {ours['mean_damage']:.6f}, numpy script {peer['mean_damage']:.6f}; "
          f"outcome, severity counts and damage {'identical' if same else 'DIFFERENT'}")
    assert same, (ours, peer)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for i in range(pairs):  # interleaved, the first of each pair alternating
        for name, command in (list(commands.items()) if i % 2 == 0 else list(commands.items())[::-1]):
            runs[name].append(timed(command, env))
    for name, times in runs.items():
        walls, cpus = [w for w, _ in times], [c for _, c in times]
        print(f"{name}: median {statistics.median(walls):.3f} s wall (range {min(walls):.3f}-{max(walls):.3f}), "
              f"{statistics.median(cpus):.3f} s CPU")
    ratios = [a[0] / b[0] for a, b in zip(*runs.values())]
    cpu_ratios = [a[1] / b[1] for a, b in zip(*runs.values())]
    print(f"ratio, median of {pairs} pairs: {statistics.median(ratios):.2f} wall (pairs {min(ratios):.2f}-{max(ratios):.2f}), "
          f"{statistics.median(cpu_ratios):.2f} CPU")
    print(f"aim: tables simulate <= {WHOLE_AIM}x the numpy script's time (wall, median of pairs): "
          f"{'met' if statistics.median(ratios) <= WHOLE_AIM else 'NOT met'}")


if __name__ == "__main__":
    main()
