"""Cell values as the importer sees them: normalised text, checked integers."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

# Spreadsheet error values; openpyxl hands them over as strings.
ERROR_VALUES = frozenset({"#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA", "#SPILL!", "#CALC!"})
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))
_INT = re.compile(r"^[+-]?\d+$")
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
MINUS_SIGNS = "\u2212\u2013\u2012\u2010\u2011\ufe63\uff0d"


def column_letter(index: int) -> str:
    """1 → A, 27 → AA (without importing openpyxl)."""
    letters = ""
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def coordinate(row: int, column: int) -> str:
    return f"{column_letter(column)}{row}"


def clean(value: object) -> object:
    """Normalise text (NFKC, invisible characters dropped, whitespace folded)."""
    if isinstance(value, str):
        if value.isascii():  # NFKC leaves ASCII as it is: only fold the spaces
            return " ".join(value.split())
        text = unicodedata.normalize("NFKC", value).translate(_INVISIBLE)
        return " ".join(text.split())
    return value


def is_blank(value: object) -> bool:
    return value is None or value == ""


def check_value(value: object) -> str | None:
    """Why a value can never be read (an error cell, an uncomputed formula,
    a control character), else None."""
    if type(value).__name__ == "UncachedFormula":
        return "a formula without a cached value: open and save the file in a spreadsheet program, or paste values"
    if isinstance(value, str) and (control := _CONTROL.search(value)):
        return f"the text holds the control character U+{ord(control.group()):04X}; retype the cell"
    if isinstance(value, str) and value.upper() in ERROR_VALUES:
        return f"error value {value} (fix the formula or paste values)"
    return None


def as_text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        raise ValueError(f"{value} is a date; format the column as text")
    return str(value)


def as_int(value: object, what: str = "value") -> int:
    """A whole number from a numeric or text cell; ValueError otherwise."""
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a whole number, not {value}")
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        raise ValueError(f"{what} must be a whole number, not {value}")
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        raise ValueError(f"{what} must be a number, but the cell is a date ({value}); format the column as numbers")
    if isinstance(value, str):
        text = value.replace(" ", "")
        if text[:1] in MINUS_SIGNS:  # a typographic minus is still a minus
            text = "-" + text[1:]
        if _INT.match(text):
            return int(text)
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{what} must be a whole number, not {value!r}") from None
        if number.is_integer():
            return int(number)
        raise ValueError(f"{what} must be a whole number, not {value!r}")
    raise ValueError(f"{what} must be a whole number, not {value!r}")


def as_tags(value: object) -> tuple[str, ...]:
    """A comma-separated list (Features, Effects), blanks dropped."""
    return tuple(tag.strip() for tag in as_text(value).split(",") if tag.strip())
