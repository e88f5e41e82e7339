"""Every error the library raises on purpose derives from TablesError.

The CLI turns a TablesError into a one-line ``Error: ...`` and exit code 1,
a UsageMistake (formulas.UsageProblem among them) into Click's usage error
and exit code 2; anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable


def error_json(message: str, **located: Any) -> dict[str, Any]:
    """The content of ``{"error": ...}`` of ``--json`` and of the HTTP API
    (docs/cli.md, "Exit codes and errors"; docs/api.md)."""
    return {"message": message, "workbook": None, "sheet": None, "cell": None, **located}


LONGEST = 500  # a pasted 100 KB name is not echoed back whole


def shortened(line: str) -> str:
    """``line``, cut at LONGEST characters (saying how many more there were)."""
    return line if len(line) <= LONGEST else f"{line[:LONGEST]}… ({len(line) - LONGEST:,} more characters)"


def error_object(exc: TablesError) -> dict[str, Any]:
    """The error object of a library error, as ``--json`` prints it and the
    HTTP API answers it: a workbook's first problem located (with every
    problem), a name's near names in ``suggestions``."""
    if isinstance(exc, WorkbookInvalid):
        first = exc.problems[0].as_json() if exc.problems else {}
        first.pop("message", None)
        return error_json(shortened(str(exc.problems[0]) if exc.problems else str(exc)),
                          **{**first, "problems": [p.as_json() for p in exc.problems]})
    suggestions = list(getattr(exc, "suggestions", None) or [])
    return error_json(shortened(str(exc)), **({"suggestions": suggestions} if suggestions else {}))


class TablesError(Exception):
    """Bad data or a failed lookup: reported to the user, exit code 1."""


class UsageMistake(TablesError):
    """Options that cannot work as given (missing, contradictory, malformed): exit code 2."""


class NotFound(TablesError):
    """A named table, weapon, creature, column or row does not exist.

    ``suggestions``: the known names closest to the one asked for (also in
    the message), for programs: a JSON error object, an HTTP API.
    """

    def __init__(self, message: str, suggestions: Iterable[str] = ()):
        super().__init__(message)
        self.suggestions = list(suggestions)

    @classmethod
    def unknown(cls, subject: str, name: str, known: Iterable[str], otherwise: str) -> NotFound:
        """``<subject> — did you mean 'A' or 'B'?`` for the names of ``known``
        close to ``name``, else ``<subject> (<otherwise>)``: one line either way."""
        from tables_app.domain.names import did_you_mean, suggest

        suggestions = suggest(name, known)
        return cls(f"{subject}{did_you_mean(suggestions)}" if suggestions else f"{subject} ({otherwise})", suggestions)

    def __reduce__(self) -> tuple[type[NotFound], tuple[str, list[str]]]:
        return type(self), (str(self), self.suggestions)


class BadInput(TablesError):
    """A value a look-up cannot use as given, though every name in it was
    found: a roll off the die, a column or severity the table is not read
    by. Exit code 1 like NotFound; the HTTP API answers 422 (a bad request),
    not 404 (no such thing)."""


class Ambiguous(NotFound):
    """A name given without its ruleset is in several; ``suggestions`` are
    the qualified names (``RULESET:NAME``) it could mean."""


class Offered(TablesError):
    """A refusal that offers a command: ``said`` has `{}` where the offer goes, ``cli`` the offer on the
    command line (`tables fight show Ambush`), ``words`` the command (`("fight", "show")`) and ``name``
    the fight it is for, from which another face offers its own (the HTTP API: the command's route)."""

    def __init__(self, said: str, cli: str, words: tuple[str, ...], name: str):
        self.said, self.words, self.name = said, words, name
        super().__init__(said.format(cli))


class FightChanged(TablesError):
    """A fight's log moved on since it was read: another writer won (exit 1, HTTP 409)."""


class DatabaseError(TablesError):
    """The database cannot be opened, migrated or written."""


class DatabaseFault(DatabaseError):
    """The database file itself is at fault (damaged, not a database, full,
    read-only, changed by hand): ``<path>: <problem and what to do>``.

    ``problem`` is the message without the path, so that a fault met while
    building a new database in a temporary file can name the real one.
    """

    def __init__(self, path: object, problem: str):
        super().__init__(f"{path}: {problem}")
        self.path = str(path)
        self.problem = problem

    def __reduce__(self) -> tuple[type[DatabaseFault], tuple[str, str]]:
        return type(self), (self.path, self.problem)


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

    def as_json(self) -> dict[str, Any]:
        """The fields of a problem in JSON output (import reports, --json errors)."""
        return {"workbook": self.workbook, "sheet": self.sheet, "cell": self.cell, "message": self.message}


class WorkbookInvalid(TablesError):
    """A workbook has one or more problems; nothing was imported."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        count = len(self.problems)
        head = str(self.problems[0]) if self.problems else "invalid workbook"
        more = f" (and {count - 1} more)" if count > 1 else ""
        super().__init__(head + more)

    def __reduce__(self) -> tuple[type[WorkbookInvalid], tuple[list[Problem]]]:
        return type(self), (self.problems,)  # so it pickles whole
