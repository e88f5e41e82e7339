"""Opening the database: find it, create it when that is wanted, check its schema.

Only two things create a database: the first command at the default location
(the user data directory, so a new machine just works) and ``tables db init``.
A database named by ``--db`` or ``$TABLES_DB`` must exist, so a mistyped path
is an error rather than a new database holding only the bundled tables.

An existing database at the newest schema is opened with sqlite3 alone (one
SELECT for the version), so everyday commands never import SQLAlchemy or
Alembic; building and migrating reach for them when needed (imports and
removals write with sqlite3 too).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

from tables_app.errors import DatabaseError, DatabaseFault, WorkbookInvalid
from tables_app.files import not_a_file
from tables_app.storage.connection import CHECK, SCHEMA_HEAD, UNCHANGED, fault_problem, has_tables, schema_version
from tables_app.storage.database import Database
from tables_app.storage.location import Server, Target, locate_database, resource_dir, sqlite_url

if TYPE_CHECKING:
    from sqlalchemy.exc import DBAPIError

# Bundled workbooks in dependency order (criticals before the attack cells
# and weapons that name them); any other bundled workbook follows.
BUNDLED_ORDER = ("criticals.xlsx", "attacks.xlsx", "armory.xlsx", "bestiary.xlsx")
BUNDLED_PREFIX = "bundled/"


def open_database(location: str | None = None) -> Database:
    """The database of ``--db`` / ``$TABLES_DB`` / the user data directory, ready to use.

    The default location is created on first use (``database.created`` is
    then True); a named location that is missing, or an empty file, is an
    error naming ``tables db init``. A database behind the newest schema is
    migrated.
    """
    where = locate_database(location)
    return _open(where.url, where.path, create=not where.named, bundled=True)


def init_database(location: str | None = None, *, bundled: bool = True) -> Database:
    """``tables db init``: a new database at the location, parent directories included.

    A missing path, an empty file (from ``touch``) or a SQLite file without
    tables becomes a database at the newest schema, with the bundled tables
    unless ``bundled`` is False; anything else there is refused, unchanged.
    """
    where = locate_database(location)
    return _open(where.url, where.path, create=True, bundled=bundled, only_new=True)


def created_notice(database: Database, *, bundled: bool = True) -> str:
    """The one line said (on stderr) when a database was just made."""
    contents = "bundled tables imported" if bundled else "no tables"
    return f"Created the database {database.path} (schema {SCHEMA_HEAD}, {contents})"


def _init_hint(path: Path) -> str:
    import shlex

    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # bytes that are not UTF-8: the shell's $'\\xff' spelling, copied as it is
        return "tables db init $'" + "".join(chr(b) if 32 < b < 127 and chr(b) not in "\\'" else f"\\x{b:02x}"
                                             for b in os.fsencode(text)) + "'"
    return f"tables db init {shlex.quote(text)}"


def _open(url: str, path: Target, *, create: bool, bundled: bool, only_new: bool = False) -> Database:
    """Open ``path``; build it first if it is blank and ``create`` allows.

    A failed or concurrent build never leaves half a database (see
    _build_new_database). ``only_new``: refuse a database that was already there.
    """
    if isinstance(path, Server):
        return _open_server(url, path, bundled=bundled, only_new=only_new)
    already_there = DatabaseError(f"{path} already exists and is not empty; nothing changed "
                                  "(db init makes new databases only)")
    created = False
    try:
        _refuse_other_than_a_file(path)
        missing = not path.exists()
        if missing or path.stat().st_size == 0:
            if not create:
                found = f"no database at {path}" if missing else f"{path} is an empty file, not a database"
                raise DatabaseError(f"{found} (create one with: {_init_hint(path)})")
            path.parent.mkdir(parents=True, exist_ok=True)
            created = _build_new_database(path, bundled)
            if only_new and not created:
                raise already_there
        database = Database(url, path)
        try:
            revision = schema_version(database.connection)
            empty = revision is None and not has_tables(database.connection)
        except Exception:
            database.dispose()
            raise
    except OSError as exc:
        raise DatabaseFault(path, _os_problem(exc, "create" if create else "open")) from None
    except sqlite3.DatabaseError as exc:
        problem = fault_problem(exc)
        if only_new and not (problem and "locked" in problem):
            raise already_there from None
        raise DatabaseFault(path, problem or f"cannot read the database ({exc}); {UNCHANGED}; {CHECK}") from None
    if only_new and not created and not empty:
        database.dispose()
        raise already_there
    if revision == SCHEMA_HEAD:
        database.created = created
        return database
    if revision is None and not empty:
        database.dispose()
        raise DatabaseError(f"{path} is not a tables_app database (it has no schema version)")
    if revision is None and not create:
        database.dispose()
        raise DatabaseError(f"{path} is an empty SQLite database, not a tables_app one (make it one with: {_init_hint(path)})")
    upgrade_database(database)
    if revision is None:  # a SQLite file without tables, made ours in place
        if bundled:
            import_bundled(database)
        created = True
    database.created = created
    return database


def _open_server(url: str, server: Server, *, bundled: bool, only_new: bool) -> Database:
    """A PostgreSQL database: the server and the database must exist (their
    administrator makes them); ``db init`` (``only_new``) makes an empty one
    a tables_app database, schema and bundled tables, and refuses any other.
    Opening one behind the newest schema migrates it, as for a file."""
    database = Database(url, server)
    try:
        revision = schema_version(database.connection)
        empty = revision is None and not has_tables(database.connection)
    except sqlite3.DatabaseError as exc:
        database.dispose()
        raise DatabaseFault(server, fault_problem(exc) or f"cannot read the database ({exc}); {UNCHANGED}; {CHECK}") from None
    except Exception:
        database.dispose()
        raise
    if only_new and not empty:
        database.dispose()
        raise DatabaseError(f"{server} already holds tables; nothing changed (db init makes an empty database a "
                            "tables_app one, and only an empty one)")
    if revision is None and not empty:
        database.dispose()
        raise DatabaseError(f"{server} is not a tables_app database (it has tables but no schema version)")
    if revision is None and not only_new:
        database.dispose()
        raise DatabaseError(f"{server} is an empty database, not a tables_app one (make it one with: tables db init URL)")
    if revision != SCHEMA_HEAD:
        upgrade_database(database)
    if revision is None:
        if bundled:
            import_bundled(database)
        database.created = True
    return database


def _refuse_other_than_a_file(path: Path) -> None:
    """A directory, a named pipe, a device, a socket at ``path``: refused,
    told without opening it (a named pipe would block), and never replaced
    by a new database (``db init /dev/null``). An OSError of the path is raised."""
    what = not_a_file(path)
    if what == "a directory":
        raise DatabaseFault(path, f"a directory, not a database file; give a file's path, such as {path / 'tables.db'}")
    if what is not None:
        raise DatabaseFault(path, f"{what}, not a database file; {UNCHANGED}; give a file's path")


def _os_problem(error: OSError, verb: str) -> str:
    """An operating system's refusal to open or create the file, with what to do."""
    import errno

    what = f"cannot {verb} the database ({error.strerror or error}); {UNCHANGED}"
    if error.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return f"{what}; free some space and try again"
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return f"{what}; check that you may read and write the file and its directory"
    return what


