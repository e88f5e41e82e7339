"""Removing what workbooks or rulesets defined: all or nothing, in one transaction.

`tables remove WORKBOOK...` deletes everything those workbooks defined;
`tables remove --ruleset R` everything in ruleset R (with workbooks too:
only what they defined in R). A removal that would leave a weapon, an
attack cell or a table pointing at nothing is refused, naming the users.
The built-in severity scale belongs to tables_app and is never removed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import delete, select, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from tables_app.domain.kinds import KINDS
from tables_app.domain.names import fold
from tables_app.domain.rulesets import shown
from tables_app.errors import DatabaseError, NotFound, TablesError
from tables_app.storage.connection import busy_message

BUILT_IN_SCALE_ID = 1  # made by the first migration


@dataclass
class RemoveReport:
    removed: dict[str, list[str]] = field(default_factory=dict)  # kind → names (qualified outside default)
    workbooks: list[str] = field(default_factory=list)  # workbook records deleted
    rulesets: list[str] = field(default_factory=list)  # rulesets left empty, deleted
    written: bool = False

    def as_json(self) -> dict:
        return {"written": self.written, "removed": self.removed, "workbooks": self.workbooks, "rulesets": self.rulesets}


def remove(engine: Engine, workbooks: tuple[str, ...] = (), ruleset: str | None = None, *, dry_run: bool = False) -> RemoveReport:
    from tables_app.storage import models as m
    from tables_app.storage import repository

    if not workbooks and ruleset is None:
        raise TablesError("name the workbooks to remove, or give --ruleset")
    try:
        with Session(engine.execution_options(begin="BEGIN IMMEDIATE")) as session:
            transaction = session.begin()
            session.execute(text("PRAGMA defer_foreign_keys = ON"))
            conditions = []
            workbook_ids = _workbook_ids(session, workbooks)
            if workbooks:
                conditions.append(lambda model: model.workbook_id.in_(workbook_ids))
            if ruleset is not None:
                ruleset_id = _ruleset_id(session, ruleset)
                conditions.append(lambda model: model.ruleset_id == ruleset_id)
            rulesets = dict(session.execute(select(m.Ruleset.id, m.Ruleset.name)).all())
            report = RemoveReport()
            removed_ids: dict[str, dict[int, str]] = {}
            for kind in KINDS:
                model = repository.NAMED[kind]
                query = select(model.id, model.name, model.ruleset_id).where(*(c(model) for c in conditions))
                if kind == "severities":
                    query = query.where(model.id != BUILT_IN_SCALE_ID)
                rows = session.execute(query).all()
                if not rows:
                    continue
                removed_ids[kind] = {row_id: shown(rulesets[r], name) for row_id, name, r in rows}  # as refusals name them
                report.removed[kind] = sorted(removed_ids[kind].values())
                session.execute(delete(model).where(model.id.in_(removed_ids[kind])))
            users = repository.dangling_users(session, removed_ids)
            if users:
                transaction.rollback()
                raise TablesError(f"nothing was removed: {'; '.join(users)} (remove those too, or change them first)")
            report.workbooks = _drop_empty_workbooks(session)
            report.rulesets = repository.drop_empty_rulesets(session)
            if session.execute(text("PRAGMA foreign_key_check")).first() is not None:
                raise DatabaseError("the removal would leave broken references; nothing was removed")
            if dry_run:
                transaction.rollback()
            else:
                transaction.commit()
                report.written = True
            return report
    except IntegrityError as exc:
        raise DatabaseError(f"the removal would break the database, nothing was removed: {exc.orig}") from None
    except OperationalError as exc:
        raise DatabaseError(busy_message(exc.orig)) from None


def _workbook_ids(session: Session, names: tuple[str, ...]) -> list[int]:
    """The workbook records named (file names, in any letter case)."""
    from tables_app.storage import models as m

    known = dict(session.execute(select(m.Workbook.id, m.Workbook.file_name)).all())
    ids = []
    for name in names:
        found = [i for i, file_name in known.items() if fold(file_name) == fold(name)]
        if not found:
            raise NotFound.unknown(f"no imported workbook named {name!r}", name, known.values(), "see `tables list` for workbooks")
        ids += found
    return ids


def _ruleset_id(session: Session, name: str) -> int:
    from tables_app.storage import models as m

    known = dict(session.execute(select(m.Ruleset.id, m.Ruleset.name)).all())
    for ruleset_id, stored in known.items():
        if fold(stored) == fold(name):
            return ruleset_id
    raise NotFound.unknown(f"no ruleset named {name!r}", name, known.values(), "see `tables list rulesets`")


def _drop_empty_workbooks(session: Session) -> list[str]:
    """Delete the workbook records that define nothing any more; their file names."""
    from tables_app.storage import models as m
    from tables_app.storage import repository

    used: set[int] = set()
    for model in repository.NAMED.values():
        used |= {i for i in session.scalars(select(model.workbook_id).distinct()) if i is not None}
    empty = dict(session.execute(select(m.Workbook.id, m.Workbook.file_name).where(m.Workbook.id.not_in(used))).all())
    if empty:
        session.execute(delete(m.Workbook).where(m.Workbook.id.in_(empty)))
    return sorted(empty.values())
