"""The `tables` command: parse options, call one service, print the result.

Library errors (TablesError) become ``Error: ...`` lines on stderr and exit
code 1; usage errors are Click's (exit 2). Heavy modules are imported inside
the commands that need them, so a lookup starts fast.
"""

from __future__ import annotations

import gc
import threading

# Start-up only creates long-lived objects (modules, classes, Click's
# commands): no garbage cycles to find, yet the collector would walk them
# again and again while they are made. It rests until they are all made, then
# they are frozen out of every later collection (``gc.freeze``, end of module).
_COLLECTING = gc.isenabled()
gc.disable()

import json  # noqa: E402
import sys  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from typing import Any, Callable  # noqa: E402

import click  # noqa: E402

from tables_app import __version__  # noqa: E402
from tables_app.domain import kinds  # noqa: E402
from tables_app.errors import TablesError, UsageMistake, WorkbookInvalid, error_json  # noqa: E402


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


class RootGroup(Group):
    """The `tables` group: with ``--json`` anywhere on the command line, a
    failure is also one JSON object on stdout, ``{"error": {...}}``, with the
    same exit code (1 bad data, 2 bad usage), so a program never has to parse
    stderr."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        argv = list(sys.argv[1:] if args is None else args)
        try:
            returned = super().main(argv, prog_name, complete_var, False, **extra)
        except click.ClickException as exc:
            if "--json" in argv and not getattr(exc, "reported", False):
                emit_json({"error": error_of(exc)})
            exc.show()
            sys.exit(exc.exit_code)
        except click.Abort as exc:
            if isinstance(exc.__cause__, KeyboardInterrupt):  # Ctrl-C outside a command (while parsing, closing)
                click.echo(f"Error: {Interrupted().message}", err=True)  # Click already ended the ^C line
                sys.exit(Interrupted.exit_code)
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(returned if isinstance(returned, int) else 0)


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


def names(what: str):  # type: ignore[no-untyped-def]
    """Shell completion of names of ``what`` from the database (completion.py,
    imported only while completing)."""
    def callback(ctx: click.Context, param: click.Parameter, incomplete: str):  # type: ignore[no-untyped-def]
        from tables_app import completion

        if what == "shown":
            return completion.complete_shown(ctx, param, incomplete)
        return completion.complete(what)(ctx, param, incomplete)
    return callback


def _cell_text(value: str | None, flag: str) -> str | None:
    """Text written into a workbook cell: no control characters (an .xlsx cannot hold them)."""
    for char in value or "":
        if ord(char) < 32 and char not in "\t\n\r":
            raise click.BadParameter(f"contains the control character U+{ord(char):04X}, which a workbook cell cannot hold",
                                     param_hint=f"'{flag}'")
    return value


def _not_blank(value: str | None, flag: str) -> str | None:
    if value is not None and not value.strip():
        raise click.BadParameter("must not be empty", param_hint=f"'{flag}'")
    return value


ruleset_option = click.option("--ruleset", shell_complete=names("rulesets"), callback=lambda _c, _p, v: _not_blank(v, "--ruleset"),
                              help="Only this ruleset (a name may also be written RULESET:NAME).")


def _features(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    for value in values:
        _not_blank(value, "--has")
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
        command.make_parser = kept_parser(command)  # type: ignore[method-assign]
        return command
    return mark


def kept_parser(command: click.Command):  # type: ignore[no-untyped-def]
    """``command.make_parser`` building the option parser once per thread.

    Click builds it anew for every parse, a third of the cost of parsing a
    resolve's options; the HTTP API parses thousands a second. The parser
    holds only the command's options and two settings of the context (it
    is rebuilt if those differ) and keeps nothing between parses but the
    context its errors name, set here for each parse."""
    build = command.make_parser
    kept = threading.local()

    def make_parser(ctx: click.Context):  # type: ignore[no-untyped-def]
        parser = getattr(kept, "parser", None)
        settings = (ctx.allow_interspersed_args, ctx.ignore_unknown_options, ctx.token_normalize_func)
        if parser is None or kept.settings != settings:
            parser = kept.parser = build(ctx)
            kept.settings = settings
        parser.ctx = ctx
        return parser
    return make_parser


@click.group(cls=RootGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", metavar="URL_OR_PATH", help="Database (default: $TABLES_DB, else the user data directory).")
@click.version_option(__version__, prog_name="tables")
def cli(db: str | None) -> None:
    """Table-driven tabletop combat: import, look up and resolve attack tables."""


# ---------------------------------------------------------------- import
def _print_report(report, as_json: bool, verb: str) -> None:  # type: ignore[no-untyped-def]
    for workbook in report.workbooks:
        for warning in workbook.warnings:
            click.echo(f"Warning: {warning}", err=True)
    if as_json:
        emit_json(report.as_json())
    if report.problems:
        raise Failure([str(p) for p in report.problems], reported=as_json)  # the report holds them as fields
    if as_json:
        return
    from tables_app.services.import_changes import change_lines

    for workbook in report.workbooks:
        parts = [f"{len(names)} {_plural(kind, len(names))} ({_some(names)})" for kind, names in workbook.defined.items()]
        say(f"{verb} {workbook.file_name}: {'; '.join(parts) or ('unchanged' if workbook.unchanged else 'nothing')}")
        if workbook.unchanged:
            counts = [f"{len(names)} {_plural(kind, len(names))}" for kind, names in workbook.unchanged.items()]
            say(f"  unchanged: {', '.join(counts)} (the database holds them just so, from other workbooks)")
        for kind, names in workbook.removed.items():
            say(f"  removed {_plural(kind, len(names))}: {', '.join(names)}")
        changes = dict(workbook.changes)
        if changes and changes.get("added") == workbook.defined:
            changes["added"] = {}  # a first import: everything is new, the line above says so
        if changes:
            for line in change_lines(changes):
                say(f"  {line}")


PROGRESS_FROM_SHEETS = 10  # a bar only for workbooks that take a while


@contextmanager
def sheet_progress():  # type: ignore[no-untyped-def]
    """A progress bar on a terminal's stderr while large workbooks are read."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = None

        def on_sheet(done: int, total: int, title: str) -> None:
            nonlocal task
            if total < PROGRESS_FROM_SHEETS:
                return
            if task is None:
                task = bar.add_task("reading sheets", total=total)
            bar.update(task, completed=done, description=f"reading {title}")

        yield on_sheet


