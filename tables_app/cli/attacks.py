"""Attacks: the resolve, odds and simulate groups, each with its command on
the d100 tables and one per formula system (built on first use), all made
from their operations (tables_app/operations/attacks.py)."""

from __future__ import annotations

from typing import Any

import click

from tables_app.cli.build import command
from tables_app.cli.common import Group, database_of, output
from tables_app.cli.plotting import draw, plot_option
from tables_app.operations import Operation, attacks, find, to_json


def warn_unused(data: dict[str, Any]) -> None:
    if data.get("unused_dice"):
        unused = data["unused_dice"]
        verb = "was" if len(unused) == 1 else "were"
        click.echo(f"Warning: {len(unused)} of the given dice {verb} not needed: {', '.join(map(str, unused))}", err=True)


def database_for(ctx: click.Context, operation: Operation) -> Any:
    return database_of(ctx) if operation.uses_database else None


def resolve_command(operation: Operation) -> click.Command:
    @command(operation)
    def resolved(ctx: click.Context, as_json: bool, **values: Any) -> None:
        data = to_json(operation.run(database_for(ctx, operation), **values))
        warn_unused(data)
        on_the_tables = operation.words[1] == "table"  # the d100 tables' account, else a formula system's
        output(data, as_json, (lambda render: render.attack) if on_the_tables else (lambda render: render.formula))
    return resolved


def odds_command(operation: Operation) -> click.Command:
    @command(operation, plot_option)
    def odds(ctx: click.Context, as_json: bool, plot_file: str | None, **values: Any) -> None:
        from tables_app.cli.progress import progress_bar

        extra = {"progress_bar": progress_bar} if operation.uses_database else {}
        data = to_json(operation.run(database_for(ctx, operation), **extra, **values))
        draw(plot_file, data)
        output(data, as_json, (lambda render: render.sweep) if "sweep" in data else (lambda render: render.odds))
    return odds


def simulate_command(operation: Operation) -> click.Command:
    @command(operation)
    def simulated(ctx: click.Context, as_json: bool, **values: Any) -> None:
        from tables_app.cli.progress import progress_bar

        data = to_json(operation.run(database_for(ctx, operation), progress_bar, **values))
        output(data, as_json, lambda render: render.simulated)
    return simulated


MAKE = {"resolve": resolve_command, "odds": odds_command, "simulate": simulate_command}


class SystemsGroup(Group):
    """resolve, odds or simulate: a command per system, each made on first
    use, so a command that needs no formula system never imports one."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        from tables_app.operations import system_ids

        fight = {"fight"} if self.name in ("odds", "simulate") else set()
        return sorted(set(super().list_commands(ctx)) | {"table", *system_ids()} | fight)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name == "fight" and name not in self.commands and self.name in ("odds", "simulate"):
            from tables_app.cli.fights import chances_command  # `odds fight`, `simulate fight`: the fights' own module

            self.add_command(chances_command(self.name))
        elif name not in self.commands:
            from tables_app.errors import NotFound

            try:
                operation = find((self.name or "", name))
            except NotFound:
                return None
            self.add_command(MAKE[self.name or ""](operation))
        return super().get_command(ctx, name)


resolve, odds, simulate = (SystemsGroup(verb, help=attacks.GROUPS[verb]) for verb in ("resolve", "odds", "simulate"))
