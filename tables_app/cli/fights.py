"""The fight group: each command made from its operation
(tables_app/operations/fights.py); printed as the fight's own words
(domain/fights/account.py): the attack's steps, what it did, then a status
line per combatant."""

from __future__ import annotations

from typing import Any

import click

from tables_app.cli.build import command
from tables_app.cli.common import Group, database_of, emit_json
from tables_app.operations import Operation, fights, to_json


@click.group("fight", cls=Group)
def fight_group() -> None:
    """Run a fight: combatants, rounds, the effects of criticals carried from round to round."""


def _echo(lines: list[str]) -> None:
    from tables_app.cli.layout import plain_lines

    for line in lines:
        click.echo(plain_lines(line) if line.strip() else line)


def _state_lines(result: Any) -> list[str]:
    state = result.state if hasattr(result, "state") else result
    f = state.fight
    head = f"{f.name}: round {f.round}" + (f", over: side {f.winner} won" if f.winner else ", over" if f.over else "")
    return [head, *state.lines()] if f.combatants else [head, "  (no combatants: tables fight join ...)"]


def _printed(result: Any) -> list[str]:
    from tables_app.services import fights as service

    if isinstance(result, service.FightStep):
        lines: list[str] = []
        for steps, words in result.parts or (((), result.account),):
            lines += [*(f"  {step}" for step in steps), *words]
        return [*lines, "", *_state_lines(result)]
    if isinstance(result, service.FightState):
        return _state_lines(result)
    if isinstance(result, service.FightLog):
        return [f"{result.loaded.row.name}: {result.loaded.seq} events", *result.lines()]
    if isinstance(result, service.FightList):
        if not result.fights:
            return ["No fights (start one: tables fight new NAME)."]
        return [f"{f['name']}  ({f['events']} events{', ruleset ' + f['ruleset'] if f['ruleset'] else ''})"
                for f in result.fights]
    if isinstance(result, dict) and "removed" in result:
        return [f"Removed the fight {result['removed']!r} ({result['events']} events)."]
    raise TypeError(type(result))


def _made(operation: Operation) -> click.Command:
    @command(operation)
    def run(ctx: click.Context, as_json: bool, **values: Any) -> None:
        result = operation.run(database_of(ctx), **values)
        if as_json:
            emit_json(to_json(result))
        else:
            _echo(_printed(result))
    return run


for _operation in fights.OPERATIONS:
    fight_group.add_command(_made(_operation))
