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

Ours, a whole process: by default (`--arithmetic float64`, the automatic
answer of issue #42) `python bench/fight_vs_icepool.py --ours DB R float64`,
which loads the fight and its blows as `tables odds fight` does
(services/fight_odds.py) and works out `fight_odds(..., arithmetic=
"float64")`, printing the command's JSON; `--arithmetic rational` the same
with Fractions; `--arithmetic cli` the command itself, `tables --db DB odds
fight Pelting --json --rounds R` (default 40 rounds, where the mass still
going is about 1e-12).

In-process (issue #42's aim: ours <= 0.25x icepool's absorbing Markov
chain), each timed by CPU (time.process_time) PAIRS times interleaved,
median: `fight_odds` in float64 and rational on the loaded fight (its blows
looked up before: the tables read once), icepool's
`mean_time_to_absorb` and icepool's round-by-round script (`peer`).

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

AIM = 0.25  # in-process: fight_odds against icepool's absorbing Markov chain (issue #42)
PROCESS_AIM = 2.0  # whole processes: ours against the icepool script (issue #42)
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


def ours(db: str, rounds: int, arithmetic: str) -> dict:
    """`tables odds fight`'s JSON, worked out in ``arithmetic`` (float64: issue #42's automatic answer)."""
    from tables_app.library import Tables
    from tables_app.services.fight_odds import FightOddsResult, _Blows, side_names
    from tables_app.services.fight_log import load
    from tables_app.domain.fights.odds import fight_odds

    database = Tables(db).database
    loaded = load(database, FIGHT)
    blows = _Blows(database, loaded.fight)
    odds = fight_odds(loaded.fight, blows, rounds, reads_taken=blows.reads_taken, arithmetic=arithmetic)  # type: ignore[call-overload]
    return FightOddsResult(FIGHT, loaded.seq, odds, tuple(c.name for c in loaded.fight.combatants),
                           side_names(loaded.fight), arithmetic).to_json()


def in_process(db: Path, spec: dict, pairs: int) -> None:
    """CPU seconds in this process, interleaved, median of ``pairs``: fight_odds (float64, rational) against
    icepool's absorbing Markov chain and its round-by-round script."""
    from tables_app.library import Tables
    from tables_app.services.fight_odds import _Blows
    from tables_app.services.fights import load
    from tables_app.domain.fights.odds import fight_odds

    database = Tables(str(db)).database
    fight = load(database, FIGHT).fight
    blows = _Blows(database, fight)
    fight_odds(fight, blows, 1, reads_taken=blows.reads_taken)  # the tables read once, as the other runs find them
    rounds = spec["rounds"]
    work = {"fight_odds float64": lambda: fight_odds(fight, blows, rounds, reads_taken=blows.reads_taken,
                                                     arithmetic="float64"),
            "fight_odds rational": lambda: fight_odds(fight, blows, rounds, reads_taken=blows.reads_taken),
            "icepool mean_time_to_absorb": lambda: absorbed(spec),
            "icepool script (peer)": lambda: peer(spec)}
    for run_once in work.values():  # warm-up: imports, caches
        run_once()
    times: dict[str, list[float]] = {name: [] for name in work}
    for i in range(pairs):
        for name, run_once in (list(work.items()) if i % 2 == 0 else list(work.items())[::-1]):
            start = time.process_time()
            run_once()
            times[name].append(time.process_time() - start)
    chain = statistics.median(times["icepool mean_time_to_absorb"])
    for name, measured in times.items():
        print(f"in-process {name}: median {statistics.median(measured) * 1000:.1f} ms CPU (range "
              f"{min(measured) * 1000:.1f}-{max(measured) * 1000:.1f}), {statistics.median(measured) / chain:.3f}x "
              "the absorbing chain")
    ratio = statistics.median(times["fight_odds float64"]) / chain
    print(f"aim: fight_odds float64 <= {AIM} of icepool's absorbing Markov chain in-process: "
          f"{'met' if ratio <= AIM else 'NOT met'} ({ratio:.3f})")


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
    pairs, rounds, cmb, arithmetic = 7, 40, 20, "float64"
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--rounds":
            rounds = int(args.pop(0))
        elif arg == "--cmb":
            cmb = int(args.pop(0))
        elif arg == "--arithmetic":
            arithmetic = args.pop(0)
        else:
            pairs = int(arg)
    assert 1 <= rounds <= 200 and 1 <= pairs <= 100 and arithmetic in ("float64", "rational", "cli")
    folder = Path(tempfile.mkdtemp())
    try:
        run(folder, pairs, rounds, cmb, arithmetic)
    finally:
        shutil.rmtree(folder)


def run(folder: Path, pairs: int, rounds: int, cmb: int, arithmetic: str) -> None:
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

    ours_command = ([*tables, "--db", str(db), "odds", "fight", FIGHT, "--json", "--rounds", str(rounds)]
                    if arithmetic == "cli" else
                    [sys.executable, str(Path(__file__).resolve()), "--ours", str(db), str(rounds), arithmetic])
    print(f"ours: {'the tables odds fight command' if arithmetic == 'cli' else 'fight_odds in ' + arithmetic}")
    commands = {"tables odds fight": ours_command,
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
    in_process(db, spec, pairs)

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
    print(f"aim: ours <= {PROCESS_AIM}x the icepool script's time (whole processes, wall, median of pairs): "
          f"{'met' if statistics.median(ratios) <= PROCESS_AIM else 'NOT met'}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--ours"]:
        print(json.dumps(ours(sys.argv[2], int(sys.argv[3]), sys.argv[4])))
    elif sys.argv[1:2] == ["--peer"]:
        print(json.dumps(peer(json.loads(Path(sys.argv[2]).read_text()))))
    else:
        main(sys.argv[1:])
