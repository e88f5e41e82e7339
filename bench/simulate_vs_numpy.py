"""Benchmark: `tables simulate table` throughput against a plain numpy script
doing the same draws (first die, open-ended chains, capped result, table
row, critical die), in the same run.

    python bench/simulate_vs_numpy.py [COUNT]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tables_app.services.attacks import TargetParts, WeaponParts, prepare
from tables_app.services.database_setup import init_database
from tables_app.domain.simulate import simulate_table


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


if __name__ == "__main__":
    main()
