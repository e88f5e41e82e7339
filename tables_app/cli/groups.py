"""The group commands (docs/deploy.md, "Groups"): each made from its operation (tables_app/operations/groups.py)."""

from __future__ import annotations

from typing import Any

import click

from tables_app.cli.build import command
from tables_app.cli.common import Group, database_of, emit_json, say
from tables_app.operations import Operation, groups, to_json


@click.group("group", cls=Group)
def group_group() -> None:
    """Groups sharing a server: each its own token, fights and parties (the operator's commands)."""


def _made(operation: Operation) -> click.Command:
    @command(operation)
    def run(ctx: click.Context, as_json: bool, **values: Any) -> None:
        result = operation.run(database_of(ctx, scoped=False), **values)
        if as_json:
            emit_json(to_json(result))
        elif isinstance(result, dict):
            say(f"Revoked the token of the group {result['revoked']!r}: its requests are refused until "
                f"tables group token {result['revoked']}.")
        else:
            for line in result.lines():
                click.echo(line)
    return run


for _operation in groups.OPERATIONS:
    group_group.add_command(_made(_operation))
