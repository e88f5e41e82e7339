"""The worked example of docs/fights.md is what the commands print: each
`$ tables ...` line of its transcript is run, in order, on a fresh copy of
the bundled tables, and its output must be the lines below it, exactly
(stdout, then an `Error:` line from stderr), at 80 columns."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from click.testing import CliRunner

from tables_app.cli.root import cli

DOC = Path(__file__).resolve().parents[2] / "docs" / "fights.md"
BLOCK = re.compile(r"<!-- worked example -->\n```text\n(.*?)```", re.DOTALL)


def transcript() -> list[tuple[str, str]]:
    """(command, its output) pairs of the example."""
    found = BLOCK.search(DOC.read_text(encoding="utf-8"))
    assert found, "docs/fights.md has its worked example"
    pairs: list[tuple[str, str]] = []
    for line in found.group(1).splitlines(keepends=True):
        if line.startswith("$ "):
            pairs.append((line[2:].strip(), ""))
        else:
            command, output = pairs[-1]
            pairs[-1] = (command, output + line)
    return pairs


def printed(db: Path, command: str) -> str:
    words = shlex.split(command)
    assert words[0] == "tables"
    result = CliRunner(env={"COLUMNS": "80"}).invoke(cli, ["--db", str(db), *words[1:]], catch_exceptions=False)
    return result.stdout + result.stderr


def test_every_number_of_the_worked_example_is_what_the_commands_print(db_path: Path) -> None:
    pairs = transcript()
    assert len(pairs) >= 8
    for command, expected in pairs:
        assert printed(db_path, command).rstrip("\n") == expected.rstrip("\n"), command


if __name__ == "__main__":  # print the transcript afresh: python tests/cli/test_fight_example.py DB
    import sys

    for command, _ in transcript():
        print(f"$ {command}")
        print(printed(Path(sys.argv[1]), command).rstrip("\n"))
