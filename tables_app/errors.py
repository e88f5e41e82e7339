"""Every error the library raises on purpose derives from TablesError.

The CLI turns a TablesError into a one-line ``Error: ...`` and exit code 1;
anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


class TablesError(Exception):
    """Bad data or a failed lookup: reported to the user, exit code 1."""


class NotFound(TablesError):
    """A named table, weapon, creature, column or row does not exist."""


class DatabaseError(TablesError):
    """The database cannot be opened, migrated or written."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong in a workbook, located as precisely as we can."""

    workbook: str
    sheet: str | None
    cell: str | None
    message: str

    def __str__(self) -> str:
        where = " › ".join(part for part in (self.workbook, self.sheet, self.cell) if part)
        return f"{where}: {self.message}"


class WorkbookInvalid(TablesError):
    """A workbook has one or more problems; nothing was imported."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        count = len(self.problems)
        head = str(self.problems[0]) if self.problems else "invalid workbook"
        more = f" (and {count - 1} more)" if count > 1 else ""
        super().__init__(head + more)

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return type(self), (self.problems,)  # so a helper process can send one (sheets/workers.py)
