"""Helpers shared by the tests: workbooks written on the fly, database dumps,
the small "someone else's" workbook, formula-system shortcuts, the
statistics that compare sampled attacks with exact odds, and the work of a
block counted (counted_work) where a bound is tested.

Test files import these from here (``from helpers import ...``; pytest puts
tests/ on the path for conftest.py); conftest.py keeps only the fixtures.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Callable

Rows = list[list[object]]


# The address TestClient's requests carry in their Host header: a server
# without a token answers only requests to a loopback name (docs/api.md, "Access").
LOCAL_BASE = "http://127.0.0.1"


def build_workbook(path: Path, sheets: dict[str, Rows], hidden: tuple[str, ...] = ()) -> Path:
    """Write an .xlsx with one sheet per entry; each row is a list of cell values."""
    import openpyxl

    book = openpyxl.Workbook()
    book.remove(book.active)
    for title, rows in sheets.items():
        sheet = book.create_sheet(title)
        for r, row in enumerate(rows, start=1):
            for c, value in enumerate(row, start=1):
                if value is None:
                    continue
                if isinstance(value, str) and value.startswith("'"):  # 'text: typed as text, as in Excel
                    sheet.cell(row=r, column=c, value=value[1:]).data_type = "s"
                else:
                    sheet.cell(row=r, column=c, value=value)
        if title in hidden:
            sheet.sheet_state = "hidden"
    book.save(path)
    return path


def rewrite(source: Path, target: Path, member: str, change: Callable[[bytes], bytes]) -> Path:
    """Copy an .xlsx, passing one part's bytes through ``change``."""
    import zipfile

    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            zout.writestr(item.filename, change(data) if item.filename == member else data)
    return target


def declaring(encoding: str) -> Callable[[bytes], bytes]:
    """For ``rewrite``: the part's XML declaration (added if it has none) names this encoding."""
    import re

    def change(data: bytes) -> bytes:
        declaration = b'<?xml version="1.0" encoding="%s"?>' % encoding.encode()
        data, replaced = re.subn(rb"<\?xml[^>]*\?>", declaration, data, count=1)
        return data if replaced else declaration + data
    return change


def db_dump(path: Path) -> list[str]:
    """Every statement that rebuilds the database: equal dumps, equal
    databases. The generation number is left out: it counts the imports
    committed (models.Generation), and says nothing of what the tables hold."""
    import sqlite3

    if str(path).startswith("postgresql://"):
        return _server_dump(str(path))
    connection = sqlite3.connect(path)
    try:
        return [line for line in connection.iterdump() if not line.startswith('INSERT INTO "generation"')]
    finally:
        connection.close()


def _server_dump(url: str) -> list[str]:
    """A PostgreSQL database's tables and rows, each table's in id order (the generation left out, as above)."""
    import psycopg

    with psycopg.connect(url) as connection:
        names = [name for (name,) in connection.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
            "AND table_type = 'BASE TABLE' AND table_name != 'generation' ORDER BY table_name")]
        lines = []
        for name in names:
            columns = [column for (column,) in connection.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                "AND table_name = %s ORDER BY ordinal_position", (name,))]
            lines.append(f"TABLE {name} ({', '.join(columns)})")
            order = "id" if "id" in columns else ", ".join(f'"{c}"' for c in columns)
            lines += [f"{name} {row!r}" for row in connection.execute(f'SELECT * FROM "{name}" ORDER BY {order}')]
        return lines


