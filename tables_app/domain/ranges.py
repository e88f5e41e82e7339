"""Roll ranges (`11-35`, `1:5`, `36`, `176+`, `>250`, `<71`, `Up to 10`,
`UM 96-100`), roll columns printed as tops (`-25`, `-30`, ..., `00`), and
tables keyed by them.

A compiled range table maps every integer from its lowest row upward to
exactly one row, so a lookup is one bisect.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import Generic, Iterable, Sequence, TypeVar

from tables_app.domain.bounds import ROLL
from tables_app.domain.names import shown

# Every dash a spreadsheet or a word processor is likely to produce.
DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
_DASH = "[" + re.escape(DASHES) + "]"


class _Pattern:
    """A regular expression compiled on its first match: only an import
    parses ranges, so a lookup's start-up compiles none."""

    __slots__ = ("pattern", "flags", "compiled")

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern, self.flags = pattern, flags
        self.compiled: re.Pattern[str] | None = None

    def match(self, text: str) -> re.Match[str] | None:
        if self.compiled is None:
            self.compiled = re.compile(self.pattern, self.flags)
        return self.compiled.match(text)


_SPAN = _Pattern(rf"^(\d+)\s*(?:{_DASH}|:)\s*(\d+)$")  # `11-35`, and printed `1:5`
_OPEN = _Pattern(r"^(\d+)\s*\+$")
_ABOVE = _Pattern(r"^>\s*(\d+)$")  # printed `>250`: 251 upward
_BELOW = _Pattern(r"^<\s*(\d+)$")  # printed `<71`: everything below 71
_SINGLE = _Pattern(r"^(\d+)$")
_UP_TO = _Pattern(rf"^{_DASH}\s*(\d+)$")  # printed `-25`: every roll up to 25
_UP_TO_WORDS = _Pattern(r"^up\s+to\s+(\d+)$", re.IGNORECASE)  # Against the Darkmaster's `Up to 10`, as `<11`
HUNDRED = "00"  # a d100's face 100, as books print it (`00`, `96-00`)
_UNMODIFIED = _Pattern(r"UM\s*(.*)", re.IGNORECASE | re.DOTALL)  # match(): no `$` to backtrack from
# Arms Law's rows bounded by the attacking weapon's Clumsy Range, XX its top: `UM 01-XX`, `XX-33`.
_CLUMSY_TOP = _Pattern(rf"^0*1\s*(?:{_DASH}|:)\s*XX$", re.IGNORECASE)
_CLUMSY_BOTTOM = _Pattern(rf"^XX\s*(?:{_DASH}|:)\s*(\d+)$", re.IGNORECASE)
CLUMSY_MARK = "XX"

# The bottom of a range written `<71`: below every result a table can be read
# with (an attack's modified result stays far above it), so the row reaches
# down without end as an open top reaches up.
NO_BOTTOM = -10**9
UNMODIFIED_PREFIX = "UM"


@dataclass(frozen=True, order=True)
class Range:
    """An inclusive range of rolls; ``high`` is None for an open top (``176+``),
    ``low`` is NO_BOTTOM for an open bottom (``<71``).

    ``clumsy``: a printed attack row bounded by the attacking weapon's
    Clumsy Range (XX, its top): `XX-33` (low 1, its bottom with Clumsy 0) runs
    from XX + 1 to 33; `UM 01-XX` (high None) is the Clumsy Range itself. Such
    a range is read only through ``for_clumsy``, with the weapon's range."""

    low: int
    high: int | None
    clumsy: bool = False

    def contains(self, value: int) -> bool:
        return value >= self.low and (self.high is None or value <= self.high)

    def for_clumsy(self, clumsy: int) -> Range | None:
        """The rolls this row reads for a weapon whose Clumsy Range is
        1-``clumsy`` (docs/workbook-format.md, "attack"): `XX-33` from clumsy + 1
        (None once that is above 33); `UM 01-XX` None, as its faces fumble
        before any row is read (docs/table-system.md, step 2)."""
        if not self.clumsy:
            return self
        if self.high is None or clumsy + 1 > self.high:
            return None
        return Range(clumsy + 1, self.high)

    @property
    def label(self) -> str:
        """The canonical spelling, which parse_range reads back to this range."""
        if self.clumsy:
            return f"{self.low}-{CLUMSY_MARK}" if self.high is None else f"{CLUMSY_MARK}-{self.high}"
        if self.low == NO_BOTTOM and self.high is not None:
            return f"<{self.high + 1}"
        if self.high is None:
            return f"{self.low}+"
        if self.high == self.low:
            return str(self.low)
        return f"{self.low}-{self.high}"

    def __str__(self) -> str:
        return self.label


