"""What every format's guard shares: the bounds, what a guard reports about
a sheet (SheetLayout) and a file (Inspection), and how it refuses."""

from __future__ import annotations

from dataclasses import dataclass, field

from tables_app.errors import Problem, WorkbookInvalid

MAX_FILE_BYTES = 50 * 1024 * 1024
MAX_ROWS = 5_000
MAX_COLUMNS = 64


@dataclass
class SheetLayout:
    """What the guard saw in one worksheet, by 1-based (row, column)."""

    hidden_rows: set[int] = field(default_factory=set)
    hidden_columns: set[int] = field(default_factory=set)
    merged: list[tuple[int, int, int, int]] = field(default_factory=list)  # min_row, min_col, max_row, max_col
    # Formula cells saved without a computed value (the readers see them as blank).
    uncached_formulas: set[tuple[int, int]] = field(default_factory=set)  # (row, column)
    # Error cells (#N/A, #REF!): calamine reads them as blanks, so the guard
    # notes each one with the text a spreadsheet shows, and read.py puts that
    # text back.
    errors: dict[tuple[int, int], str] = field(default_factory=dict)
    # The sheet's hidden state where the guard knows it better than calamine
    # (.ods keeps it in a style); None: calamine's answer stands.
    hidden: bool | None = None


@dataclass
class Inspection:
    format: str = "xlsx"  # "xlsx", "ods" or "xls": what the file is, whatever its name says
    layouts: dict[str, SheetLayout] = field(default_factory=dict)  # sheet title → layout
    sheet_sizes: list[tuple[str, int]] = field(default_factory=list)  # (title, bytes of its cells' data), in workbook order


def refuse(name: str, message: str, sheet: str | None = None, cell: str | None = None) -> WorkbookInvalid:
    return WorkbookInvalid([Problem(name, sheet, cell, message)])


def column_number(letters: bytes | str) -> int:
    number = 0
    for ch in letters if isinstance(letters, str) else letters.decode():
        number = number * 26 + ord(ch) - 64
    return number

