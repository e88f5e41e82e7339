"""Importing workbooks: all or nothing, in one transaction (SQLAlchemy)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from tables_app.errors import DatabaseError, Problem, WorkbookInvalid
from tables_app.storage.sqlite import busy_message


@dataclass
class WorkbookReport:
    file_name: str
    sha256: str
    defined: dict[str, list[str]] = field(default_factory=dict)
    removed: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
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
                {"file_name": w.file_name, "sha256": w.sha256, "defined": w.defined, "removed": w.removed,
                 "changes": w.changes, "warnings": w.warnings}
                for w in self.workbooks
            ],
            "errors": [str(p) for p in self.problems],
        }


def import_workbooks(
    engine: Engine, paths: list[Path] | list[str], *, dry_run: bool = False, replace: bool = False,
    labels: list[str] | None = None, strict: bool = False, on_sheet=None,  # type: ignore[no-untyped-def]
) -> ImportReport:
    """Import workbooks in order, all in one transaction: all or nothing.

    Each workbook sees the tables of the ones before it. Every problem of
    every workbook is collected; with any problem nothing is written.
    ``labels`` name the workbooks (default: their file names). Quality
    warnings (sheets/quality.py) are reported; with ``strict`` every warning
    is an error.
    """
    from sqlalchemy import text

    from tables_app.changes import describe_changes
    from tables_app.sheets.parse import interpret
    from tables_app.sheets.quality import quality_warnings
    from tables_app.storage.reader import Reader
    from tables_app.sheets.read import read_workbook
    from tables_app.storage import repository

    report = ImportReport()
    now = datetime.now(UTC).isoformat(timespec="seconds")
    writer_engine = engine.execution_options(begin="BEGIN IMMEDIATE")
    removed: list[tuple[str, dict[str, dict[int, str]]]] = []
    try:
        with Session(writer_engine) as session:
            transaction = session.begin()
            # References are checked at the end: one workbook may drop a table
            # that the next one in the same import stops using.
            session.execute(text("PRAGMA defer_foreign_keys = ON"))
            for index, path in enumerate(paths):
                try:
                    raw = read_workbook(path, labels[index] if labels else None, on_sheet)
                except WorkbookInvalid as exc:
                    report.problems.extend(exc.problems)
                    continue
                parsed = interpret(raw, repository.load_catalog(session), replace=replace)
                item = WorkbookReport(raw.file_name, raw.sha256)
                report.workbooks.append(item)
                if parsed.problems:
                    report.problems.extend(parsed.problems)
                    continue
                reader = Reader(connection=session.connection().connection.driver_connection)
                warnings = parsed.warnings + quality_warnings(parsed, reader.references(raw.file_name), reader.attack_tops())
                item.warnings = [str(w) for w in warnings]
                if strict and warnings:
                    report.problems.extend(Problem(w.workbook, w.sheet, w.cell, f"{w.message} (--strict)") for w in warnings)
                    continue
                item.changes = describe_changes(reader, parsed)
                item.defined = _defined_names(parsed)
                if report.problems:
                    continue  # an earlier workbook failed: parse the rest for their errors only
                writer = repository.Writer(session, parsed, now)
                item.removed = writer.run()
                removed.append((raw.file_name, writer.removed_ids))
            if not report.problems:
                report.problems.extend(_still_used(session, removed))
            if report.problems or dry_run:
                transaction.rollback()
            else:
                transaction.commit()
                report.written = True
    except IntegrityError as exc:
        raise DatabaseError(f"the import would break the database, nothing was written: {exc.orig}") from None
    except OperationalError as exc:
        raise DatabaseError(busy_message(exc.orig)) from None
    return report


def _still_used(session: Session, removed: list[tuple[str, dict[str, dict[int, str]]]]) -> list[Problem]:
    """A workbook may not remove what other tables or weapons still use."""
    from sqlalchemy import text

    from tables_app.storage import repository

    problems = [
        Problem(file_name, None, None, f"no longer defines {sentence}; keep it, or change them in the same import")
        for file_name, ids in removed
        for sentence in repository.dangling_users(session, ids)
    ]
    if not problems and session.execute(text("PRAGMA foreign_key_check")).first() is not None:
        raise DatabaseError("the import would leave broken references; nothing was written")
    return problems


def _defined_names(parsed) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    out = {
        "severities": [parsed.scale.name] if parsed.scale else [],
        "attack": [d.name for d in parsed.attack_tables],
        "critical": [d.name for d in parsed.critical_tables],
        "fumble": [d.name for d in parsed.fumble_tables],
        "weapons": [d.name for d in parsed.weapons],
        "creatures": [d.name for d in parsed.creatures],
    }
    return {kind: names for kind, names in out.items() if names}
