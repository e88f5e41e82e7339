"""Two writers to one fight (docs/fights.md, "The log is the fight"): of
two processes that read the same log, only the first appends; the second
is told the fight changed, and nothing of it is written."""

from __future__ import annotations

import json
import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tables_app.domain.fights import Blow, EndRound, Harm
from tables_app.domain.fights.events import Attack


def _writer(path: str, barrier: Any, results: Any, index: int) -> None:
    from tables_app.errors import FightChanged
    from tables_app.services import fight_log, fights
    from tables_app.services.database_setup import open_database

    database = open_database(path)
    loaded = fights.load(database, "Race")  # both read the same log ...
    barrier.wait(timeout=30)  # ... before either writes
    event = Attack("Hero", "Orc", Blow(to_target=Harm(hits=index + 1))) if index == 0 else EndRound()
    try:
        fight_log.written(database, loaded, [event])
        results.put((index, "written"))
    except FightChanged as exc:
        results.put((index, str(exc)))
    finally:
        database.dispose()


@pytest.fixture
def race(run, db_path: Path) -> Path:  # type: ignore[no-untyped-def]
    run("fight", "new", "Race")
    run("fight", "join", "Race", "--as", "Hero", "--hits", "30", "--armor", "MA", "--weapon", "Dagger", "--cmb", "10")
    run("fight", "join", "Race", "--as", "Orc", "--side", "B", "--hits", "30", "--armor", "MA", "--weapon", "Dagger",
        "--cmb", "10")
    return db_path


def test_of_two_processes_that_read_the_same_log_only_the_first_appends(race: Path, run) -> None:  # type: ignore[no-untyped-def]
    context = multiprocessing.get_context("spawn")
    barrier, results = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_writer, args=(str(race), barrier, results, i)) for i in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    told = dict(results.get(timeout=5) for _ in workers)
    assert sorted(told.values()).count("written") == 1
    loser = next(message for message in told.values() if message != "written")
    assert loser == "the fight 'Race' changed (its log is at event 3, not 2): show it again, then retry"
    events = json.loads(run("fight", "log", "Race", "--json").stdout)["events"]
    assert [e["seq"] for e in events] == [1, 2, 3]


def test_two_commands_after_the_same_event_one_wins_exit_1(race: Path) -> None:
    env = {**os.environ, "TABLES_DB": str(race)}
    command = [sys.executable, "-m", "tables_app", "fight", "attack", "Race"]
    procs = [subprocess.Popen([*command, who, whom, "--dice", "40", "--after", "2"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
             for who, whom in (("Hero", "Orc"), ("Orc", "Hero"))]
    outcomes = sorted((p.wait(timeout=60), p.stderr.read() if p.stderr else "") for p in procs)
    assert [code for code, _ in outcomes] == [0, 1]
    assert outcomes[1][1].startswith("Error: the fight 'Race' changed (its log is at event 3, not 2)")
