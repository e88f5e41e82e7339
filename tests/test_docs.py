"""The product documents itself: docs/ is complete, refers only to itself,
and the examples of docs/cli.md run (issue #12, item 7)."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Spelled in parts so that this file does not hold what it looks for.
OUTSIDE = "shared"
OUTSIDE_REFERENCES = (f"../{OUTSIDE}", f"{OUTSIDE}/spec", f"{OUTSIDE}/seeds")
DOC_REFERENCE = re.compile(r"docs/([A-Za-z0-9_-]+\.md)")
# A word of three or more capitals (TABLE, PATH_OR_URL, OUT) is a placeholder
# to fill in, not a runnable value; armor codes (MA, HA) have two letters.
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]{2,}\b")


def tracked_text_files() -> dict[str, str]:
    """Every file git tracks (or is about to: untracked but not ignored), as
    text; binary files (a NUL byte, or not UTF-8) are left out."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
            cwd=ROOT, capture_output=True, check=True,
        ).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):  # an unpacked sdist: every file below the root is the repository
        listed = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file() and ".git" not in p.parts]
    texts = {}
    for name in filter(None, listed):
        path = ROOT / name
        if not path.is_file():
            continue  # deleted in the working tree
        data = path.read_bytes()
        if b"\0" in data:
            continue
        try:
            texts[name] = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
    return texts


@pytest.fixture(scope="module")
def texts() -> dict[str, str]:
    found = tracked_text_files()
    assert "README.md" in found  # the listing works at all
    return found


def test_no_file_refers_outside_the_repository(texts: dict[str, str]) -> None:
    offending = [
        f"{name}:{number}: {line.strip()}"
        for name, text in texts.items()
        for number, line in enumerate(text.splitlines(), start=1)
        if any(marker in line for marker in OUTSIDE_REFERENCES)
    ]
    assert offending == []


def test_every_docs_page_mentioned_exists(texts: dict[str, str]) -> None:
    missing = sorted({
        f"docs/{page} (in {name})"
        for name, text in texts.items()
        for page in DOC_REFERENCE.findall(text)
        if not (ROOT / "docs" / page).is_file()
    })
    assert missing == []


def test_the_reference_pages_exist() -> None:
    for page in ("table-system.md", "formula-systems.md", "workbook-format.md", "cli.md"):
        assert (ROOT / "docs" / page).is_file(), page


def cli_examples() -> list[list[str]]:
    """The runnable lines of docs/cli.md's ``sh`` blocks, as arguments after `tables`."""
    examples, in_sh = [], False
    for line in (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_sh = line.strip() == "```sh"
            continue
        if not in_sh or not line.startswith("tables ") or PLACEHOLDER.search(line):
            continue
        words = shlex.split(line, comments=True)[1:]
        if "--plot" in words or "--db" in words:
            continue  # matplotlib is optional; the database is the test's
        examples.append(words)
    return examples


def test_cli_examples_are_found() -> None:
    examples = cli_examples()
    assert len(examples) >= 20
    assert ["query", "attack", "Edged", "120", "MA", "--json"] in examples


def test_cli_examples_run(run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """Each example in order, in one scratch directory (files one writes,
    the next reads), against a fresh copy of the bundled database."""
    monkeypatch.chdir(tmp_path)
    failures = []
    for words in cli_examples():
        result = run(*words)
        if result.exit_code != 0:
            failures.append(f"tables {shlex.join(words)} → exit {result.exit_code}: {result.output.strip()[-300:]}")
    assert failures == []


def test_the_documented_schema_and_version_are_the_current_ones(texts: dict[str, str]) -> None:
    """Issue 41: docs/api.md's health example said schema 0005 long after 0009. Every `"schema": "NNNN"` the
    docs show is the schema head (read from the code, so that a new migration fails here until the docs follow),
    every `"version"` beside it the program's, and docs/schema.md's table of revisions ends at the head."""
    from tables_app import __version__
    from tables_app.storage.faults import SCHEMA_HEAD

    shown = [(name, found.group(1)) for name, text in texts.items() if name.startswith("docs/") or name == "README.md"
             for found in re.finditer(r'"schema": "(\d{4})"', text)]
    assert ("docs/api.md", SCHEMA_HEAD) in shown
    assert [(name, schema) for name, schema in shown if schema != SCHEMA_HEAD] == []
    versions = [found.group(1) for name, text in texts.items() if name.startswith("docs/")
                for found in re.finditer(r'"version": "([^"]+)", "schema"', text)]
    assert versions and set(versions) == {__version__}
    revisions = re.findall(r"^\| (\d{4}) \|", texts["docs/schema.md"], re.MULTILINE)
    assert revisions[-1] == SCHEMA_HEAD
