"""What every formula system provides: options, a builder, a resolver.

A system is one module that defines a ``SYSTEM``; the registry lists them
by id. Options are declared here as plain data (no Click), so the CLI can
build its commands from them and the domain stays free of CLI code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable

from tables_app.domain.dice import Dice


class OptionError(ValueError):
    """An invalid option or combination of options (a usage error)."""


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

    @property
    def key(self) -> str:
        return self.dest or self.name.replace("-", "_")


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
class System:
    id: str
    title: str
    outcomes: tuple[str, ...]
    options: tuple[Option, ...]
    build: Callable[[dict[str, Any]], Any]  # option values → the system's parameters (OptionError if invalid)
    resolve: Callable[[Any, Dice], Resolution]
    dice_order: str  # for --help: the order in which --dice is consumed
    odds: Callable[[Any], Odds] | None = None
