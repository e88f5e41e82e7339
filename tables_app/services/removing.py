"""Removing what workbooks or rulesets defined: all or nothing, in one transaction.

`tables remove WORKBOOK...` deletes everything those workbooks defined;
`tables remove --ruleset R` everything in ruleset R (with workbooks too:
only what they defined in R). A removal that would leave a weapon, an
attack cell or a table pointing at nothing is refused, naming the users.
The built-in severity scale belongs to tables_app and is never removed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tables_app.domain.kinds import KINDS
from tables_app.domain.names import fold
from tables_app.domain.rulesets import shown
from tables_app.errors import DatabaseError, NotFound, TablesError
from tables_app.storage import removal, repository
from tables_app.storage.database import Database
from tables_app.storage.faults import any_broken_reference


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
    with database.writing(commit=not dry_run, breaking="the removal would break the database, nothing was removed") as connection:
        workbook_ids = _workbook_ids(removal.workbook_files(connection), workbooks)
        ruleset_id = None if ruleset is None else _ruleset_id(removal.ruleset_names(connection), ruleset)
        rulesets = removal.ruleset_names(connection)
        report = RemoveReport()
        removed_ids: dict[str, dict[int, str]] = {}
        for kind in KINDS:
            rows = removal.taken(connection, kind, workbook_ids=workbook_ids if workbooks else None, ruleset_id=ruleset_id)
            if not rows:
                continue
            removed_ids[kind] = {row_id: shown(rulesets[r], name) for row_id, name, r in rows}  # as refusals name them
            report.removed[kind] = sorted(removed_ids[kind].values())
            removal.delete(connection, kind, list(removed_ids[kind]))
        users = repository.dangling_users(connection, removed_ids)
        if users:
            raise TablesError(f"nothing was removed: {'; '.join(users)}; remove those too, or change them first")
        report.workbooks = removal.drop_empty_workbooks(connection)
        report.rulesets = repository.drop_empty_rulesets(connection)
        if any_broken_reference(connection):
            raise DatabaseError("the removal would leave broken references; nothing was removed")
    report.written = not dry_run  # a dry run was rolled back
    return report


def _workbook_ids(known: dict[int, str], names: tuple[str, ...]) -> list[int]:
    """The workbook records named (file names, in any letter case), of the ``known`` ones."""
    ids = []
    for name in names:
        found = [i for i, file_name in known.items() if fold(file_name) == fold(name)]
        if not found:
            raise NotFound.unknown(f"no imported workbook named {name!r}", name, known.values(), "see `tables list` for workbooks")
        ids += found
    return ids


def _ruleset_id(known: dict[int, str], name: str) -> int:
    for ruleset_id, stored in known.items():
        if fold(stored) == fold(name):
            return ruleset_id
    raise NotFound.unknown(f"no ruleset named {name!r}", name, known.values(), "see `tables list rulesets`")
