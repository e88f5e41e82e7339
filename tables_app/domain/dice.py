"""Dice sources and the open-ended d100.

A resolver never calls ``random`` itself: it asks a ``Dice`` source for each
die, naming what the die is for. ``SeededDice`` rolls reproducibly from a
seed; ``ForcedDice`` hands out dice a group rolled by hand, in order. Both
record what they gave, so the ``dice`` of a result, fed back as forced dice,
replays the same attack.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Sequence


class DiceError(ValueError):
    """A forced die that cannot be the die asked for."""


@dataclass
class Dice:
    """Base: hands out dice and remembers them in order."""

    used: list[int] = field(default_factory=list)
    purposes: list[str] = field(default_factory=list)

    def roll(self, sides: int, purpose: str) -> int:
        value = self._next(sides, purpose)
        self.used.append(value)
        self.purposes.append(purpose)
        return value

    def _next(self, sides: int, purpose: str) -> int:  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass
class SeededDice(Dice):
    seed: int = 0

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)

    def _next(self, sides: int, purpose: str) -> int:
        return self._random.randint(1, sides)


@dataclass
class ForcedDice(Dice):
    """Dice rolled by hand, in the order the resolver asks for them.

    When they run out, the resolution goes on with middling stand-in dice
    (which never open a roll) and ``missing`` lists what each further die is
    for, so the caller can say exactly how many more are needed.
    """

    values: Sequence[int] = ()
    missing: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._position = 0

    def _next(self, sides: int, purpose: str) -> int:
        if self._position >= len(self.values):
            self.missing.append(f"{purpose} (d{sides})")
            return (sides + 1) // 2
        value = self.values[self._position]
        self._position += 1
        if not 1 <= value <= sides:
            raise DiceError(f"die {self._position} of --dice is {value}, but the {purpose} is a d{sides} (1-{sides})")
        return value

    @property
    def unused(self) -> tuple[int, ...]:
        return tuple(self.values[self._position:])


@dataclass(frozen=True)
class OpenEndedRoll:
    """An open-ended d100: the first die, the dice that followed, the total
    (the rules that open and continue it: domain/table_rules.py)."""

    unmodified: int
    extra: tuple[int, ...]
    total: int
    direction: int  # +1 opened high, -1 opened low, 0 closed


# ---------------------------------------------------------------- expressions
class DiceExpressionError(ValueError):
    """A dice expression that cannot be read."""


_TERM = re.compile(r"([+-]?)\s*(?:(\d*)\s*[dD]\s*(\d+)|(\d+))")


@dataclass(frozen=True)
class DiceTerm:
    count: int
    sides: int
    sign: int = 1


@dataclass(frozen=True)
class DiceExpression:
    """A sum of dice and flat numbers: ``2d6+3``, ``1d4``, ``2d6+1d4+3``, ``5``, ``2d6-1``."""

    text: str
    terms: tuple[DiceTerm, ...]
    flat: int

    @property
    def dice_count(self) -> int:
        return sum(t.count for t in self.terms)

    @property
    def maximum(self) -> int:
        return sum(t.sign * t.count * (t.sides if t.sign > 0 else 1) for t in self.terms) + self.flat

    @property
    def minimum(self) -> int:
        return sum(t.sign * t.count * (1 if t.sign > 0 else t.sides) for t in self.terms) + self.flat

    @property
    def mean(self) -> Fraction:
        return sum((Fraction(t.sign * t.count * (t.sides + 1), 2) for t in self.terms), Fraction(self.flat))

    def roll(self, dice: Dice, purpose: str) -> tuple[int, tuple[int, ...]]:
        """Roll every die in order; the total and the dice."""
        rolled = []
        total = self.flat
        for term in self.terms:
            for _ in range(term.count):
                die = dice.roll(term.sides, f"{purpose} ({self.text})")
                rolled.append(die)
                total += term.sign * die
        return total, tuple(rolled)

    def sample(self, rng: Any, copies: Any) -> Any:
        """``roll`` for many attacks at once (numpy): for each entry of ``copies``,
        the total of that many rolls of the expression, each with its flat
        modifier, as an int64 array. The same sum as ``roll``, drawn from
        ``rng`` (a numpy Generator) instead of a ``Dice`` source."""
        import numpy as np

        copies = np.asarray(copies, dtype=np.int64)
        total = copies * self.flat
        for term in self.terms:
            total += term.sign * sum_of_dice(rng, term.sides, copies * term.count)
        return total

    def __str__(self) -> str:
        return self.text


DICE_PER_STEP = 1 << 22  # dice drawn at once by ``sum_of_dice``: bounded memory (8 MB of int16)


def sum_of_dice(rng: Any, sides: int, counts: Any) -> Any:
    """For each entry of ``counts``, the sum of that many dice of ``sides`` sides (int64 array)."""
    import numpy as np

    counts = np.asarray(counts, dtype=np.int64)
    if sides == 1:
        return counts.copy()
    out = np.zeros(counts.size, dtype=np.int64)
    small = np.int16 if sides <= np.iinfo(np.int16).max else np.int64  # int16 draws are several times faster
    for k in np.unique(counts).tolist():
        if k <= 0:
            continue
        where = np.flatnonzero(counts == k)
        rows = max(1, DICE_PER_STEP // k)
        for start in range(0, where.size, rows):
            part = where[start:start + rows]
            out[part] = rng.integers(1, sides + 1, size=(part.size, k), dtype=small).sum(axis=1, dtype=np.int64)
    return out


def combined(expressions: Sequence[DiceExpression]) -> DiceExpression:
    """Several expressions rolled and added as one (a weapon's and an ability's dice)."""
    terms = tuple(term for expression in expressions for term in expression.terms)
    flat = sum(expression.flat for expression in expressions)
    return DiceExpression(" + ".join(e.text for e in expressions) or "0", terms, flat)


# Generous for any real game, and small enough that exact odds stay well under a
# second (bench/formula_odds_worst_case.py).
MAX_DICE_IN_EXPRESSION = 100
MAX_SIDES = 1000
MAX_FLAT = 1000  # the flat modifier, either way


def parse_dice(text: str) -> DiceExpression:
    """Parse ``2d6+1d4+3``; raise DiceExpressionError naming the expression."""
    source = text.strip()
    compact = source.replace(" ", "")
    if re.search(r"\d\s+\d", source):
        raise DiceExpressionError(f"{source!r} is not a dice expression (write e.g. 2d6+3, 1d4 or 2d6+1d4+3)")
    if not compact:
        raise DiceExpressionError("an empty dice expression")
    if re.search(r"\d{7}", compact):  # far beyond every bound below, and kept from int()'s digit limit
        raise DiceExpressionError(f"{source!r}: a number in it is too large (at most {MAX_DICE_IN_EXPRESSION} dice of {MAX_SIDES} sides, modifier ±{MAX_FLAT})")
    position = 0
    terms: list[DiceTerm] = []
    flat = 0
    while position < len(compact):
        m = _TERM.match(compact, position)
        if not m or (position > 0 and not m.group(1)) or m.end() == position:
            raise DiceExpressionError(f"{source!r} is not a dice expression (write e.g. 2d6+3, 1d4 or 2d6+1d4+3)")
        sign = -1 if m.group(1) == "-" else 1
        if m.group(3) is not None:
            count = int(m.group(2)) if m.group(2) else 1
            sides = int(m.group(3))
            if sides < 1 or sides > MAX_SIDES:
                raise DiceExpressionError(f"{source!r}: a die needs 1 to {MAX_SIDES} sides")
            if count:
                terms.append(DiceTerm(count, sides, sign))
        else:
            flat += sign * int(m.group(4))
        position = m.end()
    if sum(t.count for t in terms) > MAX_DICE_IN_EXPRESSION:
        raise DiceExpressionError(f"{source!r}: more than {MAX_DICE_IN_EXPRESSION} dice")
    if abs(flat) > MAX_FLAT:
        raise DiceExpressionError(f"{source!r}: the flat modifier must be between -{MAX_FLAT} and {MAX_FLAT}")
    return DiceExpression(source, tuple(terms), flat)
