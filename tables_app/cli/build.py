"""Click commands made from the operations' declarations (tables_app/operations):
each parameter becomes a Click argument or option with its type, bounds,
default, help and completion, so that nothing about an input is written
twice. Click's own checks and messages are kept (``--cmb`` out of range is
Click's ``Invalid value for '--cmb'``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

import click

from tables_app.operations import Operation, Param
from tables_app.operations.params import dice_text, modifier

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem


def names_of(what: str) -> Callable[[click.Context, click.Parameter, str], list[CompletionItem]]:
    """Shell completion of names of ``what`` from the database (completion.py,
    imported only while completing)."""
    def callback(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        from tables_app.cli import completion

        if what == "shown":
            return completion.complete_shown(ctx, param, incomplete)
        if what == "combatants":
            return completion.complete_combatants(ctx, param, incomplete)
        return completion.complete(what)(ctx, param, incomplete)
    return callback


def not_blank(value: str | None, flag: str) -> str | None:
    if value is not None and not value.strip():
        raise click.BadParameter("must not be empty", param_hint=f"'{flag}'")
    return value


def _bounds(param: Param) -> str:
    """The bounds an operation checks itself (its own one-line message), for --help."""
    low, high = param.minimum, param.maximum
    if low is None and high is None:
        return ""
    if low is None or high is None:
        return f" (at {'most' if low is None else 'least'} {high if low is None else low})"
    return f" ({low} to {high})"


CHOICES_SHOWN = 30  # characters of `a|b|c` past which an option's choices go in its help


def long_choices(param: Param) -> bool:
    """Whether a choice's ``a|b|c`` is too long to print as its metavar."""
    return param.kind == "choice" and len("|".join(param.choices)) > CHOICES_SHOWN


def arguments_help(operation: Operation) -> str:
    """The command's help, with the choices of an argument that prints as a name (KIND)."""
    lines = [f"{p.name.upper()} is one of: {', '.join(p.choices)}." for p in operation.params
             if p.argument and long_choices(p)]
    return "\n\n".join([operation.help, *lines])


class NumberRange(click.FloatRange):
    """A FloatRange that refuses NaN, as Param.within does: every comparison with NaN is false, so Click's range
    lets it through (`--time nan` never ran out, `--width nan` reached the domain's ValueError)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number", param, ctx)
        return number


def _type(param: Param) -> Any:
    if param.kind == "choice":
        return click.Choice(param.choices, case_sensitive=param.case_sensitive)
    if param.kind == "int":
        if param.click_range and (param.minimum is not None or param.maximum is not None):
            low, high = (None if bound is None else int(bound) for bound in (param.minimum, param.maximum))
            return click.IntRange(low, high)
        return int
    if param.kind == "float":
        if param.click_range and (param.minimum is not None or param.maximum is not None):
            return NumberRange(param.minimum, param.maximum)
        return float
    return str


def _callback(param: Param) -> Callable[[click.Context, click.Parameter, Any], Any] | None:
    """What checks a value Click's types do not: text not blank, ``NAME=±N``, dice."""
    flag = param.flag

    def read(_ctx: click.Context, _param: click.Parameter, value: Any) -> Any:
        if param.kind == "modifiers":
            try:
                return tuple(modifier(text) for text in value)
            except ValueError as exc:
                raise click.BadParameter(str(exc)) from None
        if param.kind == "dice":
            try:
                return None if value is None else dice_text(value)
            except ValueError as exc:
                raise click.BadParameter(str(exc)) from None
        for one in value if param.multiple else (value,):
            not_blank(one, flag)
        return value

    return read if param.kind in ("modifiers", "dice") or param.not_blank else None


def click_param(param: Param) -> click.Parameter:
    """The Click argument or option of a declared parameter."""
    settings: dict[str, Any] = {}
    if param.complete:
        settings["shell_complete"] = names_of(param.complete)
    callback = _callback(param)
    if callback is not None:
        settings["callback"] = callback
    if param.argument:
        if not param.required:
            settings["required"] = False
        if long_choices(param):  # `KIND`, its choices in the command's help (arguments_help), not a 60-column usage line
            settings["metavar"] = param.name.upper() if param.required else f"[{param.name.upper()}]"
        return click.Argument([param.name], type=_type(param), **settings)
    declaration = [param.flag, *(f"--{alias}" for alias in param.aliases), param.name]
    help_text = param.help + ("" if param.click_range else _bounds(param))
    if param.metavar:
        settings["metavar"] = param.metavar
    elif long_choices(param):
        # Click would print [a|b|...] as one unbreakable column, past 80: a
        # name for it, and the choices in the help, which wraps.
        settings["metavar"] = param.name.upper()
        help_text += f" One of: {', '.join(param.choices)}."
    if param.kind == "flag":
        return click.Option(declaration, is_flag=True, help=help_text, **settings)
    if param.kind not in ("text", "dice", "modifiers"):
        settings["type"] = _type(param)
    if param.show_default:
        settings["show_default"] = True
    # A default is passed only when there is one: Click 8.5 stops enforcing
    # `required` when `default=None` is given explicitly.
    if param.multiple:
        settings["multiple"] = True
        settings["default"] = ()
    elif param.default is not None:
        settings["default"] = param.default
    if param.required:
        settings["required"] = True
    return click.Option(declaration, help=help_text, **settings)


json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object for programs.")


class OperationCommand(click.Command):
    """A command made from an operation's declaration (``operation``)."""

    def __init__(self, operation: Operation, **settings: Any):
        super().__init__(**settings)
        self.operation = operation


def command(operation: Operation, *extra: Callable[[click.Command], object],
            name: str | None = None) -> Callable[[Callable[..., Any]], click.Command]:
    """A Click command for ``operation``: its declared parameters, then the
    ``extra`` options of printing (``--plot``), then ``--json``. The
    decorated function is called as ``function(ctx, as_json, **values)``
    (and the extra options' values)."""
    def make(function: Callable[..., Any]) -> click.Command:
        settings = {"ignore_unknown_options": True} if operation.dash_arguments else {}
        made = OperationCommand(operation, name=name or operation.words[-1], callback=click.pass_context(function),
                                params=[click_param(p) for p in operation.params], help=arguments_help(operation),
                                short_help=operation.short_help, context_settings=settings)
        added: tuple[Callable[[click.Command], object], ...] = (*extra, json_option)
        for add in added:
            add(made)
        return made
    return make


def option(param: Param) -> Callable[[Any], Any]:
    """``param`` as a decorator, like ``click.option``, for commands written by hand."""
    def add(function: Any) -> Any:
        made = click_param(param)
        if isinstance(function, click.Command):
            function.params.append(made)
        else:
            function.__dict__.setdefault("__click_params__", []).append(made)
        return function
    return add
