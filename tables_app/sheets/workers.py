"""Reading a big workbook's sheets in more than one process.

openpyxl parses XML in pure Python, on one core, and that parsing is most of
an import at Rolemaster scale. With spare cores and enough sheet XML to pay
for a process (≈0.3 s to start an interpreter and import openpyxl), helper
processes each read a share of the sheets while this process reads its own.

A helper is `python -P -c ...` running ``main`` below, told this process's
sys.path and what to read on its stdin, sending pickled RawSheets on its
stdout. Not multiprocessing: its "spawn" re-runs the caller's main script in
the child (a script without an `if __name__ == "__main__"` guard would run
twice), and "fork" could copy a lock held by another thread (the progress
bar runs one). Helpers only ever open a file the guard has passed. Whatever goes wrong with one (it cannot
start, dies, cannot open the file), this process reads that share itself:
the result never depends on how many processes read it.
"""

from __future__ import annotations

import os
import pickle
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from tables_app.errors import WorkbookInvalid

if TYPE_CHECKING:
    from tables_app.sheets.raw import RawSheet

# A helper's start (an interpreter importing openpyxl, ≈0.45 s) costs about as
# much as parsing this much sheet XML (openpyxl parses ≈2 MB a second): helpers
# get that much less to read, and none is started for less than that.
START_COST_BYTES = 600_000
MAX_PROCESSES = 4
PROCESSES_VARIABLE = "TABLES_IMPORT_PROCESSES"  # at most this many readers; 1 turns helpers off
# A helper imports from exactly this process's sys.path (sent first on its
# stdin), never from the current directory (-P): the same tables_app and
# openpyxl as the importing process, and no stray openpyxl.py picked up.
HELPER_ARGUMENTS = ["-P", "-c", "import pickle, sys; sys.path[:] = pickle.load(sys.stdin.buffer); "
                                "from tables_app.sheets.workers import main; main()"]  # after sys.executable
SILENCE_SECONDS = 120.0  # a helper that sends nothing for this long is stopped and its share read here


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def process_limit() -> int:
    wanted = os.environ.get(PROCESSES_VARIABLE, "").strip()
    if wanted.isdigit() and int(wanted) >= 1:
        return int(wanted)
    return min(usable_cores(), MAX_PROCESSES)


