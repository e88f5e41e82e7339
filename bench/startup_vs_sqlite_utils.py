"""Benchmark: a typed `tables query attack ... --json` against
`sqlite-utils query DB "select 1"` (a Click CLI over SQLite), whole
processes, same run.

    pip install ".[bench]"
    python bench/startup_vs_sqlite_utils.py [ROUNDS]

Each round (default 15, after a warm-up) runs, interleaved and in turn
first: `python -m tables_app query attack Edged 100 MA --json`, the console
script `tables query attack Edged 100 MA --json`, and `sqlite-utils query
DB "select 1"`; wall and CPU (user + system of the child) of each, bytecode
caches on. Aim: the typed query (python -m) <= 0.45 of sqlite-utils' time,
median of the rounds' ratios.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tables_app.services.database_setup import init_database

AIM = 0.45


def timed(command: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the child) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    db = Path(tempfile.mkdtemp()) / "bench.db"
    init_database(str(db)).dispose()
    env = dict(os.environ, TABLES_DB=str(db))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caches on, as after a normal install
    sqlite_utils = shutil.which("sqlite-utils") or sys.exit("pip install sqlite-utils (the bench extra)")
    tables = shutil.which("tables") or str(Path(sys.executable).with_name("tables"))
    query = ["query", "attack", "Edged", "100", "MA", "--json"]
    commands = {"python -m tables_app query": [sys.executable, "-m", "tables_app", *query],
                "tables query (console script)": [tables, *query],
                "sqlite-utils query": [sqlite_utils, "query", str(db), "select 1"]}
    for command in commands.values():  # warm-up: caches and page cache
        subprocess.run(command, env=env, check=True, capture_output=True)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    names = list(commands)
    for i in range(rounds):  # interleaved, each command first in turn
        for name in names[i % len(names):] + names[:i % len(names)]:
            runs[name].append(timed(commands[name], env))
    peer = runs["sqlite-utils query"]
    for name, times in runs.items():
        walls, cpus = [w for w, _ in times], [c for _, c in times]
        line = (f"{name}: median {statistics.median(walls) * 1000:.0f} ms wall (best {min(walls) * 1000:.0f}), "
                f"{statistics.median(cpus) * 1000:.0f} ms CPU")
        if times is not peer:
            ratios = [a[0] / b[0] for a, b in zip(times, peer)]
            cpu_ratios = [a[1] / b[1] for a, b in zip(times, peer)]
            line += (f"; / sqlite-utils: {statistics.median(ratios):.2f} wall (rounds {min(ratios):.2f}-{max(ratios):.2f}), "
                     f"{statistics.median(cpu_ratios):.2f} CPU")
        print(line)
    ratio = statistics.median(a[0] / b[0] for a, b in zip(runs["python -m tables_app query"], peer))
    print(f"aim: the typed query <= {AIM} of sqlite-utils' time (wall, median of rounds): {'met' if ratio <= AIM else 'NOT met'}")


if __name__ == "__main__":
    main()
