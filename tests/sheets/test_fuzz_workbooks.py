"""Seeded mutation fuzzing of whole workbooks (issue #17, item 4).

The shipped workbooks (the bundled ones and the printed example) are read
once; each mutant is one of them with a few cell VALUES replaced (never
bytes: the guard's mutations are tests/sheets/test_guard_mutations.py) by
hostile values (huge and absurd numbers, inf and nan, dates, booleans,
blanks, 20,000-character text, control characters, error values, other
scripts' digits, emoji, formula text, ...) or by another cell's value, in
the grid, its header row or the header block. Each mutant is written as an
.xlsx and must end in a parsed workbook or in problems
(``interpret(read_workbook(path))``, read against the bundled database as an
import reads it): never another exception. Every mutant that reads without
a problem is then imported, replacing its original in a copy of the bundled
database, and may end only in a report (with problems or not).

The suite runs FUZZ_MUTANTS mutants from FUZZ_SEED. A longer run:

    TABLES_FUZZ_MUTANTS=2000 TABLES_FUZZ_SEED=1 TABLES_DB=/tmp/none/x.db \\
        pytest -q -s -n 0 -m slow --timeout=0 -p no:cacheprovider tests/sheets/test_fuzz_workbooks.py

(``-s`` with ``-n 0``, in this process, shows the counts: read ok / refused / crashed, and the imports.) Mutants
are read by calamine and by openpyxl in turn.
A crash names the seed, the mutant and its mutations, to be replayed with
TABLES_FUZZ_SEED and TABLES_FUZZ_MUTANTS.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import re
import shutil
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tables_app.errors import WorkbookInvalid
from tables_app.services.database_setup import BUNDLED_PREFIX, bundled_workbooks, example_workbooks, open_database
from tables_app.services.importing import import_workbooks
from tables_app.sheets.parse import interpret
from tables_app.sheets.read import read_workbook

FUZZ_MUTANTS = int(os.environ.get("TABLES_FUZZ_MUTANTS", "150"))
FUZZ_SEED = int(os.environ.get("TABLES_FUZZ_SEED", "17"))
MOST_MUTATIONS = 3  # cells changed in one mutant
READERS = ("calamine", "openpyxl")  # in turn: a sheet must read the same whichever reader read it
LONG = 20_000

HOSTILE: tuple[object, ...] = (
    2**63, -(2**63) - 1, 10**30, 18446744073709551616, -1, 0, 1, 7, 100, 101, 10_001,
    1e308, -1e308, 1e30, 5e-324, 7.5, -0.5, 12.0, float("inf"), float("-inf"), float("nan"),
    dt.datetime(2024, 1, 1), dt.date(1999, 12, 31), dt.time(12, 30), dt.timedelta(days=2),
    True, False, None,
    "", " ", "\t", "\n\n", "\u00a0", "\u200b", "\u00ad",
    "x" * LONG, "1" + "a" * LONG, "1 " + "a " * (LONG // 2), "+" * LONG, "(" * LONG, "with a: " * (LONG // 8),
    "1" * 5_000, "\u00b2" * 3_000, "9" * 30,
    "\x7f", "a\x85b", "tab\there", "line\nbreak",
    "#N/A", "#REF!", "#DIV/0!", "#VALUE!", "#NAME?",
    "\u1369", "\u00b2\u00b2\u00b2", "\u0663", "\uff11\uff12", "\u216b", "\U0001d7d7\U0001d7d7",
    "\U0001f600", "\U0001f5e1\ufe0f 12 Mod", "\u202eMod 12",
    "=1+1", "=SUM(A1:A3)", "'=A1", "@x", "+5H", "-", "\u2014", "F", "UM", "UM 1-99999999",
    "None", "null", "NaN", "Infinity", "-inf", "1e308", "-1e308", "18446744073709551616",
    "1-99999999999999999999", "99999999999999999999+", "<0", ">-1", "<99999999999999999999", "5:1", "1-100",
    "16 Mod", "36 E Heat + A Impact", "12 Mod Ice", "1 + + +", "oeh", "heroic", "none",
    "Kind", "Name", "Result", "Roll", "Text", "critical", "attack", "Severity G",
)


@dataclass
class Source:
    """A shipped workbook: its label (as the database knows it) and sheets as rows of values."""

    label: str
    sheets: dict[str, list[list[object]]]
    hidden: tuple[str, ...] = ()


@dataclass
class Tally:
    read_ok: int = 0
    refused: int = 0  # problems, or WorkbookInvalid
    imported: int = 0
    import_refused: int = 0
    crashed: list[str] = field(default_factory=list)


def _sources() -> list[Source]:
    paths = [(BUNDLED_PREFIX + p.name, p) for p in bundled_workbooks()]
    paths += [(p.name, p) for p in example_workbooks().values()]
    sources = []
    for label, path in paths:
        raw = read_workbook(path)
        sheets = {}
        for sheet in raw.sheets:
            rows: list[list[object]] = []
            for number, values in sheet.rows:
                rows.extend([] for _ in range(number - 1 - len(rows)))
                rows.append(list(values))
            sheets[sheet.name] = rows
        sources.append(Source(label, sheets, tuple(s.name for s in raw.sheets if s.hidden)))
    return sources


def _hostile(rng: random.Random) -> object:
    return rng.choice(HOSTILE)


def _mutate(rng: random.Random, source: Source) -> tuple[dict[str, list[list[object]]], list[str]]:
    """A copy of the source's sheets with 1 to MOST_MUTATIONS cells changed, and what was done."""
    sheets = {name: [list(row) for row in rows] for name, rows in source.sheets.items()}
    done = []
    for _ in range(rng.randint(1, MOST_MUTATIONS)):
        name = rng.choice([n for n, rows in sheets.items() if rows])
        rows = sheets[name]
        where = rng.random()
        if where < 0.2:  # the header block: a key or a value
            r = rng.randrange(min(len(rows), 8))
        elif where < 0.4:  # the grid's header row (the first row after the first blank one)
            blank = next((i for i, row in enumerate(rows) if not row), None)
            r = blank + 1 if blank is not None and blank + 1 < len(rows) else rng.randrange(len(rows))
        else:
            r = rng.randrange(len(rows))
        row = rows[r]
        c = rng.randrange(max(len(row), 1) + (1 if rng.random() < 0.1 else 0))
        if rng.random() < 0.25:  # another cell's value: a mutant that may still read
            other = rng.choice([v for rs in sheets.values() for rw in rs for v in rw if v is not None] or [None])
            value = other
        else:
            value = _hostile(rng)
        row.extend([None] * (c + 1 - len(row)))
        row[c] = value
        done.append(f"{name}!r{r + 1}c{c + 1} = {_short(value)}")
    return sheets, done


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:60]}… ({len(text):,} characters)"


