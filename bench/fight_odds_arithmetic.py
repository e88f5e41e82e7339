"""Benchmark (issue #42): the odds of the bundled duel in float64 against
rational, in-process, same run; its certified bounds; the refusal of a
budget of seconds.

    pip install .
    python bench/fight_odds_arithmetic.py [REPEATS] [--widths 0.01,0.1,0.5]

The duel is set up with the CLI in a fresh database (`db init`: the bundled
tables): Hero (50 hits, DEF 20, MA, Longsword 60) against an Orc Warrior of
the bestiary. Its blows are looked up as `tables odds fight` does
(services/fight_odds._Blows), once, before anything is timed. Then:

1. fight_odds for 1 and 2 rounds, float64 and rational interleaved, CPU
   time (time.process_time), median of REPEATS (default 5), with the bound
   on states raised (round 2 holds 1.9 million states at once: past both
   bounds), and the states after each round.
2. Memory: each mode once more in a child process of its own, its maximum
   resident set less the child's before the odds (the tables and blows
   loaded), over the most states held at once: bytes per state.
3. certified_odds for 2 rounds at width 0.01, and for 20 rounds at each
   width, in a child process each:
   CPU time, the mass dropped, the threshold, tries, maximum resident set,
   or the refusal.
4. The rise duel of docs/fights.md (40 and 30 hits, accuracy 4, 2d6+3
   each, no table), 20 rounds, float64 and rational as in 1.
5. fight_odds(seconds=0.3) for 20 rounds: the wall time until OutOfTime,
   with the blows looked up fresh (the tables read inside the budget) and
   already looked up; REPEATS each: the overrun past 0.3 s.
"""

from __future__ import annotations

