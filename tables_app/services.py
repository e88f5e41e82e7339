"""Use cases. Each owns its transaction; the CLI calls exactly one of them.

Results are plain dicts in the JSON shapes of cli-contract.md, so the CLI
only prints them.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DatabaseError as SQLAlchemyDatabaseError
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from tables_app.domain.tables import Entry, TableKind
from tables_app.errors import DatabaseError, NotFound, Problem, WorkbookInvalid
from tables_app.storage import db

# Bundled workbooks in dependency order (criticals before the attack cells
# and weapons that name them); any other bundled workbook follows.
BUNDLED_ORDER = ("criticals.xlsx", "attacks.xlsx", "armory.xlsx", "bestiary.xlsx")


# ------------------------------------------------------------ the database
def open_database(location: str | None = None) -> Engine:
    """The engine for ``--db`` / ``$TABLES_DB`` / the user database, ready to use.

    A database that does not exist yet is built beside its final path
    (migrated, bundled tables imported) and moved into place at the end, so
    a failed or concurrent first run never leaves half a database.
    """
    url = db.database_url(location)
    if not url.startswith("sqlite:"):
        raise DatabaseError(f"{url.split('://')[0]} databases are not supported; give a SQLite file path or sqlite:/// URL")
    path = db.sqlite_path(url)
    try:
        if path is not None and (not path.exists() or path.stat().st_size == 0):
            _build_new_database(path)
        engine = db.create_db_engine(url)
        revision = db.current_revision(engine)
    except OSError as exc:
        raise DatabaseError(f"cannot create the database {path}: {exc.strerror or exc}") from None
    except SQLAlchemyDatabaseError as exc:
        raise DatabaseError(f"cannot read the database {path or url}: {exc.orig}") from None
    if revision == db.SCHEMA_HEAD:
        return engine
    if revision is None and not db.is_empty(engine):
        raise DatabaseError(f"{path or url} is not a tables_app database (it has no schema version)")
    upgrade_database(engine)
    if revision is None:
        import_bundled(engine)
    return engine


def _build_new_database(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".tables-new-", suffix=".db", dir=path.parent)
    os.close(handle)
    os.unlink(temporary)
    engine = db.create_db_engine(f"sqlite:///{temporary}")
    try:
        db.migrate(engine)
        import_bundled(engine)
        engine.dispose()
        try:
            os.link(temporary, path)  # atomic, and never over a database another process made
        except FileExistsError:
            pass  # another process finished first; keep its database
        except OSError:
            if not path.exists():  # a file system without hard links
                os.replace(temporary, path)
    finally:
        engine.dispose()
        for leftover in (temporary, temporary + "-wal", temporary + "-shm"):
            if os.path.exists(leftover):
                os.unlink(leftover)


def upgrade_database(engine: Engine) -> str | None:
    """Migrate to the newest schema; a schema newer than this program is an error."""
    revision = db.current_revision(engine)
    if revision is not None and revision != db.SCHEMA_HEAD:
        from alembic.script import ScriptDirectory

        known = {script.revision for script in ScriptDirectory.from_config(db.alembic_config()).walk_revisions()}
        if revision not in known:
            raise DatabaseError(f"the database has schema {revision}, newer than this tables_app knows; upgrade tables_app")
    try:
        db.migrate(engine)
    except OperationalError as exc:
        raise DatabaseError(f"migration failed, database unchanged: {exc.orig}") from None
    return db.current_revision(engine)


def database_status(engine: Engine) -> dict:
    return {"database": str(engine.url.database), "current": db.current_revision(engine), "head": db.SCHEMA_HEAD}


def bundled_workbooks() -> list[Path]:
    folder = db.resource_dir("table_sources")
    present = {p.name: p for p in folder.glob("*.xlsx") if not p.name.startswith(("~$", "."))}
    ordered = [present.pop(name) for name in BUNDLED_ORDER if name in present]
    return ordered + sorted(present.values())


BUNDLED_PREFIX = "bundled/"


def import_bundled(engine: Engine) -> None:
    """Import the bundled workbooks, known as ``bundled/NAME.xlsx`` so that a
    user's own ``attacks.xlsx`` is a different workbook."""
    paths = bundled_workbooks()
    report = import_workbooks(engine, paths, replace=True, labels=[BUNDLED_PREFIX + p.name for p in paths])
    if report.problems:  # our own files: a failure here is a bug, say so plainly
        raise WorkbookInvalid(report.problems)


# ------------------------------------------------------------ importing
@dataclass
class WorkbookReport:
    file_name: str
    sha256: str
    defined: dict[str, list[str]] = field(default_factory=dict)
    removed: dict[str, list[str]] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


@dataclass
class ImportReport:
    workbooks: list[WorkbookReport] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    written: bool = False

    def as_json(self) -> dict:
        return {
            "written": self.written,
            "workbooks": [
                {"file_name": w.file_name, "sha256": w.sha256, "defined": w.defined, "removed": w.removed, "warnings": w.warnings}
                for w in self.workbooks
            ],
            "errors": [str(p) for p in self.problems],
        }