# A small valid workbook "by someone else": custom severities, codes, branches.
MINI_SEVERITIES: Rows = [
    ["Kind", "severities"], ["Name", "Letters"], [],
    ["Code", "Name", "Modifier"], ["A", "Alpha", 0], ["B", "Bravo", 5], ["C", "Charlie", 10],
]
MINI_CRITICAL: Rows = [
    ["Kind", "critical"], ["Name", "Slash"], ["Code", "X"], ["Source", "test"], [],
    ["Roll", "Title", "Text", "Hits", "Bleed", "Stun", "Penalty", "Effects", "Condition"],
    ["01-50", "Nick", "A nick.", 1, None, None, None, None, None],
    ["51-80", "Helm ring", "The helm rings.", 2, None, 1, None, "dazed", "helm"],
    ["51-80", "Scalp cut", "The scalp opens.", 4, 2, 1, -10, "dazed, bleeding", "not helm"],
    ["81–110", "Down", "Down he goes.", 9, 3, 2, -25, "prone, drop weapon", None],
]
MINI_FUMBLE: Rows = [
    ["Kind", "fumble"], ["Name", "Oops"], [],
    ["Roll", "Text", "Hits"], ["1-60", "Stumble.", 0], ["61+", "Fall over.", 2],
]
MINI_ATTACK: Rows = [
    ["Kind", "attack"], ["Name", "Poke"], ["Notes", "descending, like print"], [],
    ["Result", "Cloth", "Plate"],
    ["41+", "9CX", "6 Bravo"],
    ["31-40", "7 A Slash", "4 a"],
    ["21–30", 5, "0"],
    ["11 - 20", "2", "—"],
    ["1-10", "-", "-"],
]
MINI_WEAPONS: Rows = [
    ["Kind", "weapons"], [],
    ["Name", "Attack table", "Max result", "Clumsy", "Critical", "Secondary critical", "Fumble table", "Fumble modifier", "Roll"],
    ["Needle", "Poke", 60, "1-3", "X", None, "Oops", -5, "oeh"],
    ["Pin", "poke", 45.0, 2, "Slash", "Slash", None, None, None],
]
MINI_CREATURES: Rows = [
    ["Kind", "creatures"], [],
    ["Name", "DEF", "Armor", "Rank", "HP", "Features", "Notes"],
    ["Tin Man", 20, "Plate", "heroic", 40, "helm, metal armor", "clanks"],
    ["Scarecrow", 0, "Cloth", None, None, None, None],
]


def chi_square_agrees(counts: dict, probabilities: dict, *, alpha_z: float = 3.29) -> tuple[bool, float, float]:
    """Pearson's chi-square of observed ``counts`` against exact ``probabilities``.

    Cells with an expected count below 5 are pooled. The critical value is
    the Wilson-Hilferty approximation at z = 3.29 (p ≈ 0.0005, one-sided),
    so a correct model fails a fixed-seed test about once in 2,000 designs.
    Returns (agrees, statistic, critical value).
    """
    n = sum(counts.values())
    cells, pooled_observed, pooled_expected = [], 0, 0.0
    for key, p in probabilities.items():
        expected = float(p) * n
        observed = counts.get(key, 0)
        if expected < 5:
            pooled_observed += observed
            pooled_expected += expected
        else:
            cells.append((observed, expected))
    unexpected = sum(c for k, c in counts.items() if k not in probabilities or probabilities[k] == 0)
    if unexpected:
        return False, float("inf"), 0.0
    if pooled_expected >= 5 or (pooled_observed and not cells):
        cells.append((pooled_observed, pooled_expected))
    elif pooled_observed and cells:
        o, e = cells[-1]
        cells[-1] = (o + pooled_observed, e + pooled_expected)
    df = max(len(cells) - 1, 1)
    statistic = sum((o - e) ** 2 / e for o, e in cells if e > 0)
    critical = df * (1 - 2 / (9 * df) + alpha_z * (2 / (9 * df)) ** 0.5) ** 3
    return statistic <= critical, statistic, critical


def error_lines(result) -> str:  # type: ignore[no-untyped-def]
    """The ``Error:`` lines of a CLI result's stderr (warnings left out)."""
    return "".join(line + "\n" for line in result.stderr.splitlines() if line.startswith("Error:"))


def system_params(system, **values):  # type: ignore[no-untyped-def]
    """A formula system's parameters: its declared defaults plus ``values``."""
    full = {option.key: option.default for option in system.options}
    full.update(values)
    return system.build(full)


def resolve_forced(system, dice, **values):  # type: ignore[no-untyped-def]
    """Resolve with exactly these dice: none missing, none left over."""
    from tables_app.domain.dice import ForcedDice

    forced = ForcedDice(values=tuple(dice))
    result = system.resolve(system_params(system, **values), forced)
    assert forced.missing == [] and forced.unused == (), (forced.missing, forced.unused)
    return result