_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PACKAGE = "http://schemas.openxmlformats.org/package/2006/"
_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml."
_EPOCH = dt.datetime(1899, 12, 30)
_HIDDEN = ' state="hidden"'
# cell styles: 0 general, 1 a date and time, 2 a date, 3 a time, 4 a duration
_STYLES = (f'<styleSheet xmlns="{_MAIN}"><numFmts count="1"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss"/></numFmts>'
           '<fonts count="1"><font/></fonts><fills count="1"><fill><patternFill patternType="none"/></fill></fills><borders count="1"><border/></borders>'
           '<cellStyleXfs count="1"><xf/></cellStyleXfs><cellXfs count="5"><xf numFmtId="0"/>'
           + "".join(f'<xf numFmtId="{n}" applyNumberFormat="1"/>' for n in (164, 14, 21, 46))
           + '</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>')


def _write(path: Path, sheets: dict[str, list[list[object]]], hidden: tuple[str, ...]) -> Path:
    """The sheets as an .xlsx, as a spreadsheet program saves them: numbers,
    booleans, dates (serial numbers in a date style), text (characters XML
    cannot hold escaped as `_x0001_`, as Excel does) and text starting with
    `=` as a formula saved without its value. Written by hand: openpyxl
    takes most of a mutant's time."""
    import zipfile

    names = list(sheets)
    parts = {
        "[Content_Types].xml": f'<Types xmlns="{_PACKAGE}content-types"><Default Extension="rels" ContentType="application/'
                               'vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
                               f'<Override PartName="/xl/workbook.xml" ContentType="{_TYPE}sheet.main+xml"/>'
                               f'<Override PartName="/xl/styles.xml" ContentType="{_TYPE}styles+xml"/>'
                               + "".join(f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType="{_TYPE}worksheet+xml"/>'
                                         for i in range(1, len(names) + 1)) + "</Types>",
        "_rels/.rels": f'<Relationships xmlns="{_PACKAGE}relationships"><Relationship Id="rId1" '
                       f'Type="{_RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        "xl/workbook.xml": f'<workbook xmlns="{_MAIN}" xmlns:r="{_RELS}"><sheets>'
                           + "".join(f'<sheet name="{_escape(name)}" sheetId="{i}"{_HIDDEN if name in hidden else ""} '
                                     f'r:id="rId{i}"/>' for i, name in enumerate(names, start=1)) + "</sheets></workbook>",
        "xl/_rels/workbook.xml.rels": f'<Relationships xmlns="{_PACKAGE}relationships">'
                                      + "".join(f'<Relationship Id="rId{i}" Type="{_RELS}/worksheet" Target="worksheets/sheet{i}.xml"/>'
                                                for i in range(1, len(names) + 1))
                                      + f'<Relationship Id="rId{len(names) + 1}" Type="{_RELS}/styles" Target="styles.xml"/></Relationships>',
        "xl/styles.xml": _STYLES,
    }
    for i, name in enumerate(names, start=1):
        rows = "".join(f'<row r="{r}">{"".join(_cell(r, c, v) for c, v in enumerate(row, start=1) if v is not None)}</row>'
                       for r, row in enumerate(sheets[name], start=1) if any(v is not None for v in row))
        parts[f"xl/worksheets/sheet{i}.xml"] = f'<worksheet xmlns="{_MAIN}"><sheetData>{rows}</sheetData></worksheet>'
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, text in parts.items():
            archive.writestr(member, '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' + text)
    return path


