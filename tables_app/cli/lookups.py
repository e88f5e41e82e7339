"""The look-ups: list, show and the query group (one cell or entry of a
table), each made from its operation (tables_app/operations/lookups.py)."""

from __future__ import annotations

import functools
from typing import Any

import click

from tables_app.cli.build import command
from tables_app.cli.common import Group, database_of, output
from tables_app.operations import lookups, to_json


@command(lookups.LIST, name="list")
def list_command(ctx: click.Context, as_json: bool, **values: Any) -> None:
    output(lookups.LIST.run(database_of(ctx), **values), as_json, lambda render: render.listings)


FULL_NAMES = click.option("--full-names", is_flag=True,
                          help="An attack table's cells with the critical tables spelt out (18 E Hacking), "
                               "not in the printed books' compact notation (18EH) with its key.")


@command(lookups.SHOW, FULL_NAMES)
def show(ctx: click.Context, as_json: bool, full_names: bool, **values: Any) -> None:
    output(lookups.SHOW.run(database_of(ctx), **values), as_json,
           lambda render: functools.partial(render.shown, full_names=full_names))


@click.group(cls=Group)
def query() -> None:
    """Look up one cell or entry of a table."""


@command(lookups.QUERY_ATTACK)
def query_attack(ctx: click.Context, as_json: bool, **values: Any) -> None:
    output(to_json(lookups.QUERY_ATTACK.run(database_of(ctx), **values)), as_json, lambda render: render.attack_cell)


@command(lookups.QUERY_CRITICAL)
def query_critical(ctx: click.Context, as_json: bool, **values: Any) -> None:
    output(to_json(lookups.QUERY_CRITICAL.run(database_of(ctx), **values)), as_json, lambda render: render.entry_result)


@command(lookups.QUERY_FUMBLE)
def query_fumble(ctx: click.Context, as_json: bool, **values: Any) -> None:
    output(to_json(lookups.QUERY_FUMBLE.run(database_of(ctx), **values)), as_json, lambda render: render.entry_result)


for _command in (query_attack, query_critical, query_fumble):
    query.add_command(_command)