def seeded_resolutions(system, params, n: int = 20000, seed: int = 12345) -> list:  # type: ignore[no-untyped-def]
    """``n`` resolutions of one attack with seeded dice, for agreement checks."""
    from tables_app.domain.dice import SeededDice

    dice = SeededDice(seed=seed)
    return [system.resolve(params, dice) for _ in range(n)]


def assert_agrees(counts: dict, probabilities: dict) -> None:
    """Observed counts fit the exact probabilities (chi-square at a fixed seed)."""
    agrees, statistic, critical = chi_square_agrees(counts, probabilities)
    assert agrees, (statistic, critical, counts)


def assert_mean_agrees(values: list, expected) -> None:  # type: ignore[no-untyped-def]
    """A sample mean within four standard errors of the exact expectation."""
    import statistics

    error = statistics.stdev(values) / len(values) ** 0.5
    assert abs(statistics.fmean(values) - float(expected)) <= 4 * error + 1e-12, (statistics.fmean(values), float(expected))


# A Rolemaster-shaped ruleset "RM" (invented values in the printed shape):
# letter severities A-E, critical tables coded S, K, P, G (the codes the
# bundled tables use too), 20 armor columns with `18ES` cells, and a
# Longsword (a name the bundled armory has too).
RM_ARMORS = [str(n) for n in range(20, 0, -1)]


def rm_sheets(*, with_slash: bool = True, ruleset_sheet: bool = True) -> dict[str, Rows]:
    """The RM workbook's sheets; ``with_slash`` False leaves out the `S` table."""
    def critical(name: str, code: str, word: str) -> Rows:
        return [["Kind", "critical"], ["Name", name], ["Code", code], [],
                ["Roll", "Text", "Hits"],
                ["01-40", f"A glancing {word}.", 1], ["41-80", f"A solid {word}.", 4],
                ["81-100", f"A brutal {word}.", 9], ["101+", f"A deadly {word}.", 15]]
    attack_rows = [["Result", *RM_ARMORS]]
    for low, high, cell in ((121, None, "18ES"), (91, 120, "12CS"), (61, 90, "7AK"), (31, 60, "4"), (11, 30, "—")):
        attack_rows.append([f"{low}+" if high is None else f"{low}-{high}", *[cell] * len(RM_ARMORS)])
    sheets: dict[str, Rows] = {}
    if ruleset_sheet:
        sheets["Ruleset"] = [["Kind", "ruleset"], ["Name", "RM"], ["Source", "invented for tests"]]
    sheets["Severities"] = [["Kind", "severities"], ["Name", "RM letters"], [],
                            ["Code", "Name", "Modifier"], ["A", "A", 0], ["B", "B", 5], ["C", "C", 10], ["D", "D", 15], ["E", "E", 20]]
    if with_slash:
        sheets["Slash"] = critical("Slash", "S", "slash")
    sheets["Krush"] = critical("Krush", "K", "blow")
    sheets["Puncture"] = critical("Puncture", "P", "thrust")
    sheets["Grapple"] = critical("Grapple", "G", "hold")
    sheets["Broadsword table"] = [["Kind", "attack"], ["Name", "Broadsword"], [], *attack_rows]
    sheets["Weapons"] = [["Kind", "weapons"], [],
                         ["Name", "Attack table", "Max result", "Clumsy", "Critical"],
                         ["Longsword", "Broadsword", 150, 4, "S" if with_slash else "K"]]
    sheets["Creatures"] = [["Kind", "creatures"], [], ["Name", "DEF", "Armor", "Features"], ["Orc Warrior", 25, "12", "helm"]]
    return sheets


def ok(result) -> str:  # type: ignore[no-untyped-def]
    """A CLI result's stdout, after checking it succeeded."""
    assert result.exit_code == 0, result.output
    return result.stdout


def sheets_of(path: Path) -> dict[str, list[tuple]]:
    """Every sheet's rows of an .xlsx, as values, cell for cell."""
    import openpyxl

    book = openpyxl.load_workbook(path)
    return {sheet.title: [tuple(row) for row in sheet.iter_rows(values_only=True)] for sheet in book.worksheets}


def reexported(run, workbook: Path, folder: Path, ruleset: str) -> Path:  # type: ignore[no-untyped-def]
    """``workbook`` imported into a fresh database with the bundled tables
    (``folder``/fresh.db), and ``ruleset`` exported again: the other half of
    an export round trip."""
    fresh = folder / "fresh.db"
    ok(run("db", "init", db=fresh))
    ok(run("import", str(workbook), db=fresh))
    again = folder / "again.xlsx"
    ok(run("export", "-o", str(again), "--ruleset", ruleset, db=fresh))
    return again