def _build_new_database(path: Path, bundled: bool) -> bool:
    """Build beside ``path`` (migrated, bundled tables imported) and link it
    into place at the end; False if another process's database got there first.

    A failure (a full disk) names ``path``, not the temporary file, and
    leaves nothing behind."""
    import tempfile  # only when a database is made: a lookup never pays for it

    from sqlalchemy.exc import DBAPIError

    from tables_app.storage import engine as db

    handle, temporary = tempfile.mkstemp(prefix=".tables-new-", suffix=".db", dir=path.parent)
    os.close(handle)
    os.unlink(temporary)
    engine = db.create_db_engine(sqlite_url(Path(temporary)))
    try:
        try:
            db.migrate(engine)
            if bundled:
                import_bundled(Database(sqlite_url(Path(temporary)), Path(temporary)))
        except DatabaseFault as exc:
            raise DatabaseFault(path, exc.problem) from None
        except DBAPIError as exc:
            problem = _driver_problem(exc)
            if problem is None:
                raise
            raise DatabaseFault(path, problem) from None
        engine.dispose()
        try:
            os.link(temporary, path)  # atomic, and never over a database another process made
        except OSError:  # the path exists, or a file system without hard links
            if path.exists() and path.stat().st_size > 0:
                return False  # another process finished first; keep its database
            os.replace(temporary, path)  # nothing there, or an empty file (touch): nothing to lose
        return True
    finally:
        engine.dispose()
        for leftover in (temporary, temporary + "-wal", temporary + "-shm"):
            if os.path.exists(leftover):
                os.unlink(leftover)


def _driver_problem(exc: DBAPIError) -> str | None:
    """``fault_problem`` of the driver's exception that SQLAlchemy wrapped (None when it wrapped none)."""
    return None if exc.orig is None else fault_problem(exc.orig)


