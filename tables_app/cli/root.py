"""The `tables` group: parse options, call one operation, print the result.

Library errors (TablesError) become ``Error: ...`` lines on stderr and exit
code 1; usage errors are Click's (exit 2). Heavy modules are imported inside
the commands that need them, so a lookup starts fast.

This module is the root: the `tables` group, with the commands of the
modules beside it (one module a group) registered on it.
"""

from __future__ import annotations

import gc

# Start-up only creates long-lived objects (modules, classes, Click's
# commands): no garbage cycles to find, yet the collector would walk them
# again and again while they are made. It rests until they are all made, then
# they are frozen out of every later collection (``gc.freeze``, end of module).
_COLLECTING = gc.isenabled()
gc.disable()

import importlib  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from typing import Any  # noqa: E402

import click  # noqa: E402

from tables_app import __version__  # noqa: E402
from tables_app.cli.common import Group, Interrupted, emit_json, error_of  # noqa: E402

__all__ = ["cli", "main"]

# Each command of the `tables` group, by name: the module of tables_app.cli that makes it, and its name there. A
# command's module is imported when the command is asked for (``RootGroup.get_command``), so `tables odds table`
# never builds the fight, serve or import commands it does not run (a help page or a completion asks for them all).
COMMANDS = {
    "import": ("workbooks", "import_command"), "lint": ("workbooks", "lint"), "export": ("workbooks", "export"),
    "template": ("workbooks", "template"), "remove": ("workbooks", "remove"), "example": ("workbooks", "example"),
    "list": ("lookups", "list_command"), "show": ("lookups", "show"), "query": ("lookups", "query"),
    "resolve": ("attacks", "resolve"), "odds": ("attacks", "odds"), "simulate": ("attacks", "simulate"),
    "fight": ("fights", "fight_group"), "group": ("groups", "group_group"), "serve": ("serving", "serve"),
    "db": ("database", "db_group"),
}


class RootGroup(Group):
    """The `tables` group: with ``--json`` anywhere on the command line, a
    failure is also one JSON object on stdout, ``{"error": {...}}``, with the
    same exit code (1 bad data, 2 bad usage), so a program never has to parse
    stderr."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in COMMANDS:
            module, attribute = COMMANDS[name]
            collecting = gc.isenabled()
            gc.disable()  # as at start-up (the top): the command's objects live as long as the process
            try:
                self.add_command(getattr(importlib.import_module(f"tables_app.cli.{module}"), attribute), name)
            finally:
                if collecting:
                    gc.enable()
        return super().get_command(ctx, name)

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode, **extra)
        argv = list(sys.argv[1:] if args is None else args)
        _printable_streams()
        if os.environ.get(complete_var or "_TABLES_COMPLETE"):
            import tables_app.cli.completion  # noqa: F401  (its bash script quotes names with spaces)
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


def _printable_streams() -> None:
    """Text that cannot be encoded for the console (bytes of the command line
    that are not UTF-8, Python's lone surrogates, on a strict UTF-8 console)
    is printed escaped (``\\udcff``) rather than ending the command in a traceback."""
    for stream in (sys.stdout, sys.stderr):
        if getattr(stream, "errors", None) == "strict" and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")


@click.group(cls=RootGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", metavar="URL_OR_PATH", help="Database (default: $TABLES_DB, else the user data directory).")
@click.option("--group", metavar="NAME", help="Act as this group (tables group): its fights and parties "
              "(default: the operator's own, of no group).")
@click.version_option(__version__, prog_name="tables")
@click.pass_context
def cli(ctx: click.Context, db: str | None, group: str | None) -> None:
    """Table-driven tabletop combat: import, look up and resolve attack tables."""
    if group is not None and ctx.invoked_subcommand in OPERATORS_ONLY:
        # else done silently as the operator, while a group's token may not import over HTTP (403)
        raise click.UsageError(f"--group does not apply to {ctx.invoked_subcommand}: {OPERATORS_ONLY[ctx.invoked_subcommand]}; "
                               "run it without --group")


# The commands that write what is the operator's alone (docs/deploy.md, Groups): `tables --group NAME` refuses them.
# (serve says why itself: its requests act as their tokens' groups.)
OPERATORS_ONLY = {
    "import": "importing tables is the operator's (a group reads them)",
    "remove": "removing tables is the operator's (a group reads them)",
    "group": "groups are made and revoked by the operator",
    "db": "the database is the operator's",
}


gc.freeze()  # every object made so far stays: later collections skip them (see the top)
if _COLLECTING:
    gc.enable()


def main() -> None:
    cli(prog_name="tables")


if __name__ == "__main__":  # pragma: no cover
    main()  # Click exits itself (standalone mode)
