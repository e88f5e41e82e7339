"""Benchmark: what one request costs on a fight at its bound of 100,000 events
(services/fight_log.MAX_EVENTS; issue 43, item 6): `fight show`, a write
(`fight undo` then the same event written back, so the log stays as long),
`fight log` of one page (the default 1,000 events) and of the last page.

    pip install .
    python bench/fight_long_log.py [REPEATS] [EVENTS]

A fresh database (`db init`: the bundled tables) gets a duel, Hero against
Orc, whose first round (two attacks that miss, forced dice, and the round's
end) is played by the services; its three events are then copied, as the
log keeps them, until the log holds EVENTS events (default 99,999, the bound
less one for the write). Each operation runs in a process of its own
(interpreter and imports included, as a command would: os.wait4 gives its
wall time, CPU time and peak memory, ru_maxrss), REPEATS times (default 3),
interleaved; the medians are printed, and a bare process's (`tables --version`)
for reference.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

OPERATIONS = {
    "baseline (tables --version)": ["--version"],
    "fight show": ["fight", "show", "Long", "--json"],
    "fight log (first page)": ["fight", "log", "Long", "--json"],
    "fight log (last page)": ["fight", "log", "Long", "--from", "{last_page}", "--json"],
    "fight attack (a write)": ["fight", "attack", "Long", "Orc", "Hero", "--dice", "10", "--after", "{seq}"],
}


def build(path: str, events: int) -> int:
    from tables_app.services import fights
    from tables_app.services.database_setup import init_database
    from tables_app.storage import fights as store

    database = init_database(path)
    fights.new(database, "Long")
    fights.join(database, "Long", fights.Joining(label="Hero", hits=100_000, defense=20, armor="MA",
                                                 weapon="Longsword", cmb=0))
    fights.join(database, "Long", fights.Joining(label="Orc", side="B", hits=100_000, defense=20, armor="MA",
                                                 weapon="Scimitar", cmb=0))
    fights.attack(database, "Long", "Hero", "Orc", forced=(10,))
    fights.attack(database, "Long", "Orc", "Hero", forced=(10,))
    fights.round_(database, "Long")
    loaded = fights.log(database, "Long")  # each event as the log keeps it, an attack's account with it
    pattern = [dict(e.data) for e in loaded.logged[2:5]]
    added = []
    seq = loaded.seq
    while seq + len(added) < events:
        data = dict(pattern[len(added) % 3])
        data["group"] = seq + len(added) + 1
        added.append(data)
    with database.writing(commit=True, breaking="the fight's log") as connection:
        store.append(connection, loaded.row, loaded.seq, added)
    database.dispose()
    return seq + len(added)


def run_one(command: list[str], env: dict[str, str]) -> tuple[float, float, float, int]:
    """Wall seconds, CPU seconds, peak MB and the answer's bytes of one process."""
    start = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "tables_app", *command], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    output = process.stdout.read() if process.stdout else b""
    error = process.stderr.read() if process.stderr else b""
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{command}: {error.decode()[:300]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, len(output)


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    events = int(sys.argv[2]) if len(sys.argv) > 2 else 99_999
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "long.db")
    seq = build(path, events)
    env = {**os.environ, "TABLES_DB": path}
    values = {"seq": str(seq), "last_page": str(max(1, seq - 999))}
    figures: dict[str, list[tuple[float, float, float, int]]] = {name: [] for name in OPERATIONS}
    for _ in range(repeats):
        for name, command in OPERATIONS.items():
            args = [part.format(**values) for part in command]
            figures[name].append(run_one(args, env))
            if name == "fight attack (a write)":  # back to the length measured
                run_one(["fight", "undo", "Long"], env)
    print(f"a fight of {seq:,} events, {repeats} runs each, medians (python {sys.version.split()[0]}):")
    for name, runs in figures.items():
        wall, cpu, peak, size = (statistics.median(r[i] for r in runs) for i in range(4))
        print(f"  {name:30} {wall:6.2f} s wall  {cpu:6.2f} s CPU  {peak:6.0f} MB peak  {size / 1e6:7.2f} MB answer")
    print(json.dumps({"events": seq}))


if __name__ == "__main__":
    main()
