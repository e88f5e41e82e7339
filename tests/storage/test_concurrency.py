"""Real processes: readers during imports, a killed import, a locked database (issue 7)."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from helpers import build_workbook, db_dump, error_lines

pytestmark = pytest.mark.sqlite_only  # the SQLite file itself (`pytest --postgres` leaves it out)


def version(tmp_path, hits: int, folder: str):
    """The same workbook file name, every cell of its table `hits`."""
    (tmp_path / folder).mkdir(exist_ok=True)
    rows = [["Kind", "attack"], ["Name", "Mix"], [], ["Result", "NA", "LA", "MA", "HA"]]
    rows += [[f"{low}-{low + 9}", hits, hits, hits, hits] for low in range(11, 200, 10)]
    return build_workbook(tmp_path / folder / "mix.xlsx", {"A": rows})


WRITER = """
import pathlib, sys
from tables_app.services.database_setup import open_database
from tables_app.services.importing import import_workbooks
database = open_database(sys.argv[1])
imports, done = int(sys.argv[2]), pathlib.Path(sys.argv[3])
paths = sys.argv[4:]
try:
    for n in range(imports):
        report = import_workbooks(database, [paths[n % len(paths)]])
        assert not report.problems, report.problems
finally:
    done.touch()  # the readers stop after their next read
print(imports)
"""

READER = """
import json, pathlib, sys
from tables_app.services.database_setup import open_database
from tables_app.services import lookups
database = open_database(sys.argv[1])
done, ready = pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
seen, reads = set(), 0
while not done.exists() or reads == 0:  # reads all through the writer's imports
    grid = lookups.show(database, "attack", "Mix")
    values = {cell for row in grid["rows"] for cell in row["cells"]}
    assert len(values) == 1, f"a mix of versions: {values}"
    seen |= values
    reads += 1
    ready.touch()  # reading: the writer may start
print(json.dumps({"reads": reads, "seen": sorted(seen)}))
"""


@pytest.mark.slow  # ~4 s: ten imports and two reader processes (`pytest -m slow`, and CI)
def test_readers_see_the_old_tables_or_the_new_never_a_mix(db_path, tmp_path, run):
    one, two = version(tmp_path, 1, "v1"), version(tmp_path, 2, "v2")
    assert run("import", str(one)).exit_code == 0
    done = tmp_path / "writer-done"
    # A fixed amount of work, not a duration: ten imports alternating the versions, read all along.
    ready = [tmp_path / f"reader-{n}-ready" for n in range(2)]
    readers = [subprocess.Popen([sys.executable, "-c", READER, str(db_path), str(done), str(path)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for path in ready]
    for _ in range(6000):  # hang protection only: up to a minute for the readers to start
        if all(path.exists() for path in ready) or any(reader.poll() is not None for reader in readers):
            break
        time.sleep(0.01)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db_path), "10", str(done), str(two), str(one)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = writer.communicate(timeout=120)  # hang protection only
    done.touch()  # however the writer ended, the readers stop
    assert writer.returncode == 0, err
    assert int(out.strip()) == 10
    for reader in readers:
        out, err = reader.communicate(timeout=120)
        assert reader.returncode == 0, err  # no "database is locked", no mix
        report = json.loads(out.strip().splitlines()[-1])
        assert report["reads"] > 0 and set(report["seen"]) <= {"1", "2"}


KILLED_WRITER = """
import sys, time
from tables_app.services.database_setup import open_database
from tables_app.services.importing import import_workbooks
from tables_app.storage import repository


original = repository.Writer._remove_dropped
def stall(self):
    removed = original(self)
    print("WRITTEN", flush=True)  # every row is written, the transaction is still open
    time.sleep(60)
    return removed