def _cell(row: int, column: int, value: object) -> str:
    from tables_app.sheets.values import coordinate

    where = coordinate(row, column)
    if isinstance(value, bool):
        return f'<c r="{where}" t="b"><v>{int(value)}</v></c>'
    if isinstance(value, (int, float)):
        return f'<c r="{where}"><v>{value!r}</v></c>'
    if isinstance(value, dt.datetime):
        return f'<c r="{where}" s="1"><v>{(value - _EPOCH) / dt.timedelta(days=1)!r}</v></c>'
    if isinstance(value, dt.date):
        return f'<c r="{where}" s="2"><v>{(value - _EPOCH.date()).days}</v></c>'
    if isinstance(value, dt.time):
        return f'<c r="{where}" s="3"><v>{(value.hour * 3600 + value.minute * 60 + value.second) / 86400!r}</v></c>'
    if isinstance(value, dt.timedelta):
        return f'<c r="{where}" s="4"><v>{value / dt.timedelta(days=1)!r}</v></c>'
    text = str(value)
    if text.startswith("=") and len(text) > 1:
        return f'<c r="{where}"><f>{_escape(text[1:])}</f></c>'
    return f'<c r="{where}" t="inlineStr"><is><t xml:space="preserve">{_escape(text)}</t></is></c>'


def _escape(text: str) -> str:
    from xml.sax.saxutils import escape

    return escape(_UNWRITABLE.sub(lambda m: f"_x{ord(m.group()):04X}_", text), {'"': "&quot;"})


_UNWRITABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@pytest.fixture(scope="module")
def fuzz_base(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object, list[Source]]:
    """A bundled database, its catalog (what an import reads a workbook against), the sources."""
    from tables_app.services.database_setup import init_database
    from tables_app.storage import repository
    from tables_app.storage.connection import connect

    path = tmp_path_factory.mktemp("fuzz") / "bundled.db"
    init_database(str(path)).dispose()
    connection = connect(path)
    try:
        catalog = repository.load_catalog(connection)
    finally:
        connection.close()
    return path, catalog, _sources()


def _run(fuzz_base, folder: Path, mutants: int, seed: int) -> Tally:  # type: ignore[no-untyped-def]
    database_template, catalog, sources = fuzz_base
    tally = Tally()
    for n in range(mutants):
        rng = random.Random(f"{seed}:{n}")
        source = rng.choice(sources)
        sheets, done = _mutate(rng, source)
        path = _write(folder / f"m{n}-{source.label.rsplit('/', 1)[-1]}", sheets, source.hidden)
        reader = READERS[n % len(READERS)]
        where = f"seed {seed}, mutant {n} of {source.label} ({reader}): {'; '.join(done)}"
        try:
            parsed = interpret(read_workbook(path, reader=reader), catalog)
        except WorkbookInvalid:
            tally.refused += 1
            continue
        except Exception:  # noqa: BLE001 - the point: anything else is a crash
            tally.crashed.append(f"{where}\n{traceback.format_exc()}")
            continue
        if parsed.problems:
            tally.refused += 1
            continue
        tally.read_ok += 1
        database = folder / f"m{n}.db"
        shutil.copyfile(database_template, database)
        opened = open_database(str(database))
        try:
            report = import_workbooks(opened, [path], labels=[source.label], replace=True)
            if report.problems:
                tally.import_refused += 1
            else:
                tally.imported += 1
        except WorkbookInvalid:
            tally.import_refused += 1
        except Exception:  # noqa: BLE001
            tally.crashed.append(f"{where} (import)\n{traceback.format_exc()}")
        finally:
            opened.dispose()
            database.unlink()
        path.unlink()
    return tally


def test_the_sources_read_cleanly(fuzz_base, tmp_path):
    _, catalog, sources = fuzz_base
    assert len(sources) >= 5
    for source, reader in ((source, reader) for source in sources for reader in READERS):
        # as written back by _write: a mutant's problems are its mutations'
        parsed = interpret(read_workbook(_write(tmp_path / "source.xlsx", source.sheets, source.hidden), reader=reader), catalog)
        assert parsed.problems == [], (source.label, reader)


@pytest.mark.slow  # ~12 s: the mutants' reads (`pytest -m slow`, and CI)
def test_mutated_workbooks_end_in_a_result_or_problems(fuzz_base, tmp_path):
    tally = _run(fuzz_base, tmp_path, FUZZ_MUTANTS, FUZZ_SEED)
    print(f"\n{FUZZ_MUTANTS} mutants (seed {FUZZ_SEED}): read ok {tally.read_ok}, refused {tally.refused}, "
          f"crashed {len(tally.crashed)}; of those read ok, imported {tally.imported}, refused on import {tally.import_refused}")
    for crash in tally.crashed[:3]:
        print(crash)
    assert tally.crashed == []
    assert tally.read_ok + tally.refused == FUZZ_MUTANTS
    assert tally.refused and tally.read_ok  # the mutants reach both ends (else they test little)
