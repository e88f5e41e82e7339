"""Bytes on the command line that are not UTF-8 (Python hands them over as
lone surrogates, ``\\udcff``): a name made of them cannot exist, so it is
not found, in one ``Error:`` line; a path is the file the system names with
those bytes. Printing such text never fails, even on a strict UTF-8 console."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import error_lines

BAD = os.fsdecode(b"\xff")  # '\udcff'


def tables(*args: bytes | str, env: dict[str, str] | None = None, strict: bool = True) -> subprocess.CompletedProcess:
    """The real `tables`, with real argv bytes; the console strict UTF-8 unless ``strict`` is False."""
    environment = {**os.environ, **(env or {})}
    if strict:
        environment["PYTHONIOENCODING"] = "utf-8:strict"
    return subprocess.run([sys.executable, "-m", "tables_app", *args], capture_output=True, env=environment, timeout=60)


def one_error(result: subprocess.CompletedProcess) -> str:
    assert result.returncode == 1, result.stderr
    assert b"Traceback" not in result.stderr + result.stdout
    lines = result.stderr.decode("utf-8").splitlines()  # strict: what was printed is UTF-8
    assert len(lines) == 1 and lines[0].startswith("Error: "), lines
    return lines[0]


@pytest.mark.parametrize("args, said", [
    ((b"show", b"weapon", b"Long\xffsword"), "no weapon named 'Long\\udcffsword' (its bytes are not UTF-8; no name can be)"),
    ((b"query", b"attack", b"\xff", b"55", b"MA"), "no attack table named '\\udcff' (its bytes are not UTF-8"),
    ((b"show", b"weapon", b"default:Long\xffsword"), "no weapon named 'Long\\udcffsword' in ruleset 'default' (its bytes"),
    ((b"query", b"attack", b"Edged", b"55", b"\xff"), "has no armor column '\\udcff'"),
    ((b"show", b"weapon", b"Dagger", b"--ruleset", b"\xff"), "no ruleset named '\\udcff'"),
])
def test_a_name_that_is_not_utf8_is_not_found(db_path: Path, args: tuple[bytes, ...], said: str) -> None:
    before = db_path.read_bytes()
    assert said in one_error(tables(b"--db", os.fsencode(db_path), *args))
    assert db_path.read_bytes() == before


def test_the_json_error_escapes_it(db_path: Path) -> None:
    result = tables(b"--db", os.fsencode(db_path), b"show", b"weapon", b"Long\xffsword", b"--json")
    assert result.returncode == 1 and b"Traceback" not in result.stderr
    error = json.loads(result.stdout.decode("utf-8"))["error"]
    assert error["message"].startswith("no weapon named 'Long\\udcffsword'")


def test_text_of_such_bytes_in_a_result_is_printed_escaped(db_path: Path) -> None:
    args = (b"--db", os.fsencode(db_path), b"resolve", b"table", b"--weapon", b"Dagger", b"--cmb", b"50", b"--armor", b"MA",
            b"--mod", b"\xff=3", b"--dice", b"15")
    people = tables(*args)
    assert people.returncode == 0, people.stderr
    assert b"(\\udcff)" in people.stdout
    as_json = tables(*args, b"--json")
    assert as_json.returncode == 0, as_json.stderr
    assert f"({BAD})" in json.loads(as_json.stdout.decode("utf-8"))["steps"][1]  # the JSON reads back as the same text


@pytest.mark.parametrize("how", ["--db", "TABLES_DB"])
def test_a_database_path_is_the_bytes_given(tmp_path: Path, bundled_db_template: Path, how: str) -> None:
    path = os.fsencode(tmp_path) + b"/\xff.db"
    command = [b"--db", path] if how == "--db" else []
    env = {} if how == "--db" else {"TABLES_DB": os.fsdecode(path)}
    missing = one_error(tables(*command, b"list", b"weapon", env=env))
    assert missing == (f"Error: no database at {os.fsdecode(tmp_path)}/\\udcff.db "
                       f"(create one with: tables db init $'{os.fsdecode(tmp_path)}/\\xff.db')")
    assert not os.path.exists(path)
    shutil.copyfile(bundled_db_template, path)
    found = tables(*command, b"show", b"weapon", b"Dagger", env=env)
    assert found.returncode == 0 and b"Dagger" in found.stdout, found.stderr


@pytest.mark.slow  # seconds: child processes
def test_db_init_makes_the_file_of_those_bytes(tmp_path: Path) -> None:
    path = os.fsencode(tmp_path) + b"/\xff.db"
    made = tables(b"db", b"init", path)
    assert made.returncode == 0, made.stderr
    assert os.listdir(os.fsencode(tmp_path)) == [b"\xff.db"]
    assert tables(b"--db", path, b"show", b"weapon", b"Dagger").returncode == 0


def test_through_click_runner(run) -> None:  # type: ignore[no-untyped-def]
    result = run("show", "weapon", f"Long{BAD}sword")
    assert result.exit_code == 1
    assert error_lines(result).startswith("Error: no weapon named 'Long\\udcffsword' (its bytes are not UTF-8")
    shown = run("show", "weapon", f"Long{BAD}sword", "--json")
    assert json.loads(shown.stdout)["error"]["message"].startswith("no weapon named 'Long\\udcffsword'")


@pytest.mark.parametrize("verb", [b"import", b"lint"])
def test_a_workbook_whose_file_name_is_not_utf8(db_path: Path, tmp_path: Path, verb: bytes) -> None:
    """The database keeps a workbook by its file name: one that is not UTF-8 is refused, in one line, nothing changed."""
    from tables_app.services.database_setup import example_workbook

    path = os.fsencode(tmp_path) + b"/\xffp.xlsx"
    shutil.copyfile(example_workbook("printed"), path)
    before = db_path.read_bytes()
    line = one_error(tables(b"--db", os.fsencode(db_path), verb, path))
    assert line == ("Error: \\udcffp.xlsx: its file name is not UTF-8 text, and the database keeps a workbook by its name; "
                    "rename the file")
    assert db_path.read_bytes() == before