def parse_range(text: str | int, *, rolls: bool = False, hundred: bool = False) -> Range:
    """Parse range notation; raise ValueError with a readable reason.

    ``rolls``: the column is a d100 roll's, as a critical or fumble table
    prints it: `00` is 100 (also in `96-00`), and `-25` is every roll up to
    25, the same as `<26` (open below, so the lowest row only); ``hundred``:
    `00` is 100 only (a `UM` row's face). Elsewhere `00` is 0 (leading
    zeros), and a leading dash is refused: an attack table's Result may be
    negative, so `-25` could be the result -25. `Up to 25` (any letter
    case) is every value up to 25, as `<26`, in every column: worded, it
    cannot be a negative result. A whole column printed as tops is read by
    printed_tops."""
    if isinstance(text, int):
        if text < 0:
            if rolls:
                return parse_range(f"-{-text}", rolls=True)
            raise ValueError(f"{text}: {_LEADING_DASH}")
        return Range(_roll(text, text), text)
    s = text.strip()

    def roll(digits: str) -> int:
        return 100 if (rolls or hundred) and digits == HUNDRED else _roll(digits, s)

    if m := _BELOW.match(s):
        return Range(NO_BOTTOM, roll(m.group(1)) - 1)
    if m := _UP_TO_WORDS.match(s):  # worded, so never a negative result: read in every range column
        return Range(NO_BOTTOM, roll(m.group(1)))
    if m := _ABOVE.match(s):
        return Range(roll(m.group(1)) + 1, None)
    if m := _SPAN.match(s):
        low, high = roll(m.group(1)), roll(m.group(2))
        if high < low:
            raise ValueError(f"range {s!r} runs backwards (write {high}-{low})")
        return Range(low, high)
    if m := _OPEN.match(s):
        return Range(roll(m.group(1)), None)
    if m := _SINGLE.match(s):
        n = roll(m.group(1))
        return Range(n, n)
    if m := _UP_TO.match(s):
        if rolls:
            return Range(NO_BOTTOM, roll(m.group(1)))
        raise ValueError(f"{shown(s)}: {_LEADING_DASH}")
    raise ValueError(f"{shown(s)} is not a range (write 11-35, 36 or 176+)")


_LEADING_DASH = ("a Result row written with a leading dash could be the result -25 or every result up to 25: "
                 "write <26 (every result up to 25) or 01-25")


def printed_tops(written: Sequence[str | int]) -> list[Range | str] | None:
    """A d100 roll column printed as tops, as older books print a fumble or
    critical table (docs/workbook-format.md, "Ranges"): `-25`, `-30`, ...,
    `-65`, `66`, `-70`, ..., `00`, each row running from the top of the row
    above + 1 up to its own top. None when the column is not written so;
    else each row's range, or the reason it does not read (a str).

    The column is written so when its first row is `-N` (any dash), every row
    is `-N`, a bare number or `00` (100), and either some row after the first
    is `-N` too or the tops rise. The first row reads as `-N` always has:
    every roll up to N, open below. A column whose only dashed row is its
    first and whose numbers do not rise reads as it always has, each number
    one roll (any order was allowed), so no workbook that read before reads
    otherwise: a rising column of bare numbers names the same rolls both ways.
    Tops rise: a row whose top is not above the row above's is refused, but
    one that repeats it exactly is the row above's range again (a one-column
    sheet's second branch; a printed sheet refuses the repeat itself)."""
    if not written or _printed_top(written[0]) is not True:
        return None
    dashed = [_printed_top(label) for label in written]
    if None in dashed:
        return None
    tops: list[int | str] = []
    for label in written:
        try:
            tops.append(_top_of(label))
        except ValueError as exc:  # beyond ROLL: that row's problem, the others still read
            tops.append(str(exc))
    numbers = [top for top in tops if isinstance(top, int)]
    if not any(dashed[1:]) and not all(a < b for a, b in zip(numbers, numbers[1:])):
        return None
    read: list[Range | str] = []
    above: Range | None = None  # the last row that read; its top is never open
    for label, top in zip(written, tops):
        if isinstance(top, str):
            read.append(top)
        elif above is None or above.high is None:
            above = Range(NO_BOTTOM, top)
            read.append(above)
        elif top == above.high:
            read.append(above)
        elif top < above.high:
            typed_zero = " (a typed 00 is the number 0: type it as text, '00, or write 100)" if top == 0 else ""
            read.append(f"{shown(label) if isinstance(label, str) else label}: in a Roll column printed as tops "
                        f"(-25, -30, ..., 00) each row runs from the row above's top + 1 to its own, so tops rise: "
                        f"{top} is not above {above.high}{typed_zero}")
        else:
            above = Range(above.high + 1, top)
            read.append(above)
    return read


