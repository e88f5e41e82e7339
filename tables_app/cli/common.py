"""What the commands share: their errors (Failure, Interrupted, click_error),
the opened database, printing (output, say, emit_json), and the options of
the commands written by hand (--json, --ruleset)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any, Callable

import click

from tables_app.cli.build import json_option, names_of, option
from tables_app.errors import TablesError, UsageMistake, WorkbookInvalid, error_json, error_object, shortened
from tables_app.operations.lookups import RULESET_FILTER

# When the `tables` process began (tables_app/__main__.py sets it, for the console script and `python -m
# tables_app`): an odds answer's time budget counts from it. None when a program calls the CLI in-process (the
# budget then counts from the command's call).
STARTED: float | None = None

if TYPE_CHECKING:
    from tables_app.storage.database import Database

__all__ = ["Failure", "Group", "Interrupted", "click_error", "database_of", "emit_json", "error_of", "json_option",
           "names_of", "option", "output", "ruleset_option", "say"]


class Failure(click.ClickException):
    """One or more ``Error: ...`` lines, exit code 1.

    ``located`` adds to the JSON error object (``--json``) what the first
    line is about: workbook, sheet, cell, problems, suggestions. ``reported``
    means the command already printed its own JSON (an import report).
    """

    def __init__(self, lines: list[str], located: dict[str, Any] | None = None, reported: bool = False):
        lines = [shortened(line) for line in lines]
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


def error_of(exc: click.ClickException) -> dict[str, Any]:
    """The ``{"error": ...}`` content of a failure, as ``--json`` prints it (and the HTTP API answers it)."""
    return getattr(exc, "error", None) or error_json(exc.format_message())


class Group(click.Group):
    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Each command with its whole first sentence, wrapped to the width
        (Click cuts it to the line with ``...``, which at 80 columns left
        most of them unreadable)."""
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

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
    error object (errors.error_object, which the HTTP API answers too)."""
    if isinstance(exc, UsageMistake):
        return click.UsageError(str(exc), ctx=_leaf_context(ctx))
    lines = [str(p) for p in exc.problems] if isinstance(exc, WorkbookInvalid) else []
    located = {key: value for key, value in error_object(exc).items() if key != "message"}
    return Failure(lines or [str(exc)], located)


def _leaf_context(ctx: click.Context) -> click.Context:
    """The context of the command that was run (for its usage line), from
    a group whose subcommand's own context has already closed."""
    while isinstance(ctx.command, click.Group) and ctx.invoked_subcommand:
        command = ctx.command.get_command(ctx, ctx.invoked_subcommand)
        if command is None:
            break
        ctx = click.Context(command, info_name=ctx.invoked_subcommand, parent=ctx)
    return ctx


def database_of(ctx: click.Context, scoped: bool = True) -> Database:
    """Open the database once per command (the default location is created on
    first use, said once on stderr so that stdout stays the result); acting as
    the group of `tables --group NAME` (its fights and parties), unless not
    ``scoped`` (the group commands, the operator's)."""
    root = ctx.find_root()
    database: Database | None = root.meta.get("database")
    if database is None:
        from tables_app.services.database_setup import created_notice, open_database

        database = open_database(root.params.get("db"))
        root.meta["database"] = database
        root.call_on_close(database.dispose)
        if database.created:
            click.echo(created_notice(database), err=True)
    group = root.params.get("group")
    if scoped and group is not None and not database.group:
        from tables_app.services.groups import named

        database.group = named(database, group).id
    return database


def say(line: str) -> None:
    """A message line on stdout, wrapped for the width it is read at."""
    from tables_app.cli.layout import plain_lines

    click.echo(plain_lines(line))


def emit_json(data: Any) -> None:
    """``data`` as one line of JSON; text of bytes that are not UTF-8 (lone
    surrogates, from the command line) as JSON's ``\\udcff`` escapes, so the
    line is always UTF-8 and reads back as the same text."""
    text = json.dumps(data, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    click.echo(text)


def output(data: Any, as_json: bool, for_people: Callable[[Any], Callable[[dict[str, Any]], Any]]) -> None:
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
    from tables_app.cli import layout, render

    layout.console().print(for_people(render)(data))


ruleset_option = option(RULESET_FILTER)
