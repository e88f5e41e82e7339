"""Benchmark: `play_fights` (the batch engine, numpy: domain/fights/batch.py)
against `simulate_fights` (one fight at a time) in the same process, on
fights of the bundled tables, fights per CPU-second.

    pip install .
    python bench/fight_batch.py [REPEATS]
    python bench/fight_batch.py --whole [REPEATS]

Three fights are set up in a fresh database (`db init`: the bundled tables)
as bench/fight_duel.py sets them up: Duel, Hero (50 hits, DEF 20, MA,
Longsword 60) against an Orc Warrior of the bestiary; Melee, Hero and Ally
(45 hits, DEF 15, Longsword 50) against two Orc Warriors; Brawl, four
against four Orc Warriors. Each run starts from fresh blows (the service's
blow distributions: their first look-ups are timed too), 20 rounds at most;
the two engines are interleaved, the first of each pair alternating, REPEATS
pairs (default 5), CPU time by time.process_time, the median reported.

``--whole`` times what the GM waits for: a whole process (interpreter,
imports, the database opened, the fight loaded, its blows looked up, the
fights played: as many as an SE of 0.002 on the duel asks, 10,000 on the
others), REPEATS runs of each fight (os.wait4: wall, CPU, peak memory), medians.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from random import Random

from tables_app.domain.fights.batch import play_fights
from tables_app.domain.fights.simulate import Drawn, Tally, simulate_fights
from tables_app.domain.fights.state import Fight
from tables_app.services import fights
from tables_app.services.database_setup import init_database
from tables_app.services.fight_odds import _Blows

HERO = fights.Joining(label="Hero", hits=50, defense=20, armor="MA", weapon="Longsword", cmb=60)
ALLY = fights.Joining(label="Ally", hits=45, defense=15, armor="MA", weapon="Longsword", cmb=50)
THIRD = fights.Joining(label="Third", hits=40, defense=15, armor="MA", weapon="Longsword", cmb=50)
FOURTH = fights.Joining(label="Fourth", hits=40, defense=10, armor="MA", weapon="Longsword", cmb=45)
ORC = fights.Joining(creature="Orc Warrior")
FIGHTS = {"Duel": (HERO, ORC), "Melee": (HERO, ALLY, ORC, ORC), "Brawl": (HERO, ALLY, THIRD, FOURTH, ORC, ORC, ORC, ORC)}
# fights each engine plays per run: the batch about what a GM's second asks (SE <= 0.002 on the duel)
COUNTS = {"batch": {"Duel": 62_500, "Melee": 10_000, "Brawl": 10_000}, "one at a time": {"Duel": 5_000, "Melee": 2_000, "Brawl": 1_000}}
ROUNDS = 20


def cpu(run: Callable[[], Tally]) -> tuple[float, Tally]:
    start = time.process_time()
    tally = run()
    return time.process_time() - start, tally


CHILD = """
import sys
from tables_app.domain.fights.batch import play_fights
from tables_app.services import fights
from tables_app.services.database_setup import open_database
from tables_app.services.fight_odds import _Blows
fight = fights.load(open_database(sys.argv[1]), sys.argv[2]).fight
blows = _Blows(open_database(sys.argv[1]), fight)
tally = play_fights(fight, blows, 20, seed=1, count=int(sys.argv[3]), reads_taken=blows.reads_taken)
print(tally.count, tally.over[-1])
"""


def whole_runs(database: str, repeats: int) -> None:
    for name in FIGHTS:
        count = COUNTS["batch"][name]
        walls, cpus, peaks = [], [], []
        for _ in range(repeats):
            start = time.perf_counter()
            child = subprocess.Popen([sys.executable, "-c", CHILD, database, name, str(count)], stdout=subprocess.DEVNULL)
            _, status, usage = os.wait4(child.pid, 0)
            walls.append(time.perf_counter() - start)
            cpus.append(usage.ru_utime + usage.ru_stime)
            peaks.append(usage.ru_maxrss / 1024)
            assert os.waitstatus_to_exitcode(status) == 0
        print(f"{name}: {count:,} fights, whole process, median of {repeats}: {statistics.median(walls):.2f} s wall, "
              f"{statistics.median(cpus):.2f} s CPU, peak {max(peaks):.0f} MB")


def main(argv: list[str]) -> None:
    wholly = argv[:1] == ["--whole"]
    argv = argv[1:] if wholly else argv
    repeats = int(argv[0]) if argv else 5
    location = str(Path(tempfile.mkdtemp()) / "bench.db")
    database = init_database(location)
    for name, joining in FIGHTS.items():
        fights.new(database, name)
        for j in joining:
            fights.join(database, name, j)
    if wholly:
        return whole_runs(location, repeats)
    for name, joining in FIGHTS.items():
        fight: Fight = fights.load(database, name).fight

        def batch(fight: Fight = fight, name: str = name) -> Tally:
            blows = _Blows(database, fight)
            return play_fights(fight, blows, ROUNDS, seed=1, count=COUNTS["batch"][name], reads_taken=blows.reads_taken)

        def one_at_a_time(fight: Fight = fight, name: str = name) -> Tally:
            blows = _Blows(database, fight)
            return simulate_fights(fight, Drawn(blows), ROUNDS, COUNTS["one at a time"][name], Random(1),
                                   reads_taken=blows.reads_taken)

        engines = {"batch": batch, "one at a time": one_at_a_time}
        rates: dict[str, list[float]] = {k: [] for k in engines}
        seconds: dict[str, list[float]] = {k: [] for k in engines}
        tallies: dict[str, Tally] = {}
        for i in range(repeats):  # interleaved, the first of each pair alternating
            for label, run in (list(engines.items()) if i % 2 == 0 else list(engines.items())[::-1]):
                spent, tallies[label] = cpu(run)
                seconds[label].append(spent)
                rates[label].append(tallies[label].count / spent)
        print(f"{name} ({len(joining)} combatants, {ROUNDS} rounds at most):")
        for label in engines:
            t = tallies[label]
            won = ", ".join(f"{side} {t.won[side][-1] / t.count:.4f}" for side in t.won)
            print(f"  {label}: {t.count:,} fights in a median {statistics.median(seconds[label]):.3f} s CPU, "
                  f"median {statistics.median(rates[label]):,.0f} fights per CPU-second; won {won}")
        ratios = [a / b for a, b in zip(rates["batch"], rates["one at a time"])]
        print(f"  batch / one at a time, median of {repeats} pairs: {statistics.median(ratios):.1f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
