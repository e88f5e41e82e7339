"""Completion in real shells (issue 28, item 2): bash, zsh and fish, each
in a terminal (a pty), with the script `_TABLES_COMPLETE=SHELL_source
tables` prints. A name with a space, or with ``'``, completed at a TAB must
reach the command as one argument: the line is then run as
``printf '<%s>' ...``, which shows each argument between brackets.

A shell not installed is skipped, unless TABLES_REQUIRE_SHELLS is set (as
.ci/run sets it, having installed all three)."""

from __future__ import annotations

import os
import re
import select
import shutil
import sys
import time
from pathlib import Path

import pytest

# Slow (~25 s of real shells in terminals), so run by `pytest -m slow` (and CI), not a plain `pytest`.
pytestmark = [pytest.mark.timeout(90), pytest.mark.slow, pytest.mark.sqlite_only]  # the database file beside the shell's home

SETUP = {
    "bash": (["bash", "--norc", "--noprofile", "-i"], 'eval "$(_TABLES_COMPLETE=bash_source tables)"'),
    "zsh": (["zsh", "-f", "-i"], 'autoload -U compinit; compinit -u; bindkey -e; eval "$(_TABLES_COMPLETE=zsh_source tables)"'),
    "fish": (["fish", "--no-config", "-i"], "_TABLES_COMPLETE=fish_source tables | source"),
}
ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07|\r")


class Terminal:
    """A shell in a pty: type into it, read what it shows."""

    def __init__(self, argv: list[str], env: dict[str, str]):
        import pty

        self.pid, self.master = pty.fork()  # the pty the child's controlling terminal, as fish insists
        if self.pid == 0:
            try:
                os.execvpe(argv[0], argv, env)
            finally:
                os._exit(127)
        self.seen = b""

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def until(self, pattern: bytes, seconds: float = 20) -> bytes:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if re.search(pattern, ANSI.sub(b"", self.seen)):
                return ANSI.sub(b"", self.seen)
            ready, _, _ = select.select([self.master], [], [], 0.2)
            if ready:
                try:
                    self.seen += os.read(self.master, 65536)
                except OSError:
                    break
        pytest.fail(f"never saw {pattern!r}; the terminal showed:\n{ANSI.sub(b'', self.seen)[-1500:]!r}")

    def close(self) -> None:
        import signal

        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        os.close(self.master)


@pytest.fixture
def completion_db(run, db_path: Path, write_workbook) -> Path:  # type: ignore[no-untyped-def]
    """The bundled tables and a weapon whose name holds a `'`."""
    path = write_workbook("quoted.xlsx", {"Weapons": [
        ["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"],
        ["Smith's Hammer", "Blunt", 100, 3, "Impact"], ["Cost$HOME Blade", "Edged", 100, 3, "Cut"],
        ["Back\\slash Axe", "Edged", 100, 3, "Cut"]]})
    result = run("import", str(path))
    assert result.exit_code == 0, result.output
    return db_path


@pytest.mark.parametrize("shell", sorted(SETUP))
@pytest.mark.parametrize(("typed", "argument"), [
    ("Morn", "Morning Star"), ("Smith", "Smith's Hammer"), ('"Morn', "Morning Star"),
    ("'Smith", "Smith's Hammer"), ("Cost", "Cost$HOME Blade"), ('"Cost', "Cost$HOME Blade"),  # found by review
    ("Back", "Back\\slash Axe"), ('"Back', "Back\\slash Axe"),
])
def test_a_name_with_a_space_or_a_quote_completes_as_one_argument(completion_db: Path, shell: str, typed: str,
                                                                   argument: str) -> None:
    argv, setup = SETUP[shell]
    if shutil.which(argv[0]) is None:
        if os.environ.get("TABLES_REQUIRE_SHELLS"):  # .ci/run installs them
            pytest.fail(f"{shell} is not installed")
        pytest.skip(f"{shell} is not installed")
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(completion_db.parent), "TERM": "xterm",
           "TABLES_DB": str(completion_db), "PS1": "$ ", "LANG": "C.UTF-8", "COLUMNS": "200", "LINES": "50"}
    terminal = Terminal(argv, env)
    try:
        terminal.type(setup + ("; echo READY-(math 6 \\* 7)\n" if shell == "fish" else "; echo READY-$((6*7))\n"))
        terminal.until(rb"READY-42")
        terminal.type(f"tables show weapon {typed}\t")
        time.sleep(0.5)
        terminal.until(re.escape(argument.split()[-1].encode()), 30)  # the completion shown
        time.sleep(0.5)
        terminal.type("\x01printf '<%s>' \x05\n")  # to the line's start, prefix, to its end, run
        shown = terminal.until(rb"<weapon><[^>]*>")
        assert f"<tables><show><weapon><{argument}>".encode() in shown, shown[-600:]
    finally:
        terminal.close()
