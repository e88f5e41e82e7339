"""The HTTP API reads a request's fields through each Click parameter
without Click's parser (commands/serving.py, quick_params). Held here to
what Click itself makes of the same fields as a command line
(make_context): the same parameters whenever the quick reading answers,
for every command the API answers through, on valid and hostile fields."""

from __future__ import annotations

import click
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables_app.cli import cli
from tables_app.commands.serving import _find_command, _quick_reading, command_line, quick_params

SYSTEMS = ["table", "rise", "worlds-awakening", "d10-pool", "pte"]
COMMANDS = [("list",), ("show",), ("query", "attack"), ("query", "critical"), ("query", "fumble"),
            *((verb, system) for verb in ("resolve", "odds", "simulate") for system in SYSTEMS)]

scalars = st.one_of(
    st.integers(-5, 200), st.integers(-(10**15), 10**15), st.sampled_from([10**30, -(10**30), 1.5, -0.0, float("nan")]),
    st.booleans(),
    st.sampled_from(["Longsword", "Edged", "MA", "60", "-5", "+7", "97,99,45", "2d6+3", "flank=+10", "helm", "normal",
                     "epic", "oe", "0:150:10", "weapons", "critical", "attack", "Impact", "", " ", "é", "\x00", "1e3",
                     "--json", "-"]),
    st.text(max_size=8),
)
values = st.one_of(scalars, st.none(), st.lists(scalars, max_size=3))


def fields_of(command: click.Command) -> list[str]:
    reading = _quick_reading(command)
    assert reading is not None, command.name
    return [*reading[0], "json", "plot", "bogus", "help"]


@pytest.mark.parametrize("names", COMMANDS, ids=" ".join)
def test_every_command_of_the_api_is_read_quickly(names):
    command, _parent = _find_command(cli, names)
    assert _quick_reading(command) is not None


@pytest.mark.parametrize("names", COMMANDS, ids=" ".join)
@settings(max_examples=150, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_the_quick_reading_is_clicks(names, data):
    command, parent = _find_command(cli, names)
    keys = fields_of(command)
    fields = data.draw(st.lists(st.tuples(st.sampled_from(keys), values), max_size=7), label="fields")
    quick = quick_params(command, names[-1], parent, list(fields))
    try:
        ctx = command.make_context(names[-1], command_line(command, list(fields)), parent=parent)
        slow = {name: value for name, value in ctx.params.items() if name not in ("as_json", "plot_file")}
    except Exception as exc:  # noqa: BLE001  (refused by Click, or by command_line)
        slow = exc
    if quick is not None:
        assert not isinstance(slow, Exception), (fields, quick, slow)
        assert quick == slow, fields


def test_the_quick_reading_answers_valid_requests():
    """Not a path that is never taken: plain valid fields are read quickly, to Click's very values."""
    cases = [
        (("resolve", "table"), [("weapon", "Longsword"), ("cmb", 60), ("def", 20), ("armor", "MA"), ("dice", [97, 99, 45, 30]),
                                ("mod", ["flank=+10"]), ("has", "helm"), ("ignore_crit_reduction", True)]),
        (("odds", "table"), [("weapon", "Longsword"), ("cmb", 0), ("target", "Orc Warrior"), ("sweep_cmb", "0:150:10")]),
        (("resolve", "rise"), [("accuracy", 6), ("def", 12), ("damage", "2d6+3"), ("seed", 1)]),
        (("query", "attack"), [("table", "Edged"), ("result", "100"), ("armor", "MA")]),
        (("show",), [("kind", "weapons"), ("name", "Longsword")]),
    ]
    for names, fields in cases:
        command, parent = _find_command(cli, names)
        quick = quick_params(command, names[-1], parent, fields)
        assert quick is not None, names
        ctx = command.make_context(names[-1], command_line(command, fields), parent=parent)
        assert quick == {k: v for k, v in ctx.params.items() if k not in ("as_json", "plot_file")}
    command, parent = _find_command(cli, ("resolve", "table"))
    for refused in ([("cmb", "sixty")], [("bogus", 1)], [("cmb", 60), ("cmb", 70)], [("json", True)],
                    [("cmb", [1, 2])], [("ignore_crit_reduction", "yes")], [("armor", {"a": 1})]):
        assert quick_params(command, "table", parent, refused) is None, refused


def test_an_argument_after_a_missing_one_is_left_to_click():
    """command_line stops at the first argument missing (Click then names
    it, or takes the defaults): the quick reading never places a later one."""

    @click.command()
    @click.argument("first", required=False)
    @click.argument("second", required=False)
    def two(first, second):  # type: ignore[no-untyped-def]
        """Two optional arguments."""

    parent = click.Context(cli, info_name="tables")
    assert quick_params(two, "two", parent, [("second", "b")]) is None
    ctx = two.make_context("two", command_line(two, [("second", "b")]), parent=parent)
    assert ctx.params == {"first": None, "second": None}  # what the command line makes of it
    assert quick_params(two, "two", parent, [("first", "a"), ("second", "b")]) == {"first": "a", "second": "b"}
    assert quick_params(two, "two", parent, [("first", "a")]) == {"first": "a", "second": None}