def import_workbooks(
    engine: Engine, paths: list[Path] | list[str], *, dry_run: bool = False, replace: bool = False,
    labels: list[str] | None = None,
) -> ImportReport:
    """Import workbooks in order, all in one transaction: all or nothing.

    Each workbook sees the tables of the ones before it. Every problem of
    every workbook is collected; with any problem nothing is written.
    ``labels`` name the workbooks (default: their file names).
    """
    from sqlalchemy import text

    from tables_app.sheets.parse import interpret
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
                    raw = read_workbook(path, labels[index] if labels else None)
                except WorkbookInvalid as exc:
                    report.problems.extend(exc.problems)
                    continue
                parsed = interpret(raw, repository.load_catalog(session), replace=replace)
                item = WorkbookReport(raw.file_name, raw.sha256, warnings=[str(w) for w in parsed.warnings])
                report.workbooks.append(item)
                if parsed.problems:
                    report.problems.extend(parsed.problems)
                    continue
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
        raise DatabaseError(f"cannot write the database, nothing was written: {exc.orig}") from None
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


# ------------------------------------------------------------ lookups
def _read(engine: Engine):  # type: ignore[no-untyped-def]
    return Session(engine)


LIST_KINDS = {"attack": "attack", "critical": "critical", "fumble": "fumble", "weapons": "weapons",
              "weapon": "weapons", "creatures": "creatures", "creature": "creatures", "severities": "severities"}


def list_items(engine: Engine, kind: str | None) -> dict:
    from tables_app.storage import repository

    kinds = [LIST_KINDS[kind]] if kind else ["attack", "critical", "fumble", "weapons", "creatures"]
    with _read(engine) as session:
        return {k: repository.list_named(session, k) for k in kinds}


def entry_json(entry: Entry) -> dict:
    return {
        "range": entry.range.label, "text": entry.text, "title": entry.title, "hits": entry.hits,
        "bleed": entry.bleed, "stun": entry.stun, "penalty": entry.penalty,
        "effects": list(entry.effects), "condition": entry.condition,
    }


def query_attack(engine: Engine, table_name: str, result: int, armor: str) -> dict:
    from tables_app.storage import repository

    with _read(engine) as session:
        table = repository.load_attack_table(session, table_name)
    column = table.column(armor)
    if column is None:
        raise NotFound(f"attack table {table.name!r} has no armor column {armor!r} (columns: {', '.join(table.armors)})")
    found = table.read(result, column)
    if found is None:
        raise NotFound(f"result {result} is below the first row of {table.name!r} ({table.rows.ranges[0].label})")
    row, cell = found
    return {
        "table": table.name, "row": row.label, "armor": table.armors[column], "text": cell.text,
        "outcome": cell.outcome.value, "hits": cell.hits, "severity": cell.severity, "critical_table": cell.critical,
    }


def _natural_d100(roll: int) -> None:
    if not 1 <= roll <= 100:
        raise NotFound(f"roll {roll} is not a d100 roll (1-100); modifiers are given separately")


def query_critical(engine: Engine, table_name: str, roll: int, severity: str | None, features: tuple[str, ...]) -> dict:
    from tables_app.storage import repository

    _natural_d100(roll)
    with _read(engine) as session:
        table = repository.load_effect_table(session, TableKind.CRITICAL, repository.find_critical_name(session, table_name))
    modifier = 0
    if severity is not None:
        level = table.scale.find(severity)
        if level is None:
            codes = ", ".join(f"{s.code} (+{s.modifier})" for s in table.scale.levels)
            raise NotFound(f"unknown severity {severity!r} for {table.name!r} (severities: {codes})")
        modifier = level.modifier
    modified = roll + modifier
    _, entries = table.row(modified)
    choice = table.choose(modified, frozenset(features))
    return {
        "table": table.name, "roll": roll, "modified_roll": modified, "entry": entry_json(choice.entry),
        "branches": [entry_json(e) for e in entries if e.condition is not None],
    }


def query_fumble(engine: Engine, table_name: str, roll: int, modifier: int) -> dict:
    from tables_app.storage import repository

    _natural_d100(roll)
    with _read(engine) as session:
        table = repository.load_effect_table(session, TableKind.FUMBLE, table_name)
    modified = roll + modifier
    return {"table": table.name, "roll": roll, "modified_roll": modified, "entry": entry_json(table.choose(modified).entry)}


SHOW_KINDS = {"attack": "attack", "critical": "critical", "fumble": "fumble", "weapon": "weapons",
              "weapons": "weapons", "creature": "creatures", "creatures": "creatures"}


def show(engine: Engine, kind: str, name: str) -> dict:
    """The whole table (or weapon, creature) as rows for a grid."""
    from tables_app.storage import repository

    kind = SHOW_KINDS[kind]
    with _read(engine) as session:
        if kind == "attack":
            table = repository.load_attack_table(session, name)
            return {
                "kind": "attack", "table": table.name, "severities": table.scale.name, "armor": list(table.armors),
                "rows": [{"range": r.label, "cells": [c.text for c in cells]} for r, cells in zip(table.rows.ranges, table.rows.values)],
            }
        if kind in ("critical", "fumble"):
            table_kind = TableKind(kind)
            if table_kind is TableKind.CRITICAL:
                name = repository.find_critical_name(session, name)
            effect = repository.load_effect_table(session, table_kind, name)
            return {
                "kind": kind, "table": effect.name, "code": effect.code,
                "entries": [entry_json(e) for e in effect.entries],
            }
        items = [i for i in repository.list_named(session, kind) if i["name"].casefold() == name.casefold()]
        if not items:
            raise NotFound(f"no {kind[:-1]} named {name!r}")
        return {"kind": kind[:-1], **items[0]}
