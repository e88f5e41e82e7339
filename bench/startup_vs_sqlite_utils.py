"""Benchmark: a typed `tables query attack ... --json` against
`sqlite-utils query DB "select 1"` (a Click CLI over SQLite), whole
processes, same run.

    pip install ".[bench]"
    python bench/startup_vs_sqlite_utils.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tables_app.services.database_setup import init_database


def timed(command: list[str], env: dict, runs: int = 15) -> list[float]:
    subprocess.run(command, env=env, check=True, capture_output=True)  # warm-up: caches and page cache
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(command, env=env, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    db = Path(tempfile.mkdtemp()) / "bench.db"
    init_database(str(db)).dispose()
    env = dict(os.environ, TABLES_DB=str(db))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caches on, as after a normal install
    sqlite_utils = shutil.which("sqlite-utils") or sys.exit("pip install sqlite-utils (the bench extra)")
    ours = timed([sys.executable, "-m", "tables_app", "query", "attack", "Edged", "100", "MA", "--json"], env)
    peer = timed([sqlite_utils, "query", str(db), "select 1"], env)
    a, b = statistics.median(ours), statistics.median(peer)
    print(f"tables query attack --json: median {a * 1000:.0f} ms (best {min(ours) * 1000:.0f}); "
          f"sqlite-utils query: median {b * 1000:.0f} ms (best {min(peer) * 1000:.0f}); ratio {a / b:.2f} (aim <= 1)")


if __name__ == "__main__":
    main()