def plan(sheet_sizes: list[tuple[str, int]], processes: int | None = None) -> list[list[str]]:
    """Sheet titles in shares, each in workbook order: the first for this
    process, the others for helpers, sized so that all finish together. One
    share: this process reads alone."""
    total = sum(size for _, size in sheet_sizes)
    count = min(processes or process_limit(), len(sheet_sizes), total // START_COST_BYTES)
    if count < 2:
        return [[title for title, _ in sheet_sizes]]
    loads = [0] + [START_COST_BYTES] * (count - 1)
    owner: dict[str, int] = {}
    for title, size in sorted(sheet_sizes, key=lambda item: -item[1]):  # largest first, to the least loaded
        least = loads.index(min(loads))
        owner[title] = least
        loads[least] += size
    shares = [[title for title, _ in sheet_sizes if owner[title] == n] for n in range(count)]
    return [shares[0]] + [share for share in shares[1:] if share]


@dataclass
class Helper:
    titles: list[str]
    process: subprocess.Popen
    arrived: queue.Queue = field(default_factory=queue.Queue)  # (title, outcome)…, then None when done
    finished: bool = False


def start(path: Path, name: str, shares: list[list[str]]) -> list[Helper]:
    """One helper process per share; none if processes cannot be started here."""
    if not shares or getattr(sys, "frozen", False):  # a frozen app's executable is not a Python
        return []
    helpers: list[Helper] = []
    try:
        for titles in shares:
            process = subprocess.Popen([sys.executable, *_interpreter_flags(), *HELPER_ARGUMENTS],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE)
            helper = Helper(titles, process)
            helpers.append(helper)
            with process.stdin:
                pickle.dump(_search_path(), process.stdin)
                pickle.dump((str(path), name, titles), process.stdin)
            threading.Thread(target=_receive, args=(process.stdout, helper.arrived), daemon=True).start()
    except Exception:  # no way to start a process here: this process reads it all
        stop(helpers)
        return []
    return helpers


def _interpreter_flags() -> list[str]:
    """The flags this interpreter was started with (-I, -E, -s, -S, …), so a
    helper is no less isolated than the importing process."""
    try:
        return subprocess._args_from_interpreter_flags()  # type: ignore[attr-defined]  # what multiprocessing uses
    except Exception:  # a private helper: without it, plain flags
        return []


def _search_path() -> list[str]:
    """This process's sys.path for a helper: absolute, and without the "" that
    means whatever the current directory is now (it may have changed)."""
    package_root = str(Path(__file__).resolve().parents[2])  # this very tables_app comes first
    return [package_root, *(os.path.abspath(entry) for entry in sys.path if entry)]


def _receive(stream: BinaryIO, arrived: queue.Queue) -> None:
    """A thread per helper, so this process can look for arrivals without blocking."""
    try:
        while True:
            arrived.put(pickle.load(stream))
    except Exception:  # EOFError when done; anything else: the helper died mid-sheet
        pass
    finally:
        arrived.put(None)


def _arrivals(helpers: list[Helper], wait: bool) -> Iterator[tuple[str, RawSheet | WorkbookInvalid]]:
    """What helpers have sent; with ``wait``, everything until each is done."""
    for helper in helpers:
        while not helper.finished:
            try:
                item = helper.arrived.get(block=wait, timeout=SILENCE_SECONDS if wait else None)
            except queue.Empty:
                if wait:  # stuck: what it did not send is read here
                    helper.process.kill()
                    helper.finished = True
                break
            if item is None:
                helper.finished = True
            else:
                yield item


def stop(helpers: list[Helper]) -> None:
    for helper in helpers:
        if helper.process.poll() is None:
            helper.process.kill()
        helper.process.wait()
        helper.process.stdout.close()


def main() -> None:
    """A helper: read (path, name, titles) from stdin; send (title, RawSheet |
    WorkbookInvalid) for each sheet in turn, stopping after the first that
    fails, as a lone read would."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it stops us
    results = sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the results
    # openpyxl imports numpy if it can, only to write numpy numbers; a helper
    # only reads, and starts 0.14 s sooner without it.
    sys.modules.setdefault("numpy", None)  # type: ignore[arg-type]
    from tables_app.sheets.raw import attempt, open_book

    try:
        path, name, titles = pickle.load(sys.stdin.buffer)
        book = open_book(Path(path), name)
        try:
            for title in titles:
                outcome = attempt(name, book[title])
                pickle.dump((title, outcome), results, protocol=pickle.HIGHEST_PROTOCOL)
                results.flush()
                if isinstance(outcome, WorkbookInvalid):
                    break
        finally:
            book.close()
    except Exception:  # the parent reads what was not sent, and reports any problem itself
        sys.exit(1)


def collect(shares: list[list[str]], helpers: list[Helper], read: Callable[[str], RawSheet | WorkbookInvalid],
            on_sheet: Callable[[int, int, str], None] | None) -> dict[str, RawSheet | WorkbookInvalid]:
    """Every sheet's outcome by title: the first share read here with ``read``,
    the others by ``helpers``, and here whatever a helper did not send.

    Each share stops at its first failure, so the first failure in workbook
    order is always among the outcomes: the one a lone read would report.
    """
    total = sum(len(share) for share in shares)
    outcomes: dict[str, RawSheet | WorkbookInvalid] = {}

    def record(title: str, outcome: RawSheet | WorkbookInvalid) -> None:
        outcomes[title] = outcome
        if on_sheet:
            on_sheet(len(outcomes), total, title)

    def read_here(titles: list[str]) -> None:
        if any(isinstance(outcomes.get(title), WorkbookInvalid) for title in titles):
            return  # the share already stopped at its failure
        for title in titles:
            if title in outcomes:
                continue
            outcome = read(title)
            record(title, outcome)
            for arrived in _arrivals(helpers, wait=False):  # keep the progress honest
                record(*arrived)
            if isinstance(outcome, WorkbookInvalid):
                return

    read_here(shares[0])
    for arrived in _arrivals(helpers, wait=True):
        record(*arrived)
    for titles in shares[1:]:  # a share a helper did not finish (it could not start, open the file, or died)
        read_here(titles)
    return outcomes

