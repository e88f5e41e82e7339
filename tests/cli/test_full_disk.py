"""`tables export`, `tables template` and `export --format foundry` onto a
full disk (issue 27): the one Error line, exit 1, nothing after it (no
`Exception ignored in: ZipFile.__del__`), and nothing left where they wrote.

The command runs in its own process (what Python prints at exit is what the
user sees), its writes under one folder failing with ENOSPC after a number of
bytes; and once onto /dev/full itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import builtins, errno, io, os, sys
where, limit = sys.argv[1], int(sys.argv[2])
real_open = builtins.open

class Full(io.FileIO):
    def write(self, data):
        if self.tell() + len(memoryview(data)) > limit:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return super().write(data)

def full_open(file, mode="r", buffering=-1, encoding=None, errors=None, newline=None, closefd=True, opener=None):
    if isinstance(file, (str, os.PathLike)) and os.fspath(file).startswith(where) and set(mode) & set("wxa"):
        buffered = io.BufferedWriter(Full(file, mode.replace("b", "").replace("t", "")))
        return buffered if "b" in mode else io.TextIOWrapper(buffered, encoding=encoding, errors=errors, newline=newline)
    return real_open(file, mode, buffering, encoding, errors, newline, closefd, opener)

builtins.open = full_open
from tables_app.cli.root import main
sys.argv = ["tables", *sys.argv[3:]]
main()
"""
NO_SPACE = os.strerror(28)  # ENOSPC


def on_a_full_disk(where: Path, limit: int, *args: str) -> subprocess.CompletedProcess:
    """The CLI in a process whose writes under ``where`` fail with ENOSPC past ``limit`` bytes a file."""
    env = {**os.environ, "COLUMNS": "10000"}
    return subprocess.run([sys.executable, "-c", PROBE, str(where), str(limit), *args], capture_output=True, text=True,
                          timeout=120, env=env)


EXPORT = ("export", "-o", "{out}/all.xlsx")
TEMPLATE = ("template", "critical", "-o", "{out}/all.xlsx")
FOUNDRY = ("export", "--format", "foundry", "-o", "{out}/new/all")


@pytest.mark.parametrize("command, limit", [(EXPORT, 0), (EXPORT, 4096), (EXPORT, 20_000), (TEMPLATE, 0), (TEMPLATE, 2048),
                                            (FOUNDRY, 0), (FOUNDRY, 2048)])
def test_a_full_disk_is_the_one_error_line_and_leaves_nothing(db_path, tmp_path, command, limit):
    out = tmp_path / "out"
    out.mkdir()
    args = [part.format(out=out) for part in command]
    result = on_a_full_disk(out, limit, "--db", str(db_path), *args)
    written = args[args.index("-o") + 1]
    assert (result.returncode, result.stderr) == (1, f"Error: cannot write {written}: {NO_SPACE}\n"), result.stderr
    assert result.stdout == ""
    assert list(out.iterdir()) == []  # no half-written workbook, no file of the export, no directory it made


def test_the_json_error_then_nothing(db_path, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    result = on_a_full_disk(out, 4096, "--db", str(db_path), "export", "-o", str(out / "all.xlsx"), "--json")
    assert result.returncode == 1
    assert result.stderr == f"Error: cannot write {out / 'all.xlsx'}: {NO_SPACE}\n"
    assert result.stdout.startswith('{"error": {"message": "cannot write') and result.stdout.count("\n") == 1
    assert list(out.iterdir()) == []


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_export_onto_dev_full(db_path, tmp_path):
    """A name that is /dev/full (ENOSPC on every write) is a device, refused
    before anything is written (docs/security.md, "Files and the command line");
    a disk that fills while writing is the cases above."""
    target = tmp_path / "full.xlsx"
    target.symlink_to("/dev/full")
    result = subprocess.run([sys.executable, "-m", "tables_app", "--db", str(db_path), "export", "-o",
                             str(target), "--force"], capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (
        1, f"Error: {target} is a character device, not a file; give the name of a new or a regular .xlsx file\n")