def _say_waiting():  # type: ignore[no-untyped-def]
    """Say once, on stderr, that the import waits for another process's write."""
    said = False

    def on_wait(seconds: float) -> None:
        nonlocal said
        if not said and seconds >= 1:
            click.echo("Waiting for another process to finish writing the database...", err=True)
            said = True

    return on_wait


def _some(names: list[str], shown: int = 12) -> str:
    more = f", and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _plural(kind: str, n: int) -> str:
    return kinds.label(kind, n)


@cli.command("import")
@click.argument("workbooks", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--dry-run", is_flag=True, help="Check and report, write nothing.")
@click.option("--replace", is_flag=True, help="Take over names that another workbook defined.")
@click.option("--strict", is_flag=True, help="Warnings are errors too.")
@json_option
@click.pass_context
def import_command(ctx: click.Context, workbooks: tuple[str, ...], dry_run: bool, replace: bool, strict: bool, as_json: bool) -> None:
    """Import workbooks: .xlsx, .ods or .xls (all or nothing; re-importing a workbook replaces it and reports what changed)."""
    from tables_app.services.importing import import_workbooks

    with sheet_progress() as on_sheet:
        report = import_workbooks(database_of(ctx), list(workbooks), dry_run=dry_run, replace=replace,
                                  strict=strict, on_sheet=on_sheet, on_wait=_say_waiting())
    _print_report(report, as_json, "Would import" if dry_run else "Imported")


@cli.command()
@click.argument("workbooks", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--replace", is_flag=True, help="Check as if importing with --replace.")
@click.option("--strict", is_flag=True, help="Warnings are errors too.")
@json_option
@click.pass_context
def lint(ctx: click.Context, workbooks: tuple[str, ...], replace: bool, strict: bool, as_json: bool) -> None:
    """Validate workbooks as an import into this database would, with quality warnings; write nothing."""
    from tables_app.services.importing import import_workbooks

    report = import_workbooks(database_of(ctx), list(workbooks), dry_run=True, replace=replace, strict=strict)
    _print_report(report, as_json, "OK")


force_option = click.option("--force", is_flag=True, help="Overwrite the output file if it exists.")


EXPORT_FORMATS = ("xlsx", "foundry")


def _export_output(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """-o of export: an .xlsx file, never a directory (checked as ever), or with --format foundry a directory."""
    if value is None or ctx.params.get("export_format", "xlsx") != "xlsx":
        return value
    return click.Path(dir_okay=False).convert(value, param, ctx)


@cli.command()
@click.option("--format", "export_format", type=click.Choice(EXPORT_FORMATS), default="xlsx", show_default=True, is_eager=True,
              help="xlsx: the import format; foundry: Foundry VTT RollTable and JournalEntry JSON, a file each (docs/foundry.md).")
@click.option("-o", "--output", "path", required=True, type=click.Path(), callback=_export_output,
              help="The .xlsx file to write (--format foundry: the directory, made if missing).")
@click.argument("names", nargs=-1)
@ruleset_option
@force_option
@json_option
@click.pass_context
def export(ctx: click.Context, export_format: str, path: str, names: tuple[str, ...], ruleset: str | None, force: bool,
           as_json: bool) -> None:
    """Write tables, weapons and creatures (all, or the NAMES given; RULESET:NAME) to .xlsx in the import format,
    or (--format foundry) the tables as Foundry VTT documents."""
    if export_format == "foundry":
        from tables_app.services.foundry import export_foundry

        data = export_foundry(database_of(ctx), path, names, ruleset=ruleset, force=force)
        if as_json:
            emit_json(data)
            return
        tables = [f"{n} {_plural(k, n)}" for k, n in data["tables"].items() if n]
        plurals = {"RollTable": "RollTables", "JournalEntry": "JournalEntries"}
        documents = ", ".join(f"{n} {kind if n == 1 else plurals[kind]}" for kind, n in data["documents"].items() if n)
        files = len(data["written"])
        say(f"Wrote {files} file{'' if files == 1 else 's'} to {path}: {', '.join(tables)} ({documents})")
        return
    from tables_app.services import authoring

    data = authoring.export(database_of(ctx), path, names, ruleset=ruleset, force=force)
    if as_json:
        emit_json(data)
        return
    written = [f"{len(v)} {_plural(k, len(v))}" for k, v in data.items() if isinstance(v, list) and v]
    say(f"Wrote {path}: {', '.join(written)}")


@cli.command()
@click.argument("kind", type=click.Choice(kinds.KINDS))
@click.option("-o", "--output", "path", required=True, type=click.Path(dir_okay=False), help="The .xlsx file to write.")
@click.option("--name", callback=lambda _c, _p, v: _cell_text(v, "--name"),
              help="The table's or severity scale's name, or the first weapon's or creature's.")
@click.option("--armor", callback=lambda _c, _p, v: _cell_text(v, "--armor"), help="Armor columns of an attack table (default NA,LA,MA,HA).")
@click.option("--rows", help="Result or roll rows, LOW-HIGH/STEP (attack 11-175/5, critical 1-150/5, fumble 1-100/10).")
@click.option("--printed", is_flag=True,
              help="A printed book's layout: attack 20 armor types from 01, critical A-E columns, fumble by weapon category.")
@force_option
@json_option
@click.pass_context
def template(ctx: click.Context, kind: str, path: str, name: str | None, armor: str | None, rows: str | None,
             printed: bool, force: bool, as_json: bool) -> None:
    """Write a blank authoring workbook for KIND, ready to fill in and import."""
    from tables_app.services import authoring

    data = authoring.template(database_of(ctx), kind, path, name=name, armor=armor, rows=rows, force=force, printed=printed)
    if as_json:
        emit_json(data)
        return
    say(f"Wrote {path}: {'an' if kind[0] in 'aeiou' else 'a'} {kind} template (see its Instructions sheet)")


# ---------------------------------------------------------------- lookups
LIST_CHOICES = click.Choice([*kinds.list_words(), "rulesets", "ruleset"], case_sensitive=False)


@cli.command()
@click.argument("workbooks", nargs=-1, shell_complete=names("workbooks"))
@ruleset_option
@click.option("--dry-run", is_flag=True, help="Say what would be removed; change nothing.")
@json_option
@click.pass_context
def remove(ctx: click.Context, workbooks: tuple[str, ...], ruleset: str | None, dry_run: bool, as_json: bool) -> None:
    """Remove what WORKBOOKS defined (file names as imported), or everything in --ruleset (refused while used elsewhere)."""
    from tables_app.services.removing import remove as remove_items

    if not workbooks and ruleset is None:
        raise click.UsageError("name the workbooks to remove (as `tables list` shows them), or give --ruleset")
    report = remove_items(database_of(ctx), workbooks, ruleset, dry_run=dry_run)
    if as_json:
        emit_json(report.as_json())
        return
    verb = "Would remove" if dry_run else "Removed"
    parts = [f"{len(names)} {_plural(kind, len(names))} ({_some(names)})" for kind, names in report.removed.items()]
    say(f"{verb} {'; '.join(parts) or 'nothing'}")
    if report.workbooks:
        say(f"  workbooks: {', '.join(report.workbooks)}")
    if report.rulesets:
        say(f"  rulesets left empty: {', '.join(report.rulesets)}")


@cli.command()
@click.argument("name", required=False)
@json_option
def example(name: str | None, as_json: bool) -> None:
    """The path of a shipped example workbook (all of them without NAME): tables import "$(tables example printed)"."""
    from tables_app.services.database_setup import example_workbook, example_workbooks

    if name is None:
        examples = {stem: str(path) for stem, path in example_workbooks().items()}
        if as_json:
            emit_json({"examples": examples})
        else:
            for stem, path in examples.items():
                click.echo(f"{stem}\t{path}")
        return
    path = str(example_workbook(name))
    emit_json({"name": name, "path": path}) if as_json else click.echo(path)


def list_data(database, kind: str | None = None, ruleset: str | None = None) -> dict:  # type: ignore[no-untyped-def]
    from tables_app.services.lookups import list_items

    return list_items(database, kind.lower() if kind else None, ruleset)


@answers(list_data)
@cli.command("list")
@click.argument("kind", required=False, type=LIST_CHOICES)
@ruleset_option
@json_option
@click.pass_context
def list_command(ctx: click.Context, kind: str | None, ruleset: str | None, as_json: bool) -> None:
    """List tables, weapons, creatures or rulesets with where they came from."""
    output(list_data(database_of(ctx), kind, ruleset), as_json, lambda render: render.listings)


SHOW_CHOICES = click.Choice(kinds.show_words(), case_sensitive=False)


def show_data(database, kind: str, name: str, ruleset: str | None = None) -> dict:  # type: ignore[no-untyped-def]
    from tables_app.services import lookups

    return lookups.show(database, kind.lower(), name, ruleset)


@answers(show_data)
@cli.command()
@click.argument("kind", type=SHOW_CHOICES)
@click.argument("name", shell_complete=names("shown"))
@ruleset_option
@json_option
@click.pass_context
def show(ctx: click.Context, kind: str, name: str, ruleset: str | None, as_json: bool) -> None:
    """Show a whole table (as a grid), a weapon or a creature (NAME may be RULESET:NAME)."""
    output(show_data(database_of(ctx), kind, name, ruleset), as_json, lambda render: render.shown)


@cli.group()
def query() -> None:
    """Look up one cell or entry of a table."""


def query_attack_data(database, table: str, result: int, armor: str, ruleset: str | None = None) -> dict:  # type: ignore[no-untyped-def]
    from tables_app.services import lookups

    return lookups.query_attack(database, table, result, armor, ruleset)


@answers(query_attack_data)
@query.command("attack", context_settings={"ignore_unknown_options": True})  # RESULT may be negative: -5, not an option
@click.argument("table", shell_complete=names("attack"))
@click.argument("result", type=click.IntRange(-1_000_000, 1_000_000))
@click.argument("armor", shell_complete=names("armor"))
@ruleset_option
@json_option
@click.pass_context
def query_attack(ctx: click.Context, table: str, result: int, armor: str, ruleset: str | None, as_json: bool) -> None:
    """The cell of TABLE at RESULT in the ARMOR column."""
    output(query_attack_data(database_of(ctx), table, result, armor, ruleset), as_json, lambda render: render.attack_cell)


def query_critical_data(database, table: str, roll: int, severity: str | None = None,  # type: ignore[no-untyped-def]
                        features: tuple[str, ...] = (), column: str | None = None, ruleset: str | None = None) -> dict:
    from tables_app.services import lookups

    return lookups.query_critical(database, table, roll, severity, features, ruleset, column)


@answers(query_critical_data)
@query.command("critical", context_settings={"ignore_unknown_options": True})  # ROLL -5 is a roll, not an option
@click.argument("table", shell_complete=names("critical"))
@click.argument("roll", type=int)
@click.option("--severity", "severity", metavar="SEV", help="Add this severity's roll modifier.")
@click.option("--has", "features", multiple=True, metavar="FEATURE", shell_complete=names("features"), callback=_features,
              help="A feature of the target (helm, ...).")
@click.option("--column", callback=lambda _c, _p, v: _not_blank(v, "--column"),
              help="The printed column of a table read by attack kind (Normal, Magic, ...).")
@ruleset_option
@json_option
@click.pass_context
def query_critical(ctx: click.Context, table: str, roll: int, severity: str | None, features: tuple[str, ...],
                   column: str | None, ruleset: str | None, as_json: bool) -> None:
    """The entry of critical TABLE (name or code) for a natural d100 ROLL."""
    output(query_critical_data(database_of(ctx), table, roll, severity, features, column, ruleset), as_json,
           lambda render: render.entry_result)


def query_fumble_data(database, table: str, roll: int, modifier: int = 0, column: str | None = None,  # type: ignore[no-untyped-def]
                      ruleset: str | None = None) -> dict:
    from tables_app.services import lookups

    return lookups.query_fumble(database, table, roll, modifier, ruleset, column)


@answers(query_fumble_data)
@query.command("fumble", context_settings={"ignore_unknown_options": True})
@click.argument("table", shell_complete=names("fumble"))
@click.argument("roll", type=int)
@click.option("--modifier", type=click.IntRange(-1_000, 1_000), default=0, show_default=True, help="The weapon's fumble modifier.")
@click.option("--column", callback=lambda _c, _p, v: _not_blank(v, "--column"),
              help="The weapon category column of a printed fumble table (1HE, 2H, ...).")
@ruleset_option
@json_option
@click.pass_context
def query_fumble(ctx: click.Context, table: str, roll: int, modifier: int, column: str | None, ruleset: str | None,
                 as_json: bool) -> None:
    """The entry of fumble TABLE for a natural d100 ROLL."""
    output(query_fumble_data(database_of(ctx), table, roll, modifier, column, ruleset), as_json,
           lambda render: render.entry_result)


# ---------------------------------------------------------------- resolve
def _modifier(_ctx: click.Context, _param: click.Parameter, values: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    parsed = []
    for text in values:
        name, sep, number = text.partition("=")
        try:
            if not sep or not name.strip():
                raise ValueError
            parsed.append((name.strip(), int(number)))
        except ValueError:
            raise click.BadParameter(f"{text!r} is not NAME=±N (e.g. flank=+10)") from None
        if abs(parsed[-1][1]) > BONUS.max:
            raise click.BadParameter(f"{text!r}: a modifier must be between {BONUS.min} and {BONUS.max}")
    return tuple(parsed)



def _dice(_ctx: click.Context, _param: click.Parameter, value: str | None) -> tuple[int, ...] | None:
    if value is None:
        return None
    try:
        return tuple(int(part) for part in value.replace(" ", ",").split(",") if part)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a list of whole numbers (e.g. 97,34,45)") from None


# Bounds of the table system's numbers: far beyond any published table, and
# small enough that vectorised simulation (int64) can never overflow.
BONUS = click.IntRange(-10_000, 10_000)
SEED = click.IntRange(0, 2**63 - 1)


def dice_options(command):  # type: ignore[no-untyped-def]
    command = click.option("--dice", callback=_dice, metavar="D1,D2,...", help="Dice rolled by hand, in the order the resolver asks for them.")(command)
    return click.option("--seed", type=SEED, help="Seed for reproducible random dice.")(command)


class SystemsGroup(Group):
    """A group whose formula-system commands are built on first use, so a
    command that needs no formula system never imports one."""

    make: Any = None  # system → click.Command

    def list_commands(self, ctx: click.Context) -> list[str]:
        from tables_app.domain.systems import MODULES

        return sorted(set(super().list_commands(ctx)) | set(MODULES))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        from tables_app.domain.systems import MODULES, get

        if name in MODULES and name not in self.commands:
            self.add_command(type(self).make(get(name)))
        return super().get_command(ctx, name)


class ResolveGroup(SystemsGroup):
    make = staticmethod(lambda system: formula_resolve_command(system))


class OddsGroup(SystemsGroup):
    make = staticmethod(lambda system: formula_odds_command(system))


class SimulateGroup(SystemsGroup):
    make = staticmethod(lambda system: formula_simulate_command(system))


@cli.group(cls=ResolveGroup)
def resolve() -> None:
    """Resolve one attack, with seeded or hand-rolled dice."""


TABLE_OPTIONS = [
    click.option("--weapon", shell_complete=names("weapons"), help="A weapon from the armory (its parts below override it)."),
    click.option("--attack-table", shell_complete=names("attack"), help="Attack table (without --weapon)."),
    click.option("--max-result", type=click.IntRange(1, 10_000), help="Max Result cap."),
    click.option("--clumsy", type=click.IntRange(0, 100), help="Clumsy Range 1..N."),
    click.option("--critical", shell_complete=names("critical"), help="Primary critical table (name or code)."),
    click.option("--secondary-critical", shell_complete=names("critical"), help="Secondary critical table (name or code)."),
    click.option("--fumble-table", shell_complete=names("fumble"), help="Fumble table."),
    click.option("--fumble-modifier", type=click.IntRange(-1_000, 1_000), help="Added to the fumble roll."),
    click.option("--roll-kind", type=click.Choice(["oe", "oeh", "oel", "d100"]), help="How the attack roll opens (default oe)."),
    click.option("--cmb", type=BONUS, required=True, help="Combat bonus."),
    click.option("--mod", "modifiers", multiple=True, callback=_modifier, metavar="NAME=±N", help="A named attack modifier (repeatable)."),
    click.option("--def", "--defense", "defense", type=BONUS, help="Target's DEF (default 0, or the creature's)."),
    click.option("--armor", shell_complete=names("armor"), callback=lambda _c, _p, v: _not_blank(v, "--armor"), help="Target's armor column (e.g. MA)."),
    click.option("--rank", type=click.Choice(["normal", "heroic", "epic"]), help="Target's rank (heroic -1, epic -2 critical degrees)."),
    click.option("--crit-reduction", type=click.IntRange(0, 100), default=0, help="Extra degrees of critical reduction."),
    click.option("--ignore-crit-reduction", is_flag=True, help="This attack ignores every critical reduction."),
    click.option("--has", "features", multiple=True, metavar="FEATURE", shell_complete=names("features"), callback=_features,
                 help="A feature of the target (helm, ...); adds to the creature's."),
    click.option("--target", shell_complete=names("creatures"), help="A creature from the bestiary: DEF, armor, rank, features."),
    click.option("--ruleset", shell_complete=names("rulesets"), callback=lambda _c, _p, v: _not_blank(v, "--ruleset"),
                 help="Look names up in this ruleset (else RULESET:NAME, or wherever a name is)."),
    click.option("--critical-column", callback=lambda _c, _p, v: _not_blank(v, "--critical-column"),
                 help="The column of a critical table read by attack kind (Normal, Magic, ...); else the weapon's."),
]


def table_options(command):  # type: ignore[no-untyped-def]
    for option in reversed(TABLE_OPTIONS):
        command = option(command)
    return command


def table_attack(options: dict[str, Any]):  # type: ignore[no-untyped-def]
    """The weapon, the target and the attack's own options, from table options."""
    from tables_app.services import attacks

    weapon = attacks.WeaponParts(
        name=options["weapon"], attack_table=options["attack_table"], max_result=options["max_result"],
        clumsy=options["clumsy"], critical=options["critical"], secondary_critical=options["secondary_critical"],
        fumble_table=options["fumble_table"], fumble_modifier=options["fumble_modifier"], roll=options["roll_kind"],
    )
    target = attacks.TargetParts(creature=options["target"], defense=options["defense"], armor=options["armor"],
                                 rank=options["rank"], features=options["features"])
    rest = dict(cmb=options["cmb"], modifiers=options["modifiers"], crit_reduction=options["crit_reduction"],
                ignore_crit_reduction=options["ignore_crit_reduction"], ruleset=options["ruleset"],
                critical_column=options["critical_column"])
    return weapon, target, rest


def warn_unused(data: dict) -> None:
    if data.get("unused_dice"):
        unused = data["unused_dice"]
        verb = "was" if len(unused) == 1 else "were"
        click.echo(f"Warning: {len(unused)} of the given dice {verb} not needed: {', '.join(map(str, unused))}", err=True)


def seed_or_dice(options: dict[str, Any]) -> tuple[int | None, tuple[int, ...] | None]:
    seed, forced = options.pop("seed"), options.pop("dice")
    if seed is not None and forced is not None:
        raise click.UsageError("give --seed or --dice, not both")
    return seed, forced


def resolve_table_data(database, **options: Any) -> dict:  # type: ignore[no-untyped-def]
    from tables_app.services import attacks

    seed, forced = seed_or_dice(options)
    weapon, target, rest = table_attack(options)
    return attacks.resolve(database, weapon, target, seed=seed, forced=forced, **rest)


@answers(resolve_table_data)
@resolve.command("table")
@table_options
@dice_options
@json_option
@click.pass_context
def resolve_table(ctx: click.Context, as_json: bool, **options: Any) -> None:
    """Resolve one attack on the d100 tables (docs/table-system.md)."""
    data = resolve_table_data(database_of(ctx), **options)
    warn_unused(data)
    output(data, as_json, lambda render: render.attack)


@cli.group(cls=OddsGroup)
def odds() -> None:
    """The exact odds of every outcome of one attack (computed, not sampled)."""


def _png(_ctx: click.Context, _param: click.Parameter, path: str | None) -> str | None:
    if path is not None and not path.lower().endswith(".png"):  # refused before any work, never renamed
        raise click.BadParameter(f"{path!r}: the plot is a PNG, give a file name ending in .png")
    return path


def plot_option(command):  # type: ignore[no-untyped-def]
    return click.option("--plot", "plot_file", type=click.Path(dir_okay=False), callback=_png,
                        help="Draw the odds to a PNG file (needs the plot extra).")(command)


def odds_table_data(database, progress: bool = False, **options: Any) -> dict:  # type: ignore[no-untyped-def]
    """The odds, or a sweep's grid (``"sweep"`` in the answer); ``progress``:
    a bar on a terminal's stderr while a large sweep is computed."""
    from tables_app.services import exact_odds

    weapon, target, rest = table_attack(options)
    if options["sweep_cmb"] and options["sweep_def"]:
        raise click.UsageError("sweep one of --sweep-cmb and --sweep-def at a time")
    axis = "cmb" if options["sweep_cmb"] else "def" if options["sweep_def"] else None
    if axis:
        bar = None
        if progress:
            from tables_app.progress import progress_bar as bar
        return exact_odds.table_sweep(database, weapon, target, axis, options["sweep_cmb"] or options["sweep_def"],
                                      progress_bar=bar, **rest)
    return exact_odds.table(database, weapon, target, **rest)


@answers(odds_table_data)
@odds.command("table")
@table_options
@click.option("--sweep-cmb", metavar="A:B[:STEP]", help="Odds for every CMB from A to B, in every armor column.")
@click.option("--sweep-def", metavar="A:B[:STEP]", help="Odds for every DEF from A to B, in every armor column.")
@plot_option
@json_option
@click.pass_context
def odds_table(ctx: click.Context, as_json: bool, plot_file: str | None, **options: Any) -> None:
    """Exact odds of one attack on the d100 tables, or a sweep over CMB or DEF."""
    data = odds_table_data(database_of(ctx), progress=True, **options)
    draw(plot_file, data)
    output(data, as_json, (lambda render: render.sweep) if "sweep" in data else (lambda render: render.odds))


MAX_SIMULATED = 100_000_000


def simulate_options(command):  # type: ignore[no-untyped-def]
    command = click.option("--count", type=click.IntRange(1, MAX_SIMULATED), default=100_000, show_default=True, help="How many attacks.")(command)
    return click.option("--seed", type=SEED, help="Seed of the random numbers (default: a fresh one, printed).")(command)


def _seed(seed: int | None) -> int:
    if seed is not None:  # a seeded simulation never loads the dice of resolve
        return seed
    from tables_app.services.rolling import fresh_seed

    return fresh_seed()


@cli.group(cls=SimulateGroup)
def simulate() -> None:
    """Count the outcomes of many random attacks (compare with `tables odds`)."""


def simulate_table_data(database, progress_bar=None, **options: Any) -> dict:  # type: ignore[no-untyped-def]
    from tables_app.services import sampling

    weapon, target, rest = table_attack(options)
    return sampling.table(database, weapon, target, count=options["count"], seed=_seed(options["seed"]),
                          progress_bar=progress_bar, **rest)


@answers(simulate_table_data)
@simulate.command("table")
@table_options
@simulate_options
@json_option
@click.pass_context
def simulate_table(ctx: click.Context, as_json: bool, **options: Any) -> None:
    """Simulate attacks on the d100 tables (vectorised with numpy)."""
    from tables_app.progress import progress_bar

    data = simulate_table_data(database_of(ctx), progress_bar, **options)
    output(data, as_json, lambda render: render.simulated)


def draw(path: str | None, data: dict) -> None:
    """Draw the odds to a PNG and say so on stderr (stdout may be --json)."""
    if path:
        from tables_app import plot

        plot.save(data, path)
        click.echo(f"Wrote {path}", err=True)


CLICK_TYPES = {"int": int, "float": float, "text": str, "dice": str}


def _bounds(option) -> str:  # type: ignore[no-untyped-def]
    """The bounds the system checks (its own one-line message), for --help."""
    low, high = option.minimum, option.maximum
    if low is None and high is None:
        return ""
    if low is None or high is None:
        return f" (at {'most' if low is None else 'least'} {high if low is None else low})"
    return f" ({low} to {high})"


def system_options(system) -> list[click.Option]:  # type: ignore[no-untyped-def]
    """Click options from a system's declared options (domain/systems)."""
    options = []
    for option in system.options:
        declaration = [f"--{option.name}", *(f"--{alias}" for alias in option.aliases), option.key]
        if option.kind == "flag":
            options.append(click.Option(declaration, is_flag=True, help=option.help))
            continue
        kind = click.Choice(option.choices) if option.kind == "choice" else CLICK_TYPES[option.kind]
        settings: dict[str, Any] = {"multiple": option.multiple, "help": option.help + _bounds(option),
                                    "show_default": option.default is not None}
        if option.kind == "dice":
            settings["metavar"] = "EXPR"
        # A default is passed only when there is one: Click 8.5 stops enforcing
        # `required` when `default=None` is given explicitly.
        if option.multiple:
            settings["default"] = ()
        elif option.default is not None:
            settings["default"] = option.default
        options.append(click.Option(declaration, type=kind, required=option.required, **settings))
    return options


def formula_resolve_command(system) -> click.Command:  # type: ignore[no-untyped-def]
    def resolve_data(_database, **values: Any) -> dict:  # type: ignore[no-untyped-def]
        from tables_app.services import formulas

        seed, forced = seed_or_dice(values)
        return formulas.resolve(system.id, values, seed=seed, forced=forced)

    def run(as_json: bool, **values: Any) -> None:
        data = resolve_data(None, **values)
        warn_unused(data)
        output(data, as_json, lambda render: render.formula)

    command = formula_command(system, run, f"{system.title}.\n\n--dice order: {system.dice_order}.", dice_options)
    return answers(resolve_data)(command)


def formula_odds_command(system) -> click.Command:  # type: ignore[no-untyped-def]
    def odds_data(_database, **values: Any) -> dict:  # type: ignore[no-untyped-def]
        from tables_app.services import exact_odds

        return exact_odds.formula(system.id, values)

    def run(as_json: bool, plot_file: str | None, **values: Any) -> None:
        data = odds_data(None, **values)
        draw(plot_file, data)
        output(data, as_json, lambda render: render.odds)

    return answers(odds_data)(formula_command(system, run, f"Exact odds: {system.title}.", plot_option))


def formula_simulate_command(system) -> click.Command:  # type: ignore[no-untyped-def]
    def simulate_data(_database, progress_bar=None, **values: Any) -> dict:  # type: ignore[no-untyped-def]
        from tables_app.services import sampling

        count, seed = values.pop("count"), _seed(values.pop("seed"))
        return sampling.formula(system.id, values, count=count, seed=seed, progress_bar=progress_bar)

    def run(as_json: bool, **values: Any) -> None:
        from tables_app.progress import progress_bar

        output(simulate_data(None, progress_bar, **values), as_json, lambda render: render.simulated)

    return answers(simulate_data)(formula_command(system, run, f"Simulate attacks: {system.title}.", simulate_options))


def formula_command(system, run, help_text: str, *more_options) -> click.Command:  # type: ignore[no-untyped-def]
    """One command of a formula system: its declared options, the extra ones, --json."""
    command = click.Command(system.id, callback=run, params=system_options(system), help=help_text, short_help=system.title)
    for add in (*more_options, json_option):
        add(command)
    return command


# ---------------------------------------------------------------- HTTP API
class Refused(Exception):
    """Fields no command line can be made of (an unknown field, a list for one value)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.error = error_json(message)


def answer_fields(database, names: tuple[str, ...], fields, path_fields: tuple[str, ...] = (),  # type: ignore[no-untyped-def]
                  limits: dict[str, int] | None = None) -> tuple[str, dict]:
    """Answer as ``tables NAMES... --json`` would, for the HTTP API (api.py).

    ``fields`` are ``(name, value)`` pairs (a path, a query string, a JSON
    body) made into the command's arguments (command_line), checked by its
    own Click parameters (make_context), then answered by its data function
    (answers) in one read transaction. Returns ``("answer", data)``, or a
    failure and the error object ``--json`` prints: ``"missing"`` (an
    unknown name, or a value of the path, ``path_fields``, the command
    refuses), ``"unavailable"`` (the database cannot be read) or
    ``"refused"`` (anything else refused: usage, values, an ambiguous name).
    ``limits``: tighter bounds of some integer options (a server's), refused past them.
    """
    from tables_app.errors import Ambiguous, DatabaseError, NotFound

    ctx = None
    try:
        command, parent = _find_command(names)
        ctx = command.make_context(names[-1], command_line(command, fields), parent=parent)
        params = {name: value for name, value in ctx.params.items() if name not in PRINTING}
        for name, most in (limits or {}).items():  # the server's own bounds, within the command's
            if isinstance(params.get(name), int) and params[name] > most:
                raise Refused(f"--{name.replace('_', '-')}: at most {most:,} over HTTP (the command line takes more)")
        with database.snapshot():  # one read transaction for the whole answer
            return "answer", command.data(database, **params)  # type: ignore[attr-defined]
    except Refused as exc:
        return "refused", exc.error
    except click.BadParameter as exc:
        return "missing" if exc.param is not None and exc.param.name in path_fields else "refused", error_of(exc)
    except click.ClickException as exc:  # Click's usage errors, and the command's own
        return "refused", error_of(exc)
    except TablesError as exc:
        error = error_of(click_error(exc, ctx or click.Context(cli)))
        if isinstance(exc, NotFound) and not isinstance(exc, Ambiguous):
            return "missing", error
        return "unavailable" if isinstance(exc, DatabaseError) and not isinstance(exc, UsageMistake) else "refused", error


def _find_command(names: tuple[str, ...]) -> tuple[click.Command, click.Context]:
    """The command ``tables NAMES...`` and its parent's context; NotFound (with
    the near names) for a SYSTEM of resolve or odds that is none."""
    from tables_app.errors import NotFound

    parent = click.Context(cli, info_name="tables")
    command: click.Command | None = cli
    for at, name in enumerate(names):
        group = command
        assert isinstance(group, click.Group)
        command = group.get_command(parent, name)
        if command is None:
            known = group.list_commands(parent)
            raise NotFound.unknown(f"no system named {name!r}", name, known, f"systems: {', '.join(known)}")
        if at < len(names) - 1:
            parent = click.Context(command, info_name=name, parent=parent)
    assert command is not None
    return command, parent


def command_line(command: click.Command, fields) -> list[str]:  # type: ignore[no-untyped-def]
    """The arguments of ``command`` for ``(name, value)`` fields. An
    argument's name (``table``, ``roll``) is its value in place; any other
    name is a long option, underscores for dashes: a list repeats it,
    ``true`` is a flag, ``dice`` a list joined with commas, ``null`` left
    out. The values of arguments follow ``--``, so a name may start with a
    dash; PRINTING options (--json, --plot) are no fields."""
    import difflib
    import re

    arguments = {p.name: p for p in command.params if isinstance(p, click.Argument)}
    options = {opt: p for p in command.params if isinstance(p, click.Option) and p.name not in PRINTING
               for opt in (*p.opts, *p.secondary_opts) if opt.startswith("--")}
    placed: dict[str, str] = {}
    words: list[str] = []
    for key, value in fields:
        if key in arguments:
            if key in placed:
                raise Refused(f"give {key!r} once")
            if value is not None:
                placed[key] = _field_value(key, value)
            continue
        flag = "--" + key.replace("_", "-")
        option = options.get(flag) if re.fullmatch(r"[a-z][a-z0-9_]*", key) else None
        if option is None:
            raise Refused(click.NoSuchOption(flag, possibilities=difflib.get_close_matches(flag, options)).format_message())
        words += _option_words(key, flag, option, value)
    ordered = []
    for name in arguments:  # in the command's order, up to the first one missing (Click names it)
        if name not in placed:
            break
        ordered.append(placed[name])
    return [*words, "--", *ordered]


def _field_value(key: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise Refused(f"{key!r}: one value (a string or a number), not {type(value).__name__}")


def _option_words(key: str, flag: str, option: click.Option, value: Any) -> list[str]:
    if value is None:
        return []
    if option.is_flag:
        if not isinstance(value, bool):
            raise Refused(f"{key!r} is a flag: true or false")
        return [flag] if value else []
    if key == "dice" and isinstance(value, list):
        value = ",".join(_field_value(key, v) for v in value)
    if isinstance(value, list):
        if not option.multiple:
            raise Refused(f"{key!r} takes one value, not a list")
        return [word for item in value for word in (flag, _field_value(key, item))]
    return [flag, _field_value(key, value)]


SERVE_EXTRA = "the HTTP API needs the serve extra: pip install 'tables-app[serve]'"


def _origins(_ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    from tables_app.api_access import web_origin

    try:
        return tuple(dict.fromkeys(web_origin(value) for value in values))
    except ValueError as exc:
        raise click.BadParameter(str(exc), param=param) from None
MAX_UPLOAD_MB = 50  # --max-upload's bound: the importer's own file limit (sheets/guard/common.py MAX_FILE_BYTES)


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (only this machine by default; 0.0.0.0 for every interface).")
@click.option("--port", type=click.IntRange(0, 65_535), default=8000, show_default=True, help="Port to listen on.")
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Server processes sharing the port, all over the one database file.")
@click.option("--access-log", is_flag=True, help="Log every request (off by default: it costs a tenth of a resolve).")
@click.option("--allow-import", is_flag=True,
              help="Accept workbooks at POST /api/v1/import (needs TABLES_TOKEN; docs/api.md).")
@click.option("--max-upload", type=click.IntRange(1, MAX_UPLOAD_MB), default=10, show_default=True, metavar="MB",
              help=f"The largest workbook accepted by --allow-import, in MB (1-{MAX_UPLOAD_MB}).")
@click.option("--cors-origin", "cors_origins", multiple=True, metavar="ORIGIN", callback=_origins,
              help="A web origin whose pages may call the API (a Foundry VTT server: http://localhost:30000); repeatable.")
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, workers: int, access_log: bool, allow_import: bool,
          max_upload: int, cors_origins: tuple[str, ...]) -> None:
    """Answer look-ups, resolve and odds over HTTP, as --json would (docs/api.md).
    Read-only unless --allow-import; with TABLES_TOKEN set, every request must give it."""
    import os

    from tables_app.api_access import TOKEN_ENV, serving_problem

    token = os.environ.get(TOKEN_ENV) or None
    problem = serving_problem(host, token, allow_import)
    if problem is not None:
        raise click.UsageError(problem)
    try:
        import uvicorn

        from tables_app.api import create_app
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in ("fastapi", "uvicorn", "starlette", "pydantic"):
            raise Failure([SERVE_EXTRA]) from None
        raise
    path = database_of(ctx).path
    access = dict(token=token, allow_import=allow_import, upload_limit=max_upload << 20, cors_origins=cors_origins)
    settings = dict(host=host, port=port, log_level="info", access_log=access_log,
                    http="tables_app.serve_http:NoDelayHTTPProtocol")  # TCP_NODELAY on every connection
    if token is not None:
        click.echo(f"Every request must give the token: 'Authorization: Bearer ...' ({TOKEN_ENV}); "
                   f"the page asks for it, or open it as http://{host}:{port}/#token=...", err=True)
    if workers == 1:
        app = create_app(path, answer_fields, **access)  # checked (and migrated) here, once
        settle()
        uvicorn.run(app, **settings)  # type: ignore[arg-type]
        return
    create_app(path, answer_fields, **access)  # checked (and migrated) once, before any worker starts
    os.environ[SERVE_DB] = str(path)  # each worker process makes its app of it (serve_app)
    os.environ[SERVE_ACCESS] = json.dumps({key: value for key, value in access.items() if key != "token"})
    uvicorn.run("tables_app.cli:serve_app", factory=True, workers=workers, **settings)  # type: ignore[arg-type]


def settle() -> None:
    """The modules and the app a server keeps for its life, moved out of
    the collector's sight (gc.freeze): its full collections then walk only
    what requests make."""
    gc.collect()
    gc.freeze()


SERVE_DB = "TABLES_SERVE_DB"  # the database of the worker processes of `tables serve --workers N`
SERVE_ACCESS = "TABLES_SERVE_ACCESS"  # and their --allow-import and --max-upload (the token is TABLES_TOKEN's)


def serve_app():  # type: ignore[no-untyped-def]
    """The app of one worker process of `tables serve --workers N` (uvicorn's factory)."""
    import os

    from tables_app.api import create_app

    from tables_app.api_access import TOKEN_ENV

    access = json.loads(os.environ[SERVE_ACCESS])
    app = create_app(os.environ[SERVE_DB], answer_fields, token=os.environ.get(TOKEN_ENV) or None, **access)
    settle()
    return app


# ---------------------------------------------------------------- database
@cli.group("db")
def db_group() -> None:
    """The database: create it, its schema."""


@db_group.command("init")
@click.argument("path", required=False, metavar="[PATH_OR_URL]")
@click.option("--empty", is_flag=True, help="Without the bundled tables (import your own).")
@click.pass_context
def db_init(ctx: click.Context, path: str | None, empty: bool) -> None:
    """Create a new database at PATH (default: --db, $TABLES_DB, else the user data directory)."""
    from tables_app.services import database_setup as database

    created = database.init_database(path if path is not None else ctx.find_root().params.get("db"), bundled=not empty)
    ctx.call_on_close(created.dispose)
    click.echo(database.created_notice(created, bundled=not empty), err=True)


@db_group.command("upgrade")
@click.pass_context
def db_upgrade(ctx: click.Context) -> None:
    """Migrate the database to the newest schema."""
    from tables_app.services import database_setup as database

    opened = database_of(ctx)  # opening migrates a database that is behind
    say(f"{opened.path}: schema {database.upgrade_database(opened)} (newest)")


@db_group.command("current")
@json_option
@click.pass_context
def db_current(ctx: click.Context, as_json: bool) -> None:
    """Print the database's schema version."""
    from tables_app.services import database_setup as database

    status = database.database_status(database_of(ctx))
    if as_json:
        emit_json(status)
        return
    say(f"{status['database']}: schema {status['current']} (newest: {status['head']})")


@db_group.command("check")
@json_option
@click.pass_context
def db_check(ctx: click.Context, as_json: bool) -> None:
    """Check the database: SQLite's integrity check, references to missing
    rows, the tables, columns and schema version (exit code 1 if anything is wrong)."""
    from tables_app.services import database_setup as database

    report = database.check_database(ctx.find_root().params.get("db"))
    path, found = report["database"], report["problems"]
    if as_json:
        emit_json(report)
    elif not found:
        click.echo(f"{path}: no problems found (integrity, references, tables and columns, schema version)")
    for problem in () if as_json else found:
        click.echo(f"{path}: {problem}")
    if found:
        count = f"{len(found)} problem{'s' if len(found) > 1 else ''}"
        raise Failure([f"{path}: {count} found; nothing was changed (restore a backup, or see docs/security.md)"], reported=as_json)


gc.freeze()  # every object made so far stays: later collections skip them (see the top)
if _COLLECTING:
    gc.enable()


def main() -> None:
    cli(prog_name="tables")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
