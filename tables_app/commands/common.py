"""What the commands share: their errors (Failure, Interrupted, click_error),
the opened database, printing (output, say, emit_json), common options, and
``answers``, which marks a command the HTTP API answers too."""

from __future__ import annotations

import json
import sys
from typing import Any, Callable

import click

from tables_app.errors import TablesError, UsageMistake, WorkbookInvalid, error_json


class Failure(click.ClickException):
    """One or more ``Error: ...`` lines, exit code 1.

    ``located`` adds to the JSON error object (``--json``) what the first
    line is about: workbook, sheet, cell, problems, suggestions. ``reported``
    means the command already printed its own JSON (an import report).
    """

    LONGEST = 500  # a pasted 100 KB name is not echoed back whole

    def __init__(self, lines: list[str], located: dict | None = None, reported: bool = False):
        lines = [line if len(line) <= self.LONGEST else f"{line[:self.LONGEST]}… ({len(line) - self.LONGEST:,} more characters)"
                 for line in lines]
        super().__init__(lines[0] if lines else "failed")
        self.lines = lines
        self.error = error_json(self.message, **(located or {}))
        self.reported = reported

    def show(self, file: Any = None) -> None:
        for line in self.lines:
            click.echo(f"Error: {line}", err=True)


class Interrupted(click.ClickException):
    """Ctrl-C during a command: one ``Error:`` line and exit code 130 (128 +
    SIGINT, as a shell reports it), never a traceback; with ``--json`` the
    error object too."""

    exit_code = 130

    def __init__(self) -> None:
        super().__init__("interrupted (Ctrl-C)")
        self.error = error_json(self.message)

    def show(self, file: Any = None) -> None:
        start = "\n" if sys.stderr.isatty() else ""  # off the line where the terminal echoed ^C
        click.echo(f"{start}Error: {self.message}", err=True)


def error_of(exc: click.ClickException) -> dict:
    """The ``{"error": ...}`` content of a failure, as ``--json`` prints it (and the HTTP API answers it)."""
    return getattr(exc, "error", None) or error_json(exc.format_message())


class Group(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except TablesError as exc:
            raise click_error(exc, ctx) from None
        except KeyboardInterrupt:
            raise Interrupted() from None


def click_error(exc: TablesError, ctx: click.Context) -> click.ClickException:
    """A library error as the CLI reports it: a usage mistake is Click's
    usage error (exit 2), anything else a Failure (exit 1) with its JSON
    error object. The HTTP API (api.py) answers with the same object."""
    if isinstance(exc, WorkbookInvalid):
        first = exc.problems[0].as_json() if exc.problems else {}
        first.pop("message", None)
        return Failure([str(p) for p in exc.problems] or [str(exc)],
                       {**first, "problems": [p.as_json() for p in exc.problems]})
    if isinstance(exc, UsageMistake):
        return click.UsageError(str(exc), ctx=_leaf_context(ctx))
    suggestions = list(getattr(exc, "suggestions", None) or [])
    return Failure([str(exc)], {"suggestions": suggestions} if suggestions else None)


def _leaf_context(ctx: click.Context) -> click.Context:
    """The context of the command that was run (for its usage line), from
    a group whose subcommand's own context has already closed."""
    while isinstance(ctx.command, click.Group) and ctx.invoked_subcommand:
        command = ctx.command.get_command(ctx, ctx.invoked_subcommand)
        if command is None:
            break
        ctx = click.Context(command, info_name=ctx.invoked_subcommand, parent=ctx)
    return ctx


def database_of(ctx: click.Context):  # type: ignore[no-untyped-def]
    """Open the database once per command (the default location is created on
    first use, said once on stderr so that stdout stays the result)."""
    root = ctx.find_root()
    if "database" not in root.meta:
        from tables_app.services.database_setup import created_notice, open_database

        database = open_database(root.params.get("db"))
        root.meta["database"] = database
        root.call_on_close(database.dispose)
        if database.created:
            click.echo(created_notice(database), err=True)
    return root.meta["database"]


def say(line: str) -> None:
    """A message line on stdout, wrapped for the width it is read at."""
    from tables_app.layout import plain_lines

    click.echo(plain_lines(line))


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False))


def output(data: Any, as_json: bool, for_people: Callable[[Any], Callable[[dict], Any]]) -> None:
    """Print ``data`` as JSON, or for people through the renderer that
    ``for_people`` picks from the render module (imported only then:
    ``lambda render: render.attack``).

    A result's ``warnings`` (a list of sentences, also in the JSON) go to
    stderr as ``Warning: ...`` lines either way.
    """
    if isinstance(data, dict):
        for warning in data.get("warnings") or ():
            click.echo(f"Warning: {warning}", err=True)
    if as_json:
        emit_json(data)
        return
    from tables_app import layout, render

    layout.console().print(for_people(render)(data))


def names_of(what: str):  # type: ignore[no-untyped-def]
    """Shell completion of names of ``what`` from the database (completion.py,
    imported only while completing)."""
    def callback(ctx: click.Context, param: click.Parameter, incomplete: str):  # type: ignore[no-untyped-def]
        from tables_app import completion

        if what == "shown":
            return completion.complete_shown(ctx, param, incomplete)
        return completion.complete(what)(ctx, param, incomplete)
    return callback


def not_blank(value: str | None, flag: str) -> str | None:
    if value is not None and not value.strip():
        raise click.BadParameter("must not be empty", param_hint=f"'{flag}'")
    return value


ruleset_option = click.option("--ruleset", shell_complete=names_of("rulesets"), callback=lambda _c, _p, v: not_blank(v, "--ruleset"),
                              help="Only this ruleset (a name may also be written RULESET:NAME).")


def no_blank_features(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    for value in values:
        not_blank(value, "--has")
    return values


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object for programs.")

PRINTING = ("as_json", "plot_file")  # parameters about printing the answer, not about the answer


def answers(data: Callable[..., dict]):  # type: ignore[no-untyped-def]
    """Mark a command whose answer is ``data(database, **params)``, ``params``
    being its parameters but PRINTING: the command prints that dict (its
    ``--json`` is exactly it), the HTTP API (api.py) returns it, and both
    take their options through the command's own Click parameters."""
    def mark(command: click.Command) -> click.Command:
        command.data = data  # type: ignore[attr-defined]
        return command
    return mark

