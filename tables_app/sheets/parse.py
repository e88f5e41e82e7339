"""Interpret raw sheets (read.py) by kind: docs/workbook-format.md, version 1.

Pure Python over plain values, so every rule is testable without a file.
Every problem is collected with its sheet and cell; nothing stops at the
first one, and nothing is written here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Generic, TypeVar

from tables_app.domain.cells import AttackCell, parse_attack_cell
from tables_app.domain.names import did_you_mean, fold, same_name, suggest
from tables_app.domain.ranges import DASHES, Range, RangeTable, check_coverage, parse_range
from tables_app.domain.severity import DEFAULT_SCALE, Severity, SeverityScale
from tables_app.domain.tables import (
    AttackTable,
    Creature,
    EffectTable,
    Entry,
    Rank,
    RollKind,
    TableKind,
    Weapon,
    condition_feature,
)
from tables_app.errors import Problem
from tables_app.sheets.read import RawSheet, RawWorkbook
from tables_app.sheets.values import as_int, as_text, check_value, coordinate, is_blank

KIND_LABELS = {
    "attack": "attack table",
    "critical": "critical table",
    "fumble": "fumble table",
    "weapons": "weapon",
    "creatures": "creature",
    "severities": "severity scale",
}
KINDS = ("attack", "critical", "fumble", "weapons", "creatures", "severities")
NOTES_KIND = "notes"  # a sheet for people (a template's Instructions): skipped without a warning
HEADER_KEYS = ("kind", "name", "code", "source", "notes", "severities")
ENTRY_COLUMNS = ("roll", "title", "text", "hits", "bleed", "stun", "penalty", "effects", "condition")
COLUMNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # kind: (required columns, optional columns)
    "critical": (("roll", "text"), ENTRY_COLUMNS),
    "fumble": (("roll", "text"), ENTRY_COLUMNS),
    "weapons": (
        ("name", "attack table", "max result", "clumsy", "critical"),
        ("secondary critical", "fumble table", "fumble modifier", "roll", "notes"),
    ),
    "creatures": (("name", "def", "armor"), ("rank", "hp", "features", "notes")),
    "severities": (("code", "name", "modifier"), ()),
}
ATTACK_FIRST_COLUMN = "result"
LOWEST_ATTACK_RESULT = 11  # docs/table-system.md step 7: 10 or less always misses
D100 = 100
EMPTY_LISTED = 3  # more empty cells of one kind in one sheet are one summary problem (a blank template)

T = TypeVar("T")


@dataclass(frozen=True)
class Defined(Generic[T]):
    """A table, weapon or creature with where it was defined."""

    value: T
    name: str
    sheet: str
    cell: str  # the cell holding its name
    source: str | None = None
    notes: str | None = None


@dataclass
class Catalog:
    """What the database already holds, for references and conflicts."""

    scales: dict[str, SeverityScale] = field(default_factory=lambda: {DEFAULT_SCALE.name: DEFAULT_SCALE})
    # folded name or code (domain/names.py) → (canonical name, scale name)
    critical: dict[str, tuple[str, str]] = field(default_factory=dict)
    attack: dict[str, str] = field(default_factory=dict)
    fumble: dict[str, str] = field(default_factory=dict)
    # (kind, folded name) → file name of the workbook that owns it
    owners: dict[tuple[str, str], str | None] = field(default_factory=dict)


@dataclass
class ParsedWorkbook:
    file_name: str
    sha256: str
    size_bytes: int
    scale: Defined[SeverityScale] | None = None
    attack_tables: list[Defined[AttackTable]] = field(default_factory=list)
    critical_tables: list[Defined[EffectTable]] = field(default_factory=list)
    fumble_tables: list[Defined[EffectTable]] = field(default_factory=list)
    weapons: list[Defined[Weapon]] = field(default_factory=list)
    creatures: list[Defined[Creature]] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # names other workbooks own: a problem unless the content is what the
    # database already holds (importing.py compares, with the database)
    conflicts: list[Conflict] = field(default_factory=list)

    @property
    def defines_anything(self) -> bool:
        return bool(self.scale or self.attack_tables or self.critical_tables or self.fumble_tables
                    or self.weapons or self.creatures)


@dataclass(frozen=True)
class Conflict:
    kind: str  # as in KIND_LABELS
    item: Defined
    problem: Problem


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
    rows: list[tuple[int, tuple[object, ...]]]

    def meta(self, key: str) -> str | None:
        return self.texts.get(key)

    def cell_of(self, key: str) -> str:
        """Where a header value is, or the Kind cell when the key is missing."""
        return self.header.get(key, self.header["kind"])[1]


class Interpreter:
    def __init__(self, raw: RawWorkbook, catalog: Catalog, replace: bool = False):
        self.raw = raw
        self.catalog = catalog
        self.replace = replace
        self._cells: dict[tuple, AttackCell] = {}
        # (sheet, what is missing) → the empty cells and the indexes of their problems
        self._empty: dict[tuple[str, str], list[tuple[tuple[int, int], int]]] = defaultdict(list)
        self.out = ParsedWorkbook(raw.file_name, raw.sha256, raw.size_bytes)

    # -- problems ---------------------------------------------------------
    def problem(self, sheet: str | None, cell: str | None, message: str) -> None:
        self.out.problems.append(Problem(self.raw.file_name, sheet, cell, message))

    def warn(self, sheet: str | None, message: str) -> None:
        self.out.warnings.append(Problem(self.raw.file_name, sheet, None, message))

    def empty(self, sheet: str, where: tuple[int, int], one: str, many: str) -> None:
        """A cell that must be filled is empty: ``one`` says so for one cell,
        ``many`` (after a count) for a summary of many (see summarise_empty)."""
        self._empty[(sheet, many)].append((where, len(self.out.problems)))
        self.problem(sheet, coordinate(*where), one)

    def summarise_empty(self) -> None:
        """More than EMPTY_LISTED empty cells of one kind in one sheet become
        one problem where the first was: a blank template is one line, not 132."""
        replaced: dict[int, Problem | None] = {}
        for (sheet, many), found in self._empty.items():
            if len(found) <= EMPTY_LISTED:
                continue
            span, listing = _cells_summary([where for where, _ in found])
            message = f"{len(found)} {many}" + (f": {listing}" if listing else "")
            replaced.update({index: None for _, index in found})
            replaced[found[0][1]] = Problem(self.raw.file_name, sheet, span, message)
        if replaced:
            problems = [replaced.get(i, p) for i, p in enumerate(self.out.problems)]
            self.out.problems = [p for p in problems if p is not None]

    # -- the whole workbook ----------------------------------------------
    def run(self) -> ParsedWorkbook:
        grids = [g for sheet in self.raw.sheets if (g := self.split(sheet)) is not None]
        by_kind: dict[str, list[Grid]] = defaultdict(list)
        for grid in grids:
            by_kind[grid.kind].append(grid)
        if not grids and not self.out.problems:
            self.problem(None, None, "no sheet has a header block with a Kind (nothing to import)")
        # Dependency order: severities, then critical tables (cells name them),
        # then attack and fumble tables, then weapons and creatures.
        severities = by_kind["severities"]
        for extra in severities[1:]:
            self.problem(extra.sheet, "A1", f"a workbook holds one severities sheet; {severities[0].sheet!r} is the first")
        if severities:
            self.read_severities(severities[0])
        for grid in by_kind["critical"]:
            if (scale := self.scale_for(grid)) is not None:
                self.read_effect_table(grid, TableKind.CRITICAL, scale)
        for grid in by_kind["fumble"]:
            self.read_effect_table(grid, TableKind.FUMBLE, DEFAULT_SCALE)
        for grid in by_kind["attack"]:
            if (scale := self.scale_for(grid)) is not None:
                self.read_attack_table(grid, scale)
        for grid in by_kind["weapons"]:
            self.read_weapons(grid)
        for grid in by_kind["creatures"]:
            self.read_creatures(grid)
        self.check_unique_names()
        self.check_owners()
        self.summarise_empty()
        return self.out

    def scale_for(self, grid: Grid) -> SeverityScale | None:
        """The severities of a table: its ``Severities`` header, else the
        workbook's own severities sheet, else the built-in default scale."""
        wanted = grid.meta("severities")
        own = self.out.scale
        if wanted is None:
            return own.value if own else DEFAULT_SCALE
        if own and same_name(own.name, wanted):
            return own.value
        for name, scale in self.catalog.scales.items():
            if same_name(name, wanted):
                return scale
        known = ", ".join(sorted(self.catalog.scales))
        self.problem(grid.sheet, grid.cell_of("severities"), f"unknown severity scale {wanted!r} (known: {known})")
        return None

    # -- sheet structure --------------------------------------------------
    def split(self, sheet: RawSheet) -> Grid | None:
        name = sheet.name
        if sheet.hidden:
            self.warn(name, "hidden sheet skipped")
            return None
        if sheet.too_big:
            self.problem(name, None, "the sheet is larger than the importer reads (rows or columns); is it a table?")
            return None
        rows = list(sheet.rows)
        if not rows or rows[0][0] != 1 or is_blank(rows[0][1][0]):
            self.warn(name, "no header block in A1 (Kind, Name, ...): sheet skipped")
            return None
        header, key_problems, i = self.read_header_block(rows)
        if "kind" not in header:
            if any(k in header for k in HEADER_KEYS):  # a header block that lost its Kind
                self.problem(name, "A1", "the header block has no Kind row (Kind | attack, critical, ...)")
            else:
                self.warn(name, "the header block has no Kind: sheet skipped")
            return None
        if _is_notes(header["kind"][0]):
            return None  # whatever else the sheet holds is for people
        for cell, message in key_problems:
            self.problem(name, cell, message)
        texts = self.header_texts(name, header)
        kind_cell = header["kind"][1]
        kind = texts.get("kind", "").casefold()
        if kind not in KINDS:
            shown = texts.get("kind", "")
            self.problem(name, kind_cell, f"unknown Kind {shown!r} (expected one of {', '.join(KINDS)})")
            return None
        if kind in ("attack", "critical", "fumble") and "name" not in texts:
            self.problem(name, header.get("name", header["kind"])[1], f"{_article(kind)} {kind} table needs a Name in its header block")
        if i >= len(rows):
            self.problem(name, coordinate(rows[-1][0] + 2, 1), "no grid after the header block")
            return None
        header_row, header_values = rows[i]
        grid_rows: list[tuple[int, tuple[object, ...]]] = []
        i += 1
        while i < len(rows) and rows[i][0] == header_row + 1 + len(grid_rows):
            grid_rows.append(rows[i])
            i += 1
        if i < len(rows):
            number, values = rows[i]
            column = next(c for c, v in enumerate(values, start=1) if not is_blank(v))
            self.problem(name, coordinate(number, column), "stray cells after the grid (the grid ends at the first blank row)")
        last_row = grid_rows[-1][0] if grid_rows else header_row
        width = max([len(header_values)] + [len(v) for _, v in grid_rows])
        if not self.check_layout(sheet, last_row, width):
            return None
        columns = self.read_columns(name, kind, header_row, header_values, grid_rows)
        if columns is None:
            return None
        order = sorted(columns.items(), key=lambda item: item[1])
        return Grid(name, kind, header, texts, columns, order, header_row, grid_rows)

    def check_layout(self, sheet: RawSheet, last_row: int, width: int) -> bool:
        """Nothing is imported silently: hidden rows or columns and merged
        cells inside the table are errors (the guard found them)."""
        layout, ok = sheet.layout, True
        for row in sorted(r for r in layout.hidden_rows if r <= last_row):
            self.problem(sheet.name, coordinate(row, 1), f"row {row} is hidden; unhide it (hidden rows are not imported silently)")
            ok = False
        for column in sorted(c for c in layout.hidden_columns if c <= width):
            self.problem(sheet.name, coordinate(1, column), f"column {coordinate(1, column)[:-1]} is hidden; unhide it")
            ok = False
        for min_row, min_col, max_row, max_col in layout.merged:
            if min_row <= last_row and min_col <= width:
                span = f"{coordinate(min_row, min_col)}:{coordinate(max_row, max_col)}"
                self.problem(sheet.name, coordinate(min_row, min_col), f"merged cells {span}; unmerge them and fill every cell")
                ok = False
        return ok

    def read_header_block(self, rows):  # type: ignore[no-untyped-def]
        """Key | Value rows from A1 to the first blank row."""
        header: dict[str, tuple[object, str]] = {}
        problems: list[tuple[str, str]] = []  # reported only if this is a header block
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
            if k not in HEADER_KEYS:
                problems.append((coordinate(number, 1), f"unknown header key {key!r} (expected one of Kind, Name, Code, Source, Notes, Severities)"))
            elif k in header:
                problems.append((coordinate(number, 1), f"header key {key!r} appears twice"))
            else:
                header[k] = (value, coordinate(number, 2))
        return header, problems, i

    def header_texts(self, sheet: str, header: dict[str, tuple[object, str]]) -> dict[str, str]:
        texts = {}
        for key, (value, cell) in header.items():
            if is_blank(value):
                continue
            if (reason := check_value(value)) is not None:
                self.problem(sheet, cell, reason)
                continue
            try:
                texts[key] = as_text(value)
            except ValueError as exc:
                self.problem(sheet, cell, str(exc))
        return texts

    def read_columns(
        self, sheet: str, kind: str, row: int, values: tuple[object, ...], data: list[tuple[int, tuple[object, ...]]]
    ) -> dict[str, int] | None:
        width = max([len(values)] + [len(v) for _, v in data])
        columns: dict[str, int] = {}
        ok = True
        for column in range(1, width + 1):
            raw = values[column - 1] if column <= len(values) else None
            cell = coordinate(row, column)
            if is_blank(raw):
                if any(column <= len(v) and not is_blank(v[column - 1]) for _, v in data):
                    self.problem(sheet, cell, "blank column header above data")
                    ok = False
                continue
            text = as_text(raw)
            key = text.casefold().replace("_", " ")
            if kind == "attack":
                key = ATTACK_FIRST_COLUMN if column == 1 and key == ATTACK_FIRST_COLUMN else text
            else:
                required, optional = COLUMNS[kind]
                if key not in required and key not in optional:
                    known = ", ".join(c.title() for c in required + tuple(o for o in optional if o not in required))
                    self.problem(sheet, cell, f"unknown column {text!r} for a {kind} sheet (columns: {known})")
                    ok = False
                    continue
            if fold(key) in {fold(k) for k in columns}:
                self.problem(sheet, cell, f"column {text!r} appears twice")
                ok = False
                continue
            columns[key] = column
        if kind == "attack":
            if columns.get(ATTACK_FIRST_COLUMN) != 1:
                self.problem(sheet, coordinate(row, 1), "an attack grid starts with a Result column")
                return None
            if len(columns) < 2:
                self.problem(sheet, coordinate(row, 2), "an attack grid needs at least one armor column after Result")
                return None
        else:
            for name in COLUMNS[kind][0]:
                if name not in columns:
                    self.problem(sheet, coordinate(row, 1), f"missing column {name.title()!r}")
                    ok = False
        return columns if ok else None

    # -- cell access --------------------------------------------------------
    def cell(self, grid: Grid, row: tuple[int, tuple[object, ...]], column: str) -> tuple[object, str]:
        number, values = row
        index = grid.columns.get(column)
        if index is None:
            return None, ""
        value = values[index - 1] if index <= len(values) else None
        return value, coordinate(number, index)

    def value(self, grid: Grid, row, column: str, convert: Callable[[object], T], *, default: T | None = None, required: bool = False):  # type: ignore[no-untyped-def]
        """Read and convert one cell; on a problem record it and return None."""
        value, cell = self.cell(grid, row, column)
        if (reason := check_value(value)) is not None:
            self.problem(grid.sheet, cell, reason)
            return None
        if is_blank(value):
            if required:
                title = column.title()
                self.empty(grid.sheet, (row[0], grid.columns.get(column, 1)), f"{title} is empty", f"empty {title} cells")
            return default
        try:
            return convert(value)
        except ValueError as exc:
            self.problem(grid.sheet, cell, str(exc))
            return None

    # -- kinds ----------------------------------------------------------------
    def read_severities(self, grid: Grid) -> None:
        levels: list[Severity] = []
        seen: dict[str, str] = {}
        for row in grid.rows:
            code = self.value(grid, row, "code", as_text, required=True)
            name = self.value(grid, row, "name", as_text, required=True)
            modifier = self.value(grid, row, "modifier", lambda v: as_int(v, "Modifier"), required=True)
            for label in (code, name):
                if label is None:
                    continue
                first = seen.get(fold(label))
                if first is not None:
                    self.problem(grid.sheet, self.cell(grid, row, "code")[1], f"severity {label!r} is already defined in {first}")
                seen.setdefault(fold(label), self.cell(grid, row, "code")[1])
            if None not in (code, name, modifier):
                levels.append(Severity(code, name, modifier))
        if not grid.rows:
            self.problem(grid.sheet, coordinate(grid.header_row + 1, 1), "a severities sheet needs at least one severity")
        name = grid.meta("name") or self.raw.file_name.rsplit(".", 1)[0]
        cell = grid.cell_of("name")
        self.out.scale = Defined(SeverityScale(name, tuple(levels)), name, grid.sheet, cell, grid.meta("source"), grid.meta("notes"))

    def read_entries(self, grid: Grid) -> list[tuple[Entry, str, bool]]:
        """Every row with a readable range, its range cell, and whether it is sound."""
        entries = []
        for row in grid.rows:
            range_value, range_cell = self.cell(grid, row, "roll")
            parsed_range = self.read_range(grid, range_value, range_cell)
            text = self.value(grid, row, "text", as_text, required=True)
            numbers = {
                column: self.value(grid, row, column, lambda v, c=column: _count(v, c.title()) if c != "penalty" else as_int(v, "Penalty"), default=0)
                for column in ("hits", "bleed", "stun", "penalty")
            }
            effects = self.value(grid, row, "effects", _tags, default=())
            condition = self.value(grid, row, "condition", lambda v: fold(as_text(v)))
            title = self.value(grid, row, "title", as_text)
            if parsed_range is None:
                continue
            if text is None or None in numbers.values() or effects is None:
                # keep the range so coverage is judged on what the author wrote
                entries.append((Entry(parsed_range, "", condition=condition), range_cell, False))
                continue
            entries.append((Entry(parsed_range, text, title, effects=effects, condition=condition, **numbers), range_cell, True))
        return entries

    def read_effect_table(self, grid: Grid, kind: TableKind, scale: SeverityScale) -> None:
        name = grid.meta("name")
        located = self.read_entries(grid)
        groups: dict[Range, list[tuple[Entry, str]]] = defaultdict(list)
        for entry, cell, _ in located:
            groups[entry.range].append((entry, cell))
        rows: list[tuple[Range, tuple[Entry, ...]]] = []
        for table_range, members in groups.items():
            if self.check_branches(grid.sheet, members):
                rows.append((table_range, tuple(entry for entry, _ in members)))
        top = D100 + (scale.max_modifier if kind is TableKind.CRITICAL else 0)
        cells = [members[0][1] for members in groups.values()]
        self.check_ranges(grid.sheet, list(groups), cells, must_cover_from=1, must_cover_to=top)
        sound = sum(1 for _, _, ok in located if ok)
        if name is None or sound != len(grid.rows) or not rows:
            if not grid.rows:
                self.problem(grid.sheet, coordinate(grid.header_row + 1, 1), "the grid has no rows")
            return
        code = grid.meta("code") if kind is TableKind.CRITICAL else None
        if kind is TableKind.CRITICAL:
            self.check_critical_name(grid, name)
        if code is not None:
            self.check_code(grid, name, code)
        for key in ("code", "severities"):
            if kind is TableKind.FUMBLE and key in grid.header:
                self.problem(grid.sheet, grid.header[key][1], f"only critical and attack tables have {key.title()} in the header block")
        table = EffectTable(kind, name, RangeTable(rows), code, scale)
        target = self.out.critical_tables if kind is TableKind.CRITICAL else self.out.fumble_tables
        target.append(Defined(table, name, grid.sheet, grid.cell_of("name"), grid.meta("source"), grid.meta("notes")))

    def check_code(self, grid: Grid, name: str, code: str) -> None:
        """A code names one critical table and is nobody else's name or code."""
        cell = grid.header["code"][1]
        key = fold(code)
        for other in self.out.critical_tables:
            if key in (fold(other.name), fold(other.value.code or "")):
                self.problem(grid.sheet, cell, f"critical code {code!r} already names {other.name!r} ({other.sheet})")
                return
        if key == fold(name):
            return
        found = self.catalog.critical.get(key)
        if found and not same_name(found[0], name):
            owner = self.catalog.owners.get(("critical", fold(found[0])))
            if not _same_file(owner, self.raw.file_name):
                self.problem(grid.sheet, cell, f"critical code {code!r} already names critical table {found[0]!r}")

    def check_critical_name(self, grid: Grid, name: str) -> None:
        """A table's name must not be another table's code (`S` would be ambiguous)."""
        key = fold(name)
        for other in self.out.critical_tables:
            if other.value.code and fold(other.value.code) == key:
                self.problem(grid.sheet, grid.cell_of("name"), f"name {name!r} is the code of critical table {other.name!r}")
                return
        found = self.catalog.critical.get(key)
        if found and fold(found[0]) != key:
            owner = self.catalog.owners.get(("critical", fold(found[0])))
            if not _same_file(owner, self.raw.file_name):
                self.problem(grid.sheet, grid.cell_of("name"), f"name {name!r} is the code of critical table {found[0]!r}")

    def check_branches(self, sheet: str, members: list[tuple[Entry, str]]) -> bool:
        conditions = [entry.condition for entry, _ in members]
        cell = members[-1][1]
        label = members[0][0].range.label
        if len(members) == 1:
            if conditions[0] is not None:
                feature, _ = condition_feature(conditions[0])
                self.problem(sheet, cell, f"condition {conditions[0]!r} needs a second row {label} for the other branch ({feature!r} / 'not {feature}')")
                return False
            return True
        if len(members) > 2:
            self.problem(sheet, cell, f"roll {label} appears {len(members)} times; a range has one row or two conditional branches")
            return False
        if None in conditions:
            self.problem(sheet, cell, f"roll {label} appears twice; give both rows a Condition (e.g. 'helm' and 'not helm')")
            return False
        (f1, p1), (f2, p2) = (condition_feature(c) for c in conditions)  # type: ignore[arg-type]
        if f1 != f2 or p1 == p2:
            self.problem(sheet, cell, f"the branches of {label} must be a feature and its negation ('helm' / 'not helm'), not {conditions[0]!r} / {conditions[1]!r}")
            return False
        return True

    def read_range(self, grid: Grid, value: object, cell: str) -> Range | None:
        if (reason := check_value(value)) is not None:
            self.problem(grid.sheet, cell, reason)
            return None
        if is_blank(value):
            self.problem(grid.sheet, cell, "empty range (write 11-15, 16 or 176+)")
            return None
        try:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return parse_range(as_int(value, "range"))
            return parse_range(as_text(value))
        except ValueError as exc:
            self.problem(grid.sheet, cell, str(exc))
            return None

    def check_ranges(self, sheet: str, ranges: list[Range], cells: list[str], **cover: int) -> bool:
        problems = check_coverage(ranges, **cover) if ranges else []
        for problem in problems:
            where = cells[problem.rows[-1]] if problem.rows else None
            named = " and ".join(cells[i] for i in problem.rows)
            suffix = f" (rows {named})" if len(problem.rows) > 1 else ""
            self.problem(sheet, where, problem.message + suffix)
        return not problems

    def read_attack_table(self, grid: Grid, scale: SeverityScale) -> None:
        name = grid.meta("name")
        armors = [(key, column) for key, column in grid.column_order if key != ATTACK_FIRST_COLUMN]
        rows: list[tuple[Range, tuple[AttackCell, ...]]] = []
        range_cells: list[str] = []
        broken = False
        known, generation = self._cells, (scale.name, len(self.out.critical_tables))
        for row in grid.rows:
            range_value, range_cell = self.cell(grid, row, ATTACK_FIRST_COLUMN)
            row_range = self.read_range(grid, range_value, range_cell)
            cells: list[AttackCell] = []
            number, values = row
            for _, column in armors:
                value = values[column - 1] if column <= len(values) else None
                parsed = known.get((type(value), value, generation))  # the common case, without a call
                if parsed is None:
                    parsed = self.read_attack_cell(grid.sheet, value, (number, column), scale)
                if parsed is not None:
                    cells.append(parsed)
            if row_range is not None:  # a row with a bad cell still covers its range
                rows.append((row_range, tuple(cells)))
                range_cells.append(range_cell)
            if row_range is None or len(cells) != len(armors):
                broken = True
        if not grid.rows:
            self.problem(grid.sheet, coordinate(grid.header_row + 1, 1), "the grid has no rows")
            return
        covered = self.check_ranges(
            grid.sheet, [r for r, _ in rows], range_cells, must_cover_from=LOWEST_ATTACK_RESULT
        )
        if rows and covered and all(r.high is not None and r.high < LOWEST_ATTACK_RESULT for r, _ in rows):
            self.problem(grid.sheet, range_cells[0], f"rows must cover {LOWEST_ATTACK_RESULT} upward")
            return
        if broken or not covered or name is None:
            return
        table = AttackTable(name, tuple(a for a, _ in armors), RangeTable(rows), scale)
        self.out.attack_tables.append(Defined(table, name, grid.sheet, grid.cell_of("name"), grid.meta("source"), grid.meta("notes")))

    def read_attack_cell(self, sheet: str, value: object, where: tuple[int, int], scale: SeverityScale) -> AttackCell | None:
        # Printed tables repeat the same few hundred cell texts: read each once.
        key = (type(value), value, (scale.name, len(self.out.critical_tables)))
        if key in self._cells:
            return self._cells[key]
        cell = coordinate(*where)  # only cells read for the first time need their name
        if (reason := check_value(value)) is not None:
            self.problem(sheet, cell, reason)
            return None
        if is_blank(value):
            self.empty(sheet, where, "empty cell (write a dash — for a miss)", "empty cells (write a dash — for a miss)")
            return None
        try:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                parsed = parse_attack_cell(as_int(value, "hits"), scale, self.critical_named)
            else:
                parsed = parse_attack_cell(as_text(value), scale, self.critical_named)
        except ValueError as exc:
            self.problem(sheet, cell, str(exc))
            return None
        self._cells[key] = parsed
        return parsed

    # -- references -----------------------------------------------------------
    def critical_named(self, text: str) -> str | None:
        key = fold(text)
        for defined in self.out.critical_tables:
            table = defined.value
            if key == fold(table.name) or (table.code and key == fold(table.code)):
                return table.name
        found = self.catalog.critical.get(key)
        return found[0] if found else None

    def table_named(self, kind: str, text: str) -> str | None:
        key = fold(text)
        local = self.out.attack_tables if kind == "attack" else self.out.fumble_tables
        for defined in local:
            if fold(defined.name) == key:
                return defined.name
        return (self.catalog.attack if kind == "attack" else self.catalog.fumble).get(key)

    def reference(self, grid: Grid, row, column: str, find: Callable[[str], str | None], what: str, required: bool):  # type: ignore[no-untyped-def]
        text = self.value(grid, row, column, as_text, required=required)
        if text is None:
            return None
        found = find(text)
        if found is None:
            near = did_you_mean(suggest(text, self.known_tables(what)))
            self.problem(grid.sheet, self.cell(grid, row, column)[1], f"unknown {what} {text!r}{near}")
        return found

    def known_tables(self, what: str) -> list[str]:
        """Names a reference to ``what`` could have meant: this import's and the database's."""
        if what == "critical table":
            local = [d.value.name for d in self.out.critical_tables] + [d.value.code for d in self.out.critical_tables if d.value.code]
            return local + [name for name, _scale in self.catalog.critical.values()]
        if what == "attack table":
            return [d.name for d in self.out.attack_tables] + list(self.catalog.attack.values())
        return [d.name for d in self.out.fumble_tables] + list(self.catalog.fumble.values())

    def read_weapons(self, grid: Grid) -> None:
        for row in grid.rows:
            before = len(self.out.problems)
            name = self.value(grid, row, "name", as_text, required=True)
            attack = self.reference(grid, row, "attack table", lambda t: self.table_named("attack", t), "attack table", True)
            max_result = self.value(grid, row, "max result", lambda v: as_int(v, "Max result"), required=True)
            clumsy = self.value(grid, row, "clumsy", _clumsy, required=True)
            critical = self.reference(grid, row, "critical", self.critical_named, "critical table", True)
            secondary = self.reference(grid, row, "secondary critical", self.critical_named, "critical table", False)
            fumble = self.reference(grid, row, "fumble table", lambda t: self.table_named("fumble", t), "fumble table", False)
            modifier = self.value(grid, row, "fumble modifier", lambda v: as_int(v, "Fumble modifier"), default=0)
            roll = self.value(grid, row, "roll", _roll_kind, default=RollKind.OE)
            notes = self.value(grid, row, "notes", as_text)
            if max_result is not None and max_result < 1:
                self.problem(grid.sheet, self.cell(grid, row, "max result")[1], "Max result must be at least 1")
            if len(self.out.problems) > before:
                continue
            weapon = Weapon(name, attack, max_result, clumsy, critical, secondary, fumble, modifier, roll, notes)
            self.out.weapons.append(Defined(weapon, name, grid.sheet, self.cell(grid, row, "name")[1], grid.meta("source"), notes))

    def read_creatures(self, grid: Grid) -> None:
        for row in grid.rows:
            before = len(self.out.problems)
            name = self.value(grid, row, "name", as_text, required=True)
            defense = self.value(grid, row, "def", lambda v: as_int(v, "DEF"), required=True)
            armor = self.value(grid, row, "armor", as_text, required=True)
            rank = self.value(grid, row, "rank", _rank, default=Rank.NORMAL)
            hp = self.value(grid, row, "hp", lambda v: as_int(v, "HP"))
            features = self.value(grid, row, "features", _tags, default=())
            notes = self.value(grid, row, "notes", as_text)
            if len(self.out.problems) > before:
                continue
            creature = Creature(name, defense, armor, rank, hp, features, notes)
            self.out.creatures.append(Defined(creature, name, grid.sheet, self.cell(grid, row, "name")[1], grid.meta("source"), notes))

    def check_unique_names(self) -> None:
        for label, items in (
            ("attack table", self.out.attack_tables),
            ("critical table", self.out.critical_tables),
            ("fumble table", self.out.fumble_tables),
            ("weapon", self.out.weapons),
            ("creature", self.out.creatures),
        ):
            first: dict[str, Defined] = {}
            for item in items:
                key = fold(item.name)
                if key in first:
                    other = first[key]
                    self.problem(item.sheet, item.cell, f"{label} {item.name!r} is defined twice (first in {other.sheet} › {other.cell})")
                else:
                    first[key] = item

    def check_owners(self) -> None:
        """A name another workbook owns is a conflict unless ``replace``."""
        for kind, items in (
            ("severities", [self.out.scale] if self.out.scale else []),
            ("attack", self.out.attack_tables),
            ("critical", self.out.critical_tables),
            ("fumble", self.out.fumble_tables),
            ("weapons", self.out.weapons),
            ("creatures", self.out.creatures),
        ):
            for item in items:
                key = (kind, fold(item.name))
                if key not in self.catalog.owners:
                    continue
                owner = self.catalog.owners[key]
                if kind == "severities" and owner is None:
                    self.problem(item.sheet, item.cell, f"{item.name!r} is the built-in severity scale; give the severities sheet another Name")
                elif not self.replace and not _same_file(owner, self.raw.file_name):
                    by = f"workbook {owner}" if owner else "tables_app itself"
                    message = f"{KIND_LABELS[kind]} {item.name!r} is already defined by {by} (import with --replace to take it over)"
                    self.out.conflicts.append(Conflict(kind, item, Problem(self.raw.file_name, item.sheet, item.cell, message)))


