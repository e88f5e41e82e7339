"""Benchmark: the chances of a fight in a second (issue 42), whole processes.

    pip install .                                      # ours
    python -m venv /tmp/peer && /tmp/peer/bin/pip install 'tables_app @ git+...@<commit before #42>'   # the peer
    python bench/fight_chances.py --peer /tmp/peer/bin/tables [--pairs 5] [--skip-peer] [--certified]

Three fights are set up with the CLI in a fresh database (`db init`: the
bundled tables), each combatant with its criticals' effects: **Duel**, Hero
(50 hits, DEF 20, MA, Longsword 60) against an Orc Warrior of the
bestiary; **Melee**, Hero and Ally (45 hits, DEF 15, Longsword 50) against
two Orc Warriors; **Brawl**, four against four (Hero, Ally, Scout, Guard
against four Orc Warriors).

For each, `tables odds fight NAME --json` (the tool's own choice, 20
rounds, its default time) is run as a whole process: its wall and CPU time
and peak memory (the process's maximum resident set, os.wait4), the method
it chose, how many fights it played and the largest standard error of any
share it gives (P(over), P(each side won), P(each combatant down), P(dead),
every round). The aims: the duel with SE ≤ 0.002 in ≤ 1 s, the 2-vs-2 with
SE ≤ 0.005 in ≤ 1 s, the 4-vs-4 in ≤ 2 s, ≤ 200 MB each.

The peer (`--peer`, the `tables` of an install from before this change:
`simulate fight` played one fight at a time) is run, interleaved pair by
pair, with `simulate fight NAME --count N` for the N ours played: the same
standard errors. The ratio is ours / the peer's, pair by pair (median).
`--certified` also times `odds fight Duel --certified` (width 0.01).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERO = ("--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")
ALLY = ("--as", "Ally", "--hits", "45", "--def", "15", "--armor", "MA", "--weapon", "Longsword", "--cmb", "50")
SCOUT = ("--as", "Scout", "--hits", "40", "--def", "25", "--armor", "LA", "--weapon", "Short Sword", "--cmb", "55")
GUARD = ("--as", "Guard", "--hits", "55", "--def", "15", "--armor", "HA", "--weapon", "Mace", "--cmb", "50")
ORC = ("--creature", "Orc Warrior")
FIGHTS = {"Duel": (HERO, ORC), "Melee": (HERO, ALLY, ORC, ORC), "Brawl": (HERO, ALLY, SCOUT, GUARD, ORC, ORC, ORC, ORC)}
AIMS = {"Duel": (0.002, 1.0), "Melee": (0.005, 1.0), "Brawl": (None, 2.0)}  # (largest SE, whole-process seconds)
MEMORY_AIM = 200  # MB


def tables_command() -> list[str]:
    """The `tables` console script beside this interpreter, else `python -m tables_app`."""
    script = Path(sys.executable).with_name("tables")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tables_app"]


def run_one(command: list[str], env: dict[str, str]) -> tuple[float, float, float, int, str, str]:
    """One whole process, timed: wall, CPU and peak memory of that process alone (os.wait4 on its pid)."""
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out_file, err_file = child.stdout, child.stderr
    assert out_file is not None and err_file is not None
    out, err = out_file.read(), err_file.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), out, err


def setup(folder: Path, tables: list[str], env: dict[str, str]) -> Path:
    db = folder / "bench.db"
    subprocess.run([*tables, "db", "init", str(db)], env=env, check=True, capture_output=True)
    for name, joining in FIGHTS.items():
        subprocess.run([*tables, "--db", str(db), "fight", "new", name], env=env, check=True, capture_output=True)
        for options in joining:
            subprocess.run([*tables, "--db", str(db), "fight", "join", name, *options], env=env, check=True,
                           capture_output=True)
    return db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", help="the `tables` of an install from before #42 (its simulate fight)")
    parser.add_argument("--pairs", type=int, default=5, choices=range(1, 51), metavar="1-50")
    parser.add_argument("--certified", action="store_true", help="time odds fight Duel --certified too")
    parser.add_argument("--fights", default=",".join(FIGHTS), help="which fights (comma-separated)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caches on, as after a normal install
    env.pop("TABLES_DB", None)
    try:
        tables = tables_command()
        db = setup(folder, tables, env)
        for name in args.fights.split(","):
            measure(name, db, tables, args.peer, args.pairs, env)
        if args.certified:
            certified(db, tables, args.pairs, env)
    finally:
        shutil.rmtree(folder)


def measure(name: str, db: Path, tables: list[str], peer: str | None, pairs: int, env: dict[str, str]) -> None:
    ours = [*tables, "--db", str(db), "odds", "fight", name, "--json"]
    run_one(ours, env)  # warm-up: bytecode caches, the page cache
    first = json.loads(run_one(ours, env)[4])
    count = first.get("count")
    peer_command = [peer, "--db", str(db), "simulate", "fight", name, "--json", "--count", str(count), "--seed", "1"] \
        if peer and count else None
    runs: dict[str, list[tuple[float, float, float, int, str, str]]] = {"ours": [], "peer": []}
    for i in range(pairs):  # interleaved, the first of each pair alternating
        order = [("ours", ours), ("peer", peer_command)] if i % 2 == 0 else [("peer", peer_command), ("ours", ours)]
        for label, command in order:
            if command is not None:
                runs[label].append(run_one(command, env))
    se_aim, seconds_aim = AIMS.get(name, (None, None))
    done = runs["ours"]
    data = [json.loads(d[4]) for d in done if d[3] == 0]
    if len(data) != len(done):
        print(f"{name}: ours failed: {done[-1][5].strip()}")
        return
    walls, cpus, peaks = [d[0] for d in done], [d[1] for d in done], [d[2] for d in done]
    method = {d["method"] for d in data}
    counts = sorted({d.get("count", 0) for d in data})
    ses = [d.get("largest_se", 0.0) for d in data]
    print(f"{name} ({len(first['rounds'][0]['combatants'])} combatants), odds fight, 20 rounds: "
          f"{'/'.join(sorted(method))} from {'/'.join(f'{c:,}' for c in counts)} fights; largest SE "
          f"{max(ses):.4f}; median {statistics.median(walls):.2f} s wall (max {max(walls):.2f}), "
          f"{statistics.median(cpus):.2f} s CPU, peak {max(peaks):.0f} MB")
    checks = []
    if se_aim is not None:
        checks.append(f"SE ≤ {se_aim}: {'yes' if max(ses) <= se_aim else 'NO'}")
    if seconds_aim is not None:
        checks.append(f"≤ {seconds_aim:g} s on every run: {'yes' if max(walls) <= seconds_aim else 'NO'}")
    checks.append(f"≤ {MEMORY_AIM} MB: {'yes' if max(peaks) <= MEMORY_AIM else 'NO'}")
    print("  aims: " + "; ".join(checks))
    if runs["peer"]:
        peer_done = runs["peer"]
        if any(d[3] != 0 for d in peer_done):
            print(f"  peer failed: {peer_done[-1][5].strip()}")
            return
        ratios = sorted(a[0] / b[0] for a, b in zip(done, peer_done))
        cpu_ratios = sorted(a[1] / b[1] for a, b in zip(done, peer_done))
        peer_walls = [d[0] for d in peer_done]
        print(f"  peer simulate fight --count {count:,}: median {statistics.median(peer_walls):.2f} s wall, "
              f"{statistics.median([d[1] for d in peer_done]):.2f} s CPU; ours / peer, median of {len(ratios)} pairs: "
              f"{statistics.median(ratios):.3f} wall ({ratios[0]:.3f}-{ratios[-1]:.3f}), "
              f"{statistics.median(cpu_ratios):.3f} CPU (aim ≤ 0.1)")


def certified(db: Path, tables: list[str], pairs: int, env: dict[str, str]) -> None:
    command = [*tables, "--db", str(db), "odds", "fight", "Duel", "--json", "--certified"]
    done = [run_one(command, env) for _ in range(pairs)]
    if any(d[3] != 0 for d in done):
        print(f"Duel --certified: failed: {done[-1][5].strip()}")
        return
    data = json.loads(done[-1][4])
    walls = [d[0] for d in done]
    print(f"Duel --certified, 20 rounds: width {data['width']:.4f}; median {statistics.median(walls):.2f} s wall "
          f"(max {max(walls):.2f}), {statistics.median([d[1] for d in done]):.2f} s CPU, peak "
          f"{max(d[2] for d in done):.0f} MB (aims: width ≤ 0.01 in ≤ 10 s)")


if __name__ == "__main__":
    main()
