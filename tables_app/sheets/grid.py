"""A sheet's structure, whatever its kind: the header block from A1, then
a grid of named columns down to the first blank row (docs/workbook-format.md).

Problems of structure are recorded on the Reading; a sheet that cannot be
read as a grid gives no Grid, and no sheet reader looks at it.
"""

from __future__ import annotations

from tables_app.domain.kinds import KINDS, TABLE_KINDS
from tables_app.domain.names import fold
from tables_app.sheets import merged
from tables_app.sheets.raw import RawSheet
from tables_app.sheets.reading import Reading
from tables_app.sheets.shape import Grid, Row
from tables_app.sheets.values import as_text, check_value, coordinate, is_blank

NOTES_KIND = "notes"  # a sheet for people (a template's Instructions): skipped without a warning
HEADER_KEYS = ("kind", "name", "code", "source", "notes", "severities", "ruleset", "automatic miss", "roll kind", "legend",
               "conditions", "death at")
LETTER_KEY = "severity"  # `Severity F | ...` defines an extra letter of an attack sheet
RULESET_KIND = "ruleset"  # `Kind | ruleset`: a header block naming the ruleset of the workbook's other sheets, and its legend
LEGEND_COLUMNS = ("symbol", "means")  # a ruleset sheet's grid: the book's key, one symbol a row
SHEET_KINDS = (*KINDS, RULESET_KIND)
ENTRY_COLUMNS = ("roll", "title", "text", "hits", "bleed", "stun", "penalty", "effects", "condition")
COLUMNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # kind: (required columns, optional columns); an attack grid's columns are armors
    "critical": (("roll", "text"), ENTRY_COLUMNS),
    "fumble": (("roll", "text"), ENTRY_COLUMNS),
    "weapons": (
        ("name", "attack table", "max result", "clumsy", "critical"),
        ("secondary critical", "fumble table", "fumble modifier", "roll", "notes", "critical column", "fumble column",
         "max critical"),
    ),
    "creatures": (("name", "def", "armor"), ("rank", "hp", "features", "attacks", "notes")),
    "severities": (("code", "name", "modifier"), ()),
}
ATTACK_FIRST_COLUMN = "result"
ROLL_COLUMN = "roll"
PRINTED_MINIMUM = 2  # printed columns that make a printed layout: `Roll | Txt` stays a one-column sheet's typo

