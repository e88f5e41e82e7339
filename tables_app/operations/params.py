"""The parameters of an operation, declared once as data.

A ``Param`` says everything a face needs about one input of an operation:
its name (the JSON field of the HTTP API, the long option of the command
line with dashes for underscores), its kind, bounds, default, help and the
names completion offers. The CLI makes Click parameters of it
(tables_app/cli/build.py); the HTTP API reads request fields by it
(``Param.read``) and describes it in OpenAPI (``Param.schema``); a Python
caller's values are checked by it (``Param.check``). No face writes a bound
or a help line of its own.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from tables_app.domain.bounds import CMB
from tables_app.errors import UsageMistake

# Bounds of the table system's numbers: far beyond any published table, and
# small enough that vectorised simulation (int64) can never overflow.
BONUS = CMB  # a --cmb, --def or modifier; a creature's attack in a workbook too (domain/bounds.py)
SEED = (0, 2**63 - 1)
MAX_SIMULATED = 100_000_000  # attacks of one `simulate` (the HTTP API holds it lower: http/app.py)

KINDS = ("int", "float", "text", "flag", "choice", "dice_expression", "modifiers", "dice")


def echoed(value: Any, most: int = 60) -> str:
    """A value a message quotes back, as its caller wrote it: text in quotes, as the command line
    quotes it (`'yes'`), anything else as JSON spells it (`true`, `null`, `[1, 2]`, `{"a": true}`),
    not as Python does (`True`, `None`); cut past ``most`` characters."""
    if isinstance(value, str):
        return repr(value if len(value) <= most else value[:most] + "…")
    try:
        said = json.dumps(value, ensure_ascii=False, default=repr)
    except (TypeError, ValueError, RecursionError):
        said = repr(value)
    return said if len(said) <= most else said[:most] + "…"


def json_kind(value: Any) -> str:
    """What a JSON value is, in words: `true`, `null`, `a number`, `a list`, `an object`, `text`."""
    if isinstance(value, bool) or value is None:
        return echoed(value)
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "text" if isinstance(value, str) else type(value).__name__


class ParamError(UsageMistake, ValueError):
    """A value a parameter refuses; ``field`` names the parameter as the
    caller wrote it (the JSON field), ``problem`` says what is wrong."""

    def __init__(self, field: str, problem: str):
        super().__init__(f"{field!r}: {problem}")
        self.field, self.problem = field, problem


@dataclass(frozen=True, kw_only=True)
class Param:
    """One input of an operation.

    ``kind``: ``int``, ``float``, ``text``, ``flag`` (true or false),
    ``choice`` (one of ``choices``), ``dice_expression`` (``2d6+3``: text
    the operation parses), ``modifiers`` (``NAME=±N`` items, read into
    ``(name, n)`` pairs) or ``dice`` (dice rolled by hand: whole numbers,
    given as a list or as ``97,34,45``).
    """

    field: str  # the JSON field; on the command line --field with dashes, or the argument FIELD
    kind: str
    help: str
    key: str | None = None  # the keyword the operation takes, when it is not the field
    argument: bool = False  # a positional argument on the command line
    required: bool = False
    default: Any = None
    multiple: bool = False  # repeatable on the command line, a list in JSON
    minimum: int | float | None = None
    maximum: int | float | None = None
    choices: tuple[str, ...] = ()
    case_sensitive: bool = True
    aliases: tuple[str, ...] = ()  # older long options still accepted (without dashes)
    metavar: str | None = None
    complete: str | None = None  # the names shell completion offers (cli/completion.py), if any
    not_blank: bool = False  # text that must not be empty or spaces
    show_default: bool = False
    # Bounds checked by Click on the command line (its message names the
    # option); off for the formula systems, whose own checks name it.
    click_range: bool = True

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"parameter {self.field!r}: unknown kind {self.kind!r}")

    @property
    def name(self) -> str:
        """The keyword the operation takes this parameter under."""
        return self.key or self.field

    @property
    def flag(self) -> str:
        return "--" + self.field.replace("_", "-")

    # ------------------------------------------------------------ checking
    def check(self, value: Any) -> Any:
        """``value`` as the operation takes it (typed: an int, a tuple, ...),
        checked against the declaration; ParamError otherwise."""
        if value is None:
            if self.required:
                raise ParamError(self.field, "a value is required")
            return () if self.multiple else None
        if self.kind == "modifiers" and isinstance(value, dict):  # {"flank": 10}, from Python
            value = list(value.items())
        if self.multiple:
            if not isinstance(value, (list, tuple)):
                raise ParamError(self.field, f"a list of values, not {json_kind(value)}")
            return tuple(self._one(item) for item in value)
        return self._one(value)

    def _one(self, value: Any) -> Any:
        if self.kind == "flag":
            if not isinstance(value, bool):
                raise ParamError(self.field, f"true or false, not {echoed(value)}")
            return value
        if self.kind in ("int", "float"):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                    self.kind == "int" and not isinstance(value, int)):
                raise ParamError(self.field, f"{echoed(value)} is not {'a whole number' if self.kind == 'int' else 'a number'}")
            self.within(value)
            return value
        if self.kind == "dice":
            return dice_of(value, self.field)
        if self.kind == "modifiers" and isinstance(value, (list, tuple)) and len(value) == 2:  # ("flank", 10), from Python
            name, number = value
            if isinstance(name, str) and isinstance(number, int) and not isinstance(number, bool):
                value = f"{name}={number:+d}"
        if not isinstance(value, str):
            raise ParamError(self.field, f"one text value, not {json_kind(value)}")
        unicode_problem(value, self.field)
        if self.not_blank and not value.strip():
            raise ParamError(self.field, "must not be empty")
        if self.kind == "choice":
            return self.chosen(value)
        if self.kind == "modifiers":
            try:
                return modifier(value)
            except ValueError as exc:
                raise ParamError(self.field, str(exc)) from None
        return value

    def within(self, number: int | float) -> None:
        """ParamError when ``number`` is outside the bounds (NaN too)."""
        low = -math.inf if self.minimum is None else self.minimum
        high = math.inf if self.maximum is None else self.maximum
        if not low <= number <= high:
            said = echoed(number)  # `Infinity`, `NaN` as JSON spells them (a body's 1e400)
            if self.minimum is None:
                raise ParamError(self.field, f"{said} is over the most, {self.maximum}")
            if self.maximum is None:
                raise ParamError(self.field, f"{said} is under the least, {self.minimum}")
            raise ParamError(self.field, f"{said} is not between {self.minimum} and {self.maximum}")

    def chosen(self, value: str) -> str:
        """The choice ``value`` names, spelled as declared."""
        for choice in self.choices:
            if choice == value or (not self.case_sensitive and choice.lower() == value.lower()):
                return choice
        raise ParamError(self.field, f"{value!r} is not one of {', '.join(self.choices)}")

    # ------------------------------------------------------------ reading text
    def read(self, value: Any) -> Any:
        """A request's value (JSON, or the text of a query string or a path)
        converted to the parameter's type, then checked."""
        if isinstance(value, str) and self.kind in ("int", "float", "flag"):
            value = self._from_text(value)
        if self.multiple and isinstance(value, (str, int, float)) and not isinstance(value, bool):
            value = [value]  # one value of a repeatable field
        if self.multiple and isinstance(value, (list, tuple)) and self.kind in ("int", "float", "flag"):
            value = [self._from_text(v) if isinstance(v, str) else v for v in value]
        if self.kind in TEXTS:  # a number is its text (`"armor": 1` is armor column 1, as `--armor 1`)
            value = [_as_text(v) for v in value] if isinstance(value, list) else _as_text(value)
        return self.check(value)

    def _from_text(self, text: str) -> Any:
        if self.kind == "flag":
            if text.lower() in ("true", "1"):
                return True
            if text.lower() in ("false", "0"):
                return False
            raise ParamError(self.field, f"true or false, not {text[:40]!r}")
        try:
            return int(text) if self.kind == "int" else float(text)
        except ValueError:
            raise ParamError(self.field, f"{text!r} is not {'a whole number' if self.kind == 'int' else 'a number'}") from None

    # ------------------------------------------------------------ describing
    def schema(self) -> dict[str, Any]:
        """The JSON schema of the field (OpenAPI)."""
        one: dict[str, Any]
        if self.kind == "int":
            one = {"type": "integer"}
        elif self.kind == "float":
            one = {"type": "number"}
        elif self.kind == "flag":
            one = {"type": "boolean"}
        elif self.kind == "choice":
            one = {"type": "string", "enum": list(self.choices)}
        elif self.kind == "dice":
            one = {"oneOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "string"}]}
        else:
            one = {"type": "string"}
        if self.minimum is not None:
            one["minimum"] = self.minimum
        if self.maximum is not None:
            one["maximum"] = self.maximum
        described = {"type": "array", "items": one} if self.multiple else one
        described["description"] = self.help
        if self.default is not None:
            described["default"] = self.default
        return described


TEXTS = ("text", "choice", "dice_expression", "modifiers")  # kinds read as text


def _as_text(value: Any) -> Any:
    return str(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


def modifier(text: str) -> tuple[str, int]:
    """``NAME=±N`` (``flank=+10``) as ``(name, n)``; ValueError saying why not."""
    name, sep, number = text.partition("=")
    try:
        if not sep or not name.strip():
            raise ValueError
        parsed = (name.strip(), int(number))
    except ValueError:
        raise ValueError(f"{text!r} is not NAME=±N (e.g. flank=+10)") from None
    if not BONUS[0] <= parsed[1] <= BONUS[1]:
        raise ValueError(f"{text!r}: a modifier must be between {BONUS[0]} and {BONUS[1]}")
    return parsed


def dice_text(text: str) -> tuple[int, ...]:
    """``97,34,45`` (commas or spaces) as the dice; ValueError saying why not."""
    try:
        return tuple(int(part) for part in text.replace(" ", ",").split(",") if part)
    except ValueError:
        raise ValueError(f"{text!r} is not a list of whole numbers (e.g. 97,34,45)") from None


def unicode_problem(text: str, field: str) -> None:
    """ParamError when ``text`` is not valid Unicode: a lone surrogate
    (``"\\ud800"`` in JSON reads as one) can be neither stored, looked up
    nor answered in UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ParamError(field, "not valid Unicode (a lone surrogate)") from None


def dice_of(value: Any, field: str) -> tuple[int, ...]:
    """Dice given as a list of whole numbers or as text (``97,34,45``)."""
    if isinstance(value, str):
        unicode_problem(value, field)
        try:
            return dice_text(value)
        except ValueError as exc:
            raise ParamError(field, str(exc)) from None
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return tuple(value)
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in value):
        return dice_of(",".join(str(v) for v in value), field)
    raise ParamError(field, "dice are a list of whole numbers (or text: 97,34,45)")