def _printed_top(label: str | int) -> bool | None:
    """Whether a label of a column printed as tops is dashed (`-30`, a typed
    -30) or bare (`66`, `00`); None when it is neither."""
    if isinstance(label, int):
        return label < 0
    text = label.strip()
    if _UP_TO.match(text):
        return True
    return False if _SINGLE.match(text) else None


def _top_of(label: str | int) -> int:
    """The top a label of a column printed as tops names: `00` is 100."""
    if isinstance(label, int):
        return _roll(abs(label), label)
    text = label.strip()
    digits = m.group(1) if (m := _UP_TO.match(text)) else text
    return 100 if digits == HUNDRED else _roll(digits, text)


def _roll(digits: str | int, written: str | int) -> int:
    """A roll a range names, within ROLL (domain/bounds.py): checked on its
    digits first, so a run of thousands of digits never reaches int()."""
    low, high = ROLL
    if isinstance(digits, str) and len(digits.lstrip("0")) > len(str(high)):
        number = high + 1
    else:
        number = int(digits)
    if not low <= number <= high:
        raise ValueError(f"range {shown(written, 40) if isinstance(written, str) else written} goes beyond {high:,} "
                         f"(rolls run from {low} to {high:,})")
    return number


def parse_row_label(text: str | int) -> tuple[Range, bool]:
    """A row's range and whether it is matched on the unmodified roll:
    ``UM 96-100``, ``UM 100``, ``um96-100`` (any case, space optional) are;
    every plain range is not. Arms Law's rows bounded by the weapon's Clumsy
    Range read too: ``UM 01-XX`` and ``XX-33`` (Range.clumsy)."""
    if isinstance(text, str) and (m := _UNMODIFIED.match(text.strip())):
        written, rolls = text.strip(), m.group(1).strip()
        if not rolls:
            raise ValueError(f"{shown(written)} has no range after UM (write UM 96-100 or UM 100)")
        if _CLUMSY_TOP.match(rolls):
            return Range(1, None, clumsy=True), True
        _refuse_clumsy_mark(written)
        try:
            return parse_range(rolls, hundred=True), True  # a face of the d100: `UM 96-00`
        except ValueError as exc:
            raise ValueError(f"{shown(written, 40)}: {exc}") from None
    if isinstance(text, str):
        written = text.strip()
        if (m := _CLUMSY_BOTTOM.match(written)) and (top := _roll(m.group(1), written)) >= 1:
            return Range(1, top, clumsy=True), False
        _refuse_clumsy_mark(written)
    return parse_range(text), False


def _refuse_clumsy_mark(written: str) -> None:
    if CLUMSY_MARK.casefold() in written.casefold():
        raise ValueError(f"{shown(written, 40)}: XX (the top of the weapon's Clumsy Range) is read in two rows only: "
                         "UM 01-XX (the Clumsy Range, F in every column) and XX-33 (the lowest row)")


def row_label(span: Range, unmodified: bool) -> str:
    """The canonical spelling of a row, which parse_row_label reads back."""
    return f"{UNMODIFIED_PREFIX} {span.label}" if unmodified else span.label


@dataclass(frozen=True)
class CoverageProblem:
    """A gap, overlap or misplaced open top; ``rows`` indexes the offending rows."""

    message: str
    rows: tuple[int, ...]