def split(reading: Reading, sheet: RawSheet) -> Grid | None:
    name = sheet.name
    if sheet.hidden:
        reading.warn(name, "hidden sheet skipped")
        return None
    if sheet.too_big:
        reading.problem(name, None, "the sheet is larger than the importer reads (rows or columns); is it a table?")
        return None
    rows = list(sheet.rows)
    if not rows or rows[0][0] != 1 or is_blank(rows[0][1][0]):
        reading.warn(name, "no header block in A1 (Kind, Name, ...): sheet skipped")
        return None
    header, key_problems, i = _header_block(rows)
    if "kind" not in header:
        if any(k in header for k in HEADER_KEYS):  # a header block that lost its Kind
            reading.problem(name, "A1", "the header block has no Kind row (Kind | attack, critical, ...)")
        else:
            reading.warn(name, "the header block has no Kind: sheet skipped")
        return None
    if _is_notes(header["kind"][0]):
        return None  # whatever else the sheet holds is for people
    for cell, message in key_problems:
        reading.problem(name, cell, message)
    texts = _header_texts(reading, name, header)
    kind_cell = header["kind"][1]
    kind = texts.get("kind", "").casefold()
    if kind not in SHEET_KINDS:
        shown = texts.get("kind", "")
        reading.problem(name, kind_cell, f"unknown Kind {shown!r} (expected one of {', '.join(SHEET_KINDS)})")
        return None
    if kind in TABLE_KINDS and "name" not in texts:
        reading.problem(name, header.get("name", header["kind"])[1], f"{_article(kind)} {kind} table needs a Name in its header block")
    for key, only in (("roll kind", ("critical", "fumble")), ("automatic miss", ("attack",))):
        if key in header and kind not in (*only, RULESET_KIND):  # a ruleset sheet sets them for its ruleset's sheets
            reading.problem(name, header[key][1], f"only {' and '.join(only)} tables have {key.capitalize()} in the header block")
    for key in ("legend", "conditions"):  # how a book's entries read: its key, how its conditions after effects read
        if key in header and kind not in ("critical", "fumble", RULESET_KIND):
            reading.problem(name, header[key][1], f"only critical and fumble tables (and a ruleset sheet) have "
                                                  f"{'a Legend' if key == 'legend' else 'Conditions'}")
    if "death at" in header and kind not in ("creatures", RULESET_KIND):  # the book's rule for its fights
        reading.problem(name, header["death at"][1], "only creatures sheets (and a ruleset sheet) have Death at")
    for key, (_, cell) in header.items():
        if is_letter_key(key) and kind != "attack":
            reading.problem(name, cell.replace("B", "A", 1), f"only attack sheets define extra letters ({key.capitalize()})")
    if kind == RULESET_KIND:
        return _ruleset_sheet(reading, sheet, header, texts, rows[i:])
    if i >= len(rows):
        reading.problem(name, coordinate(rows[-1][0] + 2, 1), "no grid after the header block")
        return None
    header_row, header_values = rows[i]
    as_written: list[Row] = []
    i += 1
    while i < len(rows) and rows[i][0] == header_row + 1 + len(as_written):
        as_written.append(rows[i])
        i += 1
    last_row = as_written[-1][0] if as_written else header_row
    width = max([len(header_values)] + [len(v) for _, v in as_written])
    # a merge refused first: one over the range column blanks the rows it covers, which would read as the grid's end
    grid_rows = merged.filled(reading, name, kind, sheet.layout.merged, header_row, header_values, as_written, width)
    if grid_rows is None:
        return None
    if i < len(rows):
        number, values = rows[i]
        column = next(c for c, v in enumerate(values, start=1) if not is_blank(v))
        reading.problem(name, coordinate(number, column), "stray cells after the grid (the grid ends at the first blank row)")
    if not _check_layout(reading, sheet, last_row, width):
        return None
    columns = _read_columns(reading, name, kind, header_row, header_values, grid_rows)
    if columns is None:
        return None
    order = sorted(columns.items(), key=lambda item: item[1])
    return Grid(name, kind, header, texts, columns, order, header_row, grid_rows)


def _check_layout(reading: Reading, sheet: RawSheet, last_row: int, width: int) -> bool:
    """Nothing is imported silently: hidden rows or columns inside the table
    are errors (the guard found them); merged cells are read in merged.py."""
    layout, ok = sheet.layout, True
    for row in sorted(r for r in layout.hidden_rows if r <= last_row):
        reading.problem(sheet.name, coordinate(row, 1), f"row {row} is hidden; unhide it (hidden rows are not imported silently)")
        ok = False
    for column in sorted(c for c in layout.hidden_columns if c <= width):
        reading.problem(sheet.name, coordinate(1, column), f"column {coordinate(1, column)[:-1]} is hidden; unhide it")
        ok = False
    return ok


def _header_block(rows: list[Row]) -> tuple[dict[str, tuple[object, str]], list[tuple[str, str]], int]:
    """Key | Value rows from A1 to the first blank row: the keys, their
    problems (reported only if this is a header block) and the next row's index."""
    header: dict[str, tuple[object, str]] = {}
    problems: list[tuple[str, str]] = []
    i = 0
    while i < len(rows) and rows[i][0] == i + 1:
        number, values = rows[i]
        key = values[0]
        value = values[1] if len(values) > 1 else None
        i += 1
        if is_blank(key):
            problems.append((coordinate(number, 1), "header block row without a key"))
            continue
        if check_value(key) is not None or not isinstance(key, str):
            problems.append((coordinate(number, 1), f"header key {str(key)!r} is not text"))
            continue
        k = " ".join(key.casefold().replace(":", " ").split())
        if is_letter_key(k):  # `Severity F | E Heat + A Impact`: an extra letter (attack sheets, read there)
            k = f"{LETTER_KEY} {k.split()[1]}"
        if k not in HEADER_KEYS and not is_letter_key(k):
            problems.append((coordinate(number, 1), f"unknown header key {key!r} (expected one of {', '.join(k.capitalize() for k in HEADER_KEYS)})"))
        elif k in header:
            problems.append((coordinate(number, 1), f"header key {key!r} appears twice"))
        else:
            header[k] = (value, coordinate(number, 2))
    return header, problems, i