def _cells_summary(cells: list[tuple[int, int]], shown: int = 5) -> tuple[str, str | None]:
    """The range spanning ``cells`` (row, column), and a listing of them
    unless they fill that range."""
    rows, columns = [r for r, _ in cells], [c for _, c in cells]
    span = f"{coordinate(min(rows), min(columns))}:{coordinate(max(rows), max(columns))}"
    if (max(rows) - min(rows) + 1) * (max(columns) - min(columns) + 1) == len(set(cells)):
        return span, None
    listing = ", ".join(coordinate(*cell) for cell in cells[:shown])
    return span, listing + (f" and {len(cells) - shown} more" if len(cells) > shown else "")


def _is_notes(kind: object) -> bool:
    return isinstance(kind, str) and fold(kind) == NOTES_KIND


def _same_file(a: str | None, b: str | None) -> bool:
    """Workbook file names compare in any letter case (as the database does)."""
    return (a or "").casefold() == (b or "").casefold()


def _count(value: object, what: str) -> int:
    number = as_int(value, what)
    if number < 0:
        raise ValueError(f"{what} must not be negative, not {number}")
    return number


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _tags(value: object) -> tuple[str, ...]:
    return tuple(tag.strip() for tag in as_text(value).split(",") if tag.strip())


def _clumsy(value: object) -> int:
    """Clumsy Range `4` or `1-4` (1..N); 0 means the weapon never fumbles."""
    if isinstance(value, str) and any(dash in value.strip()[1:] for dash in DASHES):
        parsed = parse_range(value)
        if parsed.low != 1 or parsed.high is None:
            raise ValueError(f"Clumsy range {value!r} must start at 1 (write 4 or 1-4)")
        return parsed.high
    number = as_int(value, "Clumsy")
    if not 0 <= number <= 100:
        raise ValueError(f"Clumsy {number} must be between 0 and 100")
    return number


def _roll_kind(value: object) -> RollKind:
    text = as_text(value).casefold()
    try:
        return RollKind(text)
    except ValueError:
        raise ValueError(f"Roll {text!r} must be one of oe, oeh, oel, d100") from None


def _rank(value: object) -> Rank:
    text = as_text(value).casefold()
    try:
        return Rank(text)
    except ValueError:
        raise ValueError(f"Rank {text!r} must be normal, heroic or epic") from None


def interpret(raw: RawWorkbook, catalog: Catalog | None = None, *, replace: bool = False) -> ParsedWorkbook:
    return Interpreter(raw, catalog or Catalog(), replace).run()
