"""`tables serve` with the costliest `POST /api/v1/simulate/{system}` requests in flight (issue 43): does health
still answer, and how much CPU does one take?

    python bench/serve_simulate_flood.py                        # 6 clients at once, 3 runs
    python bench/serve_simulate_flood.py --clients 6 --runs 3 --peer /path/to/an/older/checkout

A database with the bundled tables is made in a temporary directory and `python -m tables_app --db DB serve`
started (with ``--peer``, the tables_app of that checkout, on PYTHONPATH: the code of before). ``--clients`` threads
each send one of the costliest simulations the bounds take, all at once: 1,000,000 attacks of `rise` with damage
`100d1000-100`, multiplier 100 (6.4 s of CPU in-process here). Meanwhile one thread asks `GET /api/v1/health`
every 0.1 s until the last simulation is answered: its latency p50 / p99 / max; the simulations' statuses (200,
or 503: waited 3 s for one of the heavy requests' slots) and the flood's wall time. The generator runs on the
same machine and competes with the server for the same cores.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

WORST = {"accuracy": 100, "def": -100, "crit_bonus": 100, "multiplier": 100, "damage": "100d1000-100",
         "count": 1_000_000, "seed": 1}


def serve(database: Path, peer: str | None) -> tuple[subprocess.Popen, str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {**os.environ, **({"PYTHONPATH": peer} if peer else {})}
    process = subprocess.Popen([sys.executable, "-m", "tables_app", "--db", str(database), "serve", "--port", str(port)],
                               env=env, cwd=tempfile.gettempdir(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            with urllib.request.urlopen(f"{base}/api/v1/health", timeout=2):
                return process, base
        except OSError:
            time.sleep(0.1)
    raise SystemExit("tables serve did not start")


def simulate(base: str) -> int:
    asked = urllib.request.Request(f"{base}/api/v1/simulate/rise", data=json.dumps(WORST).encode(),
                                   headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(asked, timeout=300) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return refused.code


def flood(base: str, clients: int) -> tuple[list[float], Counter, float]:
    statuses: Counter = Counter()
    threads = [threading.Thread(target=lambda: statuses.update([simulate(base)])) for _ in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    waits: list[float] = []
    while any(thread.is_alive() for thread in threads):
        asked = time.monotonic()
        with urllib.request.urlopen(f"{base}/api/v1/health", timeout=60):
            waits.append(time.monotonic() - asked)
        time.sleep(0.1)
    for thread in threads:
        thread.join()
    return waits, statuses, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--peer", help="a checkout whose tables_app serves instead (the code of before)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "tables.db"
        subprocess.run([sys.executable, "-m", "tables_app", "--db", str(database), "db", "init"], check=True,
                       capture_output=True, env={**os.environ, **({"PYTHONPATH": options.peer} if options.peer else {})},
                       cwd=tempfile.gettempdir())
        process, base = serve(database, options.peer)
        try:
            for run in range(options.runs):
                waits, statuses, wall = flood(base, options.clients)
                cut = sorted(waits)
                print(f"run {run + 1}: {options.clients} simulations at once, {wall:.1f} s: "
                      + ", ".join(f"{code}: {n}" for code, n in sorted(statuses.items()))
                      + f"; health ({len(waits)} asked) p50 {statistics.median(cut) * 1000:.0f} ms, "
                      f"p99 {cut[min(len(cut) - 1, int(len(cut) * 0.99))] * 1000:.0f} ms, max {cut[-1] * 1000:.0f} ms",
                      flush=True)
        finally:
            process.terminate()
            process.wait(timeout=10)


if __name__ == "__main__":
    main()