def _header_texts(reading: Reading, sheet: str, header: dict[str, tuple[object, str]]) -> dict[str, str]:
    texts = {}
    for key, (value, cell) in header.items():
        if is_blank(value):
            continue
        if (reason := check_value(value)) is not None:
            reading.problem(sheet, cell, reason)
            continue
        try:
            texts[key] = as_text(value)
        except ValueError as exc:
            reading.problem(sheet, cell, str(exc))
    return texts


def _read_columns(reading: Reading, sheet: str, kind: str, row: int, values: tuple[object, ...], data: list[Row]) -> dict[str, int] | None:
    width = max([len(values)] + [len(v) for _, v in data])
    columns: dict[str, int] = {}
    folded: set[str] = set()  # the keys of ``columns``, folded
    ok = True
    printed = kind in ("critical", "fumble") and is_printed_header(values)
    for column in range(1, width + 1):
        raw = values[column - 1] if column <= len(values) else None
        cell = coordinate(row, column)
        if is_blank(raw):
            if any(column <= len(v) and not is_blank(v[column - 1]) for _, v in data):
                reading.problem(sheet, cell, "blank column header above data")
                ok = False
            continue
        try:  # an error value, a date, a control character: a header names no column
            if (reason := check_value(raw)) is not None:
                raise ValueError(reason)
            text = as_text(raw)
        except ValueError as exc:
            reading.problem(sheet, cell, f"column header: {exc}")
            ok = False
            continue
        key = text.casefold().replace("_", " ")
        if kind == "attack":
            key = ATTACK_FIRST_COLUMN if column == 1 and key == ATTACK_FIRST_COLUMN else text
        elif printed:
            if key in ENTRY_COLUMNS and key != ROLL_COLUMN:
                reading.problem(sheet, cell, f"column {text!r} belongs to the one-column layout (Roll, Text, Hits, ...); "
                                             "a printed layout (no Text column) has Roll and its printed columns only")
                ok = False
                continue
            if key != ROLL_COLUMN:
                key = text  # a printed column is named as written: a severity (A) or what the attack picks (Magic, 2H)
        else:
            required, optional = COLUMNS[kind]
            if key not in required and key not in optional:
                known = ", ".join(c.title() for c in required + tuple(o for o in optional if o not in required))
                reading.problem(sheet, cell, f"unknown column {text!r} for a {kind} sheet (columns: {known})")
                ok = False
                continue
        if fold(key) in folded:
            reading.problem(sheet, cell, f"column {text!r} appears twice")
            ok = False
            continue
        columns[key] = column
        folded.add(fold(key))
    if kind == "attack":
        if columns.get(ATTACK_FIRST_COLUMN) != 1:
            reading.problem(sheet, coordinate(row, 1), "an attack grid starts with a Result column")
            return None
        if len(columns) < 2:
            reading.problem(sheet, coordinate(row, 2), "an attack grid needs at least one armor column after Result")
            return None
    else:
        required = (ROLL_COLUMN,) if printed else COLUMNS[kind][0]
        for name in required:
            if name not in columns:
                reading.problem(sheet, coordinate(row, 1), f"missing column {name.title()!r}")
                ok = False
    return columns if ok else None


def is_printed_header(values: tuple[object, ...]) -> bool:
    """A critical or fumble grid as a book prints it (`Roll | A | B | C | D | E`,
    `Roll | 1HE | 2H | ...`): no Text column, and at least PRINTED_MINIMUM
    columns that are not the one-column layout's."""
    keys = [str(v).casefold().replace("_", " ") for v in values if not is_blank(v)]
    if "text" in keys:
        return False
    return sum(1 for key in keys if key not in ENTRY_COLUMNS) >= PRINTED_MINIMUM


