"""The fight group: each command made from its operation
(tables_app/operations/fights.py); printed as the fight's own words
(domain/fights/account.py): the attack's steps, what it did, then a status
line per combatant."""

from __future__ import annotations

from typing import Any

import click

from tables_app.cli import attacks
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


def _state_lines(result: Any, shown: bool = False) -> list[str]:
    """The fight's head line and a line per combatant; ``shown``: as `fight show` gives them (whose turn, the
    sides, each one's side and what counts from the next round)."""
    state = result.state if hasattr(result, "state") else result
    f = state.fight
    head = f"{f.name}: round {f.round}" + (f", over: side {f.winner} won" if f.winner else ", over" if f.over else "")
    if not f.combatants:
        return [head, "  (no combatants: tables fight join ...)", *state.left_lines()]
    return [head, *(state.shown_lines() if shown else state.lines())]


def _printed(result: Any) -> list[str]:
    from tables_app.services import fights as service

    if isinstance(result, service.FightStep):
        lines: list[str] = []
        for steps, words in result.parts or (((), result.account),):
            lines += [*(f"  {step}" for step in steps), *words]
        return [*lines, "", *_state_lines(result)]
    if isinstance(result, service.FightState):
        return _state_lines(result, shown=True)
    if isinstance(result, service.FightLog):
        return [f"{result.loaded.row.name}: {result.loaded.seq} events", *result.lines()]
    if isinstance(result, service.FightList):
        if not result.fights:
            return ["No fights (start one: tables fight new NAME)."]
        return [f"{f['name']}  ({f['events']} events{', ruleset ' + f['ruleset'] if f['ruleset'] else ''})"
                for f in result.fights]
    if hasattr(result, "lines"):  # a party's answers
        return list(result.lines())
    if isinstance(result, dict) and "members" in result:
        n = result["members"]
        return [f"Removed the party {result['removed']!r} ({n} member{'' if n == 1 else 's'})."]
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


@fight_group.group("party", cls=Group)
def party_group() -> None:
    """Parties: combatants saved from a fight, to join another in one command (fight join --party)."""


for _operation in fights.PARTY_OPERATIONS:
    party_group.add_command(_made(_operation))


def _percent(p: float) -> str:
    return f"{100 * p:.2f}%"


def chances_lines(data: dict[str, Any]) -> list[str]:
    """The odds (or the simulation) of a fight for people: a row per round, then what it comes to."""
    rounds, simulated = data["rounds"], "count" in data
    sides = list(rounds[0]["sides"]) if rounds else []
    from tables_app.cli.render import chances_heading

    lines = [chances_heading(data),
             "round  over by it  " + "  ".join(f"side {side} won" for side in sides)]
    for r in rounds:
        cells = [_percent(r["over"]).rjust(10)] + [_percent(r["sides"][side]).rjust(len(f"side {side} won")) for side in sides]
        lines.append(f"{r['round']:>5}  " + "  ".join(cells))
    if rounds:
        last = rounds[-1]
        lines += ["", f"By the end of round {last['round']}:"]
        lines += [f"  {name}: down {_percent(fate['down'])}, dead {_percent(fate['dead'])}"
                  for name, fate in last["combatants"].items()]
    margin = f" (± {data['se']['expected_rounds']:.2f})" if simulated else ""
    lines += ["", f"Expected rounds: {data['expected_rounds']:.2f}{margin}; still going after the last: "
                  f"{_percent(data['unfinished'])}."]
    if simulated:
        lines.append("Each share within about 2 standard errors of the truth, 19 times in 20 (--json has them).")
    return lines


def _chances(operation: Operation) -> click.Command:
    @command(operation, lambda made: attacks.plot_option(made, "P(won by round r) for each side"), name="fight")
    def run(ctx: click.Context, as_json: bool, plot_file: str | None, **values: Any) -> None:
        from tables_app.cli.progress import progress_bar

        data = to_json(operation.run(database_of(ctx), progress_bar=progress_bar, **values))
        attacks.draw(plot_file, data)  # P(won by round r) per side (cli/plot.py)
        if as_json:
            emit_json(data)
        else:
            _echo(chances_lines(data))
    return run


attacks.odds.add_command(_chances(fights.ODDS))
attacks.simulate.add_command(_chances(fights.SIMULATE))
