"""The commands about workbooks: import, lint, export, template, remove and
example (the shipped example workbooks)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import click

from tables_app.cli.common import Failure, database_of, emit_json, json_option, names_of, option, ruleset_option, say
from tables_app.cli.unbroken import unbroken, unbroken_list
from tables_app.domain import kinds
from tables_app.operations.workbooks import IMPORT_FLAGS

if TYPE_CHECKING:
    from tables_app.services.importing import ImportReport


def _print_report(report: ImportReport, as_json: bool, verb: str) -> None:
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
        parts = [f"{_counted(kind, names)} ({_some(names)})" for kind, names in workbook.defined.items()]
        say(f"{verb} {workbook.file_name}: {'; '.join(parts) or ('unchanged' if workbook.unchanged else 'nothing')}")
        if workbook.unchanged:
            counts = [_counted(kind, names) for kind, names in workbook.unchanged.items()]
            say(f"  unchanged: {', '.join(counts)} (the database holds them just so, from other workbooks)")
        for kind, names in workbook.removed.items():
            say(f"  removed {unbroken(_plural(kind, len(names)))}: {unbroken_list(names)}")
        changes = dict(workbook.changes)
        if changes and changes.get("added") == workbook.defined:
            changes["added"] = {}  # a first import: everything is new, the line above says so
        if changes:
            for line in change_lines(_names_kept_whole(changes)):
                say(f"  {line}")


PROGRESS_FROM_SHEETS = 10  # a bar only for workbooks that take a while


@contextmanager
def sheet_progress() -> Iterator[Callable[[int, int, str], None] | None]:
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


def _say_waiting() -> Callable[[float], None]:
    """Say once, on stderr, that the import waits for another process's write."""
    said = False

    def on_wait(seconds: float) -> None:
        nonlocal said
        if not said and seconds >= 1:
            click.echo("Waiting for another process to finish writing the database...", err=True)
            said = True

    return on_wait


def _some(names: list[str], shown: int = 12) -> str:
    """The first ``shown`` names, each kept on one line where it fits (layout.unbroken)."""
    more = f", and {len(names) - shown} more" if len(names) > shown else ""
    return unbroken_list(names[:shown]) + more


def _counted(kind: str, names: list[str]) -> str:
    """``3 attack tables``, kept on one line."""
    return unbroken(f"{len(names)} {_plural(kind, len(names))}")


def _names_kept_whole(changes: dict[str, Any]) -> dict[str, Any]:
    """An import's changes with every name in them kept on one line where it fits."""
    kept = dict(changes)
    kept["added"] = {kind: [unbroken(name) for name in names] for kind, names in changes.get("added", {}).items()}
    for key in ("rows", "cells", "entries"):
        kept[key] = [{**change, "table": unbroken(change["table"])} for change in changes.get(key, [])]
    kept["fields"] = [{**change, "name": unbroken(change["name"])} for change in changes.get("fields", [])]
    return kept


def _plural(kind: str, n: int) -> str:
    return kinds.label(kind, n)


def _cell_text(value: str | None, flag: str) -> str | None:
    """Text written into a workbook cell: no control characters (an .xlsx cannot hold them)."""
    for char in value or "":
        if ord(char) < 32 and char not in "\t\n\r":
            raise click.BadParameter(f"contains the control character U+{ord(char):04X}, which a workbook cell cannot hold",
                                     param_hint=f"'{flag}'")
    return value


@click.command("import")
@click.argument("workbooks", nargs=-1, required=True, type=click.Path(dir_okay=False))
@option(IMPORT_FLAGS[0])
@option(IMPORT_FLAGS[1])
@option(IMPORT_FLAGS[2])
@json_option
@click.pass_context
def import_command(ctx: click.Context, workbooks: tuple[str, ...], dry_run: bool, replace: bool, strict: bool, as_json: bool) -> None:
    """Import workbooks: .xlsx, .ods or .xls (all or nothing; importing a workbook again replaces it and reports what changed)."""
    from tables_app.services.importing import import_workbooks

    with sheet_progress() as on_sheet:
        report = import_workbooks(database_of(ctx), list(workbooks), dry_run=dry_run, replace=replace,
                                  strict=strict, on_sheet=on_sheet, on_wait=_say_waiting())
    _print_report(report, as_json, "Would import" if dry_run else "Imported")


@click.command()
@click.argument("workbooks", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--replace", is_flag=True, help="Check as if importing with --replace.")
@option(IMPORT_FLAGS[2])
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
    return click.Path(dir_okay=False, path_type=str).convert(value, param, ctx)


@click.command()
@click.option("--format", "export_format", type=click.Choice(EXPORT_FORMATS), default="xlsx", show_default=True, is_eager=True,
              help="xlsx: the import format; foundry: Foundry VTT RollTable and JournalEntry JSON, a file each (docs/foundry.md).")
@click.option("-o", "--output", "path", required=True, type=click.Path(), callback=_export_output,
              help="The .xlsx file to write (--format foundry: the directory, made if missing; with --single-file the file).")
@click.option("--single-file", is_flag=True,
              help="--format foundry: one JSON file (-o) holding every document, for the import macro (docs/foundry.md).")
@click.argument("names", nargs=-1)
@ruleset_option
@force_option
@json_option
@click.pass_context
def export(ctx: click.Context, export_format: str, path: str, single_file: bool, names: tuple[str, ...], ruleset: str | None,
           force: bool, as_json: bool) -> None:
    """Write tables, weapons and creatures (all, or the NAMES given; RULESET:NAME) to .xlsx in the import format,
    or (--format foundry) the tables as Foundry VTT documents."""
    if export_format == "foundry":
        from tables_app.services.foundry import export_foundry

        data = export_foundry(database_of(ctx), path, names, ruleset=ruleset, force=force, single_file=single_file)
        if as_json:
            emit_json(data)
            return
        tables = [f"{n} {_plural(k, n)}" for k, n in data["tables"].items() if n]
        plurals = {"RollTable": "RollTables", "JournalEntry": "JournalEntries", "Folder": "Folders"}
        documents = ", ".join(f"{n} {kind if n == 1 else plurals[kind]}" for kind, n in data["documents"].items() if n)
        if single_file:
            say(f"Wrote {path}: {', '.join(tables)} ({documents})")
            return
        files = len(data["written"])
        say(f"Wrote {files} file{'' if files == 1 else 's'} to {path}: {', '.join(tables)} ({documents})")
        return
    if single_file:
        raise click.UsageError("--single-file is for --format foundry")
    from tables_app.services import authoring

    data = authoring.export(database_of(ctx), path, names, ruleset=ruleset, force=force)
    if as_json:
        emit_json(data)
        return
    written = [f"{len(v)} {_plural(k, len(v))}" for k, v in data.items() if isinstance(v, list) and v]
    say(f"Wrote {path}: {', '.join(written)}")


@click.command()
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


@click.command()
@click.argument("workbooks", nargs=-1, shell_complete=names_of("workbooks"))
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
    parts = [f"{_counted(kind, names)} ({_some(names)})" for kind, names in report.removed.items()]
    say(f"{verb} {'; '.join(parts) or 'nothing'}")
    if report.workbooks:
        say(f"  workbooks: {unbroken_list(report.workbooks)}")
    if report.rulesets:
        say(f"  rulesets left empty: {unbroken_list(report.rulesets)}")


@click.command()
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
