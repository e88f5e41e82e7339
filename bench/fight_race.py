"""A race of writers on one fight (issue 43, item 1): 2 command-line writers
(a `tables` process a step) and 2 threads of the library on 2 Database
objects attack, play rounds and undo one fight, each step sent with the seq
it read (`--after`), for SECONDS; then the log must replay (`fight show`, and
`db check` finds nothing) and hold exactly what was acknowledged: its length
is the sum of every acknowledged write's events less every acknowledged
undo's (no writer is killed here, so no write is in flight at the end), and
each group of events (one write's) starts where its `group` says.

    pip install '.[postgres]'
    python bench/fight_race.py [--runs 5] [--seconds 20] [--postgres SERVER_URL]

On PostgreSQL, SERVER_URL is a server whose user may create databases (as
$TABLES_TEST_POSTGRES); each run gets a database of its own, dropped after.
Prints one line a run (acknowledged steps of each kind, refusals, the log's
length) and exits 1 if any run broke its log.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from typing import Any, Callable

FIGHT = "Race"
MEMBERS = [("Hero", "A"), ("Ally", "A"), ("Orc", "B"), ("Troll", "B")]


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.delta = 0  # events the acknowledged writes added, less those the acknowledged undos took
        self.kinds: Counter[str] = Counter()

    def acknowledged(self, kind: str, after: int, seq: int) -> None:
        with self.lock:
            self.delta += seq - after
            self.kinds[kind] += 1

    def refused(self, why: str) -> None:
        with self.lock:
            self.kinds[why] += 1


def choose(state: dict[str, Any], rng: random.Random) -> tuple[str, tuple[str, ...]]:
    """The next step on the fight as read: an undo now and then (always past 60 events, or once it is over),
    else an attack by whoever's turn it is, else the round (--auto)."""
    if state["seq"] > 60 or state["over"] or (state["seq"] > 4 and rng.random() < 0.35):
        return "undo", ()
    turn = state.get("turn")
    foes = [c["name"] for c in state["combatants"]
            if turn and c["status"] == "up" and c["side"] != next(x["side"] for x in state["combatants"] if x["name"] == turn)]
    if turn and foes and rng.random() < 0.5:
        return "attack", (turn, rng.choice(foes))
    return "round", ()


def library_writer(location: str, tally: Tally, until: float, seed: int, errors: list[str]) -> None:
    from tables_app.errors import FightChanged, TablesError
    from tables_app.services import fights
    from tables_app.services.database_setup import open_database

    database = open_database(location)
    rng = random.Random(seed)
    try:
        while time.monotonic() < until:
            state = fights.show(database, FIGHT).to_json()
            kind, args = choose(state, rng)
            after = state["seq"]
            try:
                if kind == "undo":
                    step = fights.undo(database, FIGHT, after=after)
                elif kind == "attack":
                    step = fights.attack(database, FIGHT, *args, seed=rng.randrange(10**9), after=after)
                else:
                    step = fights.round_(database, FIGHT, auto=True, seed=rng.randrange(10**9), after=after)
                tally.acknowledged(kind, after, step.state.seq)
            except FightChanged:
                tally.refused("changed")
            except TablesError as exc:  # a step the rules refuse (read before another writer's): said, not written
                tally.refused("refused")
                if "does not replay" in str(exc):
                    errors.append(str(exc))
    finally:
        database.dispose()


def cli_writer(location: str, tally: Tally, until: float, seed: int, errors: list[str]) -> None:
    rng = random.Random(seed)
    base = [sys.executable, "-m", "tables_app", "--db", location, "fight"]
    while time.monotonic() < until:
        shown = subprocess.run([*base, "show", FIGHT, "--json"], capture_output=True, text=True)
        if shown.returncode != 0:
            errors.append(shown.stderr.strip())
            return
        state = json.loads(shown.stdout)
        kind, args = choose(state, rng)
        after = state["seq"]
        extra = () if kind == "undo" else ("--seed", str(rng.randrange(10**9)))
        if kind == "round":
            extra = ("--auto", *extra)
        done = subprocess.run([*base, kind, FIGHT, *args, *extra, "--after", str(after), "--json"],
                              capture_output=True, text=True)
        if done.returncode == 0:
            tally.acknowledged(kind, after, json.loads(done.stdout)["fight"]["seq"])
        elif "changed" in done.stderr:
            tally.refused("changed")
        else:
            tally.refused("refused")
            if "does not replay" in done.stderr or "Traceback" in done.stderr:
                errors.append(done.stderr.strip()[-300:])