def is_letter_key(key: str) -> bool:
    """``severity f``: one word after Severity, of at most three letters (printed F-J)."""
    words = key.split()
    return len(words) == 2 and words[0] == LETTER_KEY and words[1].isalpha() and len(words[1]) <= 3


def _ruleset_sheet(reading: Reading, sheet: RawSheet, header: dict[str, tuple[object, str]], texts: dict[str, str],
                   rest: list[Row]) -> Grid | None:
    """A ruleset sheet is its header block: Kind, Name (required), Source,
    Notes, and the defaults of its ruleset's sheets in the workbook:
    Automatic miss (attack), Roll kind (critical), Severities (attack,
    critical), Legend and Conditions (critical, fumble); below it, optionally, the book's
    legend as a grid, `Symbol | Means` (read in sheets/parse.py)."""
    name = sheet.name
    ok = True
    if "name" not in texts:
        reading.problem(name, header.get("name", header["kind"])[1], "a ruleset sheet needs a Name in its header block")
        ok = False
    for key in ("code", "ruleset"):
        if key in header:
            reading.problem(name, header[key][1], f"a ruleset sheet has no {key.capitalize()} (its header block is Kind, Name, "
                            "Source, Notes, and the defaults Automatic miss, Roll kind, Severities)")
            ok = False
    if not rest:
        return Grid(name, RULESET_KIND, header, texts, {}, [], 0, []) if ok else None
    legend = _legend_rows(reading, sheet, rest)
    if "legend" in header:
        reading.problem(name, header["legend"][1], "the ruleset sheet has a legend below its header block; give it once")
        legend = None  # the ruleset stays known, its sheets unread: one problem, one line
    if not ok:
        return None
    columns = {key: i for i, key in enumerate(LEGEND_COLUMNS, start=1)}
    # a legend with a problem (named on its cell) leaves the ruleset known, its sheets unread (one problem, one line)
    return Grid(name, RULESET_KIND, header, texts, columns, list(columns.items()), rest[0][0], legend or [],
                broken=legend is None)


def _legend_rows(reading: Reading, sheet: RawSheet, rest: list[Row]) -> list[Row] | None:
    """The rows of a ruleset sheet's legend grid (`Symbol | Means`); None after a problem."""
    name = sheet.name
    header_row, header_values = rest[0]
    written = [fold(v) if isinstance(v, str) else v for v in header_values]
    while written and is_blank(written[-1]):
        written.pop()
    if tuple(written) != LEGEND_COLUMNS:
        column = next(c for c, v in enumerate(header_values, start=1) if not is_blank(v))
        reading.problem(name, coordinate(header_row, column), "below its header block a ruleset sheet holds only its legend, "
                                                             "a grid Symbol | Means (one symbol a row)")
        return None
    grid_rows: list[Row] = []
    for number, values in rest[1:]:
        if number != header_row + 1 + len(grid_rows):
            column = next(c for c, v in enumerate(values, start=1) if not is_blank(v))
            reading.problem(name, coordinate(number, column), "stray cells after the legend (it ends at the first blank row)")
            return None
        grid_rows.append((number, values))
    width = max([len(header_values)] + [len(v) for _, v in grid_rows])
    last_row = grid_rows[-1][0] if grid_rows else header_row
    if not _check_layout(reading, sheet, last_row, width):
        return None
    for min_row, min_col, max_row, max_col in sheet.layout.merged:  # a key is one symbol a row: nothing to share
        if min_row <= last_row and max_row >= header_row:
            reading.problem(name, coordinate(min_row, min_col), f"merged cells {coordinate(min_row, min_col)}:"
                                                                f"{coordinate(max_row, max_col)} in the legend; unmerge them")
            return None
    ok = True
    for number, values in grid_rows:
        if len(values) > len(LEGEND_COLUMNS) and any(not is_blank(v) for v in values[len(LEGEND_COLUMNS):]):
            reading.problem(name, coordinate(number, len(LEGEND_COLUMNS) + 1), "a legend row is a symbol and what it means")
            ok = False
    return grid_rows if ok else None


def _is_notes(kind: object) -> bool:
    return isinstance(kind, str) and fold(kind) == NOTES_KIND


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"
