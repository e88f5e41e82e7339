"""Exact sums of dice as integer counts: value → number of equally likely
outcomes, over one denominator (the number of outcomes).

Exact, and far faster to convolve than Fractions; dice are never enumerated
outcome by outcome. ``ClampedScale`` turns a rolled total into damage and
knows its exact mean over many rolls without building their distribution.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from tables_app.domain.dice import DiceExpression

# A distribution of equally likely outcomes as value → number of outcomes, over
# one denominator (the number of outcomes): exact, and far faster to convolve
# than Fractions. Dice are never enumerated outcome by outcome.
Counts = dict[int, int]


def as_counts(dist: Mapping[int, Fraction]) -> tuple[Counts, int]:
    """A distribution as integer counts over one common denominator."""
    denominator = math.lcm(*(p.denominator for p in dist.values()))
    return {value: p.numerator * (denominator // p.denominator) for value, p in dist.items()}, denominator


def convolve_counts(a: Mapping[int, int], b: Mapping[int, int], below: int | None = None) -> Counts:
    """The counts of the sum of two independent values; with ``below``, only
    the sums below it (every value of ``a`` and ``b`` must then be ≥ 0)."""
    squaring = a is b
    if below is not None:
        a = {x: m for x, m in a.items() if x < below}
        b = a if squaring else {y: n for y, n in b.items() if y < below}
    if not a or not b:
        return {}
    if len(a) * len(b) < 4096:
        out: dict[int, int] = defaultdict(int)
        for x, m in a.items():
            for y, n in b.items():
                if below is None or x + y < below:
                    out[x + y] += m * n
        return dict(out)
    # Large: pack each into one big integer, a count per fixed-width slot, and multiply once
    # (Kronecker substitution; the slots are wide enough that no sum of products overflows).
    low_a, low_b = min(a), min(b)
    length_a, length_b = max(a) - low_a + 1, max(b) - low_b + 1
    bound = min(length_a, length_b) * max(a.values()) * max(b.values())
    width = bound.bit_length() // 8 + 1

    def pack(counts: Mapping[int, int], low: int, length: int) -> int:
        empty = bytes(width)
        return int.from_bytes(b"".join(
            counts[low + i].to_bytes(width, "little") if low + i in counts else empty for i in range(length)
        ), "little")

    size = length_a + length_b - 1
    if below is not None:
        size = min(size, below - low_a - low_b)
    packed_a = pack(a, low_a, length_a)
    packed_b = packed_a if squaring else pack(b, low_b, length_b)
    product = multiply(packed_a, packed_b).to_bytes(width * (length_a + length_b), "little")
    out = {}
    for i in range(size):
        count = int.from_bytes(product[i * width:(i + 1) * width], "little")
        if count:
            out[low_a + low_b + i] = count
    return out


FFT_FROM_BITS = 1 << 20  # below this, Python's own multiplication is as fast
CHECK_PRIME = (1 << 61) - 1


def multiply(x: int, y: int) -> int:
    """x × y for non-negative integers, exactly; huge ones through a floating-point FFT.

    Python multiplies big integers in O(n^1.58); an FFT over their bytes is
    O(n log n). Each coefficient is below 255² × n < 2^53, the FFT's error far
    below 0.5, and the answer is still checked (every coefficient near an
    integer, and the product modulo a prime), falling back to x × y if not.
    """
    if min(x.bit_length(), y.bit_length()) < FFT_FROM_BITS:
        return x * y
    import numpy as np  # only for very large odds: start-up stays light

    size_x, size_y = (x.bit_length() + 7) // 8, (y.bit_length() + 7) // 8
    length = size_x + size_y - 1
    fft_size = 1 << (length - 1).bit_length()
    a = np.fft.rfft(np.frombuffer(x.to_bytes(size_x, "little"), np.uint8).astype(np.float64), fft_size)
    b = a if x is y else np.fft.rfft(np.frombuffer(y.to_bytes(size_y, "little"), np.uint8).astype(np.float64), fft_size)
    exact = np.fft.irfft(a * b, fft_size)[:length]
    rounded = np.rint(exact)
    if np.abs(exact - rounded).max() > 0.25:
        return x * y
    coefficients = rounded.astype(np.int64)  # each < 2^48: six bytes, carried by adding shifted integers
    product = 0
    for shift in range(0, 48, 8):
        product += int.from_bytes(((coefficients >> shift) & 0xFF).astype(np.uint8).tobytes(), "little") << shift
    if product % CHECK_PRIME != (x % CHECK_PRIME) * (y % CHECK_PRIME) % CHECK_PRIME:
        return x * y
    return product


def power_counts(counts: Mapping[int, int], times: int, below: int | None = None) -> Counts:
    """The counts of the sum of ``times`` independent copies (by repeated squaring)."""
    result: Counts = {0: 1}
    base = dict(counts)
    while times:
        if times & 1:
            result = convolve_counts(result, base, below)
        times >>= 1
        if times:
            base = convolve_counts(base, base, below)
    return result


def _excess_dice(expression: DiceExpression, copies: int) -> tuple[int, dict[int, int]]:
    """``copies`` rolls of ``expression`` as their least total plus dice counted from 0.

    A die of s sides adds 1..s, or −s..−1 when subtracted: either way its least
    value plus 0..s−1. Returns the least total and sides → number of dice
    (one-sided dice, which add nothing beyond their least value, left out)."""
    least = expression.flat * copies
    dice: dict[int, int] = defaultdict(int)
    for term in expression.terms:
        least += copies * term.count * (1 if term.sign > 0 else -term.sides)
        if term.sides > 1:
            dice[term.sides] += copies * term.count
    return least, dict(dice)


def dice_counts(expression: DiceExpression, copies: int = 1, below: int | None = None) -> tuple[Counts, int]:
    """The counts of the sum of ``copies`` rolls of ``expression`` and the number of
    outcomes; with ``below``, only the totals below it (the rest is left out)."""
    least, dice = _excess_dice(expression, copies)
    limit = None if below is None else below - least
    counts: Counts = {0: 1}
    outcomes = 1
    for sides, count in dice.items():
        counts = convolve_counts(counts, power_counts(dict.fromkeys(range(sides), 1), count, limit), limit)
        outcomes *= sides**count
    if limit is not None and limit <= 0:
        counts = {}
    return {least + excess: n for excess, n in counts.items()}, outcomes


def shortfall(expression: DiceExpression, copies: int = 1) -> Fraction:
    """How far below 0 the sum Y of ``copies`` rolls of ``expression`` falls, on
    average: E[max(0, −Y)]. Exact, with no distribution built."""
    least, dice = _excess_dice(expression, copies)
    highest = sum((sides - 1) * count for sides, count in dice.items())  # Y = least + X, 0 ≤ X ≤ highest
    if least >= 0:
        return Fraction(0)
    if least + highest < 0:  # always below 0
        return -expression.mean * copies
    if least + highest < -least:
        # Fewer totals at or above 0 than below: E[max(0, −Y)] = E[max(0, Y)] − E[Y], and
        # E[max(0, Y)] is the same sum over the dice mirrored (X ↦ highest − X, same distribution).
        return _below(-(least + highest), dice) - expression.mean * copies
    return _below(least, dice)


def _below(least: int, dice: Mapping[int, int]) -> Fraction:
    """E[max(0, −(least + X))], X the sum of dice counted from 0 (sides → how many).

    The number of ways X = x is Σ_e q_e C(x − e + N − 1, N − 1) for N dice, q_e
    the coefficients of Π (1 − z^s)^m; summed twice over x < L = −least (the
    hockey-stick identity) that is Σ_e q_e C(L − e + N, N + 1), so only the
    powers e < L of that product are needed.
    """
    short = -least
    if short <= 0:
        return Fraction(0)
    n = sum(dice.values())
    q: dict[int, int] = {0: 1}
    for sides, count in dice.items():  # (1 − z^s)^m, only the powers below ``short``
        factor = {}
        i, binomial = 0, 1
        while i <= count and sides * i < short:
            factor[sides * i] = -binomial if i & 1 else binomial
            binomial = binomial * (count - i) // (i + 1)
            i += 1
        step: dict[int, int] = defaultdict(int)
        for e, c in q.items():
            for f, d in factor.items():
                if e + f < short:
                    step[e + f] += c * d
        q = {e: c for e, c in step.items() if c}
    # C(short − e + n, n + 1) for the powers e present, from the largest power down:
    # C(t, r) = C(m, r) × t!/m! ÷ (t − r)!/(m − r)!, one jump per power.
    ways = 0
    top = n + 1
    powers = sorted(q, reverse=True)
    m = short - powers[0] + n
    binomial = math.comb(m, top)
    for e in powers:
        target = short - e + n
        if target > m:
            binomial = binomial * math.perm(target, target - m) // math.perm(target - top, target - m)
            m = target
        ways += q[e] * binomial
    outcomes = math.prod(sides**count for sides, count in dice.items())
    return Fraction(ways, outcomes)


def residues(expression: DiceExpression, copies: int, modulus: int) -> list[Fraction]:
    """P(Y ≡ r mod ``modulus``) for r = 0 … modulus − 1, Y the sum of ``copies`` rolls."""

    def add(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
        out = [Fraction(0)] * modulus
        for r, p in enumerate(a):
            for t, q in enumerate(b):
                out[(r + t) % modulus] += p * q
        return out

    result = [Fraction(0)] * modulus
    result[expression.flat * copies % modulus] = Fraction(1)
    for term in expression.terms:
        die = [Fraction(0)] * modulus
        for r in range(modulus):  # the faces f ≡ r: r, r + m, … (m, 2m, … for r = 0)
            die[term.sign * r % modulus] += Fraction(len(range(r or modulus, term.sides + 1, modulus)), term.sides)
        count = term.count * copies
        while count:  # add ``count`` such dice, by repeated squaring
            if count & 1:
                result = add(result, die)
            count >>= 1
            if count:
                die = add(die, die)
    return result


@dataclass(frozen=True)
class ClampedScale:
    """value ↦ max(0, ⌊value × times / divide⌋): a rolled total turned into
    damage that never heals. The caller's rule in one place: it is applied to
    each rolled total, and knows its exact mean over a sum of dice."""

    times: int  # ≥ 0
    divide: int = 1  # ≥ 1

    def __call__(self, value: int) -> int:
        return max(value * self.times // self.divide, 0)

    def mean_over(self, expression: DiceExpression, copies: int = 1) -> Fraction:
        """E[self(Y)], Y the sum of ``copies`` rolls of ``expression``, exactly.

        Where Y ≥ 0 nothing is clamped, so E = E[⌊tY/d⌋] − E[⌊tY/d⌋; Y < 0]:
        the first from the mean and Y's residues mod d, the second from the
        few totals below 0 (or, with no division, from ``shortfall``)."""
        if self.times == 0:
            return Fraction(0)
        mean = expression.mean * copies
        if self.divide == 1:  # E[max(0, tY)] = t (E[Y] + E[max(0, −Y)])
            return self.times * (mean + shortfall(expression, copies))
        leftover = sum((p * (r * self.times % self.divide) for r, p in enumerate(residues(expression, copies, self.divide))), Fraction(0))
        floored = (self.times * mean - leftover) / self.divide
        below, outcomes = dice_counts(expression, copies, below=0)
        clamped = sum((n * (value * self.times // self.divide) for value, n in below.items()), 0)
        return floored - Fraction(clamped, outcomes)