def checked(location: str, tally: Tally, errors: list[str]) -> list[str]:
    """What is wrong with the fight after the race ([]: nothing)."""
    from tables_app.services import fights
    from tables_app.services.database_setup import check_database, open_database

    problems = list(errors)
    database = open_database(location)
    try:
        seq = fights.show(database, FIGHT).seq  # replays, or says where it does not
        logged = fights.log(database, FIGHT, 1, 10_000).logged
    except Exception as exc:  # noqa: BLE001 — a broken log is the finding
        return [*problems, f"{type(exc).__name__}: {exc}"]
    finally:
        database.dispose()
    if seq != len(MEMBERS) + tally.delta:
        problems.append(f"the log holds {seq} events; the acknowledged writes make {len(MEMBERS) + tally.delta}")
    if [e.seq for e in logged] != list(range(1, seq + 1)):
        problems.append("the log's numbers are not 1, 2, ...")
    for event in logged:
        group = event.data.get("group")
        if not isinstance(group, int) or not 1 <= group <= event.seq or \
                any(e.data.get("group") != group for e in logged[group - 1:event.seq]):
            problems.append(f"event {event.seq}'s group {group} is not one write's")
            break
    report = check_database(location)
    problems += [p for p in report.get("problems", []) if "fight" in p]
    return problems


def prepared(location: str) -> None:
    from tables_app.services import fights
    from tables_app.services.database_setup import open_database

    database = open_database(location)
    try:
        fights.new(database, FIGHT)
        for name, side in MEMBERS:
            fights.join(database, FIGHT, fights.Joining(label=name, side=side, hits=300, defense=10, armor="MA",
                                                        weapon="Longsword", cmb=40))
    finally:
        database.dispose()


def race(location: str, seconds: float, seed: int) -> tuple[Tally, list[str]]:
    prepared(location)
    tally, errors = Tally(), []
    until = time.monotonic() + seconds
    writers: list[Callable[..., None]] = [cli_writer, cli_writer, library_writer, library_writer]
    threads = [threading.Thread(target=w, args=(location, tally, until, seed * 10 + i, errors))
               for i, w in enumerate(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return tally, checked(location, tally, errors)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--postgres", metavar="SERVER_URL")
    options = parser.parse_args()
    from tables_app.services.database_setup import init_database

    folder = tempfile.mkdtemp()
    template = os.path.join(folder, "template.db")
    if not options.postgres:
        init_database(template).dispose()
    broken = 0
    for run in range(1, options.runs + 1):
        if options.postgres:
            import psycopg

            name = f"fight_race_{os.getpid()}_{run}"
            with psycopg.connect(options.postgres, autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{name}"')
            location = options.postgres.rsplit("/", 1)[0] + "/" + name
            init_database(location).dispose()
        else:
            location = os.path.join(folder, f"run{run}.db")
            shutil.copyfile(template, location)
        tally, problems = race(location, options.seconds, run)
        written = sum(n for k, n in tally.kinds.items() if k in ("attack", "round", "undo"))
        print(f"run {run}: {written} writes acknowledged ({', '.join(f'{k} {n}' for k, n in sorted(tally.kinds.items()))}); "
              + ("log sound, equal to the acknowledged writes" if not problems else f"BROKEN: {problems[:3]}"),
              flush=True)
        broken += bool(problems)
        if options.postgres:
            with psycopg.connect(options.postgres, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    print(f"{options.runs - broken} of {options.runs} runs sound")
    sys.exit(1 if broken else 0)


if __name__ == "__main__":
    main()
