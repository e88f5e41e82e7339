"""A sheet's rows cleaned and bounded, as both readers collect them: raw.py
for openpyxl in-process, calamine_child.py in the sandboxed child.

The child imports this module and values.py only (no dataclasses, pathlib
or the guard): its start-up is on the import's way, while the parent's
guard checks the file on the other core.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tables_app.sheets.values import clean

STRAY_BLOCK = 3  # header block, grid, then anything at all is stray
Row = tuple[int, tuple[object, ...]]


class _Cleaned(dict[str, object]):
    """clean() of each text met, worked out once: printed tables repeat the
    same few hundred cell texts thousands of times."""

    def __missing__(self, text: str) -> object:
        self[text] = cleaned = clean(text)
        return cleaned


def collect(rows: Iterable[tuple[int, Sequence[object]]], max_rows: int, max_columns: int) -> tuple[list[Row], bool]:
    """The (row number, values from column A) of a sheet, in order: values
    cleaned, empty rows dropped, and the read stopped at the first row of a
    third block of rows (header block, grid, stray cells) or past the
    bounds. The rows kept, and whether the bounds were crossed."""
    kept: list[Row] = []
    too_big = False
    blocks = 0
    texts = _Cleaned()
    for number, values in rows:
        cleaned = tuple([texts[v] if type(v) is str else clean(v) for v in values])
        end = len(cleaned)
        while end and (cleaned[end - 1] is None or cleaned[end - 1] == ""):
            end -= 1
        if not end:
            continue
        cleaned = cleaned[:end]
        if number > max_rows or len(cleaned) > max_columns:
            too_big = True
            break
        if not kept or number > kept[-1][0] + 1:
            blocks += 1
        kept.append((number, cleaned))
        if blocks == STRAY_BLOCK:
            break
    return kept, too_big
