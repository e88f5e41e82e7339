"""Benchmark: the exact odds of fights on the bundled tables, whole processes,
with `tables simulate fight` (the GM's other way to an answer) as the peer in
the same run.

    pip install .
    python bench/fight_duel.py [PAIRS]

Two fights are set up with the CLI in a fresh database (`db init`: the
bundled tables): Duel, Hero (50 hits, DEF 20, MA, Longsword 60) against an
Orc Warrior of the bestiary (60 hits, Scimitar 55), both with their
criticals' effects; and Melee, Hero and Ally (45 hits, DEF 15, Longsword 50)
against two Orc Warriors. For each, `tables odds fight NAME --json --exact --rounds
R` is run for R = 1, 2 and the default 20 (a refusal past the bound of
states is timed too, and its message printed), interleaved with `tables
simulate fight NAME --rounds R --count 10000 --seed 1`; the median wall and
CPU time of PAIRS pairs (default 3), the peak memory of each process
(its maximum resident set), the states per round and the most held at once.
"""

from __future__ import annotations

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
ORC = ("--creature", "Orc Warrior")
FIGHTS = {"Duel": (HERO, ORC), "Melee": (HERO, ALLY, ORC, ORC)}
ROUNDS = (1, 2, 20)


def tables_command() -> list[str]:
    """The `tables` console script beside this interpreter, else `python -m tables_app`."""
    script = Path(sys.executable).with_name("tables")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tables_app"]


def reaped(command: list[str], env: dict[str, str]) -> tuple[float, float, float, int, str, str]:
    """One whole process: wall and CPU seconds, its own peak memory in MB (os.wait4), exit code, stdout, stderr."""
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = child.stdout.read(), child.stderr.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), out, err


def main(argv: list[str]) -> None:
    pairs = int(argv[0]) if argv else 3
    assert 1 <= pairs <= 50
    folder = Path(tempfile.mkdtemp())
    try:
        run(folder, pairs)
    finally:
        shutil.rmtree(folder)


def run(folder: Path, pairs: int) -> None:
    db = folder / "bench.db"
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caches on, as after a normal install
    env.pop("TABLES_DB", None)
    tables = tables_command()
    subprocess.run([*tables, "db", "init", str(db)], env=env, check=True, capture_output=True)
    for name, joining in FIGHTS.items():
        subprocess.run([*tables, "--db", str(db), "fight", "new", name], env=env, check=True, capture_output=True)
        for options in joining:
            subprocess.run([*tables, "--db", str(db), "fight", "join", name, *options], env=env, check=True,
                           capture_output=True)
    for name in FIGHTS:
        for rounds in ROUNDS:
            commands = {
                "odds fight": [*tables, "--db", str(db), "odds", "fight", name, "--json", "--exact", "--rounds", str(rounds)],
                "simulate fight": [*tables, "--db", str(db), "simulate", "fight", name, "--json", "--rounds", str(rounds),
                                   "--count", "10000", "--seed", "1"],
            }
            reaped(commands["odds fight"], env)  # warm-up: bytecode caches, the page cache
            runs: dict[str, list[tuple[float, float, float, int, str, str]]] = {k: [] for k in commands}
            for i in range(pairs):  # interleaved, the first of each pair alternating
                order = list(commands.items()) if i % 2 == 0 else list(commands.items())[::-1]
                for label, command in order:
                    runs[label].append(reaped(command, env))
            print(f"{name}, --rounds {rounds}:")
            for label, done in runs.items():
                walls, cpus, peaks = [d[0] for d in done], [d[1] for d in done], [d[2] for d in done]
                code, out, err = done[-1][3], done[-1][4], done[-1][5]
                summary = (f"  {label}: median {statistics.median(walls):.2f} s wall, {statistics.median(cpus):.2f} s CPU, "
                           f"peak {max(peaks):.0f} MB")
                if code != 0:
                    print(f"{summary}; exit {code}: {err.strip()}")
                    continue
                data = json.loads(out)
                if label == "odds fight":
                    states = [r["states"] for r in data["rounds"]]
                    summary += f"; states after each round {states}, most held at once {data['largest_states']:,}"
                last = data["rounds"][-1]
                summary += "; won by round {}: {}".format(
                    last["round"], ", ".join(f"{side} {p:.4f}" for side, p in last["sides"].items()))
                print(summary)
            ratios = [a[0] / b[0] for a, b in zip(runs["odds fight"], runs["simulate fight"])]
            print(f"  odds / simulate, median of {pairs} pairs: {statistics.median(ratios):.2f} wall")


if __name__ == "__main__":
    main(sys.argv[1:])
