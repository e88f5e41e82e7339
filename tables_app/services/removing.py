"""Removing what workbooks or rulesets defined: all or nothing, in one transaction.

`tables remove WORKBOOK...` deletes everything those workbooks defined;
`tables remove --ruleset R` everything in ruleset R (with workbooks too:
only what they defined in R). A removal that would leave a weapon, an
attack cell or a table pointing at nothing is refused, naming the users.
The built-in severity scale belongs to tables_app and is never removed.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from tables_app.domain.kinds import KINDS
from tables_app.domain.names import fold
from tables_app.domain.rulesets import shown
from tables_app.errors import DatabaseError, NotFound, TablesError
from tables_app.storage import repository
from tables_app.storage.connection import busy_message
from tables_app.storage.database import Database
from tables_app.storage.reader import NAMED_TABLES
from tables_app.storage.repository import marks

BUILT_IN_SCALE_ID = 1  # made by the first migration


@dataclass
class RemoveReport:
    removed: dict[str, list[str]] = field(default_factory=dict)  # kind → names (qualified outside default)
    workbooks: list[str] = field(default_factory=list)  # workbook records deleted
    rulesets: list[str] = field(default_factory=list)  # rulesets left empty, deleted
    written: bool = False

    def as_json(self) -> dict:
        return {"written": self.written, "removed": self.removed, "workbooks": self.workbooks, "rulesets": self.rulesets}


def remove(database: Database, workbooks: tuple[str, ...] = (), ruleset: str | None = None, *,
           dry_run: bool = False) -> RemoveReport:
    if not workbooks and ruleset is None:
        raise TablesError("name the workbooks to remove, or give --ruleset")
    try:
        with database.write_transaction() as connection:
            conditions: list[str] = []
            arguments: list[object] = []
            workbook_ids = _workbook_ids(connection, workbooks)
            if workbooks:
                conditions.append(f"workbook_id IN ({marks(len(workbook_ids))})")
                arguments += workbook_ids
            if ruleset is not None:
                conditions.append("ruleset_id = ?")
                arguments.append(_ruleset_id(connection, ruleset))
            rulesets = dict(connection.execute("SELECT id, name FROM ruleset").fetchall())
            report = RemoveReport()
            removed_ids: dict[str, dict[int, str]] = {}
            for kind in KINDS:
                table = NAMED_TABLES[kind]
                where, args = list(conditions), list(arguments)
                if kind == "severities":
                    where.append("id != ?")
                    args.append(BUILT_IN_SCALE_ID)
                rows = connection.execute(f"SELECT id, name, ruleset_id FROM {table} WHERE {' AND '.join(where)}", args).fetchall()
                if not rows:
                    continue
                removed_ids[kind] = {row_id: shown(rulesets[r], name) for row_id, name, r in rows}  # as refusals name them
                report.removed[kind] = sorted(removed_ids[kind].values())
                connection.execute(f"DELETE FROM {table} WHERE id IN ({marks(len(rows))})", list(removed_ids[kind]))
            users = repository.dangling_users(connection, removed_ids)
            if users:
                raise TablesError(f"nothing was removed: {'; '.join(users)} (remove those too, or change them first)")
            report.workbooks = _drop_empty_workbooks(connection)
            report.rulesets = repository.drop_empty_rulesets(connection)
            if connection.execute("PRAGMA foreign_key_check").fetchone() is not None:
                raise DatabaseError("the removal would leave broken references; nothing was removed")
            if not dry_run:  # else write_transaction rolls back
                connection.execute("COMMIT")
                report.written = True
            return report
    except sqlite3.IntegrityError as exc:
        raise DatabaseError(f"the removal would break the database, nothing was removed: {exc}") from None
    except sqlite3.OperationalError as exc:
        raise DatabaseError(busy_message(exc)) from None


def _workbook_ids(connection: sqlite3.Connection, names: tuple[str, ...]) -> list[int]:
    """The workbook records named (file names, in any letter case)."""
    known = dict(connection.execute("SELECT id, file_name FROM workbook").fetchall())
    ids = []
    for name in names:
        found = [i for i, file_name in known.items() if fold(file_name) == fold(name)]
        if not found:
            raise NotFound.unknown(f"no imported workbook named {name!r}", name, known.values(), "see `tables list` for workbooks")
        ids += found
    return ids


def _ruleset_id(connection: sqlite3.Connection, name: str) -> int:
    known = dict(connection.execute("SELECT id, name FROM ruleset").fetchall())
    for ruleset_id, stored in known.items():
        if fold(stored) == fold(name):
            return ruleset_id
    raise NotFound.unknown(f"no ruleset named {name!r}", name, known.values(), "see `tables list rulesets`")


def _drop_empty_workbooks(connection: sqlite3.Connection) -> list[str]:
    """Delete the workbook records that define nothing any more; their file names."""
    used: set[int] = set()
    for table in NAMED_TABLES.values():
        used |= {i for (i,) in connection.execute(f"SELECT DISTINCT workbook_id FROM {table}") if i is not None}
    empty = {i: name for i, name in connection.execute("SELECT id, file_name FROM workbook") if i not in used}
    if empty:
        connection.execute(f"DELETE FROM workbook WHERE id IN ({marks(len(empty))})", list(empty))
    return sorted(empty.values())
