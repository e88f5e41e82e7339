"""What every formula system provides: options, a builder, a resolver.

A system is one module that defines a ``SYSTEM``; the registry lists them
by id. Options are declared here as plain data (no Click), so the CLI can
build its commands from them and the domain stays free of CLI code.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from tables_app.domain.dice import Dice, DiceExpression, DiceExpressionError, parse_dice

if TYPE_CHECKING:  # numpy is imported when a simulation runs
    import numpy as np
    from numpy.typing import NDArray

Params = TypeVar("Params")  # a system's parameters, as its ``build`` makes them


class OptionError(ValueError):
    """An invalid option or combination of options (a usage error)."""


class TooManyDamages(ValueError):
    """A damage distribution that could hold more than ``limit`` values
    (``values``, as counted before the work: a bound, not the exact count)."""

    def __init__(self, values: int, limit: int):
        super().__init__(f"it can deal {values:,} different damages (more than {limit:,})")
        self.values, self.limit = values, limit


def check_damages(values: int, limit: int | None) -> None:
    """TooManyDamages when ``values`` is past ``limit`` (None: no bound)."""
    if limit is not None and values > limit:
        raise TooManyDamages(values, limit)


@dataclass(frozen=True)
class Option:
    """One command-line option of a system.

    ``kind`` is ``int``, ``float``, ``text``, ``dice`` (a dice expression),
    ``flag`` or ``choice``; ``name`` is the option without dashes
    (``crit-bonus``) and the key its value is passed under (``crit_bonus``).
    """

    name: str
    kind: str
    help: str
    default: Any = None
    required: bool = False
    multiple: bool = False
    choices: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()  # older spellings still accepted (without dashes)
    dest: str | None = None  # the key, when it is not the name's
    # Bounds of an int or float option, inclusive: generous for any real game, and
    # what keeps exact odds fast (bench/formula_odds_worst_case.py times the worst cases).
    minimum: int | None = None
    maximum: int | None = None

    @property
    def key(self) -> str:
        return self.dest or self.name.replace("-", "_")

    def check(self, value: Any) -> None:
        """OptionError naming the option and its bounds when ``value`` is outside them (NaN too)."""
        if value is None or (self.minimum is None and self.maximum is None):
            return
        for one in value if self.multiple else (value,):
            low = self.minimum if self.minimum is not None else -math.inf
            high = self.maximum if self.maximum is not None else math.inf
            if not low <= one <= high:
                if self.maximum is None:
                    raise OptionError(f"--{self.name} must be at least {self.minimum}, not {one}")
                if self.minimum is None:
                    raise OptionError(f"--{self.name} must be at most {self.maximum}, not {one}")
                raise OptionError(f"--{self.name} must be between {self.minimum} and {self.maximum}, not {one}")


def check_bounds(options: tuple[Option, ...], values: dict[str, Any]) -> None:
    """Every option within its bounds (a usage error otherwise)."""
    for option in options:
        option.check(values.get(option.key))


def dice_option(name: str, text: str) -> DiceExpression:
    """A dice expression given as option ``--name``; an OptionError names the option."""
    try:
        return parse_dice(text)
    except DiceExpressionError as error:
        raise OptionError(f"--{name}: {error}") from None


@dataclass(frozen=True)
class Resolution:
    """One resolved attack of a formula system."""

    outcome: str
    damage: int
    steps: tuple[str, ...]
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Odds:
    """The exact distribution of one attack's outcomes (computed, never sampled).

    ``outcomes`` has every outcome word of the system, zeros included, and
    sums to exactly 1; ``extras`` holds further distributions (JSON-ready
    once Fractions become floats).
    """

    outcomes: dict[str, Fraction]
    expected_damage: Fraction
    extras: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class System(Generic[Params]):
    id: str
    title: str
    outcomes: tuple[str, ...]
    options: tuple[Option, ...]
    build: Callable[[dict[str, Any]], Params]  # option values → the system's parameters (OptionError if invalid)
    resolve: Callable[[Params, Dice], Resolution]
    dice_order: str  # for --help: the order in which --dice is consumed
    odds: Callable[[Params], Odds] | None = None
    # n attacks at once for `simulate` (numpy): (params, rng, n) → (outcome indexes, damage) arrays
    # (domain/systems/vectorised.py); without it, simulate runs ``resolve`` once per attack.
    sample: Callable[[Params, np.random.Generator, int], tuple[NDArray[np.int64], NDArray[np.int64]]] | None = None
    # (params, limit) → the exact distribution of ``resolve``'s damage (value → probability, summing to 1;
    # Fractions, cut as ``odds`` cuts its chains), for the odds of a fight (domain/fights/blow_odds.py);
    # TooManyDamages, before the work, if it could hold more than ``limit`` values.
    damages: Callable[[Params, int | None], dict[int, Fraction]] | None = None
