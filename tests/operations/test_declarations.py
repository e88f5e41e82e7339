"""Each operation's parameters are declared once (tables_app/operations):
the command's Click options and the HTTP API's fields are both made from
them, and read the same values from the same input."""

from __future__ import annotations

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables_app.cli.build import OperationCommand
from tables_app.cli.root import cli
from tables_app.operations import Param, ParamError, find, system_ids

WORDS = [("list",), ("show",), ("query", "attack"), ("query", "critical"), ("query", "fumble"),
         *((verb, system) for verb in ("resolve", "odds", "simulate") for system in ("table", *system_ids()))]
PRINTING = {"as_json", "plot_file", "full_names"}  # the options of printing, the command line's own


def command_of(words: tuple[str, ...]) -> click.Command:
    ctx = click.Context(cli, info_name="tables")
    command: click.Command | None = cli
    for word in words:
        assert isinstance(command, click.Group)
        command = command.get_command(ctx, word)
    assert command is not None
    return command


@pytest.mark.parametrize("words", WORDS, ids=" ".join)
def test_each_command_is_made_from_its_declaration(words):
    command = command_of(words)
    assert isinstance(command, OperationCommand) and command.operation is find(words)
    made = [p.name for p in command.params if p.name not in PRINTING]
    assert made == [p.name for p in find(words).params]


@pytest.mark.parametrize("words", WORDS, ids=" ".join)
def test_the_declared_bounds_are_the_commands(words):
    """Where Click checks a bound (its message names the option), it is the declared one."""
    for param in find(words).params:
        option = next(p for p in command_of(words).params if p.name == param.name)
        if isinstance(option.type, click.IntRange):
            assert (option.type.min, option.type.max) == (param.minimum, param.maximum)
        elif param.kind == "int" and param.click_range:
            assert param.minimum is None and param.maximum is None


def words_of(param: Param, value: object) -> list[str]:
    """The command-line words giving ``value`` to ``param``."""
    if param.argument:
        return [str(value)]
    if param.kind == "flag":
        return [param.flag] if value else []
    if param.kind == "dice":
        return [param.flag, ",".join(map(str, value))]  # type: ignore[arg-type]
    if param.multiple:
        return [word for item in value for word in (param.flag, str(item))]  # type: ignore[attr-defined]
    return [param.flag, str(value)]


def strategy(param: Param) -> st.SearchStrategy:
    if param.multiple and param.kind not in ("modifiers", "text"):
        return st.lists(strategy(Param(field=param.field, kind=param.kind, help="", choices=param.choices,
                                       minimum=param.minimum, maximum=param.maximum)), max_size=3)
    if param.kind == "int":
        low = -10**6 if param.minimum is None else param.minimum
        high = 10**6 if param.maximum is None else param.maximum
        return st.integers(low, high)
    if param.kind == "flag":
        return st.booleans()
    if param.kind == "choice":
        return st.sampled_from(param.choices)
    if param.kind == "dice":
        return st.lists(st.integers(1, 100), min_size=1, max_size=6)
    if param.kind == "modifiers":
        return st.lists(st.tuples(st.sampled_from(["flank", "rear", "haste"]), st.integers(-50, 50)).map(
            lambda pair: f"{pair[0]}={pair[1]:+d}"), max_size=3)
    text = st.text(st.characters(whitelist_categories=("L", "N")), min_size=1, max_size=12)
    return st.lists(text, max_size=3) if param.multiple else text


@pytest.mark.parametrize("words", [("query", "attack"), ("query", "fumble"), ("resolve", "table"), ("odds", "table"),
                                   ("simulate", "rise"), ("resolve", "d10-pool")], ids=" ".join)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_click_and_the_fields_read_the_same_values(words, data):
    """Valid values given on the command line and as request fields are read
    alike: the same Python values reach the operation either way."""
    operation = find(words)
    given_values = {}
    for param in operation.params:
        if param.argument or param.required or data.draw(st.booleans()):
            given_values[param] = data.draw(strategy(param))
    arguments = [word for param, value in given_values.items() if not param.argument for word in words_of(param, value)]
    arguments += [word for param, value in given_values.items() if param.argument for word in words_of(param, value)]
    command = command_of(words)
    ctx = command.make_context(words[-1], arguments, parent=click.Context(cli, info_name="tables"))
    by_click = {name: value for name, value in ctx.params.items() if name not in PRINTING}
    by_fields = operation.read([(param.field, value) for param, value in given_values.items()])
    assert by_click == by_fields


@pytest.mark.parametrize("param, value, problem", [
    (Param(field="n", kind="int", minimum=1, maximum=5, help=""), 6, "6 is not between 1 and 5"),
    (Param(field="n", kind="int", minimum=1, help=""), 0, "0 is under the least, 1"),
    (Param(field="n", kind="int", maximum=5, help=""), 6, "6 is over the most, 5"),
    (Param(field="n", kind="int", help=""), True, "true is not a whole number"),  # issue 41: as JSON spells it
    (Param(field="n", kind="int", help=""), 1.5, "1.5 is not a whole number"),
    (Param(field="f", kind="float", minimum=0, maximum=1, help=""), float("nan"), "NaN is not between 0 and 1"),
    (Param(field="c", kind="choice", choices=("a", "b"), help=""), "c", "'c' is not one of a, b"),
    (Param(field="t", kind="text", not_blank=True, help=""), "  ", "must not be empty"),
    (Param(field="t", kind="text", required=True, help=""), None, "a value is required"),
    (Param(field="t", kind="text", help=""), [5], "one text value, not a list"),
    (Param(field="t", kind="text", help=""), {"a": 1}, "one text value, not an object"),
    (Param(field="m", kind="modifiers", multiple=True, help=""), ["x"], "'x' is not NAME=±N (e.g. flank=+10)"),
    (Param(field="d", kind="dice", help=""), "1,a", "'1,a' is not a list of whole numbers (e.g. 97,34,45)"),
    (Param(field="g", kind="flag", help=""), "yes", "true or false, not 'yes'"),
    (Param(field="g", kind="flag", help=""), 1, "true or false, not 1"),
])
def test_a_refusal_names_the_field_and_the_problem(param, value, problem):
    with pytest.raises(ParamError) as refused:
        param.read(value)
    assert (refused.value.field, refused.value.problem) == (param.field, problem)


@pytest.mark.parametrize("text, value", [("true", True), ("FALSE", False), ("1", True), ("0", False)])
def test_a_flag_reads_the_text_of_a_query_string(text, value):
    assert Param(field="g", kind="flag", help="").read(text) is value


@pytest.mark.parametrize("param, value, read", [
    (Param(field="armor", kind="text", help=""), 1, "1"),  # a printed table's armor column 1
    (Param(field="has", kind="text", multiple=True, help=""), [1, "helm"], ("1", "helm")),
    (Param(field="damage", kind="dice_expression", help=""), 6, "6"),
])
def test_a_number_is_read_as_its_text_where_text_is_wanted(param, value, read):
    """docs/api.md: "a number or a string is the option's value", as on the command line."""
    assert param.read(value) == read


def test_true_is_no_text():
    with pytest.raises(ParamError):
        Param(field="armor", kind="text", help="").read(True)


def test_a_case_blind_choice_answers_as_declared():
    assert Param(field="k", kind="choice", choices=("weapons",), case_sensitive=False, help="").read("WEAPONS") == "weapons"
