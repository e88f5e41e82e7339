"""Opening the database: find it, create it on first use, check its schema.

An existing database at the newest schema is opened with sqlite3 alone (one
SELECT for the version), so everyday commands never import SQLAlchemy or
Alembic; building, migrating and importing reach for them when needed.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

from tables_app.errors import DatabaseError, WorkbookInvalid
from tables_app.storage.sqlite import (
    SCHEMA_HEAD,
    Database,
    busy_message,
    database_url,
    has_tables,
    resource_dir,
    schema_version,
    sqlite_path,
)

# Bundled workbooks in dependency order (criticals before the attack cells
# and weapons that name them); any other bundled workbook follows.
BUNDLED_ORDER = ("criticals.xlsx", "attacks.xlsx", "armory.xlsx", "bestiary.xlsx")
BUNDLED_PREFIX = "bundled/"


def open_database(location: str | None = None) -> Database:
    """The database of ``--db`` / ``$TABLES_DB`` / the user data directory, ready to use.

    A database that does not exist yet is built beside its final path
    (migrated, bundled tables imported) and linked into place at the end, so
    a failed or concurrent first run never leaves half a database.
    """
    url = database_url(location)
    if not url.startswith("sqlite:"):
        raise DatabaseError(f"{url.split('://')[0]} databases are not supported; give a SQLite file path or sqlite:/// URL")
    path = sqlite_path(url)
    if path is None:
        raise DatabaseError(f"{url} is not a database file; give a file path or sqlite:///PATH")
    try:
        if not path.exists() or path.stat().st_size == 0:
            _build_new_database(path)
        database = Database(url, path)
        revision = schema_version(database.connection)
        empty = revision is None and not has_tables(database.connection)
    except OSError as exc:
        raise DatabaseError(f"cannot create the database {path}: {exc.strerror or exc}") from None
    except sqlite3.DatabaseError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise DatabaseError(busy_message(exc)) from None
        raise DatabaseError(f"cannot read the database {path}: {exc}") from None
    if revision == SCHEMA_HEAD:
        return database
    if revision is None and not empty:
        raise DatabaseError(f"{path} is not a tables_app database (it has no schema version)")
    upgrade_database(database)
    if revision is None:
        import_bundled(database.engine)
    return database


def _build_new_database(path: Path) -> None:
    from tables_app.storage import db

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


def upgrade_database(database: Database) -> str | None:
    """Migrate to the newest schema; a schema newer than this program is an error."""
    from sqlalchemy.exc import OperationalError

    from tables_app.storage import db

    revision = schema_version(database.connection)
    if revision is not None and revision != SCHEMA_HEAD:
        from alembic.script import ScriptDirectory

        known = {script.revision for script in ScriptDirectory.from_config(db.alembic_config()).walk_revisions()}
        if revision not in known:
            raise DatabaseError(f"the database has schema {revision}, newer than this tables_app knows; upgrade tables_app")
    try:
        db.migrate(database.engine)
    except OperationalError as exc:
        raise DatabaseError(f"migration failed, database unchanged: {exc.orig}") from None
    return schema_version(database.connection)


def database_status(database: Database) -> dict:
    return {"database": str(database.path), "current": schema_version(database.connection), "head": SCHEMA_HEAD}


def bundled_workbooks() -> list[Path]:
    folder = resource_dir("table_sources")
    present = {p.name: p for p in folder.glob("*.xlsx") if not p.name.startswith(("~$", "."))}
    ordered = [present.pop(name) for name in BUNDLED_ORDER if name in present]
    return ordered + sorted(present.values())


def import_bundled(engine) -> None:  # type: ignore[no-untyped-def]
    """Import the bundled workbooks, known as ``bundled/NAME.xlsx`` so that a
    user's own ``attacks.xlsx`` is a different workbook."""
    from tables_app.importing import import_workbooks

    paths = bundled_workbooks()
    report = import_workbooks(engine, paths, replace=True, labels=[BUNDLED_PREFIX + p.name for p in paths])
    if report.problems:  # our own files: a failure here is a bug, say so plainly
        raise WorkbookInvalid(report.problems)
