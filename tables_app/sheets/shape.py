"""What a sheet of the import format is once split: a header block and a grid."""

from __future__ import annotations

from dataclasses import dataclass

Row = tuple[int, tuple[object, ...]]  # a row's number and its values from column A


@dataclass
class Grid:
    """A sheet split into its header block and its grid."""

    sheet: str
    kind: str
    header: dict[str, tuple[object, str]]  # key → (value, coordinate of the value)
    texts: dict[str, str]  # key → its value as checked text (blank keys absent)
    columns: dict[str, int]  # canonical column name → 1-based column index
    column_order: list[tuple[str, int]]
    header_row: int
    rows: list[Row]
    broken: bool = False  # a part of it had a problem (a ruleset sheet's legend): what it governs is not read

    def meta(self, key: str) -> str | None:
        return self.texts.get(key)

    def cell_of(self, key: str) -> str:
        """Where a header value is, or the Kind cell when the key is missing."""
        return self.header.get(key, self.header["kind"])[1]
