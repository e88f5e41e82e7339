"""Importing workbooks: all or nothing, in one transaction (storage/transactions.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tables_app.domain.kinds import KINDS, LABELS
from tables_app.domain.names import same_name
from tables_app.domain.rulesets import in_ruleset, name_key, shown
from tables_app.domain.severity import DEFAULT_SCALE
from tables_app.errors import NotFound, Problem, WorkbookInvalid
from tables_app.import_model import Catalog, Conflict, Defined, ParsedWorkbook
from tables_app.storage.database import Database

if TYPE_CHECKING:  # the sheets and the storage's reader are imported when an import runs
    import sqlite3

    from tables_app.sheets.raw import RawWorkbook
    from tables_app.sheets.read import SheetDone
    from tables_app.storage.reader import Reader

# An import's reports name a workbook's severity scale first: its tables use it.
REPORTED = ("severities", *KINDS[:-1])


@dataclass
class WorkbookReport:
    file_name: str
    sha256: str
    defined: dict[str, list[str]] = field(default_factory=dict)
    removed: dict[str, list[str]] = field(default_factory=dict)
    # names other workbooks define, which this one defines exactly as the
    # database holds them (an export imported back): left as they are
    unchanged: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)
    changes: dict = field(default_factory=dict)


@dataclass
class ImportReport:
    workbooks: list[WorkbookReport] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    written: bool = False

    def as_json(self) -> dict:
        return {
            "written": self.written,
            "workbooks": [
                {"file_name": w.file_name, "sha256": w.sha256, "defined": w.defined, "unchanged": w.unchanged,
                 "removed": w.removed, "changes": w.changes, "warnings": [p.as_json() for p in w.warnings]}
                for w in self.workbooks
            ],
            "errors": [p.as_json() for p in self.problems],
        }


def import_workbooks(
    database: Database, paths: Sequence[Path | str], *, dry_run: bool = False, replace: bool = False,
    labels: list[str] | None = None, strict: bool = False, on_sheet: SheetDone | None = None,
    on_wait: Callable[[float], None] | None = None,
) -> ImportReport:
    """Import workbooks, all in one transaction: all or nothing.

    The workbooks of one import may use each other's tables in any order on
    the command line: each is written as soon as it reads without a problem
    against what the database holds by then, and the others are read again
    after it, until a round writes nothing more (their problems are then
    real). Quality warnings are judged once everything is written, so they
    count the users in every workbook of the import. ``labels`` name the
    workbooks (default: their file names); with ``strict`` every warning is
    an error (and reported once, as an error).

    The write lock is held only to write (storage/transactions.py): the files are
    read, interpreted and checked first, against a read snapshot; a dry run
    works on a private copy of the database and never takes the lock.
    ``on_wait(seconds)`` is told while another process's write is waited for.
    """
    from tables_app.sheets.read import read_workbook

    problems: dict[int, list[Problem]] = {}  # by position on the command line
    raws: dict[int, RawWorkbook] = {}
    for index, path in enumerate(paths):
        try:
            raws[index] = read_workbook(path, labels[index] if labels else None, on_sheet,
                                        meanwhile=_load_the_writing_modules if index == 0 else None)
        except WorkbookInvalid as exc:
            problems[index] = list(exc.problems)
    items = {index: WorkbookReport(raw.file_name, raw.sha256) for index, raw in raws.items()}
    report = ImportReport(workbooks=list(items.values()))
    importer = _Importer(replace, datetime.now(UTC).isoformat(timespec="seconds"))

    def check(connection: sqlite3.Connection) -> dict[int, ParsedWorkbook]:
        return {index: importer.prepare(connection, raws[index], items[index]) for index in raws}

    def write(connection: sqlite3.Connection, prepared: dict[int, ParsedWorkbook] | None) -> bool:
        importer.run(connection, raws, items, problems, strict, report, prepared)
        return not report.problems  # commit

    report.written = database.check_then_write(check, write, breaking="the import would break the database, nothing was written",
                                               on_wait=on_wait, dry_run=dry_run)
    return report


def _load_the_writing_modules() -> None:
    """What the import needs once the workbook is read, loaded while the reader's
    child process is still at work on the other core (~35 ms of imports)."""
    from importlib import import_module

    for module in ("services.import_changes", "sheets.parse", "sheets.quality", "storage.repository",
                   "storage.transactions"):
        import_module(f"tables_app.{module}")


class _Importer:
    """Writes workbooks into one open transaction, remembering what it wrote."""

    def __init__(self, replace: bool, now: str):
        self.replace, self.now = replace, now
        self.written: dict[int, tuple[ParsedWorkbook, WorkbookReport]] = {}  # position on the command line → (parsed, report)
        self.removed: list[tuple[str, dict[str, dict[int, str]]]] = []

    def prepare(self, connection: sqlite3.Connection, raw: RawWorkbook, item: WorkbookReport) -> ParsedWorkbook:
        """Interpret and check one workbook against what the database holds
        now (a read is enough): the parsed workbook, its problems in it."""
        from tables_app.services.import_changes import describe_changes
        from tables_app.sheets.parse import interpret
        from tables_app.storage import repository
        from tables_app.storage.reader import Reader

        catalog = repository.load_catalog(connection)
        parsed = interpret(raw, catalog)
        check_names(parsed, catalog, replace=self.replace)
        reader = Reader(connection=connection)
        item.unchanged = _settle_conflicts(parsed, reader)
        if not parsed.problems:
            item.changes = describe_changes(reader, parsed)
            item.defined = _defined_names(parsed)
        return parsed

    def run(self, connection: sqlite3.Connection, raws: dict[int, RawWorkbook], items: dict[int, WorkbookReport],
            problems: dict[int, list[Problem]], strict: bool, report: ImportReport,
            prepared: dict[int, ParsedWorkbook] | None = None) -> None:
        """Every workbook written in rounds (see import_workbooks), warnings
        judged, what is still used checked; ``report.problems`` says whether
        the caller may commit. ``prepared`` workbooks (checked before the lock
        was taken, nothing written since) are written as they are until the
        first write; after it, each is read again against what it wrote."""
        prepared = dict(prepared or {})
        pending = list(raws)
        while pending:
            waiting = {}
            for index in pending:
                parsed = prepared.pop(index, None) if not self.written else None
                found = self.write(connection, index, raws[index], items[index], parsed)
                if found:
                    waiting[index] = found
            if len(waiting) == len(pending):
                problems.update(waiting)
                break
            pending = list(waiting)
        for index, warnings in self.warnings(connection).items():
            if strict and warnings:
                problems.setdefault(index, []).extend(
                    Problem(w.workbook, w.sheet, w.cell, f"{w.message} (--strict)") for w in warnings)
            else:
                items[index].warnings = warnings
        report.problems = [p for index in sorted(problems) for p in problems[index]]
        if not report.problems:
            report.problems.extend(_still_used(connection, self.removed))
            from tables_app.storage.repository import drop_empty_rulesets

            drop_empty_rulesets(connection)

    def write(self, connection: sqlite3.Connection, index: int, raw: RawWorkbook, item: WorkbookReport,
              parsed: ParsedWorkbook | None = None) -> list[Problem]:
        """Write one workbook if it reads without a problem now; else its problems."""
        from tables_app.storage import repository

        if parsed is None:
            parsed = self.prepare(connection, raw, item)
        if parsed.problems:
            return parsed.problems
        writer = repository.Writer(connection, parsed, self.now)
        item.removed = writer.run()
        self.removed.append((raw.file_name, writer.removed_ids))
        self.written[index] = (parsed, item)
        return []

    def warnings(self, connection: sqlite3.Connection) -> dict[int, list[Problem]]:
        """The warnings of every workbook written, by its position (see import_workbooks)."""
        from tables_app.sheets.quality import quality_warnings
        from tables_app.storage.reader import Reader

        reader = Reader(connection=connection)
        tops = reader.attack_tops()
        with_weapons = any(parsed.weapons or item.unchanged.get("weapons") for parsed, item in self.written.values())
        return {key: parsed.warnings + quality_warnings(parsed, reader.references(item.file_name), tops, with_weapons)
                for key, (parsed, item) in self.written.items()}


def check_names(parsed: ParsedWorkbook, catalog: Catalog, *, replace: bool) -> None:
    """Whose names these are: a name is defined once in a workbook, and a
    name another workbook owns is a conflict unless ``replace`` (settled
    against the database by _settle_conflicts)."""
    _check_unique_names(parsed)
    _check_owners(parsed, catalog, replace)


def _check_unique_names(parsed: ParsedWorkbook) -> None:
    """A name is defined once per ruleset in a workbook."""
    for kind in KINDS:
        if kind == "severities":
            continue  # a workbook holds one severities sheet (sheets/parse.py)
        first: dict[tuple[str, str], Defined] = {}
        for item in parsed.items(kind):
            key = name_key(item.ruleset, item.name)
            if key in first:
                other = first[key]
                parsed.problems.append(Problem(parsed.file_name, item.sheet, item.cell,
                                               f"{LABELS[kind]} {item.name!r}{in_ruleset(item.ruleset)} is defined twice "
                                               f"(first in {other.sheet} › {other.cell})"))
            else:
                first[key] = item


def _check_owners(parsed: ParsedWorkbook, catalog: Catalog, replace: bool) -> None:
    for kind in REPORTED:
        for item in parsed.items(kind):
            if kind == "severities" and same_name(item.name, DEFAULT_SCALE.name):  # every ruleset may use it
                parsed.problems.append(Problem(parsed.file_name, item.sheet, item.cell,
                                               f"{item.name!r} is the built-in severity scale; give the severities sheet another Name"))
                continue
            known, owner = catalog.owner(kind, item.ruleset, item.name)
            if not known:
                continue
            if not replace and not catalog.owned_by(kind, item.ruleset, item.name, parsed.file_name):
                by = f"workbook {owner}" if owner else "tables_app itself"
                message = (f"{LABELS[kind]} {item.name!r}{in_ruleset(item.ruleset)} is already defined by {by} "
                           "(import with --replace to take it over)")
                parsed.conflicts.append(Conflict(kind, item, Problem(parsed.file_name, item.sheet, item.cell, message)))


def _settle_conflicts(parsed: ParsedWorkbook, reader: Reader) -> dict[str, list[str]]:
    """A name another workbook owns is a conflict, unless this workbook
    defines it exactly as the database holds it: then it is left out of the
    import (unchanged, still the other workbook's). Returns those names by kind."""
    unchanged: dict[str, list[str]] = {}
    for conflict in parsed.conflicts:
        kind, item = conflict.kind, conflict.item
        stored = _stored(reader, kind, item.name, item.ruleset)
        if stored is None or not same_content(stored, item.value):
            parsed.problems.append(conflict.problem)
            continue
        if kind == "severities":
            parsed.scale = None
        else:
            parsed.items(kind).remove(item)
        unchanged.setdefault(kind, []).append(shown(item.ruleset, item.name))
    return unchanged


def _stored(reader: Reader, kind: str, name: str, ruleset: str) -> object | None:
    from tables_app.domain.tables import TableKind

    if kind == "severities":
        return next((scale for r, scale in reader.scales_by_ruleset() if scale.name == name and same_name(r, ruleset)), None)
    loaders: dict[str, Callable[[str, str], object]] = {
        "attack": reader.load_attack_table, "weapons": reader.load_weapon, "creatures": reader.load_creature,
        "critical": lambda n, r: reader.load_effect_table(TableKind.CRITICAL, n, r),
        "fumble": lambda n, r: reader.load_effect_table(TableKind.FUMBLE, n, r)}
    load = loaders[kind]
    try:
        return load(name, ruleset)
    except NotFound:
        return None


def same_content(a: object, b: object) -> bool:
    """Equal values, field by field; a RangeTable (which has no equality of
    its own) is equal when its ranges and values are."""
    from tables_app.domain.ranges import RangeTable

    if type(a) is not type(b):
        return False
    if isinstance(a, RangeTable) and isinstance(b, RangeTable):  # b is when a is: their types are one
        return a.ranges == b.ranges and a.values == b.values
    if is_dataclass(a) and not isinstance(a, type):
        return all(same_content(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):  # a printed table's column_rows: a tuple of RangeTables
        return len(a) == len(b) and all(same_content(x, y) for x, y in zip(a, b))
    return a == b


def _still_used(connection: sqlite3.Connection, removed: list[tuple[str, dict[str, dict[int, str]]]]) -> list[Problem]:
    """A workbook may not remove what other tables or weapons still use."""
    from tables_app.storage import repository
    from tables_app.storage.transactions import refuse_broken_references

    problems = [
        Problem(file_name, None, None, f"no longer defines {sentence}; keep it, or change them in the same import")
        for file_name, ids in removed
        for sentence in repository.dangling_users(connection, ids)
    ]
    if not problems:
        # rows referring to nothing: left by hand before this import (the
        # transaction says so, naming the file, and to run db check), or made by it
        refuse_broken_references(connection, "the import would leave broken references")
    return problems


def _defined_names(parsed: ParsedWorkbook) -> dict[str, list[str]]:
    """Names by kind, qualified outside ``default`` (RM:Broadsword)."""
    out = {kind: [shown(d.ruleset, d.name) for d in parsed.items(kind)] for kind in REPORTED}
    return {kind: names for kind, names in out.items() if names}
