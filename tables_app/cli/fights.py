"""The fight group: each command made from its operation
(tables_app/operations/fights.py); printed as the fight's own words
(domain/fights/account.py): the attack's steps, what it did, then a status
line per combatant."""

from __future__ import annotations

from typing import Any

import click

from tables_app.cli import common
from tables_app.cli.plotting import draw, plot_option
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
        return [f"{result.row.name}: {result.seq} events", *result.lines()]
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


def _between(lower: float, upper: float) -> str:
    """A certified bound: ``46.10-46.95%`` (one figure when both print alike)."""
    low, high = f"{100 * lower:.2f}", f"{100 * upper:.2f}%"
    return high if f"{low}%" == high else f"{low}-{high}"


def chances_lines(data: dict[str, Any]) -> list[str]:
    """The chances of a fight for people, within 80 columns: how they were had, the sides by their combatants,
    a row per round, then what it comes to (an estimate's error, a bound's width, said once)."""
    from textwrap import wrap

    from tables_app.cli.render import chances_heading

    rounds, method = data["rounds"], data["method"]
    sides = list(rounds[0]["sides"]) if rounds else []
    lines = wrap(chances_heading(data), 80, subsequent_indent="  ")
    if data.get("why"):
        lines += wrap(f"{data['why'][0].upper()}{data['why'][1:]}; --exact insists.", 80, subsequent_indent="  ")
    named = data.get("side_names")
    if named:
        lines += wrap("Sides: " + "; ".join(named[side] for side in sides), 80, subsequent_indent="  ")

    def cell(row: dict[str, Any], pick: Any) -> str:
        if method == "certified":
            return _between(pick(row["lower"]), pick(row["upper"]))
        return _percent(pick(row))

    width = 13 if method == "certified" else 10
    headings = [f"side {side} won" for side in sides]
    lines.append("round  " + "over by it".rjust(width) + "  " + "  ".join(h.rjust(width) for h in headings))
    for r in rounds:
        cells = [cell(r, lambda v: v["over"]).rjust(width)] + [
            cell(r, lambda v, side=side: v["sides"][side]).rjust(max(width, len(h))) for side, h in zip(sides, headings)]
        lines.append(f"{r['round']:>5}  " + "  ".join(cells))
    if rounds:
        last = rounds[-1]
        lines += ["", f"By the end of round {last['round']}:"]
        for name in last["combatants"]:
            fate = {k: cell(last, lambda v, k=k, name=name: v["combatants"][name][k]) for k in ("down", "dead")}
            lines.append(f"  {name}: down {fate['down']}, dead {fate['dead']}")
    if method == "certified":
        said = f"{data['lower']['expected_rounds']:.2f} to {data['upper']['expected_rounds']:.2f}"
        unfinished = _between(data["lower"]["unfinished"], data["upper"]["unfinished"])
    else:
        said = f"{data['expected_rounds']:.2f}" + (f" (± {data['se']['expected_rounds']:.2f})" if method == "estimated" else "")
        unfinished = _percent(data["unfinished"])
    lines += ["", f"Expected rounds: {said}; still going after the last: {unfinished}."]
    if method == "estimated":
        lines += wrap(f"± is a share's standard error, the largest of any; each share is within 2 of its own of "
                      f"the truth, 19 times in 20 (--json has each). Seed {data['seed']}: --count {data['count']} "
                      f"--seed {data['seed']} plays the same fights.", 80)
    elif method == "certified":
        lines += wrap("Each share is certainly within its bounds: the states left out of the work are counted "
                      "as unknown, on either side.", 80)
    return lines


def chances_command(verb: str) -> click.Command:
    """`odds fight` or `simulate fight` (``verb``), made when cli/attacks.py's group is asked for it."""
    return _chances(fights.ODDS if verb == "odds" else fights.SIMULATE)


def _chances(operation: Operation) -> click.Command:
    @command(operation, lambda made: plot_option(made, "P(won by round r) for each side"), name="fight")
    def run(ctx: click.Context, as_json: bool, plot_file: str | None, **values: Any) -> None:
        from tables_app.cli.progress import progress_bar

        extra = {"started": common.STARTED} if operation is fights.ODDS else {}  # its budget: the whole command's
        data = to_json(operation.run(database_of(ctx), progress_bar=progress_bar, **values, **extra))
        draw(plot_file, data)  # P(won by round r) per side (cli/plot.py)
        if as_json:
            emit_json(data)
        else:
            _echo(chances_lines(data))
    return run

