"""What every sheet reader shares: the workbook being read, the problems
found so far, cell access, ranges and references to tables.

Every problem is collected with its sheet and cell; nothing stops at the
first one, and nothing is written here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from contextlib import contextmanager
from enum import Enum
from typing import Callable, Final, Iterator, TypeVar, overload

from tables_app.domain.bounds import ROLL
from tables_app.domain.cells import AttackCell
from tables_app.domain.names import did_you_mean, fold, same_name, shown, suggest
from tables_app.domain.rulesets import DEFAULT_RULESET, in_ruleset, ruleset_name_problem
from tables_app.domain.ranges import CLUMSY_MARK, Range, check_coverage, parse_range, parse_row_label, printed_tops
from tables_app.errors import Problem
from tables_app.domain.legend import DEFAULT_LEGEND, Legend, parse_legend
from tables_app.import_model import Catalog, Defined, ParsedWorkbook, same_file
from tables_app.sheets.raw import RawWorkbook
from tables_app.sheets.shape import Grid, Row
from tables_app.sheets.values import as_int, as_text, check_value, coordinate, is_blank

class _NoneGiven(Enum):
    """Reading._own_legend: neither the sheet nor its ruleset sheet gives a legend."""

    NONE_GIVEN = "none given"


_NONE_GIVEN: Final = _NoneGiven.NONE_GIVEN
EMPTY_LISTED = 3  # more empty cells of one kind in one sheet are one summary problem (a blank template)

T = TypeVar("T")  # what a cell converts to
D = TypeVar("D")  # a blank cell's default


class Reading:
    """One workbook being read against the database's catalog."""

    def __init__(self, raw: RawWorkbook, catalog: Catalog):
        self.raw = raw
        self.catalog = catalog
        self.out = ParsedWorkbook(raw.file_name, raw.sha256, raw.size_bytes)
        self.default_ruleset = DEFAULT_RULESET  # a `Kind | ruleset` sheet changes it (sheets/parse.py)
        self.ruleset_sheet: Grid | None = None  # the `Kind | ruleset` sheet, once read: its defaults
        self.ruleset_legend: Legend | None = None  # the ruleset sheet's legend grid (None: none, or a problem)
        self._rulesets: dict[str, str] = {}  # folded → first spelling in this workbook, for rulesets new to the database
        # attack cells read so far, by (type, value, (scale, critical tables known)): see attack_sheet.py
        self.attack_cells: dict[tuple, AttackCell] = {}
        self.attack_failures: dict[tuple, str] = {}  # ... and the problem of those that failed, by the same key
        # (sheet, what is missing) → the empty cells and the indexes of their problems
        self._empty: dict[tuple[str, str], list[tuple[tuple[int, int], int]]] = defaultdict(list)
        # (kind, folded ruleset) → {folded name or code: name} of the tables whose sheet failed: a
        # reference to one is not a second problem (one bad critical sheet would otherwise
        # put an error on every attack cell that names its code)
        self._failed: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
        self._critical_indexes: dict[str, tuple[int, dict[str, str]]] = {}  # see _critical_index
        # ranges and row labels read so far, by (type, value, how): every table repeats the same column of
        # ranges (`150` down to `01`), so each spelling is parsed once; only those that read are kept
        self._ranges: dict[tuple, Range] = {}
        self._row_labels: dict[tuple, tuple[Range, bool]] = {}
        self.numbers: dict[tuple, int] = {}  # an entry's Hits, Bleed, Stun, Penalty read, by (column, type, value)

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

    def same_text(self, sheet: str, where: tuple[int, int], message: str) -> None:
        """A cell whose text has ``message`` as its problem: cells of one sheet
        that share it are summarised like empty ones (4,000 cells of one bad
        text are one line, which quotes the text once)."""
        self.empty(sheet, where, message, f"cells with the same text ({message})")

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

    # -- cell access --------------------------------------------------------
    def cell(self, grid: Grid, row: Row, column: str) -> tuple[object, str]:
        number, values = row
        index = grid.columns.get(column)
        if index is None:
            return None, ""
        value = values[index - 1] if index <= len(values) else None
        return value, coordinate(number, index)

    @overload
    def value(self, grid: Grid, row: Row, column: str, convert: Callable[[object], T], *,
              required: bool = False) -> T | None: ...

    @overload
    def value(self, grid: Grid, row: Row, column: str, convert: Callable[[object], T], *, default: D,
              required: bool = False) -> T | D | None: ...

    def value(self, grid: Grid, row: Row, column: str, convert: Callable[[object], T], *, default: D | None = None,
              required: bool = False) -> T | D | None:
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

    # -- ranges ---------------------------------------------------------------
    def read_range(self, grid: Grid, value: object, cell: str, rolls: bool = False) -> Range | None:
        """A row's range; ``rolls``: a critical or fumble table's d100 column,
        where `-25` and `00` read as printed (domain/ranges.py, parse_range)."""
        key = (type(value), value, rolls)
        if (known := self._ranges.get(key)) is not None:
            return known
        if (reason := check_value(value)) is not None:
            self.problem(grid.sheet, cell, reason)
            return None
        if is_blank(value):
            self.problem(grid.sheet, cell, "empty range (write 11-15, 16 or 176+)")
            return None
        try:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                # a typed -25 is a number: parse_range reads its sign as printed (or refuses it)
                read = parse_range(as_int(value, "range", (-ROLL[1], ROLL[1]) if value < 0 else ROLL), rolls=rolls)
            else:
                read = parse_range(as_text(value), rolls=rolls)
        except ValueError as exc:
            self.problem(grid.sheet, cell, str(exc))
            return None
        self._ranges[key] = read
        return read

    def read_rolls(self, grid: Grid, column: str) -> list[Range | None]:
        """Each row's range in a critical or fumble grid's d100 ``column``
        (None for a row whose range said its problem): read as tops when the
        column is printed so (`-25`, `-30`, ..., `00`: domain/ranges.py,
        printed_tops), else each row on its own (read_range, ``rolls``)."""
        located = [self.cell(grid, row, column) for row in grid.rows]
        written = [_top_label(value) for value, _ in located]
        tops = None if None in written else printed_tops([w for w in written if w is not None])
        if tops is None:
            return [self.read_range(grid, value, cell, rolls=True) for value, cell in located]
        read: list[Range | None] = []
        for span, (_, cell) in zip(tops, located):
            if isinstance(span, str):
                self.problem(grid.sheet, cell, span)
            read.append(span if isinstance(span, Range) else None)
        return read

    def read_row_label(self, grid: Grid, value: object, cell: str) -> tuple[Range, bool] | None:
        """An attack row's range, and whether it is a `UM` row (read by the
        unmodified die); `XX-33` and `UM 01-XX` are bounded by the weapon's Clumsy Range."""
        key = (type(value), value)
        if (known := self._row_labels.get(key)) is not None:
            return known
        if isinstance(value, str) and (value.strip()[:2].casefold() == "um" or CLUMSY_MARK.casefold() in value.casefold()):
            try:
                label = parse_row_label(as_text(value))
            except ValueError as exc:
                self.problem(grid.sheet, cell, str(exc))
                return None
        else:
            found = self.read_range(grid, value, cell)
            if found is None:
                return None
            label = (found, False)
        self._row_labels[key] = label
        return label

    def check_ranges(self, sheet: str, ranges: list[Range], cells: list[str], **cover: int) -> bool:
        problems = check_coverage(ranges, **cover) if ranges else []
        for problem in problems:
            where = cells[problem.rows[-1]] if problem.rows else None
            named = " and ".join(cells[i] for i in problem.rows)
            suffix = f" (rows {named})" if len(problem.rows) > 1 else ""
            self.problem(sheet, where, problem.message + suffix)
        return not problems

    # -- rulesets -------------------------------------------------------------
    def ruleset_of(self, grid: Grid) -> str | None:
        """The sheet's ruleset (its ``Ruleset``, else the workbook's, else
        ``default``), spelled as the database or else this workbook first
        spelled it; None (with a problem) if the name cannot be a ruleset's."""
        written = grid.meta("ruleset")
        if written is None:
            return self.default_ruleset
        return self.ruleset_named(written, grid.sheet, grid.cell_of("ruleset"))

    def setting(self, grid: Grid, key: str, ruleset: str) -> tuple[str | None, str, str]:
        """A header value of the sheet, else the workbook's ruleset sheet's
        default for the sheets of its ruleset: (value, sheet, cell it stands in)."""
        if key in grid.texts:
            return grid.texts[key], grid.sheet, grid.cell_of(key)
        defaults = self.ruleset_sheet
        if defaults is not None and key in defaults.texts and same_name(ruleset, self.default_ruleset):
            return defaults.texts[key], defaults.sheet, defaults.cell_of(key)
        return None, grid.sheet, grid.cell_of(key)

    def legend_for(self, grid: Grid, ruleset: str) -> Legend | None:
        """The legend a critical or fumble sheet is read with (docs/workbook-format.md,
        "Legends"): its own `Legend` key, else its workbook's ruleset sheet's legend
        (for the sheets of that ruleset), else the one the ruleset's tables from
        other workbooks were read with (a warning says so), else the default
        legend. Where the ruleset's other tables were read with another
        legend, a warning says that too: a book has one key. None after a
        problem (the sheet's entries are then not read: each would be suspect)."""
        stored = {legend: owners for legend, owners in self.catalog.contents(ruleset).legends.items()
                  if any(not same_file(owner, self.raw.file_name) for owner in owners)}  # "": the default legend
        own = self._own_legend(grid, ruleset)
        if own is None:
            return None
        if own is not _NONE_GIVEN:
            others = sorted(legend for legend in stored if legend != own.written())
            if others:
                self.warn_at(grid.sheet, grid.cell_of("kind"), f"the tables of ruleset {ruleset!r} from "
                             f"{_owners(stored, others)} were read with {_legend_words(others[0])}, this sheet with "
                             f"{_legend_words(own.written())}: a book has one key")
            return own
        if len(stored) > 1:
            self.problem(grid.sheet, grid.cell_of("kind"), f"ruleset {ruleset!r} holds tables read with {len(stored)} legends "
                         f"({'; '.join(_legend_words(s) for s in sorted(stored))}): give this sheet a Legend, or its workbook "
                         "a ruleset sheet with one")
            return None
        if stored and (legend := next(iter(stored))):
            self.warn_at(grid.sheet, grid.cell_of("kind"), f"read with the legend of the tables of ruleset {ruleset!r} from "
                         f"{_owners(stored, [legend])} ({legend}), as this workbook gives none")
            return parse_legend(legend)
        return DEFAULT_LEGEND

    def _own_legend(self, grid: Grid, ruleset: str) -> Legend | _NoneGiven | None:
        """The legend the sheet or its workbook's ruleset sheet gives; _NONE_GIVEN
        when neither does; None after a problem (named on its cell)."""
        if "legend" in grid.texts:
            try:
                return parse_legend(grid.texts["legend"])
            except ValueError as exc:
                self.problem(grid.sheet, grid.cell_of("legend"), f"Legend: {exc}")
                return None
        own = self.ruleset_sheet
        if own is None or not same_name(ruleset, self.default_ruleset):
            return _NONE_GIVEN
        if own.broken:  # its legend had a problem, named on its cell
            return None
        if "legend" in own.texts:
            try:
                return parse_legend(own.texts["legend"])
            except ValueError as exc:
                if not any(p.sheet == own.sheet and p.cell == own.cell_of("legend") for p in self.out.problems):
                    self.problem(own.sheet, own.cell_of("legend"), f"Legend: {exc}")
                return None
        if own.columns:  # its legend grid; None when the grid had a problem, named on its cell
            return self.ruleset_legend
        return _NONE_GIVEN

    def warn_at(self, sheet: str, cell: str | None, message: str) -> None:
        self.out.warnings.append(Problem(self.raw.file_name, sheet, cell, message))

    def text_of(self, value: object, empty: str) -> str:
        """A cell's text; ValueError with ``empty`` when blank, or the value's problem."""
        if (reason := check_value(value)) is not None:
            raise ValueError(reason)
        if is_blank(value):
            raise ValueError(empty)
        return as_text(value)

    def ruleset_named(self, written: str, sheet: str, cell: str) -> str | None:
        if (reason := ruleset_name_problem(written)) is not None:
            self.problem(sheet, cell, reason)
            return None
        key = fold(written)
        return self.catalog.rulesets.get(key) or self._rulesets.setdefault(key, written)

    def mine(self, items: list[Defined], ruleset: str) -> list[Defined]:
        """What this workbook defines in ``ruleset``."""
        return [item for item in items if same_name(item.ruleset, ruleset)]

    @contextmanager
    def defining(self, grid: Grid, kind: str) -> Iterator[str | None]:
        """Read a table sheet of ``kind`` inside the block (yields its ruleset);
        if it defines no table, remember its name and code as failed."""
        defined = self.out.items(kind)
        before = len(defined)
        ruleset = self.ruleset_of(grid)
        yield ruleset
        if ruleset is not None and len(defined) == before and (name := grid.meta("name")) is not None:
            failed = self._failed[(kind, fold(ruleset))]
            for written in (name, grid.meta("code") if kind == "critical" else None):
                if written:
                    failed.setdefault(fold(written), name)

    def failed_count(self) -> int:
        return sum(len(names) for names in self._failed.values())

    # -- references (inside one ruleset only) ----------------------------------
    def critical_named(self, text: str, ruleset: str) -> str | None:
        key = fold(text)
        local = self._critical_index(ruleset).get(key)
        if local is not None:
            return local
        found = self.catalog.contents(ruleset).critical.get(key)
        return found[0] if found else self._failed[("critical", fold(ruleset))].get(key)

    def _critical_index(self, ruleset: str) -> dict[str, str]:
        """Folded name or code → name of the critical tables this workbook
        defines in ``ruleset``, the first table first (as a scan in order
        would find them); rebuilt when a table has been read since."""
        count = len(self.out.critical_tables)
        cached = self._critical_indexes.get(fold(ruleset))
        if cached is None or cached[0] != count:
            index: dict[str, str] = {}
            for defined in self.mine(self.out.critical_tables, ruleset):
                table = defined.value
                index.setdefault(fold(table.name), table.name)
                if table.code:
                    index.setdefault(fold(table.code), table.name)
            cached = self._critical_indexes[fold(ruleset)] = (count, index)
        return cached[1]

    def table_named(self, kind: str, text: str, ruleset: str) -> str | None:
        key = fold(text)
        local = self.out.attack_tables if kind == "attack" else self.out.fumble_tables
        for defined in self.mine(local, ruleset):
            if fold(defined.name) == key:
                return defined.name
        held = self.catalog.contents(ruleset)
        found = (held.attack if kind == "attack" else held.fumble).get(key)
        return found if found is not None else self._failed[(kind, fold(ruleset))].get(key)

    def weapon_named(self, text: str, ruleset: str) -> str | None:
        """A weapon of ``ruleset`` by name in any letter case, as it spells
        itself: this workbook's (read by now), else the database's."""
        key = fold(text)
        for defined in self.mine(self.out.weapons, ruleset):
            if fold(defined.name) == key:
                return defined.name
        found = self.catalog.contents(ruleset).weapons.get(key)
        return found if found is not None else self._failed[("weapons", fold(ruleset))].get(key)

    def failed_row(self, kind: str, ruleset: str, name: str) -> None:
        """A weapon whose row had a problem: a creature's attack with it is not a second one."""
        self._failed[(kind, fold(ruleset))].setdefault(fold(name), name)

    def reference(self, grid: Grid, row: Row, column: str, find: Callable[[str], str | None], what: str, required: bool,
                  ruleset: str) -> str | None:
        text = self.value(grid, row, column, as_text, required=required)
        if text is None:
            return None
        found = find(text)
        if found is None:
            self.problem(grid.sheet, self.cell(grid, row, column)[1], f"unknown {what} {shown(text)}{self.hint(what, text, ruleset)}")
        return found

    def hint(self, what: str, text: str, ruleset: str) -> str:
        """What an unknown reference could have meant, in its ruleset; or
        that the name is in another ruleset, which a reference cannot reach."""
        near = did_you_mean(suggest(text, self.known_tables(what, ruleset)))
        if near:
            return f"{in_ruleset(ruleset)}{near}"
        elsewhere = sorted({stored for key, stored in self.catalog.rulesets.items() if key != fold(ruleset)
                            and self._has(what, text, stored)} | self._defined_elsewhere(what, text, ruleset))
        if elsewhere:
            return f" in ruleset {ruleset!r} (ruleset {', '.join(map(repr, elsewhere))} has it; a workbook's references stay in its own ruleset)"
        return ""

    def _has(self, what: str, text: str, ruleset: str) -> bool:
        held = self.catalog.contents(ruleset)
        tables: dict[str, Mapping[str, object]] = {"critical table": held.critical, "attack table": held.attack,
                                                   "weapon": held.weapons}
        table = tables.get(what, held.fumble)
        return fold(text) in table

    def _defined_elsewhere(self, what: str, text: str, ruleset: str) -> set[str]:
        """The other rulesets in which this workbook defines ``text`` (a sheet
        of another ruleset is as far out of reach as another workbook)."""
        key = fold(text)
        if what == "critical table":
            return {d.ruleset for d in self.out.critical_tables if not same_name(d.ruleset, ruleset)
                    and key in (fold(d.name), fold(d.value.code or ""))}
        named: dict[str, list[Defined]] = {"attack table": self.out.attack_tables, "weapon": self.out.weapons}
        local = named.get(what, self.out.fumble_tables)
        return {d.ruleset for d in local if not same_name(d.ruleset, ruleset) and fold(d.name) == key}

    def known_tables(self, what: str, ruleset: str) -> list[str]:
        """Names a reference to ``what`` could have meant in ``ruleset``: this import's and the database's."""
        held = self.catalog.contents(ruleset)
        if what == "critical table":
            local = self.mine(self.out.critical_tables, ruleset)
            return ([d.value.name for d in local] + [d.value.code for d in local if d.value.code]
                    + [name for name, _scale in held.critical.values()])
        if what == "attack table":
            return [d.name for d in self.mine(self.out.attack_tables, ruleset)] + list(held.attack.values())
        if what == "weapon":
            return [d.name for d in self.mine(self.out.weapons, ruleset)] + list(held.weapons.values())
        return [d.name for d in self.mine(self.out.fumble_tables, ruleset)] + list(held.fumble.values())