def upgrade_database(database: Database) -> str | None:
    """Migrate to the newest schema; a schema newer than this program is an error.

    Refused before it starts, unchanged: a database with references to rows
    that do not exist (the migration would carry them over). A fault of the
    file met on the way (a full disk) names it; the migration's transaction
    leaves the database as it was.
    """
    from alembic.util import CommandError
    from sqlalchemy.exc import DBAPIError

    from tables_app.storage import engine as db
    from tables_app.storage.connection import broken_references

    revision = schema_version(database.connection)
    if revision is not None and revision != SCHEMA_HEAD:
        from alembic.script import ScriptDirectory

        known = {script.revision for script in ScriptDirectory.from_config(db.alembic_config()).walk_revisions()}
        if revision not in known:
            raise DatabaseFault(database.path, f"the database has schema {revision}, newer than this tables_app knows; "
                                               "upgrade tables_app")
        try:
            broken = broken_references(database.connection, limit=1)
        except sqlite3.DatabaseError as exc:
            raise DatabaseFault(database.path, fault_problem(exc) or f"cannot read the database ({exc}); {UNCHANGED}; {CHECK}") from None
        if broken:
            raise DatabaseFault(database.path, f"{broken[0]}; {UNCHANGED} (not migrated); {CHECK}")
    try:
        db.migrate(database.engine)
    except DBAPIError as exc:
        raise DatabaseFault(database.path, _driver_problem(exc) or f"the migration failed ({exc.orig}); {UNCHANGED}; {CHECK}") from None
    except CommandError as exc:
        raise DatabaseFault(database.path, f"the migration failed ({exc}); {UNCHANGED}; {CHECK}") from None
    return schema_version(database.connection)


def check_database(location: str | None = None) -> dict:
    """``tables db check``: ``{"database", "ok", "problems"}``, every finding
    of storage/check.py one sentence in ``problems``; the database is read
    only (``query_only``), never migrated or created.

    A path that holds no file at all is a DatabaseError (as for any command);
    a file SQLite cannot read is a finding.
    """
    from tables_app.storage.connection import check_file

    path = locate_database(location).path
    if isinstance(path, Server):
        problems = check_file(path)
        return {"database": str(path), "ok": not problems, "problems": problems}
    try:
        _refuse_other_than_a_file(path)
        if not path.exists():
            raise DatabaseError(f"no database at {path} (create one with: {_init_hint(path)})")
        found = ["an empty file, not a database"] if path.stat().st_size == 0 else None
    except OSError as exc:
        raise DatabaseFault(path, _os_problem(exc, "open")) from None
    if found is None:
        found = check_file(path)
    return {"database": str(path), "ok": not found, "problems": found}


def database_status(database: Database) -> dict:
    return {"database": str(database.path), "current": schema_version(database.connection), "head": SCHEMA_HEAD}


def bundled_workbooks() -> list[Path]:
    folder = resource_dir("table_sources")
    present = {p.name: p for p in folder.glob("*.xlsx") if not p.name.startswith(("~$", "."))}
    ordered = [present.pop(name) for name in BUNDLED_ORDER if name in present]
    return ordered + sorted(present.values())


EXAMPLES_FOLDER = "examples"  # table_sources/examples: shipped, imported only when asked for


def example_workbooks() -> dict[str, Path]:
    """The example workbooks shipped beside the bundled tables, by name
    (``printed``: the ruleset `Printed`, in a printed book's layouts). They
    are not imported into every database: their codes (S, K, P) would make
    the bundled tables' codes ambiguous (docs/cli.md, "Names and rulesets")."""
    folder = resource_dir("table_sources") / EXAMPLES_FOLDER
    return {p.stem: p for p in sorted(folder.glob("*.xlsx")) if not p.name.startswith(("~$", "."))}


def example_workbook(name: str) -> Path:
    from tables_app.domain.names import fold
    from tables_app.errors import NotFound

    examples = example_workbooks()
    for stem, path in examples.items():
        if fold(stem) == fold(name):
            return path
    raise NotFound.unknown(f"no example workbook named {name!r}", name, examples, f"examples: {', '.join(examples)}")


def import_bundled(database: Database) -> None:
    """Import the bundled workbooks, known as ``bundled/NAME.xlsx`` so that a
    user's own ``attacks.xlsx`` is a different workbook."""
    from tables_app.services.importing import import_workbooks

    paths = bundled_workbooks()
    report = import_workbooks(database, paths, replace=True, labels=[BUNDLED_PREFIX + p.name for p in paths])
    if report.problems:  # our own files: a failure here is a bug, say so plainly
        raise WorkbookInvalid(report.problems)
