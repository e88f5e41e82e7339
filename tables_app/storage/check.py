"""What is wrong with a database: ``tables db check``, and the diagnosis of
an error met while reading or writing one.

The checks: SQLite's own (``PRAGMA integrity_check``, or ``quick_check``),
references to rows that do not exist (``PRAGMA foreign_key_check``), the
tables and columns against the ones the models define, the recorded schema
version against SCHEMA_HEAD, and values of the wrong type in number columns
(SQLite stores text in an INTEGER column without complaint), and every
fight's log replayed (a log that does not replay names its fight and the
event that breaks it; not in the quick check). Each finding is one sentence.

On PostgreSQL, the server's own checks stand in for SQLite's: it enforces
every foreign key and column type itself, so what is left to check is a
constraint switched off by hand (not valid), an index marked invalid, the
attack cells' references (kept by triggers there: cell_keys.py) and those
triggers, the tables and columns, and the schema version.

SQLAlchemy is imported here for the models' tables: this module runs only
when asked (``db check``) or when something has already gone wrong.
"""

from __future__ import annotations

import json
import sqlite3

from tables_app.errors import DatabaseFault
from tables_app.storage.dialect import on_server, table_names
from tables_app.storage.location import Target
from tables_app.storage.faults import CHECK, SCHEMA_HEAD, UNCHANGED, broken_references, fault_problem
from tables_app.storage import sql
from tables_app.storage.sql import quoted

LIMIT = 100  # findings of one kind, at most (integrity_check's own default)


def expected_tables() -> dict[str, dict[str, type]]:
    """Table → column → Python type of its values, as the models define them (and alembic_version)."""
    from tables_app.storage.models import metadata

    tables: dict[str, dict[str, type]] = {"alembic_version": {"version_num": str}}
    for table in metadata.sorted_tables:
        columns = {}
        for column in table.columns:
            try:
                columns[column.name] = column.type.python_type
            except NotImplementedError:
                columns[column.name] = object
        tables[table.name] = columns
    return tables


_SERVER_INTEGRITY = (
    "SELECT 'constraint ' || c.conname || ' of table ' || t.relname || ' is not valid (switched off by hand?)' "
    "FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid "
    "WHERE NOT c.convalidated AND t.relnamespace = current_schema()::regnamespace "
    "UNION ALL SELECT 'index ' || i.relname || ' is not valid (a failed CREATE INDEX CONCURRENTLY?)' "
    "FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid "
    "WHERE NOT x.indisvalid AND i.relnamespace = current_schema()::regnamespace")


def _columns(connection: sqlite3.Connection, table: str) -> list[str]:
    if on_server(connection):
        return [name for (name,) in connection.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?",
            (table,))]
    return [row[1] for row in connection.execute("SELECT * FROM pragma_table_info(?)", (table,))]


def integrity_problems(connection: sqlite3.Connection, quick: bool = False) -> list[str]:
    found: list[str] = []
    if on_server(connection):
        return [line for (line,) in connection.execute(_SERVER_INTEGRITY).fetchmany(LIMIT)] + cell_key_problems(connection)
    statement = "SELECT * FROM pragma_quick_check(?)" if quick else "SELECT * FROM pragma_integrity_check(?)"
    for (line,) in connection.execute(statement, (LIMIT,)):
        if line != "ok":
            found.extend(f"damaged: {part.strip()}" for part in str(line).splitlines()
                         if part.strip() and not part.startswith("*** in database"))
    return found


def cell_key_problems(connection: sqlite3.Connection) -> list[str]:
    """PostgreSQL: attack cells pointing at nothing, and a trigger that keeps
    them from it missing or switched off by hand (storage/cell_keys.py)."""
    from tables_app.storage import cell_keys

    if "attack_cell" not in table_names(connection):
        return []
    if set(cell_keys.FOREIGN_KEYS) <= {name for (name,) in connection.execute(cell_keys.HELD_KEYS)}:
        return []  # the foreign keys themselves (a database the migrations have not given the triggers yet)
    enabled = {(table, trigger) for table, trigger, on in connection.execute(cell_keys.HELD_TRIGGERS) if on}
    found = [f"trigger {trigger} of table {table} is missing or switched off (by hand?): run: tables db upgrade"
             for table, trigger in cell_keys.TRIGGERS if (table, trigger) not in enabled]
    found += [f"attack_cell row {cell} refers to a row that does not exist"
              for (cell,) in connection.execute(cell_keys.DANGLING, (LIMIT,))]
    return found