def _cells_summary(cells: list[tuple[int, int]], shown: int = 5) -> tuple[str, str | None]:
    """The range spanning ``cells`` (row, column), and a listing of them
    unless they fill that range."""
    rows, columns = [r for r, _ in cells], [c for _, c in cells]
    span = f"{coordinate(min(rows), min(columns))}:{coordinate(max(rows), max(columns))}"
    if (max(rows) - min(rows) + 1) * (max(columns) - min(columns) + 1) == len(set(cells)):
        return span, None
    listing = ", ".join(coordinate(*cell) for cell in cells[:shown])
    return span, listing + (f" and {len(cells) - shown} more" if len(cells) > shown else "")


def _legend_words(written: str) -> str:
    return f"the legend {written!r}" if written else "the default legend"


def _owners(stored: dict[str, set[str]], legends: list[str]) -> str:
    names = sorted({owner or "tables_app" for legend in legends for owner in stored[legend]}, key=str.casefold)
    return ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _top_label(value: object) -> str | int | None:
    """A Roll cell as printed_tops reads it (a number as a whole number, a
    text as it is); None for a cell that is no label of a column of tops
    (blank, an error value, a fraction, a date): read_range then says why."""
    if is_blank(value) or check_value(value) is not None:
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            return as_int(value, "range", (-ROLL[1], ROLL[1]))
        except ValueError:
            return None
    return value if isinstance(value, str) else None