import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERO = ("--as", "Hero", "--hits", "50", "--def", "20", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")
ORC = ("--creature", "Orc Warrior")
RAISED = 100_000_000  # the bound on states, raised to measure past it


def tables_command() -> list[str]:
    script = Path(sys.executable).with_name("tables")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tables_app"]


def setup(folder: Path) -> Path:
    db = folder / "duel.db"
    tables = tables_command()
    for args in (("db", "init", str(db)), ("--db", str(db), "fight", "new", "Duel"),
                 ("--db", str(db), "fight", "join", "Duel", *HERO), ("--db", str(db), "fight", "join", "Duel", *ORC)):
        subprocess.run([*tables, *args], check=True, capture_output=True)
    return db


def loaded(db: str) -> tuple[Any, Any]:
    from tables_app.library import Tables
    from tables_app.services.fight_odds import _Blows
    from tables_app.services.fights import load

    database = Tables(db).database
    fight = load(database, "Duel").fight
    return fight, _Blows(database, fight)


def maxrss_mb() -> float:
    """This process's peak resident set: VmHWM on Linux (ru_maxrss keeps the parent's peak across exec)."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_memory(db: str, arithmetic: str, rounds: int) -> dict[str, Any]:
    from tables_app.domain.fights.odds import fight_odds

    fight, blows = loaded(db)
    fight_odds(fight, blows, 1, reads_taken=blows.reads_taken)  # the blows of round 1 looked up
    before = maxrss_mb()
    odds = fight_odds(fight, blows, rounds, RAISED, reads_taken=blows.reads_taken, arithmetic=arithmetic)  # type: ignore[call-overload]
    grown = maxrss_mb() - before
    return {"largest": odds.largest, "grown_mb": grown, "bytes_per_state": grown * 1024 * 1024 / odds.largest}


def child_certified(db: str, rounds: int, width: float) -> dict[str, Any]:
    from tables_app.domain.fights.certified import CertifiedTooLarge, certified_odds

    fight, blows = loaded(db)
    start = time.process_time()
    try:
        found = certified_odds(fight, blows, rounds, width=width, reads_taken=blows.reads_taken)
    except CertifiedTooLarge as exc:
        return {"refused": str(exc), "cpu": time.process_time() - start, "maxrss_mb": maxrss_mb()}
    last = found.rounds[-1]
    return {"cpu": time.process_time() - start, "dropped": found.dropped, "threshold": found.threshold,
            "tries": found.tries, "largest": found.largest, "maxrss_mb": maxrss_mb(),
            "over": [last.over.lower, last.over.upper], "states": [r.states for r in found.rounds]}


def in_child(*args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", *args], check=True,
                          capture_output=True, text=True)
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def rise(repeats: int) -> None:
    from tables_app.domain.fights import Fight, formulas
    from tables_app.domain.fights.odds import fight_odds
    from tables_app.domain.fights.state import Combatant, Fighter
    from tables_app.services.fight_odds import _Blows

    arm = formulas.armament("rise", ["accuracy=4", "damage=2d6+3"])
    start = Fight("Rise", combatants=(Combatant(Fighter("Hero", "A", 40, 0, "", attacks=(arm,))),
                                      Combatant(Fighter("Orc", "B", 30, 0, "", attacks=(arm,)))))
    blows = _Blows(None, start)  # type: ignore[arg-type]  # no table: the database is never read
    fight_odds(start, blows, 20)
    times: dict[str, list[float]] = {"float64": [], "rational": []}
    for i in range(repeats):
        for arithmetic in (("float64", "rational") if i % 2 == 0 else ("rational", "float64")):
            begin = time.process_time()
            odds = fight_odds(start, blows, 20, arithmetic=arithmetic)  # type: ignore[call-overload]
            times[arithmetic].append(time.process_time() - begin)
    f, r = statistics.median(times["float64"]), statistics.median(times["rational"])
    print(f"rise duel, 20 rounds, at most {odds.largest:,} states: float64 {f * 1000:.1f} ms CPU, rational "
          f"{r * 1000:.1f} ms: rational/float64 {r / f:.1f}x (median of {repeats})")


def main(argv: list[str]) -> None:
    repeats, widths = 5, [0.01, 0.1, 0.5]
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg == "--widths":
            widths = [float(w) for w in args.pop(0).split(",")]
        else:
            repeats = int(arg)
    folder = Path(tempfile.mkdtemp())
    try:
        run(str(setup(folder)), repeats, widths)
    finally:
        shutil.rmtree(folder)


def run(db: str, repeats: int, widths: list[float]) -> None:
    from tables_app.domain.fights.odds import OutOfTime, fight_odds

    fight, blows = loaded(db)
    fight_odds(fight, blows, 2, RAISED, reads_taken=blows.reads_taken)  # every blow of 2 rounds looked up
    for rounds in (1, 2):
        times: dict[str, list[float]] = {"float64": [], "rational": []}
        states: dict[str, list[int]] = {}
        for i in range(repeats):
            for arithmetic in (("float64", "rational") if i % 2 == 0 else ("rational", "float64")):
                start = time.process_time()
                odds = fight_odds(fight, blows, rounds, RAISED, reads_taken=blows.reads_taken, arithmetic=arithmetic)  # type: ignore[call-overload]
                times[arithmetic].append(time.process_time() - start)
                states[arithmetic] = [r.states for r in odds.rounds] + [odds.largest]
        f, r = statistics.median(times["float64"]), statistics.median(times["rational"])
        print(f"--rounds {rounds}: states after each round {states['float64'][:-1]}, at most "
              f"{states['float64'][-1]:,} at once; float64 {f:.3f} s CPU (range {min(times['float64']):.3f}-"
              f"{max(times['float64']):.3f}), rational {r:.3f} s (range {min(times['rational']):.3f}-"
              f"{max(times['rational']):.3f}): rational/float64 {r / f:.2f}x (median of {repeats})")
        assert states["float64"] == states["rational"]
    for arithmetic in ("float64", "rational"):
        m = in_child("memory", db, arithmetic, "2")
        print(f"memory, --rounds 2, {arithmetic}: +{m['grown_mb']:.0f} MB maximum resident set for {m['largest']:,} "
              f"states at once: {m['bytes_per_state']:.0f} bytes a state")
    for rounds, width in [(2, 0.01), *((20, w) for w in widths)]:
        c = in_child("certified", db, str(rounds), str(width))
        if "refused" in c:
            print(f"certified, {rounds} rounds, width {width}: refused after {c['cpu']:.2f} s CPU, {c['maxrss_mb']:.0f} MB: "
                  f"{c['refused']}")
        else:
            print(f"certified, {rounds} rounds, width {width}: {c['cpu']:.2f} s CPU, dropped {c['dropped']:.4g}, threshold "
                  f"{c['threshold']:.3g} ({c['tries']} tries), at most {c['largest']:,} states, {c['maxrss_mb']:.0f} MB; "
                  f"P(over by its last round) in [{c['over'][0]:.4f}, {c['over'][1]:.4f}]")
    rise(repeats)
    for fresh in (True, False):
        overruns = []
        for _ in range(repeats):
            the_blows = loaded(db)[1] if fresh else blows
            start = time.perf_counter()
            try:
                fight_odds(fight, the_blows, 20, reads_taken=the_blows.reads_taken, arithmetic="float64", seconds=0.3)
            except OutOfTime:
                overruns.append(time.perf_counter() - start - 0.3)
        print(f"seconds=0.3, blows {'looked up fresh' if fresh else 'looked up before'}: OutOfTime {len(overruns)} of "
              f"{repeats} times, overrun median {statistics.median(overruns) * 1000:.0f} ms (max "
              f"{max(overruns) * 1000:.0f} ms, wall)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        kind, db, *rest = sys.argv[2:]
        if kind == "memory":
            print(json.dumps(child_memory(db, rest[0], int(rest[1]))))
        else:
            print(json.dumps(child_certified(db, int(rest[0]), float(rest[1]))))
    else:
        main(sys.argv[1:])
