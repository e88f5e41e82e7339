"""python-calamine in a sandbox: every worksheet's values, read by a child
process with an address-space limit and a timeout (sheets/calamine_child.py).

calamine reads a workbook ten times faster than openpyxl, but it has no
memory cap and aborts the whole process on some crafted sheets (cells at A1
and XFD1048576). In a child, the worst it can do is die: the import then
stops with one clear problem, and the importing process lives on.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from tables_app.errors import Problem, WorkbookInvalid
from tables_app.sheets.raw import RawSheet
from tables_app.sheets.values import LinedText

MEMORY_LIMIT_BYTES = 1 << 30  # the child's address space: 1 GiB (a Rolemaster-scale read needs ~60 MB)
TIMEOUT_SECONDS = 60  # a Rolemaster-scale read takes 0.1 s, sixteen times that 1.5 s
# After sys.executable: the search path comes first on stdin, so the child imports this very tables_app.
# -S: no site module (the parent's sys.path, sent first, already holds what it added), a faster start.
# The child limits its own memory first: no preexec_fn, which is unsafe in a
# process with threads (the HTTP API imports from a worker thread).
CHILD_ARGUMENTS = ["-P", "-S", "-c", f"import resource; resource.setrlimit(resource.RLIMIT_AS, "
                                     f"({MEMORY_LIMIT_BYTES}, {MEMORY_LIMIT_BYTES})); "
                                     "import json, sys; request = json.loads(sys.stdin.readline()); sys.path[:] = request[0]; "
                                     "from tables_app.sheets.calamine_child import main; main(request[1:])"]



def available() -> bool:
    """Whether a sandboxed child can be started here (not in a frozen app, and
    with resource limits: POSIX)."""
    if getattr(sys, "frozen", False):
        return False
    return importlib.util.find_spec("resource") is not None  # POSIX only


class SandboxedRead:
    """One workbook being read by a sandboxed child; ``result()`` waits for it, ``stop()`` ends it."""

    def __init__(self, path: Path, name: str, max_rows: int, max_columns: int):
        self.name = name
        request = (json.dumps([_search_path(), str(path), max_rows, max_columns]) + "\n").encode()
        self.process: subprocess.Popen[bytes] | None
        try:
            self.process = process = subprocess.Popen(
                [sys.executable, *_interpreter_flags(), *CHILD_ARGUMENTS], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.started = time.monotonic()
        except OSError as exc:
            self.process, self.failure = None, exc
            return
        stdin, process.stdin = process.stdin, None  # closed here: communicate() must not touch it
        assert stdin is not None  # a pipe, asked for above
        try:
            with stdin:  # a few hundred bytes: the pipe takes them at once, and the child starts
                stdin.write(request)
        except BrokenPipeError:
            pass  # the child died at once: result() says how

    def result(self) -> list[RawSheet]:
        """Every worksheet, cleaned and bounded, in workbook order;
        WorkbookInvalid naming the file if the child fails, runs out of memory or time."""
        if self.process is None:
            raise _cannot(self.name, f"the reader could not start ({self.failure})")
        left = max(TIMEOUT_SECONDS - (time.monotonic() - self.started), 0.01)
        try:
            out, err = self.process.communicate(timeout=left)
        except subprocess.TimeoutExpired:
            self.stop()
            raise _cannot(self.name, f"reading it took longer than {TIMEOUT_SECONDS} s (a crafted file?)") from None
        if self.process.returncode != 0:
            if self.process.returncode < 0 or b"MemoryError" in err or b"memory allocation" in err:
                raise _cannot(self.name, f"it needs more than {MEMORY_LIMIT_BYTES >> 20:,} MB to read (a crafted file?)")
            raise _cannot(self.name, f"the reader stopped (exit {self.process.returncode})")
        result = json.loads(out)
        if "error" in result:
            raise _cannot(self.name, _plainly(result["error"]))
        sheets = result["sheets"]
        for sheet, row, column, value in result["special"]:  # dates and times, by index
            sheets[sheet][3][row][1][column] = _decode(value)
        return [RawSheet(title, hidden, tuple((number, tuple(cells)) for number, cells in rows), too_big)
                for title, hidden, too_big, rows in sheets]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


def start(path: Path, name: str, max_rows: int, max_columns: int) -> SandboxedRead:
    """Start reading ``path`` in a sandboxed child; the caller goes on meanwhile
    (the guard checks the file on the other core) and then takes the result."""
    return SandboxedRead(path, name, max_rows, max_columns)


def _decode(value: object) -> object:
    if isinstance(value, dict):
        if "datetime" in value:
            return dt.datetime.fromisoformat(value["datetime"])
        if "time" in value:
            return dt.time.fromisoformat(value["time"])
        if "lines" in value:
            return LinedText(value["lines"])
        return dt.timedelta(seconds=value["timedelta"])
    return value  # str() of a type the child did not know


def _plainly(error: str) -> str:
    """calamine's own words, and what they mean where they say little."""
    if "Cannot detect file format" in error:  # every format it knows failed on this file
        return f"{error} (calamine reads none of it; open and save it in a spreadsheet program)"
    return error


def _cannot(name: str, why: str) -> WorkbookInvalid:
    return WorkbookInvalid([Problem(name, None, None, f"cannot read the workbook: {why}")])


def _interpreter_flags() -> list[str]:
    """The flags this interpreter was started with (-I, -E, -s, -S, …), so the
    child is no less isolated than the importing process."""
    try:
        return subprocess._args_from_interpreter_flags()  # type: ignore[attr-defined]  # private, not in typeshed: what multiprocessing uses
    except Exception:  # a private helper: without it, plain flags
        return []


def _search_path() -> list[str]:
    """This process's sys.path for the child (which runs with -P: never the
    current directory): absolute, this very tables_app first."""
    package_root = str(Path(__file__).resolve().parents[2])
    return [package_root, *(os.path.abspath(entry) for entry in sys.path if entry)]
