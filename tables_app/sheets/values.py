"""Cell values as the importer sees them: normalised text, checked integers."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from functools import lru_cache
from typing import Callable

from tables_app.domain.bounds import TEXT_CHARACTERS, WHOLE, Bound
from tables_app.domain.names import shown

# Spreadsheet error values; openpyxl hands them over as strings.
ERROR_VALUES = frozenset({"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA", "#SPILL!", "#CALC!"})
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_INT = re.compile(r"^[+-]?\d+$")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_LINE_BREAK = re.compile("[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")  # what str.splitlines() splits at
MINUS_SIGNS = "\u2212\u2013\u2012\u2010\u2011\ufe63\uff0d"


def column_letter(index: int) -> str:
    """1 → A, 27 → AA (without importing openpyxl)."""
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


@lru_cache(maxsize=1 << 16)  # the readers name every row's cells; the same few thousand recur in every sheet
def coordinate(row: int, column: int) -> str:
    return f"{column_letter(column)}{row}"


class LinedText(str):
    """A cleaned text that had line breaks: the folded text, as every reader
    sees it (names, keys, version 1 entries), which also keeps ``lines``,
    the same text with one line break between its lines. A line break opens
    a sentence in a printed critical or fumble entry (docs/workbook-format.md,
    "Branches inside a cell"), so that reader reads ``lines``; folding
    ``lines`` gives the text itself."""

    lines: str

    def __new__(cls, lines: str) -> LinedText:
        text = super().__new__(cls, " ".join(lines.split()))
        text.lines = lines
        return text

    def __reduce__(self) -> tuple[type, tuple[str]]:
        return LinedText, (self.lines,)


def clean(value: object) -> object:
    """Normalise text (NFKC, invisible characters dropped, whitespace folded);
    a text with line breaks between its words is a ``LinedText``."""
    if isinstance(value, str):
        # NFKC leaves ASCII as it is: only fold the spaces
        text = value if value.isascii() else unicodedata.normalize("NFKC", value).translate(_INVISIBLE)
        if _LINE_BREAK.search(text):
            lines = "\n".join(" ".join(line.split()) for line in text.splitlines() if line and not line.isspace())
            if "\n" in lines:
                return LinedText(lines)
        return " ".join(text.split())
    return value


def with_lines(value: object) -> str:
    """``as_text``, keeping the line breaks of a cleaned text (``LinedText``)."""
    return value.lines if isinstance(value, LinedText) else as_text(value)


def is_blank(value: object) -> bool:
    return value is None or value == ""


def check_value(value: object) -> str | None:
    """Why a value can never be read (an error cell, an uncomputed formula,
    a control character), else None."""
    if not isinstance(value, str):
        if type(value).__name__ == "UncachedFormula":
            return "a formula without a cached value: open and save the file in a spreadsheet program, or paste values"
        return None
    if len(value) > TEXT_CHARACTERS:  # docs/workbook-format.md, "Limits"
        return f"the cell holds {len(value):,} characters, more than a cell's {TEXT_CHARACTERS:,} (it starts {value[:40]!r})"
    if control := _CONTROL.search(value):
        return f"the text holds the control character U+{ord(control.group()):04X}; retype the cell"
    if value[:1] == "#" and value.upper() in ERROR_VALUES:  # every error value starts with `#`, which upper() keeps
        return f"error value {value} (fix the formula or paste values)"
    return None


def as_text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        raise ValueError(f"{value} is a date; format the column as text")
    return str(value)


def as_int(value: object, what: str = "value", bound: Bound = WHOLE, own: Callable[[int], str | None] | None = None) -> int:
    """A whole number from a numeric or text cell, within ``bound`` (the
    column's, domain/bounds.py); ValueError otherwise. ``own`` gives a
    column's own message for a number outside it (None: the usual one)."""
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a whole number, not {value}")
    if isinstance(value, int):
        return check_bound(value, what, bound, value, own)
    if isinstance(value, float):
        if value.is_integer():  # never inf or nan
            return check_bound(value, what, bound, value, own)
        raise ValueError(f"{what} must be a whole number, not {value}")
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        raise ValueError(f"{what} must be a number, but the cell is a date ({value}); format the column as numbers")
    if isinstance(value, str):
        text = value.replace(" ", "")
        if text[:1] in MINUS_SIGNS:  # a typographic minus is still a minus
            text = "-" + text[1:]
        if _INT.match(text):
            if len(text.lstrip("+-").lstrip("0")) > len(str(WHOLE[1])):  # before int() meets thousands of digits
                raise out_of_bounds(what, bound, value)
            return check_bound(int(text), what, bound, value, own)
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{what} must be a whole number, not {shown(value)}") from None
        if number.is_integer():
            return check_bound(number, what, bound, value, own)
        raise ValueError(f"{what} must be a whole number, not {shown(value)}")
    raise ValueError(f"{what} must be a whole number, not {value!r}")


def check_bound(number: int | float, what: str, bound: Bound, written: object,
                own: Callable[[int], str | None] | None = None) -> int:
    """``number`` as an int, if ``bound`` holds it (compared before int():
    ``int(1e308)`` is a 309-digit number); ``written`` is the cell as written.
    ``own`` may word the problem of a number of sensible size itself."""
    if bound[0] <= number <= bound[1]:
        return int(number)
    if own is not None and WHOLE[0] <= number <= WHOLE[1] and (message := own(int(number))) is not None:
        raise ValueError(message)
    raise out_of_bounds(what, bound, written)


def out_of_bounds(what: str, bound: Bound, written: object) -> ValueError:
    """`DEF must be a whole number from -500 to 500, not 1e+30`."""
    low, high = bound
    return ValueError(f"{what} must be a whole number from {low:,} to {high:,}, not {shown(written) if isinstance(written, str) else written}")


def as_tags(value: object) -> tuple[str, ...]:
    """A comma-separated list (Features, Effects), blanks dropped."""
    return tuple(tag.strip() for tag in as_text(value).split(",") if tag.strip())
