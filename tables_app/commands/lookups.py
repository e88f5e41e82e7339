"""The look-ups: list, show and the query group (one cell or entry of a table)."""

from __future__ import annotations

import click

from tables_app.commands.common import (
    answers, database_of, json_option, names_of, no_blank_features, not_blank, output, ruleset_option,
)
from tables_app.domain import kinds

LIST_CHOICES = click.Choice([*kinds.list_words(), "rulesets", "ruleset"], case_sensitive=False)


def list_data(database, kind: str | None = None, ruleset: str | None = None) -> dict:  # type: ignore[no-untyped-def]
    from tables_app.services.lookups import list_items

    return list_items(database, kind.lower() if kind else None, ruleset)


@answers(list_data)
@click.command("list")
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
@click.command()
@click.argument("kind", type=SHOW_CHOICES)
@click.argument("name", shell_complete=names_of("shown"))
@ruleset_option
@json_option
@click.pass_context
def show(ctx: click.Context, kind: str, name: str, ruleset: str | None, as_json: bool) -> None:
    """Show a whole table (as a grid), a weapon or a creature (NAME may be RULESET:NAME)."""
    output(show_data(database_of(ctx), kind, name, ruleset), as_json, lambda render: render.shown)


@click.group()
def query() -> None:
    """Look up one cell or entry of a table."""


def query_attack_data(database, table: str, result: int, armor: str, ruleset: str | None = None) -> dict:  # type: ignore[no-untyped-def]
    from tables_app.services import lookups

    return lookups.query_attack(database, table, result, armor, ruleset)


@answers(query_attack_data)
@query.command("attack", context_settings={"ignore_unknown_options": True})  # RESULT may be negative: -5, not an option
@click.argument("table", shell_complete=names_of("attack"))
@click.argument("result", type=click.IntRange(-1_000_000, 1_000_000))
@click.argument("armor", shell_complete=names_of("armor"))
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
@click.argument("table", shell_complete=names_of("critical"))
@click.argument("roll", type=int)
@click.option("--severity", "severity", metavar="SEV", help="Add this severity's roll modifier.")
@click.option("--has", "features", multiple=True, metavar="FEATURE", shell_complete=names_of("features"), callback=no_blank_features,
              help="A feature of the target (helm, ...).")
@click.option("--column", callback=lambda _c, _p, v: not_blank(v, "--column"),
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
@click.argument("table", shell_complete=names_of("fumble"))
@click.argument("roll", type=int)
@click.option("--modifier", type=click.IntRange(-1_000, 1_000), default=0, show_default=True, help="The weapon's fumble modifier.")
@click.option("--column", callback=lambda _c, _p, v: not_blank(v, "--column"),
              help="The weapon category column of a printed fumble table (1HE, 2H, ...).")
@ruleset_option
@json_option
@click.pass_context
def query_fumble(ctx: click.Context, table: str, roll: int, modifier: int, column: str | None, ruleset: str | None,
                 as_json: bool) -> None:
    """The entry of fumble TABLE for a natural d100 ROLL."""
    output(query_fumble_data(database_of(ctx), table, roll, modifier, column, ruleset), as_json,
           lambda render: render.entry_result)
