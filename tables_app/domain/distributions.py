"""Exact distributions: probabilities as Fractions (dice sums: ``counts``).

Nothing here samples. Open-ended and exploding chains are infinite, so they
are cut where the mass still to come is below ``TAIL_CUT`` (1e-15, as
docs/table-system.md "Odds" allows); the cut-off mass stays on the values where
the chain stopped, so every distribution sums to exactly 1.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from typing import Callable, Iterable, Mapping


TAIL_CUT = Fraction(1, 10**15)

Dist = dict[int, Fraction]  # value → probability


def uniform(sides: int) -> Dist:
    p = Fraction(1, sides)
    return {face: p for face in range(1, sides + 1)}


def constant(value: int) -> Dist:
    return {value: Fraction(1)}


def convolve(a: Mapping[int, Fraction], b: Mapping[int, Fraction]) -> Dist:
    """The distribution of the sum of two independent values."""
    out: dict[int, Fraction] = defaultdict(Fraction)
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] += p * q
    return dict(out)


def transform(dist: Mapping[int, Fraction], f: Callable[[int], int]) -> Dist:
    out: dict[int, Fraction] = defaultdict(Fraction)
    for value, p in dist.items():
        out[f(value)] += p
    return dict(out)


def mix(parts: Iterable[tuple[Fraction, Mapping[int, Fraction]]]) -> Dist:
    """A weighted mixture of distributions."""
    out: dict[int, Fraction] = defaultdict(Fraction)
    for weight, dist in parts:
        for value, p in dist.items():
            out[value] += weight * p
    return dict(out)


def mean(dist: Mapping[int, Fraction]) -> Fraction:
    return sum((value * p for value, p in dist.items()), Fraction(0))


def chain(die: Dist, continues: Callable[[int], bool], cut: Fraction = TAIL_CUT) -> Dist:
    """The sum of a chain of dice: roll ``die``, and while ``continues(face)``
    roll again and add. Cut where the mass still to come is below ``cut``."""
    go = {face: p for face, p in die.items() if continues(face)}
    stop = {face: p for face, p in die.items() if not continues(face)}
    p_go = sum(go.values(), Fraction(0))
    out: dict[int, Fraction] = defaultdict(Fraction)
    prefix: Dist = constant(0)  # the sum of the dice that continued so far
    weight = Fraction(1)
    while True:
        if weight * p_go < cut:  # the rest is below the cut: let this die stop
            for base, p in prefix.items():
                for face, q in die.items():
                    out[base + face] += p * q
            return dict(out)
        for base, p in prefix.items():
            for face, q in stop.items():
                out[base + face] += p * q
        prefix = convolve(prefix, {face: p for face, p in go.items()})
        weight = sum(prefix.values(), Fraction(0))


def total(dist: Mapping[int, Fraction]) -> Fraction:
    return sum(dist.values(), Fraction(0))