def check_coverage(
    ranges: Sequence[Range],
    *,
    must_cover_from: int,
    must_cover_to: int | None = None,
) -> list[CoverageProblem]:
    """Check that ``ranges`` tile the integers without gaps or overlaps.

    Rows may come in any order (published tables are often descending).
    They must reach down to ``must_cover_from`` and, unless the top row is
    open, up to ``must_cover_to``. Only the lowest row may be open below
    (``<71``), as only the highest may be open above. Identical ranges are the
    caller's business (conditional branches): pass each range once. ``UM``
    rows (parse_row_label) are read on another roll: check them apart.
    """
    problems: list[CoverageProblem] = []
    if not ranges:
        return [CoverageProblem("the grid has no rows", ())]
    order = sorted(range(len(ranges)), key=lambda i: (ranges[i].low, _top(ranges[i])))
    first = ranges[order[0]]
    if first.low > must_cover_from:
        problems.append(
            CoverageProblem(
                f"rows start at {first.low}; they must cover {must_cover_from} upward", (order[0],)
            )
        )
    reach_i = order[0]  # of the rows so far, the one reaching highest: gaps and overlaps are against it
    for this_i in order[1:]:
        if (problem := _pair_problem(ranges, reach_i, this_i)) is not None:
            problems.append(problem)
        if _top(ranges[this_i]) > _top(ranges[reach_i]):
            reach_i = this_i
    last = ranges[reach_i]
    if must_cover_to is not None and last.high is not None and last.high < must_cover_to:
        like = "" if last.low == NO_BOTTOM else f" like {last.low}+"
        problems.append(
            CoverageProblem(
                f"rows stop at {last.high}; they must reach {must_cover_to} (or end with an open top{like})",
                (reach_i,),
            )
        )
    return problems


def _pair_problem(ranges: Sequence[Range], prev_i: int, this_i: int) -> CoverageProblem | None:
    """What is wrong between a row and the next one up (by its bottom), if anything."""
    prev, this = ranges[prev_i], ranges[this_i]
    if this.low == NO_BOTTOM:
        message = f"only the lowest row may be open below, but {prev.label} and {this.label} both are"
    elif prev.high is None:
        message = f"open top {prev.label} must be the highest row, but {this.label} is above it"
    elif this.low > prev.high + 1:
        message = f"gap between {prev.label} and {this.label}: {Range(prev.high + 1, this.low - 1).label} is missing"
    elif this.low <= prev.high and prev.low == NO_BOTTOM:
        message = (f"{prev.label} and {this.label} overlap: {prev.label} reads every value up to {prev.high}, "
                   "so it must be the lowest row")
    elif this.low <= prev.high:
        message = f"{prev.label} and {this.label} overlap"
    else:
        return None
    return CoverageProblem(message, (prev_i, this_i))


def _top(span: Range) -> int:
    return span.high if span.high is not None else 10**12


T = TypeVar("T")


class RangeTable(Generic[T]):
    """Values keyed by contiguous ranges, sorted ascending; lookups by bisect."""

    __slots__ = ("ranges", "values", "_lows")

    def __init__(self, pairs: Iterable[tuple[Range, T]]):
        ordered = sorted(pairs, key=lambda p: p[0].low)
        self.ranges: tuple[Range, ...] = tuple(r for r, _ in ordered)
        self.values: tuple[T, ...] = tuple(v for _, v in ordered)
        self._lows = [r.low for r in self.ranges]

    def __len__(self) -> int:
        return len(self.ranges)

    @property
    def lowest(self) -> int:
        return self.ranges[0].low

    @property
    def highest(self) -> int | None:
        """The top of the last row, or None when it is open."""
        return self.ranges[-1].high

    def index(self, value: int, *, clamp_high: bool = True, clamp_low: bool = False) -> int | None:
        """The row holding ``value``; above the top reads the top row when ``clamp_high``."""
        i = bisect_right(self._lows, value) - 1
        if i < 0:
            return 0 if clamp_low else None
        if not self.ranges[i].contains(value) and not clamp_high:
            return None
        return i

    def counts(self, low: int, high: int) -> list[tuple[int, T]]:
        """How many of the values ``low``..``high`` each row reads, as
        ``index(value, clamp_low=True)`` reads them (below the bottom the
        bottom row, above a row's top still that row until the next begins),
        in row order, rows read by none left out: a whole die in a few steps."""
        if high < low:
            return []
        first, last = self.index(low, clamp_low=True), self.index(high, clamp_low=True)
        assert first is not None and last is not None
        found = []
        for i in range(first, last + 1):
            start = low if i == first else self._lows[i]
            end = high if i == last else self._lows[i + 1] - 1
            found.append((end - start + 1, self.values[i]))
        return found

    def lookup(self, value: int, **clamp: bool) -> tuple[Range, T] | None:
        i = self.index(value, **clamp)
        return None if i is None else (self.ranges[i], self.values[i])
