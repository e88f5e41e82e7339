"""The db group: create the database, migrate it, its schema version, check it."""

from __future__ import annotations

import click

from tables_app.cli.common import Failure, Group, database_of, emit_json, json_option, say


@click.group("db", cls=Group)
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