def schema_problems(connection: sqlite3.Connection) -> list[str]:
    """The models' tables and columns that are missing, and the schema version."""
    expected = expected_tables()
    present = table_names(connection)
    found = []
    for table, columns in expected.items():
        if table not in present:
            found.append(f"table {table} is missing")
            continue
        have = _columns(connection, table)
        found.extend(f"table {table} has no column {column}" for column in columns if column not in have)
    # A user's own tables, views, triggers and indexes are theirs to keep (the migrations keep them too).
    if "alembic_version" in present:
        versions = [row[0] for row in connection.execute("SELECT version_num FROM alembic_version").fetchmany(LIMIT)]
        if not versions:
            found.append("alembic_version is empty: the schema version is not recorded")
        elif len(versions) > 1:
            found.append(f"alembic_version holds {len(versions)} schema versions ({', '.join(map(str, versions))}) where it holds one")
        elif versions[0] != SCHEMA_HEAD:
            found.append(f"the schema is version {versions[0]}, not the newest ({SCHEMA_HEAD}): run: tables db upgrade")
    return found


# How many values of a column are not of its types (?1: a JSON list of them), the first row and value.
_WRONG_TYPES = ("SELECT count(*), min(rowid), (SELECT {column} FROM {table} WHERE typeof({column}) NOT IN "
                "(SELECT value FROM json_each(?1)) ORDER BY rowid LIMIT 1) "
                "FROM {table} WHERE typeof({column}) NOT IN (SELECT value FROM json_each(?1))")


def type_problems(connection: sqlite3.Connection) -> list[str]:
    """Values that are not numbers in the number columns (and not text in none)."""
    if on_server(connection):
        return []  # PostgreSQL keeps every column to its type
    allowed = {int: ("integer",), bool: ("integer",), float: ("integer", "real")}
    present = table_names(connection)
    found = []
    for table, columns in expected_tables().items():
        if table not in present:
            continue
        have = set(_columns(connection, table))
        for column, kind in columns.items():
            if kind not in allowed or column not in have:
                continue
            statement = _WRONG_TYPES.format(table=quoted(table), column=quoted(column))  # the models' names
            count, rowid, value = connection.execute(statement, (json.dumps([*allowed[kind], "null"]),)).fetchone()
            if count:
                what = "a whole number" if kind in (int, bool) else "a number"
                more = f" (and {count - 1} more rows)" if count > 1 else ""
                found.append(f"{table} row {rowid}: {column} holds {value!r} where {what} belongs{more}")
    return found


def fight_problems(connection: sqlite3.Connection) -> list[str]:
    """Fights whose log does not replay (storage/fights.unreplayable), once the schema has their tables."""
    from tables_app.storage.fights import unreplayable

    present = table_names(connection)
    if "fight" not in present or "fight_event" not in present or "version" not in _columns(connection, "fight"):
        return []  # a schema before 0013 is said above ("not the newest")
    found = unreplayable(connection, LIMIT)
    if "fight_group" in present:  # 0014: a fight's or a party's group is a group (0: the operator's), not a key
        for table in ("fight", "party"):
            found += [f"{table} {name!r}: its group {group} is no group (tables group list)" for name, group in
                      connection.execute(sql.fill("SELECT name, group_id FROM {table} WHERE group_id <> 0 AND group_id "
                                                  "NOT IN (SELECT id FROM fight_group) ORDER BY id LIMIT ?", table=table),
                                         (LIMIT,))]
    return found


def problems(connection: sqlite3.Connection, quick: bool = False) -> list[str]:
    """Every finding, one sentence each; [] for a sound database.

    A check that SQLite cannot run (the file is not a database, or too
    damaged to read) is a finding, and the checks after it are skipped.
    """
    found: list[str] = []
    checks = [lambda: integrity_problems(connection, quick), lambda: broken_references(connection, LIMIT),
              lambda: schema_problems(connection), lambda: type_problems(connection)]
    if not quick:  # every fight replayed: `db check`'s, not the quick diagnosis of an error
        checks.append(lambda: fight_problems(connection))
    for check in checks:
        try:
            found.extend(check())
        except sqlite3.DatabaseError as exc:
            problem = fault_problem(exc)
            found.append(problem.split(f"; {UNCHANGED}")[0] if problem else f"cannot be checked: {exc}")
            break
    return found


def diagnose(connection: sqlite3.Connection, path: Target | str) -> DatabaseFault | None:
    """After an unexpected error: what a quick check finds wrong in the
    database, as one DatabaseFault; None if it finds nothing (the error was
    a bug, not the database's) or cannot run."""
    try:
        found = problems(connection, quick=True)
    except Exception:  # noqa: BLE001 — the diagnosis must never hide the error it diagnoses
        return None
    if not found:
        return None
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return DatabaseFault(path, f"the database is damaged or was changed by hand: {found[0]}{more}; {UNCHANGED}; {CHECK}")
