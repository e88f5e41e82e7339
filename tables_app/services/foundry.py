"""Foundry VTT export (`tables export --format foundry`, docs/foundry.md).

Critical and fumble tables become RollTable documents (one per printed
column; a one-column critical table one per severity, rolled d100 plus the
severity's modifier), attack tables JournalEntry documents holding the grid as an HTML
table. The documents have the shapes of Foundry VTT core version 12
(``TableResult.text``, ``type: "text"``); version 13 imports them as they
are, moving a text result's ``text`` into its ``description`` (its
data migration, deprecated since 13, kept until 15). Hence the range
FOUNDRY_VERSIONS.

With ``single_file`` every document goes into one JSON file (``bundle``)
for the import macro of docs/foundry.md: core Foundry 12-13 imports one
document per file ("Import Data") and nothing more without a module.

The conversion functions are pure (domain tables in, dicts out); only
``export_foundry`` reads the database and writes files.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Iterable

from tables_app.domain.bounds import AUTOMATIC_MISS, D100, ROLL_LIMIT
from tables_app.domain.effects import effect_words
from tables_app.domain.kinds import LABELS
from tables_app.domain.names import fold
from tables_app.domain.ranges import NO_BOTTOM, Range, RangeTable, row_label
from tables_app.domain.rulesets import qualified, shown
from tables_app.domain.severity import Severity
from tables_app.domain.tables import AttackTable, ColumnChoice, EffectTable, Entry, RollKind, TableKind, condition_feature
from tables_app.errors import TablesError, UsageMistake
from tables_app.files import not_a_file, os_problem, save
from tables_app.storage.database import Database

FOUNDRY_VERSIONS = (12, 13)  # Foundry VTT core generations these documents import into
FOUNDRY_SHAPE = 12  # the generation whose field names they use (13 migrates them on import)
FORMULA = "1d100"
OPEN_HIGH_DIE = "1d100x>95"  # `oeh`: 96-100 rolls again and adds, while the new die shows 96-100 (Foundry's `x`)
OPEN_AT = 96  # the face an open-ended high roll opens on
RESULT_TYPE_TEXT = "text"  # CONST.TABLE_RESULT_TYPES.TEXT (12 and 13; a number, 0, before 11)
PAGE_TYPE_TEXT = "text"
PAGE_FORMAT_HTML = 1  # CONST.JOURNAL_ENTRY_PAGE_FORMATS.HTML
ID_LENGTH = 16  # foundry.utils.randomID(): 16 letters and digits
_ID_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
OPEN_TOP = ROLL_LIMIT  # the top an open row above 100 (`121+`) is written with: no roll reaches it
NOTHING_HAPPENS = "(nothing happens)"
DASH = "\u2014"  # between a table's name and its column: `Hacking — C`
FILE_STEM_BYTES = 120  # a file name's stem, in UTF-8 bytes (file systems allow 255)
SUFFIX = ".json"


# ---------------------------------------------------------------- ids and names
def document_id(*parts: str) -> str:
    """A 16-character id (letters and digits, as Foundry's) made from
    ``parts``: the same table and entry get the same id in every export."""
    digest = int.from_bytes(hashlib.sha256("\0".join(parts).encode("utf-8")).digest(), "big")
    chars = []
    for _ in range(ID_LENGTH):
        digest, index = divmod(digest, len(_ID_ALPHABET))
        chars.append(_ID_ALPHABET[index])
    return "".join(chars)


def document_name(ruleset: str, name: str, column: str | None = None) -> str:
    """``Cut``, ``Printed:Hacking — C``: the name as the CLI shows it, and the column."""
    base = shown(ruleset, name)
    return base if column is None else f"{base} {DASH} {column}"


_UNSAFE = re.compile(r"[^\w.\-]+")  # anything but letters, digits, `_`, `.` and `-`
_DOTS = re.compile(r"\.{2,}")
_SEPARATORS = re.compile(r"[.\-]*_[._\-]*")  # a run of separators with a `_` in it: one `_`


def safe_stem(text: str) -> str:
    """A file name's stem from a table's name: no path separator, no `..`,
    no control or other unsafe character, no leading dot, at most
    FILE_STEM_BYTES bytes; never empty."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c if c.isprintable() else " " for c in text)
    stem = _SEPARATORS.sub("_", _DOTS.sub(".", _UNSAFE.sub("_", text))).strip("._-")
    encoded = stem.encode("utf-8")[:FILE_STEM_BYTES]
    stem = encoded.decode("utf-8", errors="ignore").rstrip("._-")
    return stem or "table"


def unique_file_names(stems: Iterable[str]) -> list[str]:
    """``stem.json`` for each stem, made unique (ignoring letter case, for
    file systems that do) by `-2`, `-3`, ... in order."""
    taken: set[str] = set()
    names = []
    for stem in stems:
        candidate, n = stem, 1
        while fold(candidate + SUFFIX) in taken:
            n += 1
            candidate = f"{stem}-{n}"
        taken.add(fold(candidate + SUFFIX))
        names.append(candidate + SUFFIX)
    return names


# ---------------------------------------------------------------- entries
def entry_words(entry: Entry) -> str:
    """An entry's effects in words, as the CLI shows them (render.effects):
    `+7 hits, stun 1 rnd, penalty -5, drop weapon`."""
    return effect_words(entry)


_MARKER_WORDS = {True: ("with", "w/", "if"), False: ("without", "w/o", "if not")}


def _condition_words(condition: str) -> str:
    feature, positive = condition_feature(condition)
    return f"{'With' if positive else 'Without'} {condition.removeprefix('not ').strip()}:" if feature else ""


def _states_its_condition(entry: Entry) -> bool:
    """Whether a branch's own text says its condition (`With helm: ...`)."""
    condition = entry.condition or ""
    positive = not condition.startswith("not ")
    feature = condition.removeprefix("not ")
    words = "|".join(re.escape(word) for word in _MARKER_WORDS[positive])
    return re.search(rf"(?<![\w/])(?:{words})\s*{re.escape(feature)}\s*:", entry.text, re.IGNORECASE) is not None


def entry_text(entry: Entry) -> str:
    """One entry as plain text: title, text, and its effects in words in brackets."""
    words = [f"{entry.title.rstrip('.')}." if entry.title else "", entry.text or ("" if entry.title else NOTHING_HAPPENS)]
    effects = entry_words(entry)
    if effects:
        words.append(f"({effects})")
    return " ".join(w for w in words if w)


def result_text(entries: tuple[Entry, ...]) -> str:
    """A row's text (HTML-escaped, as TableResult text is HTML): its one
    entry, or each branch after its condition (`With helm: ... Without helm: ...`,
    `... Otherwise: ...` for the branch for everyone else)."""
    parts = []
    for entry in entries:
        text = entry_text(entry)
        if entry.condition and not _states_its_condition(entry):
            text = f"{_condition_words(entry.condition)} {text}"
        elif entry.condition is None and len(entries) > 1:  # everyone else's, beside conditions on several features
            text = f"Otherwise: {text}"
        parts.append(text)
    return html.escape(" ".join(parts), quote=False)


# ---------------------------------------------------------------- ranges
@dataclass(frozen=True)
class FoundryRange:
    """A row's range as Foundry gets it, and why it differs from the printed one."""

    low: int
    high: int
    clipped: bool = False  # an open row cut to the die's 1-100 (`96+`, `<05`)
    modifier_only: bool = False  # a row 1d100 alone cannot reach (beyond 100 or below 1)
    partly_beyond: bool = False  # a row reaching past the die's 1-100 (`96-105`)


def foundry_range(span: Range) -> FoundryRange:
    """``<05`` → 1-4 and ``96+`` → 96-100 (clipped to the die); a row beyond
    100 keeps its range, an open one above 100 (``121+``) up to OPEN_TOP."""
    low, high, clipped = span.low, span.high, False
    if low == NO_BOTTOM:
        assert high is not None  # `<71`: an open bottom has a top
        low, clipped = (1, True) if high >= 1 else (high, False)
    if high is None:
        if low <= D100:
            high, clipped = D100, True
        else:
            high = max(low, OPEN_TOP)
    outside = high < 1 or low > D100
    return FoundryRange(low, high, clipped, outside, not outside and (low < 1 or high > D100))


# ---------------------------------------------------------------- documents
def _paragraphs(lines: Iterable[str]) -> str:
    return "".join(f"<p>{html.escape(line, quote=False)}</p>" for line in lines if line)


def _how_rolled(table: EffectTable, column: str | None) -> str:
    if table.kind is TableKind.FUMBLE:
        picked = "" if column is None else f"Column {column}: the weapon's Fumble column picks the column. "
        return f"{picked}Roll {FORMULA} and add the weapon's fumble modifier."
    if table.choice is ColumnChoice.SEVERITY:
        return f"Column {column}: the severity picks the column; the roll is not modified."
    if table.choice is ColumnChoice.ATTACK:
        return f"Column {column}: the weapon's Critical column picks the column; the roll is not modified."
    modifiers = ", ".join(f"{s.code} {s.modifier:+d}" for s in table.scale.levels)
    return f"Roll {FORMULA} and add the severity's modifier ({modifiers})."


def rolltable(table: EffectTable, ruleset: str, column: int | None = None) -> dict[str, Any]:
    """The RollTable of one column of ``table`` (``None``: a one-column table)."""
    column_name = None if column is None else table.columns[column]
    rows: RangeTable[tuple[Entry, ...]] = table.rows_of(column)
    key = (fold(ruleset), table.kind.value, fold(table.name), column_name or "")
    results, clipped, beyond = [], [], []
    for span, entries in zip(rows.ranges, rows.values):
        at = foundry_range(span)
        if at.clipped:
            clipped.append(f"{span.label} is written {at.low}-{at.high}")
        if at.modifier_only or at.partly_beyond:
            beyond.append(span.label)
        results.append({
            "_id": document_id(*key, span.label), "type": RESULT_TYPE_TEXT, "text": result_text(entries),
            "weight": 1, "range": [at.low, at.high], "drawn": False,
        })
    what = f"{table.kind.value.capitalize()} table {shown(ruleset, table.name)}"
    if table.code:
        what += f" (code {table.code})"
    if column_name is not None:
        what += f", column {column_name} of {', '.join(table.columns)}"
    notes = [f"{what}, exported by tables_app for Foundry VTT {FOUNDRY_VERSIONS[0]}-{FOUNDRY_VERSIONS[-1]}.",
             _how_rolled(table, column_name)]
    if table.roll is not RollKind.D100:
        notes.append(f"The tables roll this die {table.roll.value} (open-ended); Foundry's {FORMULA} does not.")
    if clipped:
        notes.append(f"Open-ended rows are clipped to the die's 1-{D100}: {'; '.join(clipped)}.")
    if beyond:
        notes.append(f"Rows beyond 1-{D100} ({', '.join(beyond)}) are reached only with a modifier: Foundry's {FORMULA} "
                     "cannot reach them unless the roll formula adds one (e.g. 1d100 + 20). "
                     f"An open top above {D100} is written up to {OPEN_TOP}.")
    top = rows.ranges[-1].high if rows.ranges else None
    if top is not None and (table.kind is TableKind.FUMBLE or table.choice is ColumnChoice.NONE):
        notes.append(f"A total above {top} draws nothing in Foundry; the tables read the last row.")
    return {
        "name": document_name(ruleset, table.name, column_name), "description": _paragraphs(notes),
        "formula": FORMULA, "replacement": True, "displayRoll": True, "results": results,
    }


def severity_formula(modifier: int, roll: RollKind = RollKind.D100) -> str:
    """``1d100``, ``1d100 + 50``, ``1d100x>95 + 20`` (oeh), ``1d100 - 5``."""
    die = OPEN_HIGH_DIE if roll is RollKind.OEH else FORMULA
    return die if modifier == 0 else f"{die} {'+' if modifier > 0 else '-'} {abs(modifier)}"


def reachable(modifier: int, roll: RollKind = RollKind.D100) -> list[tuple[int, int]]:
    """The totals ``severity_formula`` rolls, as intervals: 1+M to 100+M; open-ended
    high (oeh), 1+M to 95+M and 97+M up (96-100 always adds a die: 96+M is never
    the total), its top written OPEN_TOP."""
    if roll is RollKind.OEH:
        return [(1 + modifier, OPEN_AT - 1 + modifier), (OPEN_AT + 1 + modifier, OPEN_TOP)]
    return [(1 + modifier, D100 + modifier)]


def severity_ranges(rows: RangeTable[Any], modifier: int, roll: RollKind = RollKind.D100) -> list[tuple[int, int, int]]:
    """(row index, low, high) of every row a total of ``severity_formula`` reads,
    as the tables read it (a total reads the last row starting at or below it;
    below the first row, the first row): the ranges cover the totals the
    formula rolls, each exactly once; a row no total reads is left out."""
    spans = reachable(modifier, roll)
    low_end, high_end = spans[0][0], spans[-1][1]
    lows = [span.low for span in rows.ranges]
    found = []
    for i, low in enumerate(lows):
        start = low_end if i == 0 else max(low, low_end)
        end = high_end if i == len(lows) - 1 else min(lows[i + 1] - 1, high_end)
        if any(max(start, a) <= min(end, b) for a, b in spans):  # some total it holds is rolled
            found.append((i, start, end))
    return found


def severity_rolltable(table: EffectTable, ruleset: str, severity: Severity) -> dict[str, Any]:
    """The RollTable of a one-column critical table at one severity: rolled
    ``1d100 + M`` (M the severity's modifier), its results the rows such a
    total reads, their ranges cut to what it rolls (docs/foundry.md)."""
    rows: RangeTable[tuple[Entry, ...]] = table.rows
    key = (fold(ruleset), table.kind.value, fold(table.name), severity.code)
    formula = severity_formula(severity.modifier, table.roll)
    kept = severity_ranges(rows, severity.modifier, table.roll)
    results, changed = [], []
    for i, low, high in kept:
        span = rows.ranges[i]
        written = f"{low}-{high}" if low != high else f"{low}"
        if (span.low, span.high) != (low, high):
            changed.append(f"{span.label} is written {written}")
        results.append({
            "_id": document_id(*key, span.label), "type": RESULT_TYPE_TEXT, "text": result_text(rows.values[i]),
            "weight": 1, "range": [low, high], "drawn": False,
        })
    read = {i for i, _, _ in kept}
    left_out = [rows.ranges[i].label for i in range(len(rows)) if i not in read]
    levels = ", ".join(f"{s.code} {s.modifier:+d}" for s in table.scale.levels)
    what = f"Critical table {shown(ruleset, table.name)}"
    if table.code:
        what += f" (code {table.code})"
    what += f", severity {severity.code} ({severity.name}) of {levels}"
    spans = reachable(severity.modifier, table.roll)
    notes = [f"{what}, exported by tables_app for Foundry VTT {FOUNDRY_VERSIONS[0]}-{FOUNDRY_VERSIONS[-1]}.",
             f"Severity {severity.code}: roll {formula}, the severity's modifier ({severity.modifier:+d}) added, "
             "and read the total as the tables do."]
    if table.roll is RollKind.OEH:
        notes.append(f"The tables roll this die oeh (open-ended high): {OPEN_HIGH_DIE} rolls again and adds on "
                     f"{OPEN_AT}-{D100}, as they do; a total above the top row reads the top row "
                     f"(written up to {OPEN_TOP}).")
    else:
        notes.append(f"It rolls {spans[0][0]} to {spans[-1][1]}: a total above the top row reads the top row, "
                     "one below the first row the first row.")
    if changed:
        notes.append(f"Ranges as this roll reads them: {'; '.join(changed)}.")
    if left_out:
        notes.append(f"Rows this roll never reads are left out: {', '.join(left_out)}.")
    return {
        "name": document_name(ruleset, table.name, severity.code), "description": _paragraphs(notes),
        "formula": formula, "replacement": True, "displayRoll": True, "results": results,
    }


def by_severity(table: EffectTable) -> bool:
    """Whether ``table`` is exported one RollTable per severity: a one-column critical table."""
    return table.kind is TableKind.CRITICAL and not table.columns and table.choice is ColumnChoice.NONE


def rolltables(table: EffectTable, ruleset: str) -> list[tuple[str | None, dict[str, Any]]]:
    """(column, RollTable) for every column of ``table``: a printed table's
    columns, a one-column critical table's severities (its scale's codes), a
    one-column fumble table's one (None)."""
    if by_severity(table):
        return [(level.code, severity_rolltable(table, ruleset, level)) for level in table.scale.levels]
    if not table.columns:
        return [(None, rolltable(table, ruleset))]
    return [(name, rolltable(table, ruleset, i)) for i, name in enumerate(table.columns)]


def grid_rows(table: AttackTable) -> list[tuple[str, list[str]]]:
    """(row label, cell texts) as printed: `UM` rows on top, then highest first."""
    rows = [(row_label(span, by_die), [cell.text for cell in cells])
            for rows, by_die in ((table.rows, False), (table.unmodified or RangeTable([]), True))
            for span, cells in zip(rows.ranges, rows.values)]
    return list(reversed(rows))


def grid_html(table: AttackTable) -> str:
    """The grid as an HTML table: a header row (Result and the armor
    columns), then one row per range, its label in a row header."""
    def e(text: str) -> str:
        return html.escape(text, quote=False)

    head = "".join(f"<th>{e(a)}</th>" for a in ("Result", *table.armors))
    body = "".join(f"<tr><th>{e(label)}</th>{''.join(f'<td>{e(c)}</td>' for c in cells)}</tr>" for label, cells in grid_rows(table))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def journal(table: AttackTable, ruleset: str) -> dict[str, Any]:
    """A JournalEntry with one text page: the attack table's grid as printed."""
    name = document_name(ruleset, table.name)
    miss = ("No automatic miss: every row is read." if table.automatic_miss is None
            else f"Automatic miss: a result of {table.automatic_miss} or less misses."
            if table.automatic_miss != AUTOMATIC_MISS else f"A result of {AUTOMATIC_MISS} or less misses.")
    notes = [f"Attack table {name}, exported by tables_app for Foundry VTT {FOUNDRY_VERSIONS[0]}-{FOUNDRY_VERSIONS[-1]}. "
             f"Rows by modified result; columns by armor type ({', '.join(table.armors)}).", miss]
    if table.unmodified is not None:
        notes.append("UM rows are read by the unmodified roll, before any modifier.")
    if any(span.clumsy for rows in (table.rows, table.unmodified or RangeTable([])) for span in rows.ranges):
        notes.append("XX is the top of the attacking weapon's Clumsy Range: UM 1-XX is that range, where the attack "
                     "fumbles, and the row XX-33 begins just above it.")
    page = {
        "_id": document_id(fold(ruleset), "attack", fold(table.name), "page"), "name": name, "type": PAGE_TYPE_TEXT,
        "title": {"show": True, "level": 1},
        "text": {"content": _paragraphs(notes) + grid_html(table), "format": PAGE_FORMAT_HTML}, "sort": 0,
    }
    return {"name": name, "pages": [page]}


# ---------------------------------------------------------------- the export
@dataclass(frozen=True)
class Document:
    kind: str  # attack, critical or fumble: the table's
    table: str  # the table's name as shown
    stem: str
    data: dict[str, Any]
    folder: str | None = None  # the id of the Folder holding a table's RollTables, when it has several


BUNDLE_FORMAT = "tables_app-foundry"  # the single file's "format": what the import macro checks
BUNDLE_VERSION = 1
FOLDER_SORTING = "a"  # CONST.FOLDER_SORTING_MODES: alphabetical


def bundle(documents: list[Document]) -> dict[str, Any]:
    """The single file (``--single-file``): every document in one JSON
    object, for the import macro of docs/foundry.md. A table written as
    several RollTables (a column or a severity each) has a Folder of its
    own, named as the table, and its RollTables name it in ``folder``."""
    folders: dict[str, dict[str, Any]] = {}
    for d in documents:
        if d.folder is not None and d.folder not in folders:
            folders[d.folder] = {"_id": d.folder, "name": d.table, "type": "RollTable", "sorting": FOLDER_SORTING}
    return {
        "format": BUNDLE_FORMAT, "version": BUNDLE_VERSION, "foundry": list(FOUNDRY_VERSIONS),
        "folders": list(folders.values()),
        "RollTable": [{**d.data, "folder": d.folder} for d in documents if d.kind != "attack"],
        "JournalEntry": [{**d.data, "folder": None} for d in documents if d.kind == "attack"],
    }


def export_foundry(database: Database, directory: str | Path, names: tuple[str, ...] = (), *, ruleset: str | None = None,
                   force: bool = False, single_file: bool = False) -> dict[str, Any]:
    """Write one JSON file per Foundry document into ``directory`` (made if
    missing): the named tables (all when none are named; only ``ruleset``'s
    when given). With ``single_file``, ``directory`` is the one file to
    write, holding every document (``bundle``). Files already there are
    refused without ``force``, before anything is written."""
    from tables_app.services.authoring import Selection

    if not str(directory).strip():
        raise UsageMistake(f"-o must name a {'file' if single_file else 'directory'} for --format foundry")
    directory = Path(directory)
    reader = database.reader()
    if ruleset is not None:
        ruleset = reader.rulesets_named(ruleset)
    selection = Selection(names)
    documents: list[Document] = []
    exported: dict[str, list[str]] = {"attack": [], "critical": [], "fumble": []}
    for kind in ("critical", "fumble", "attack"):
        for item in reader.list_named(kind, ruleset):
            if not selection.chosen(item):
                continue
            home, name = item["ruleset"], item["name"]
            located = reader.locate(kind, qualified(home, name))
            shown_name = shown(home, name)
            exported[kind].append(shown_name)
            if kind == "attack":
                documents.append(Document(kind, shown_name, safe_stem(f"attack-{shown_name}"),
                                          journal(reader.load_attack_table(located), home)))
                continue
            table = reader.load_effect_table(TableKind(kind), located)
            made = rolltables(table, home)
            folder = document_id(fold(home), kind, fold(name), "folder") if len(made) > 1 else None
            for column, data in made:
                stem = f"{kind}-{shown_name}" + (f"-{column}" if column is not None else "")
                documents.append(Document(kind, shown_name, safe_stem(stem), data, folder))
    elsewhere: dict[str, str] = {}  # folded name → why this format does not write it
    if names:  # a weapon or creature named is not for this format: say so rather than "nothing named"
        for kind in ("weapons", "creatures"):
            for item in reader.list_named(kind, ruleset):
                for name in selection.matches(item):
                    elsewhere.setdefault(name, f"{shown(item['ruleset'], item['name'])!r} is a {LABELS[kind]}: "
                                               "--format foundry writes attack, critical and fumble tables only")
    selection.check(elsewhere)
    counts = {"RollTable": sum(d.kind != "attack" for d in documents),
              "JournalEntry": sum(d.kind == "attack" for d in documents)}
    tables = {kind: len(listed) for kind, listed in exported.items()}
    if single_file:
        if directory.is_dir():
            raise TablesError(f"{directory} is a directory: with --single-file, -o names the file to write")
        one = bundle(documents)
        _write_all(directory.parent, [directory], [one], force, elsewhere="another file")
        return {"written": [str(directory)], "format": "foundry", "file": str(directory), "tables": tables,
                "documents": {**counts, "Folder": len(one["folders"])}, **exported}
    paths = [directory / file for file in unique_file_names(d.stem for d in documents)]
    _write_all(directory, paths, [d.data for d in documents], force)
    return {"written": [str(p) for p in paths], "format": "foundry", "directory": str(directory), "tables": tables,
            "documents": counts, **exported}


def _exists(path: Path, elsewhere: str = "another directory") -> str:
    return f"{path} already exists; give --force to overwrite it, or {elsewhere}"


def _write_json(data: dict[str, Any], handle: IO[bytes]) -> None:
    handle.write((json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8"))


def _write_all(directory: Path, paths: list[Path], documents: list[dict[str, Any]], force: bool,
               elsewhere: str = "another directory") -> None:
    """Write every document, or none: files already there are refused
    (without ``force``) before the first is written, and a write that fails
    removes the files (and directories) this export made. With ``force`` a
    file there is replaced by a whole new one (files.save), never written
    through a link; one that was replaced before a later write failed stays
    replaced."""
    try:  # told without opening anything (a named pipe would block)
        what = not_a_file(directory)
    except OSError as exc:  # a name over 255 bytes, a parent that is a file
        raise TablesError(f"cannot write {directory}: {os_problem(exc)}") from None
    if what is not None and what != "a directory":
        raise TablesError(f"{directory} is {what}, not a directory")
    if directory.exists() and not directory.is_dir():
        raise TablesError(f"{directory} is not a directory")
    if not force:
        for path in paths:
            if os.path.lexists(path):  # a link too, even to nothing (an error of the name is open's, below)
                raise TablesError(_exists(path, elsewhere))
    new_directories = [d for d in (directory, *directory.parents) if not d.exists()]  # removed again if the export fails
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TablesError(f"cannot create the directory {directory}: {exc.strerror or exc}") from None
    made: list[Path] = []
    try:
        for path, data in zip(paths, documents):
            if path.is_dir() and not path.is_symlink():
                raise TablesError(f"cannot write {path}: it is a directory")
            new = not os.path.lexists(path)
            try:
                save(path, functools.partial(_write_json, data), overwrite=force)
            except FileExistsError:
                raise TablesError(_exists(path, elsewhere)) from None
            if new:
                made.append(path)
    except BaseException as exc:
        for path in made:
            path.unlink(missing_ok=True)
        for made_directory in new_directories:  # innermost first; never one holding anything else
            try:
                made_directory.rmdir()
            except OSError:
                break
        if isinstance(exc, OSError):
            raise TablesError(f"cannot write {getattr(exc, 'filename', None) or directory}: {exc.strerror or exc}") from None
        raise
