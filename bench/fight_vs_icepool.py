"""Benchmark: the exact odds of a hits-only fight, tables_app against icepool,
whole processes, same run.

    pip install ".[bench]"
    python bench/fight_vs_icepool.py [PAIRS] [--rounds R] [--cmb N]

The fight (issue #30's peer case): rounds until 45 hits are gone under one
attack's damage distribution. A tiny invented workbook (written here,
imported with `tables import` into a fresh database) has one attack table,
Pelting, whose cells are hits or misses and nothing else (no critical, no
fumble: a closed d100 roll and Clumsy 0), and one weapon, Sling Stones. The
fight is set up with the CLI: `fight new`, then Slinger (side A, CMB 20,
armor Shell) and Target (side B, 45 hits, armor Cloth) join. Target has an
attack too (the CLI gives every combatant one), but Pelting's Shell column
is all misses, so its blow is always nothing: the fight is one-sided.

Ours: `tables --db DB odds fight Pelting --json --rounds R` (default 40,
where the mass still going is about 1e-12), a whole process.

The peer: `python bench/fight_vs_icepool.py --peer SPEC.json`, an icepool
script. Its damage distribution is read from our own answers, not typed
in: `tables odds table --weapon "Sling Stones" --cmb 20 --armor Cloth
--json` gives the probability of each row read (multiples of 1/100 on a
closed d100, so exact at the JSON's 12 decimals), `tables show attack
Pelting --json` each row's hits in the Cloth column. The script steps the
hits taken as an icepool Die, once a round, `(taken + damage).clip(max=45)`
(45 absorbs), reading P(down by round r) = P(taken = 45) after each round
and E[min(T, R)] = the sum over r < R of P(still up after r rounds).

First both answers are compared (P(down by round r) for every r, the
expected rounds, the mass unfinished; they must agree to 1e-12), and the
expected rounds against icepool's absorbing Markov chain
(`icepool.mean_time_to_absorb`, E[T] without a bound on the rounds); then
PAIRS (default 7) interleaved pairs of whole processes are timed, wall and
CPU (user + system of the child), bytecode caches on.
"""

from __future__ import annotations

import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

AIM = 0.25
HITS = 45
FIGHT = "Pelting"
WEAPON = "Sling Stones"
# Pelting: results of 10 or less miss (the default automatic miss); every cell is hits or a dash.
ROWS = [("11-30", "—", "—"), ("31-50", 1, "—"), ("51-65", 2, "—"), ("66-80", 4, "—"), ("81-95", 6, "—"),
        ("96-110", 9, "—"), ("111+", 13, "—")]


# ------------------------------------------------------------------ the peer
def peer(spec: dict) -> dict:
    """P(down by round r) for r = 1 … R, E[min(T, R)] and P(T > R), with icepool."""
    import icepool

    hits = spec["hits"]
    damage = icepool.Die({int(d): w for d, w in spec["damage"].items()})
    taken = icepool.Die([0])
    down = []
    for _ in range(spec["rounds"]):
        taken = (taken + damage).clip(max_outcome=hits)
        down.append(taken.probability(hits))
    expected = sum(1 - p for p in [0, *down[:-1]])
    return {"down": [float(p) for p in down], "expected_rounds": float(expected), "unfinished": float(1 - down[-1])}


def absorbed(spec: dict) -> float:
    """E[T], the rounds until the hits are gone, by icepool's absorbing Markov chain (no bound on the rounds)."""
    import icepool

    hits = spec["hits"]
    damage = icepool.Die({int(d): w for d, w in spec["damage"].items()})
    return float(icepool.mean_time_to_absorb(lambda taken, d: min(taken + d, hits), 0, damage))


