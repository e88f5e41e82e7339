"""The SQL of a removal (services/removing.py decides what may go): the
named rows of each kind it takes, their deletion, and the workbook records
left defining nothing. Everything runs inside the removal's write
transaction (transactions.writing).
"""

from __future__ import annotations

import sqlite3

from tables_app.storage import sql
from tables_app.storage.locking import bump_generation
from tables_app.storage.reader import NAMED_TABLES

BUILT_IN_SCALE_ID = 1  # the severity scale `default`, made by the first migration: tables_app's, never removed

# The rows a removal takes, by what it was given. The list of workbooks is
# one parameter; one workbook is asked for with `=`, as SQLite reads
# `IN (one value)`, so each statement is read by the same index as ever (the
# order of the rows is the order a refusal names them in).
_COLUMNS = "SELECT id, name, ruleset_id FROM {table} WHERE "
_TAKEN = {
    (True, False): sql.per_table(_COLUMNS + "workbook_id IN (SELECT value FROM json_each(?))", NAMED_TABLES.values()),
    (False, True): sql.per_table(_COLUMNS + "ruleset_id = ?", NAMED_TABLES.values()),
    (True, True): sql.per_table(_COLUMNS + "workbook_id IN (SELECT value FROM json_each(?)) AND ruleset_id = ?",
                                NAMED_TABLES.values()),
}
_TAKEN_FROM_ONE = {
    False: sql.per_table(_COLUMNS + "workbook_id = ?", NAMED_TABLES.values()),
    True: sql.per_table(_COLUMNS + "workbook_id = ? AND ruleset_id = ?", NAMED_TABLES.values()),
}
_DELETE = sql.per_table("DELETE FROM {table} WHERE id IN (SELECT value FROM json_each(?))", NAMED_TABLES.values())
_WORKBOOKS_USED = sql.per_table("SELECT DISTINCT workbook_id FROM {table}", NAMED_TABLES.values())


def workbook_files(connection: sqlite3.Connection) -> dict[int, str]:
    """Workbook record id → the file name it was imported as."""
    return dict(connection.execute("SELECT id, file_name FROM workbook").fetchall())


def ruleset_names(connection: sqlite3.Connection) -> dict[int, str]:
    """Ruleset id → its name."""
    return dict(connection.execute("SELECT id, name FROM ruleset").fetchall())


def taken(connection: sqlite3.Connection, kind: str, *, workbook_ids: list[int] | None,
          ruleset_id: int | None) -> list[tuple[int, str, int]]:
    """(id, name, ruleset id) of every row of ``kind`` (domain/kinds.py) the
    workbooks defined (None: any), in the ruleset (None: any); never the
    built-in severity scale. One of the two is given."""
    table = NAMED_TABLES[kind]
    in_ruleset = () if ruleset_id is None else (ruleset_id,)
    if workbook_ids is not None and len(workbook_ids) == 1:
        rows = connection.execute(_TAKEN_FROM_ONE[ruleset_id is not None][table], (*workbook_ids, *in_ruleset)).fetchall()
    else:
        listed = () if workbook_ids is None else (sql.id_list(workbook_ids),)
        rows = connection.execute(_TAKEN[(workbook_ids is not None, ruleset_id is not None)][table],
                                  (*listed, *in_ruleset)).fetchall()
    return [row for row in rows if not (kind == "severities" and row[0] == BUILT_IN_SCALE_ID)]


def delete(connection: sqlite3.Connection, kind: str, ids: list[int]) -> None:
    """Delete rows of ``kind`` by id (their child rows go with them); the
    generation moves (servers' compiled tables are stale from the commit on)."""
    connection.execute(_DELETE[NAMED_TABLES[kind]], (sql.id_list(ids),))
    bump_generation(connection)


def drop_empty_workbooks(connection: sqlite3.Connection) -> list[str]:
    """Delete the workbook records that define nothing any more; their file names."""
    used: set[int] = set()
    for table in NAMED_TABLES.values():
        used |= {i for (i,) in connection.execute(_WORKBOOKS_USED[table]) if i is not None}
    empty = {i: name for i, name in connection.execute("SELECT id, file_name FROM workbook") if i not in used}
    if empty:
        connection.execute("DELETE FROM workbook WHERE id IN (SELECT value FROM json_each(?))", (sql.id_list(empty),))
    return sorted(empty.values())