def refused(path: Path) -> str:
    """The one-line refusal reading ``path`` gives (fails the test if it reads)."""
    import pytest

    from tables_app.errors import WorkbookInvalid
    from tables_app.sheets.read import read_workbook

    with pytest.raises(WorkbookInvalid) as caught:
        read_workbook(path)
    return str(caught.value)


def workbook_problems(path: Path) -> list[str]:
    """What the interpreter finds in the workbook at ``path``, one line each."""
    from tables_app.sheets.parse import interpret
    from tables_app.sheets.read import read_workbook

    return [str(p) for p in interpret(read_workbook(path)).problems]


@contextmanager
def serving(database: Path, env: dict[str, str] | None = None, options: tuple[str, ...] = ()):  # type: ignore[no-untyped-def]
    """`tables serve [OPTIONS]` over ``database`` on a free loopback port,
    answering /api/v1/health: yields (base address, process); terminated on
    exit, its output left readable on ``process.stdout``."""
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    import pytest

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base = f"http://127.0.0.1:{port}"
    process = subprocess.Popen([sys.executable, "-m", "tables_app", "--db", str(database), "serve", "--port", str(port), *options],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                pytest.fail(f"tables serve stopped (exit {process.returncode}):\n{process.stdout.read()}")
            try:
                with urllib.request.urlopen(f"{base}/api/v1/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"tables serve did not answer {base}/api/v1/health within 30 s")
            time.sleep(0.1)
        yield base, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def layout_workbook(path: Path) -> Path:
    """Three fumble sheets, each with what the readers cannot see inside its
    grid: row 6 hidden (Rows), column C hidden (Cols), A5:A6 merged over its
    Roll column (Merged: a merge the importer refuses; docs/workbook-format.md,
    "Sheet layout")."""
    import openpyxl

    build_workbook(path, {
        "Rows": [["Kind", "fumble"], ["Name", "A"], [], ["Roll", "Text"], ["1-50", "a"], ["51+", "b"]],
        "Cols": [["Kind", "fumble"], ["Name", "B"], [], ["Roll", "Text", "Hits"], ["1-50", "a", 1], ["51+", "b", 2]],
        "Merged": [["Kind", "fumble"], ["Name", "C"], [], ["Roll", "Text"], ["1-50", "a"], ["51+", "a"]],
    })
    book = openpyxl.load_workbook(path)
    book["Rows"].row_dimensions[6].hidden = True
    book["Cols"].column_dimensions["C"].hidden = True
    book["Merged"].merge_cells("A5:A6")
    book.save(path)
    return path


class _OverBudget(BaseException):
    """Raised inside the code under test once it has run past its budget: not
    an Exception, so no `except Exception` in the package turns it into a refusal."""


@dataclass
class Work:
    """What a block of code did, counted rather than timed (the suite runs on
    shared, loaded machines, where a clock says more about the neighbours):
    ``lines``, the lines of Python it ran, in any module (sys.settrace), and
    ``peak``, the most memory Python held for it at once, in bytes (tracemalloc)."""

    lines: int = 0
    peak: int = 0


@contextmanager
def counted_work(max_lines: int | None = None):  # type: ignore[no-untyped-def]
    """Count the work of the block (Work); past ``max_lines`` lines, stop the
    block at once and fail, so a loop that would run for minutes fails in a
    moment. Work done in C (expat, zlib, re) and in child processes is not
    counted as lines; the memory C allocates through Python is in ``peak``."""
    import sys
    import threading
    import tracemalloc

    work = Work()

    def lines(frame, event, arg):  # type: ignore[no-untyped-def]
        """The trace of every call (returned, the trace of its lines too)."""
        if event == "line":
            work.lines += 1
            if max_lines is not None and work.lines > max_lines:
                raise _OverBudget
        return lines

    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    tracemalloc.reset_peak()
    before = tracemalloc.get_traced_memory()[0]
    previous, previous_threads = sys.gettrace(), threading.gettrace()
    threading.settrace(lines)
    sys.settrace(lines)
    try:
        yield work
    except _OverBudget:
        raise AssertionError(f"more than {max_lines:,} lines of Python run") from None
    finally:
        sys.settrace(previous)
        threading.settrace(previous_threads)  # type: ignore[arg-type]
        work.peak = max(tracemalloc.get_traced_memory()[1] - before, 0)
        if not tracing:
            tracemalloc.stop()


# A valid body of resolve (and odds) in each system, for the HTTP tests that change one field of it.
VALID_ATTACKS = {
    "table": {"weapon": "Longsword", "cmb": 60, "def": 20, "armor": "MA"},
    "rise": {"accuracy": 6, "def": 12, "damage": "2d6+3"},
    "worlds-awakening": {"stat": 2, "level": 3, "def": 15, "damage": ["2d6+1"]},
    "d10-pool": {"bonus": 3, "attacks": 2, "ad": 7, "toughness": 4, "damage": "2d6"},
    "pte": {"accuracy": 2, "ac": 2, "evasion": 3, "stat": 15, "damage_base": 10, "def": 15},
}


def without_creature_attacks(path: Path) -> None:
    """The bundled creatures' attacks deleted, so the database may go below
    0007 (its downgrade is refused while a creature has attacks): for the
    tests that take the bundled tables down to an older schema."""
    with closing(sqlite3.connect(path)) as connection, connection:
        connection.execute("DELETE FROM creature_attack")


def command_line(body: dict) -> list[str]:
    """An HTTP body as the command line docs/api.md says it stands for: each
    field a long option, a list repeating it, `true` a flag, dice as 97,34."""
    words: list[str] = []
    for key, value in body.items():
        flag = "--" + key.replace("_", "-")
        if value is True:
            words.append(flag)
        elif key == "dice" and isinstance(value, list):
            words += [flag, ",".join(map(str, value))]
        elif isinstance(value, list):
            words += [word for item in value for word in (flag, str(item))]
        else:
            words += [flag, str(value)]
    return words


# Runs the Python command line it is given (`-m tables_app ...`) with SIGINT at its
# default: an exec keeps a signal ignored, but one at its default stays at its
# default, and the new Python then installs its own handler as for any user.
# (Not preexec_fn, which is unsafe in a process with threads.)
SIGINT_AT_DEFAULT = ("import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
                     "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")


def _worked(pid: int, seconds: float) -> None:
    """Wait until process ``pid`` has used ``seconds`` of CPU (its start-up, then its work), not of the wall clock:
    on a loaded machine a second of wall time may end before the child's Python has even installed its SIGINT
    handler (the signal then kills it: exit -2). Without /proc, ``seconds`` of wall time."""
    import os
    import time

    stat = f"/proc/{pid}/stat"
    if not os.path.exists(stat):
        time.sleep(seconds)
        return
    tick = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with open(stat) as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            return  # it ended: the caller says so
        if (int(fields[11]) + int(fields[12])) / tick >= seconds:  # utime + stime (fields 14 and 15 of stat)
            return
        time.sleep(0.02)


def interrupted(db_path: Path, args: list[str], after: float = 1.0) -> tuple[int, str, str]:
    """`python -m tables_app --db DB ARGS` sent a real SIGINT ``after`` CPU-seconds in
    (past start-up: an interrupt while Python itself is still importing modules,
    the first ~0.1 s, is Python's own): (exit code, stderr, stdout).

    The child starts with SIGINT at its default whatever this process inherited
    (SIGINT_AT_DEFAULT): Python turns SIGINT into KeyboardInterrupt only if it
    did not start with the signal ignored, as it is under `nohup`, after `cmd &`
    in a non-interactive shell, or in a CI runner that ignores it."""
    import signal
    import subprocess
    import sys

    process = subprocess.Popen([sys.executable, "-c", SIGINT_AT_DEFAULT, "-m", "tables_app", "--db", str(db_path), *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _worked(process.pid, after)
        assert process.poll() is None, process.communicate()
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    return process.returncode, err, out


def fight_state(data: dict) -> dict:  # type: ignore[type-arg]
    """A fight's JSON without its log's ``version``, which every write bumps (an undo too): the state alone, which
    an undo restores exactly."""
    return {key: value for key, value in data.items() if key != "version"}