# ------------------------------------------------------------ the benchmark
def workbook(path: Path) -> Path:
    """The invented workbook: attack table Pelting (hits only) and weapon Sling Stones."""
    import openpyxl

    book = openpyxl.Workbook()
    for blank in book.worksheets:
        book.remove(blank)
    sheets: dict[str, list[list[object]]] = {
        "Pelting": [["Kind", "attack"], ["Name", "Pelting"], ["Source", "invented for bench/fight_vs_icepool.py"], [],
                    ["Result", "Cloth", "Shell"], *([*row] for row in ROWS)],
        # Critical is required; Cut (bundled) is never read: no cell has a severity.
        "Weapons": [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Roll"],
                    [WEAPON, "Pelting", None, 0, "Cut", "d100"]],
    }
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for r, row in enumerate(rows, start=1):
            for c, value in enumerate(row, start=1):
                if value is not None:
                    sheet.cell(row=r, column=c, value=value)
    book.save(path)
    return path


def tables_command() -> list[str]:
    """The `tables` console script beside this interpreter, else `python -m tables_app`."""
    script = Path(sys.executable).with_name("tables")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tables_app"]


def damage_of(tables: list[str], db: Path, cmb: int, env: dict) -> dict[int, int]:
    """Slinger's damage on Target, from our own JSON: each row's probability and its Cloth cell's hits."""
    def read(*args: str) -> dict:
        done = subprocess.run([*tables, "--db", str(db), *args, "--json"], env=env, check=True, capture_output=True, text=True)
        return json.loads(done.stdout)

    odds = read("odds", "table", "--weapon", WEAPON, "--cmb", str(cmb), "--armor", "Cloth")
    shown = read("show", "attack", "Pelting")
    assert odds["outcomes"]["critical"] == 0 and odds["outcomes"]["fumble"] == 0, "the attack must deal hits only"
    column = shown["armor"].index("Cloth")
    cells = {row["range"]: row["cells"][column] for row in shown["rows"]}
    scale = 10**12  # the JSON's 12 decimals: the probabilities as integer weights, exactly as printed
    weights: dict[int, int] = {}
    for row in odds["rows"]:
        cell = cells[row["row"]]
        assert cell.isdigit() or cell == "—", f"row {row['row']}: {cell!r} is not hits only"
        hits = int(cell) if cell.isdigit() else 0
        weights[hits] = weights.get(hits, 0) + round(row["probability"] * scale)
    weights[0] = weights.get(0, 0) + scale - sum(weights.values())  # the automatic misses: no row is read
    assert all(w >= 0 for w in weights.values())
    divisor = math.gcd(*weights.values())
    return {hits: w // divisor for hits, w in sorted(weights.items()) if w}


def timed(command: list[str], env: dict) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the child) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def compared(ours: dict, theirs: dict, rounds: int) -> float:
    """The largest difference between the two answers."""
    listed = {r["round"]: r for r in ours["rounds"]}
    differences = []
    for r in range(1, rounds + 1):
        # A round past the one by which the fight is surely over is not listed: the target is down in it.
        measured = listed[r]["combatants"]["Target"]["down"] if r in listed else 1.0
        differences.append(abs(measured - theirs["down"][r - 1]))
        if r in listed:
            assert listed[r]["combatants"]["Slinger"]["down"] == 0.0 and listed[r]["sides"]["A"] == measured
    differences.append(abs(ours["expected_rounds"] - theirs["expected_rounds"]))
    differences.append(abs(ours["unfinished"] - theirs["unfinished"]))
    return max(differences)


def main(argv: list[str]) -> None:
    pairs, rounds, cmb = 7, 40, 20
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--rounds":
            rounds = int(args.pop(0))
        elif arg == "--cmb":
            cmb = int(args.pop(0))
        else:
            pairs = int(arg)
    assert 1 <= rounds <= 200 and 1 <= pairs <= 100
    folder = Path(tempfile.mkdtemp())
    try:
        run(folder, pairs, rounds, cmb)
    finally:
        shutil.rmtree(folder)