repository.Writer._remove_dropped = stall
import_workbooks(open_database(sys.argv[1]), [sys.argv[2]])
"""


def test_a_process_killed_during_an_import_leaves_the_database_as_it_was(db_path, tmp_path, run):
    one, two = version(tmp_path, 1, "v1"), version(tmp_path, 2, "v2")
    assert run("import", str(one)).exit_code == 0
    before = db_dump(db_path)
    child = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(db_path), str(two)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        assert line.strip() == "WRITTEN", child.stderr.read()
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert db_dump(db_path) == before
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        assert connection.execute("PRAGMA foreign_key_check").fetchall() == []
    cell = json.loads(run("query", "attack", "Mix", "50", "NA", "--json").stdout)
    assert cell["text"] == "1"


@pytest.mark.slow  # the write limit waited: seconds
def test_an_import_waits_for_another_write_and_fails_only_past_the_limit(db_path, tmp_path, run, monkeypatch):
    """Issue 17, item 10: a second import waits its turn, says so once, and
    fails past LOCK_WAIT_SECONDS with one line; nothing changed."""
    from tables_app.storage import locking

    monkeypatch.setattr(locking, "LOCK_WAIT_SECONDS", 1.5)
    before = db_dump(db_path)
    blocker = sqlite3.connect(db_path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another process is writing
    try:
        result = run("import", str(version(tmp_path, 3, "v3")))
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.count("Waiting for another process to finish writing the database...\n") == 1
    assert error_lines(result) == ("Error: the database is locked by another process (waited 1.5 s for its write to end); "
                                   "nothing was changed, try again\n")
    assert db_dump(db_path) == before


def test_an_import_that_waited_writes_once_the_other_write_ends(db_path, tmp_path, run, monkeypatch):
    """The other write ends once the import has waited for it long enough to
    say so (a second, commands/workbooks.py): told by the import's own wait,
    not by a timer started beside it (on a loaded machine the import may reach
    its write only after any fixed delay)."""
    from tables_app.storage import locking

    blocker = sqlite3.connect(db_path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    waiting = locking.begin_immediate

    def other_write_ends_once_waited_for(connection, on_wait=None, limit=None):  # type: ignore[no-untyped-def]
        def waited(seconds: float) -> None:
            if on_wait is not None:
                on_wait(seconds)
            if seconds >= 1 and blocker.in_transaction:
                blocker.execute("COMMIT")
        return waiting(connection, waited, limit)

    monkeypatch.setattr(locking, "begin_immediate", other_write_ends_once_waited_for)
    try:
        result = run("import", str(version(tmp_path, 4, "v4")))
        assert not blocker.in_transaction  # the import waited for it
    finally:
        blocker.close()
    assert result.exit_code == 0, result.output
    assert "Waiting for another process to finish writing the database..." in result.output


def test_lint_and_dry_run_never_take_the_write_lock(db_path, tmp_path, run, monkeypatch):
    """Issue 17, item 2: a check writes nothing, so it never waits for a writer
    (a 1 ms busy timeout would fail it at once if it did)."""
    from tables_app.storage import connection as settings

    monkeypatch.setattr(settings, "BUSY_TIMEOUT_MS", 1)
    workbook = version(tmp_path, 5, "v5")
    blocker = sqlite3.connect(db_path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        lint = run("lint", str(workbook))
        dry = run("import", str(workbook), "--dry-run", "--json")
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert lint.exit_code == 0, lint.output
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.stdout)["written"] is False


def test_a_write_between_the_check_and_the_lock_is_seen(db_path, tmp_path, run, monkeypatch):
    """The workbook is checked before the lock is taken; if another process
    commits in between (here: an import defining the same table), the checks
    run again under the lock, so its table is not silently taken over."""
    from tables_app.storage import locking

    mine, theirs = version(tmp_path, 6, "v6"), version(tmp_path, 7, "v7")
    theirs = theirs.rename(theirs.with_name("theirs.xlsx"))
    take_lock = locking.begin_immediate

    def someone_else_imports_first(connection, *arguments, **options):  # type: ignore[no-untyped-def]
        monkeypatch.setattr(locking, "begin_immediate", take_lock)
        assert run("import", str(theirs)).exit_code == 0
        take_lock(connection, *arguments, **options)

    monkeypatch.setattr(locking, "begin_immediate", someone_else_imports_first)
    result = run("import", str(mine))
    assert result.exit_code == 1
    assert "is already defined by workbook theirs.xlsx (import with --replace to take it over)" in result.output


def test_reads_go_on_while_another_process_writes(db_path, run, monkeypatch):
    from tables_app.storage import connection as settings

    # A busy timeout of 1 ms: a reader that had to wait for the writer would fail at once
    # ("locked", exit 1) instead of succeeding late, so no clock is needed to see it never waits.
    monkeypatch.setattr(settings, "BUSY_TIMEOUT_MS", 1)
    blocker = sqlite3.connect(db_path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        result = run("query", "attack", "Edged", "100", "NA", "--json")
        assert result.exit_code == 0, result.output  # WAL: readers are never blocked by a writer
        assert json.loads(result.stdout)["text"] == "16 Lig"  # Edged 96-100 NA
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()


def test_an_exclusive_lock_makes_reads_fail_cleanly(db_path, run, monkeypatch):
    from tables_app.storage import connection as settings

    monkeypatch.setattr(settings, "BUSY_TIMEOUT_MS", 200)
    blocker = sqlite3.connect(db_path, isolation_level=None)
    blocker.execute("PRAGMA locking_mode = EXCLUSIVE")
    blocker.execute("BEGIN EXCLUSIVE")
    blocker.execute("UPDATE workbook SET size_bytes = size_bytes")
    try:
        result = run("query", "attack", "Edged", "100", "NA", "--json")
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    if result.exit_code == 0:
        pytest.skip("this SQLite lets WAL readers through an exclusive lock")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.stderr.startswith(f"Error: {db_path}: the database is locked by another process")
