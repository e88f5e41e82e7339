"""Files the commands read or write that cannot be: a path component over
255 bytes, a named pipe (FIFO), a device, a socket. Each is one ``Error:``
line naming the path, exit 1, nothing changed; a FIFO is never opened (it
would block the command forever: the tests' timeout turns a regression into
a failure, not a hang)."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from helpers import error_lines

LONG = "a" * 300  # one path component over the 255 bytes a file name may have

pytestmark = [pytest.mark.timeout(60), pytest.mark.sqlite_only]  # the SQLite file itself


def one_error(result) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code == 1, result.output
    lines = error_lines(result).splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def writes(path: Path) -> list[list[str]]:
    return [["export", "-o", str(path)], ["export", "-o", str(path), "--force"],
            ["template", "weapons", "-o", str(path)], ["template", "weapons", "-o", str(path), "--force"]]


@pytest.mark.parametrize("verb", ["import", "lint"])
def test_a_workbook_name_too_long(run, db_path: Path, dump, tmp_path: Path, verb: str) -> None:  # type: ignore[no-untyped-def]
    before = dump(db_path)
    line = one_error(run(verb, str(tmp_path / f"{LONG}.xlsx")))
    assert line == f"Error: {LONG}.xlsx: cannot read it (File name too long)"
    line = one_error(run(verb, str(tmp_path / LONG / "x.xlsx")))
    assert line == "Error: x.xlsx: cannot read it (File name too long)"
    assert dump(db_path) == before


def test_an_output_name_too_long(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / f"{LONG}.xlsx"
    for args in writes(path):
        assert one_error(run(*args)) == f"Error: cannot write {path}: File name too long", args
    folder = tmp_path / LONG
    assert one_error(run("export", "--format", "foundry", "-o", str(folder))) == f"Error: cannot write {folder}: File name too long"
    inside = tmp_path / LONG / "out.xlsx"
    assert one_error(run("export", "-o", str(inside))) == f"Error: cannot write {inside}: File name too long"
    assert os.listdir(tmp_path) == ["tables.db"]


def test_a_plot_name_too_long(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / f"{LONG}.png"
    line = one_error(run("odds", "table", "--weapon", "Dagger", "--armor", "MA", "--cmb", "50", "--plot", str(path)))
    assert line == f"Error: cannot write the plot {path}: File name too long"


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.xlsx"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize("verb", ["import", "lint"])
def test_a_fifo_is_not_read(run, db_path: Path, dump, fifo: Path, verb: str) -> None:  # type: ignore[no-untyped-def]
    before = dump(db_path)
    assert one_error(run(verb, str(fifo))) == "Error: pipe.xlsx: it is a named pipe (FIFO), not a file"
    assert dump(db_path) == before


def test_a_fifo_is_not_written(run, fifo: Path) -> None:  # type: ignore[no-untyped-def]
    for args in writes(fifo):
        line = one_error(run(*args))
        assert line == f"Error: {fifo} is a named pipe (FIFO), not a file; give the name of a new or a regular .xlsx file", args
    for force in ([], ["--force"]):
        line = one_error(run("export", "--format", "foundry", "-o", str(fifo), *force))
        assert line == f"Error: {fifo} is a named pipe (FIFO), not a directory"


def test_a_fifo_is_not_a_plot(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "pipe.png"
    os.mkfifo(path)
    line = one_error(run("odds", "table", "--weapon", "Dagger", "--armor", "MA", "--cmb", "50", "--plot", str(path)))
    assert line == f"Error: the plot {path} is a named pipe (FIFO), not a file; give the name of a new or a regular .png file"


def test_a_foundry_export_replaces_a_fifo_among_its_files_never_writing_into_it(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    folder = tmp_path / "foundry"
    assert run("export", "--format", "foundry", "-o", str(folder), "Edged").exit_code == 0
    first = sorted(folder.iterdir())[0]
    first.unlink()
    os.mkfifo(first)
    assert one_error(run("export", "--format", "foundry", "-o", str(folder), "Edged")) == (
        f"Error: {first} already exists; give --force to overwrite it, or another directory")
    assert run("export", "--format", "foundry", "-o", str(folder), "Edged", "--force").exit_code == 0
    assert first.is_file()


def test_a_device_and_a_socket(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    assert one_error(run("import", "/dev/null")) == "Error: null: it is a character device, not a file"
    listening = socket.socket(socket.AF_UNIX)
    path = tmp_path / "s.xlsx"
    try:
        listening.bind(str(path))
        assert one_error(run("lint", str(path))) == "Error: s.xlsx: it is a socket, not a file"
        assert one_error(run("template", "weapons", "-o", str(path), "--force")) == (
            f"Error: {path} is a socket, not a file; give the name of a new or a regular .xlsx file")
    finally:
        listening.close()


def test_a_link_to_a_fifo_is_the_fifo(run, fifo: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    link = tmp_path / "link.xlsx"
    link.symlink_to(fifo)
    assert one_error(run("import", str(link))) == "Error: link.xlsx: it is a named pipe (FIFO), not a file"
    assert one_error(run("export", "-o", str(link), "--force")).startswith(f"Error: {link} is a named pipe (FIFO), not a file")


def test_a_database_path_that_is_not_a_file(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tables_app.cli.root import cli

    pipe = tmp_path / "pipe.db"
    os.mkfifo(pipe)
    runner = CliRunner()
    for args in (["--db", str(pipe), "list"], ["db", "init", str(pipe)], ["--db", str(pipe), "db", "check"]):
        line = one_error(runner.invoke(cli, args))
        assert line == f"Error: {pipe}: a named pipe (FIFO), not a database file; nothing was changed; give a file's path", args
    assert pipe.is_fifo()  # never replaced by a new database
    line = one_error(runner.invoke(cli, ["--db", "/dev/null", "list"]))  # (never `db init /dev/null`: a regression would replace it)
    assert line == "Error: /dev/null: a character device, not a database file; nothing was changed; give a file's path"