def run(folder: Path, pairs: int, rounds: int, cmb: int) -> None:
    db = folder / "bench.db"
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode caches on, as after a normal install
    env.pop("TABLES_DB", None)
    tables = tables_command()

    def cli(*args: str) -> None:
        subprocess.run([*tables, "--db", str(db), *args], env=env, check=True, capture_output=True)

    subprocess.run([*tables, "db", "init", str(db)], env=env, check=True, capture_output=True)
    cli("import", str(workbook(folder / "bench-pelting.xlsx")))
    cli("fight", "new", FIGHT)
    cli("fight", "join", FIGHT, "--as", "Slinger", "--hits", str(HITS), "--armor", "Shell", "--weapon", WEAPON,
        "--cmb", str(cmb))
    cli("fight", "join", FIGHT, "--as", "Target", "--side", "B", "--hits", str(HITS), "--armor", "Cloth",
        "--weapon", WEAPON, "--cmb", "0")

    damage = damage_of(tables, db, cmb, env)
    total = sum(damage.values())
    spec = {"hits": HITS, "rounds": rounds, "damage": damage}
    spec_file = folder / "spec.json"
    spec_file.write_text(json.dumps(spec))
    print(f"{WEAPON} (CMB {cmb}) on Target, {HITS} hits, {rounds} rounds; damage per round: "
          + ", ".join(f"{hits} hits {w}/{total}" for hits, w in damage.items()))

    commands = {"tables odds fight": [*tables, "--db", str(db), "odds", "fight", FIGHT, "--json", "--rounds", str(rounds)],
                "icepool script": [sys.executable, str(Path(__file__).resolve()), "--peer", str(spec_file)]}
    # Warm-up (bytecode caches written, files in the page cache) and the check that both agree.
    answers = {name: json.loads(subprocess.run(command, env=env, check=True, capture_output=True, text=True).stdout)
               for name, command in commands.items()}
    ours, theirs = answers["tables odds fight"], answers["icepool script"]
    worst = compared(ours, theirs, rounds)
    mean = absorbed(spec)
    print(f"P(down by round r) for r = 1-{rounds}, expected rounds and unfinished: largest difference {worst:.2e}")
    print(f"expected rounds E[min(T, {rounds})]: tables {ours['expected_rounds']:.12f}, icepool "
          f"{theirs['expected_rounds']:.12f}; E[T] by icepool's absorbing Markov chain {mean:.12f}; "
          f"unfinished after round {rounds}: {ours['unfinished']:.3g}; states at most {ours['largest_states']}")
    assert worst <= 1e-12, "the answers differ"

    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for i in range(pairs):  # interleaved, the first of each pair alternating
        order = list(commands.items()) if i % 2 == 0 else list(commands.items())[::-1]
        for name, command in order:
            runs[name].append(timed(command, env))
    for name, times in runs.items():
        walls, cpus = [w for w, _ in times], [c for _, c in times]
        print(f"{name}: median {statistics.median(walls):.3f} s wall (range {min(walls):.3f}-{max(walls):.3f}), "
              f"{statistics.median(cpus):.3f} s CPU")
    ours_runs, peer_runs = runs["tables odds fight"], runs["icepool script"]
    ratios = [a[0] / b[0] for a, b in zip(ours_runs, peer_runs)]
    cpu_ratios = [a[1] / b[1] for a, b in zip(ours_runs, peer_runs)]
    print(f"ratio, median of {pairs} pairs: {statistics.median(ratios):.3f} wall (pairs {min(ratios):.3f}-"
          f"{max(ratios):.3f}), {statistics.median(cpu_ratios):.3f} CPU")
    print(f"aim: tables odds fight <= {AIM} of the icepool script's time (wall, median of pairs): "
          f"{'met' if statistics.median(ratios) <= AIM else 'NOT met'}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--peer"]:
        print(json.dumps(peer(json.loads(Path(sys.argv[2]).read_text()))))
    else:
        main(sys.argv[1:])
