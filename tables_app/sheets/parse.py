"""Interpret raw sheets (read.py) by kind: docs/workbook-format.md, version 1.

Pure Python over plain values, so every rule is testable without a file.
Each sheet is split into its header block and grid (grid.py), then read by
its kind: attack_sheet.py, effect_sheet.py (critical, fumble) and
list_sheets.py (weapons, creatures, severities). Every problem is collected
with its sheet and cell (reading.py); nothing stops at the first one, and
nothing is written here. Whose names these are is the import's question
(services/importing.py), not the workbook's.
"""

from __future__ import annotations

from collections import defaultdict

from tables_app.domain.legend import VOCABULARY, Legend, bare_of, canonical_symbol, legend_from_rows, legend_symbol, meaning_of
from tables_app.domain.names import fold, same_name, shown
from tables_app.domain.rulesets import in_ruleset
from tables_app.domain.severity import DEFAULT_SCALE, SeverityScale
from tables_app.domain.tables import TableKind
from tables_app.import_model import Catalog, Defined, ParsedWorkbook
from tables_app.sheets.attack_sheet import read_attack_table
from tables_app.sheets.effect_sheet import read_effect_table
from tables_app.sheets.grid import RULESET_KIND, split
from tables_app.sheets.shape import Grid
from tables_app.sheets.list_sheets import read_creatures, read_severities, read_weapons
from tables_app.sheets.raw import RawWorkbook
from tables_app.sheets.reading import Reading
from tables_app.sheets.values import as_int, coordinate
from tables_app.domain.bounds import DEATH_AT


def interpret(raw: RawWorkbook, catalog: Catalog | None = None) -> ParsedWorkbook:
    """What the workbook defines, read against ``catalog`` (what the database holds)."""
    reading = Reading(raw, catalog or Catalog())
    grids = [g for sheet in raw.sheets if (g := split(reading, sheet)) is not None]
    by_kind: dict[str, list[Grid]] = defaultdict(list)
    for grid in grids:
        by_kind[grid.kind].append(grid)
    if not [g for g in grids if g.kind != RULESET_KIND] and not reading.out.problems:
        reading.problem(None, None, "no sheet has a header block with a Kind (nothing to import)")
    _read_ruleset_sheet(reading, by_kind[RULESET_KIND])
    # Dependency order: severities, then critical tables (cells name them),
    # then attack and fumble tables, then weapons and creatures. Each sheet
    # reads inside its own ruleset.
    severities = by_kind["severities"]
    for extra in severities[1:]:
        reading.problem(extra.sheet, "A1", f"a workbook holds one severities sheet; {severities[0].sheet!r} is the first")
    if severities and (ruleset := reading.ruleset_of(severities[0])) is not None:
        read_severities(reading, severities[0], ruleset)
    for grid in by_kind["critical"]:
        with reading.defining(grid, "critical") as ruleset:
            if (ruleset is not None and (scale := _scale_for(reading, grid, ruleset)) is not None
                    and (legend := reading.legend_for(grid, ruleset)) is not None):
                read_effect_table(reading, grid, TableKind.CRITICAL, scale, ruleset, legend)
    for grid in by_kind["fumble"]:
        with reading.defining(grid, "fumble") as ruleset:
            if ruleset is not None and (legend := reading.legend_for(grid, ruleset)) is not None:
                read_effect_table(reading, grid, TableKind.FUMBLE, DEFAULT_SCALE, ruleset, legend)
    for grid in by_kind["attack"]:
        with reading.defining(grid, "attack") as ruleset:
            if ruleset is not None and (scale := _scale_for(reading, grid, ruleset)) is not None:
                read_attack_table(reading, grid, scale, ruleset)
    for grid in by_kind["weapons"]:
        if (ruleset := reading.ruleset_of(grid)) is not None:
            read_weapons(reading, grid, ruleset)
    if (sheet := reading.ruleset_sheet) is not None:
        _read_death_at(reading, sheet, reading.default_ruleset)
    for grid in by_kind["creatures"]:
        if (ruleset := reading.ruleset_of(grid)) is not None:
            _read_death_at(reading, grid, ruleset)
            read_creatures(reading, grid, ruleset)
    reading.summarise_empty()
    return reading.out


NO_DEATH = ("none", "no", "-", "\u2014")  # `Death at | none`: only down, as the default


def _read_death_at(reading: Reading, grid: Grid, ruleset: str) -> None:
    """`Death at | -50` (the hits left at or below which a combatant of a
    fight in the ruleset is dead) or `none`, on a creatures sheet or its
    workbook's ruleset sheet (the default for its ruleset's creatures sheets);
    two different values for one ruleset in a workbook are a problem."""
    written, sheet, cell = reading.setting(grid, "death at", ruleset)
    if written is None:
        return
    value: int | None = None
    if fold(written) not in NO_DEATH:
        try:
            value = as_int(written, "Death at")
        except ValueError:
            value = DEATH_AT[1] + 1
        if not DEATH_AT[0] <= value <= DEATH_AT[1]:
            if not any(p.sheet == sheet and p.cell == cell for p in reading.out.problems):  # said once, on its cell
                reading.problem(sheet, cell, f"Death at {shown(written)} must be a whole number from {DEATH_AT[0]} to "
                                             f"{DEATH_AT[1]} (the hits left at or below which a combatant is dead), or none")
            return
    known = next((name for name in reading.out.death_at if same_name(name, ruleset)), None)
    if known is not None and reading.out.death_at[known] != value:
        reading.problem(sheet, cell, f"Death at {shown(written)}: another sheet of this workbook gives ruleset "
                                     f"{ruleset!r} Death at {reading.out.death_at[known]}; a ruleset has one")
        return
    reading.out.death_at[known or ruleset] = value


def _read_ruleset_sheet(reading: Reading, sheets: list[Grid]) -> None:
    """A `Kind | ruleset` sheet: the ruleset of every sheet that names none."""
    for extra in sheets[1:]:
        reading.problem(extra.sheet, "A1", f"a workbook holds one ruleset sheet; {sheets[0].sheet!r} is the first")
    if not sheets:
        return
    grid = sheets[0]
    name = reading.ruleset_named(grid.texts["name"], grid.sheet, grid.cell_of("name"))
    if name is not None:
        reading.default_ruleset = name
        reading.ruleset_sheet = grid
        reading.out.ruleset = Defined(name, name, grid.sheet, grid.cell_of("name"), grid.meta("source"), grid.meta("notes"), name)
    if grid.columns and not grid.broken:  # a legend grid below the header block
        reading.ruleset_legend = _legend_grid(reading, grid)


def _legend_grid(reading: Reading, grid: Grid) -> Legend | None:
    """The ruleset sheet's `Symbol | Means` grid; None after a problem (named on its cell)."""
    rows: list[tuple[str, str]] = []
    seen: dict[str, str] = {}
    ok = True
    for row in grid.rows:
        symbol_value, symbol_cell = reading.cell(grid, row, "symbol")
        meaning_value, meaning_cell = reading.cell(grid, row, "means")
        try:
            symbol = legend_symbol(reading.text_of(symbol_value, "a legend row needs a symbol"))
        except ValueError as exc:
            reading.problem(grid.sheet, symbol_cell, str(exc))
            ok = False
            continue
        try:
            written = reading.text_of(meaning_value, f"symbol {symbol!r} needs what it means ({VOCABULARY})")
            meaning = meaning_of(written, symbol)
            bare = bare_of(written, symbol)
        except ValueError as exc:
            reading.problem(grid.sheet, meaning_cell, str(exc))
            ok = False
            continue
        key = canonical_symbol(symbol).casefold()
        if key in seen:
            reading.problem(grid.sheet, symbol_cell, f"symbol {symbol!r} is in the legend twice (row {seen[key]})")
            ok = False
            continue
        seen[key] = symbol_cell
        rows.append((symbol, meaning.value if bare is None else f"{meaning.value}, bare {bare}"))
    if not ok:
        return None
    try:
        return legend_from_rows(rows)
    except ValueError as exc:
        reading.problem(grid.sheet, coordinate(grid.header_row, 1), str(exc))
        return None


def _scale_for(reading: Reading, grid: Grid, ruleset: str) -> SeverityScale | None:
    """The severities of a table: its ``Severities`` header (a scale of its
    ruleset, or the built-in one), else the workbook's own severities sheet
    if it is in the same ruleset, else the built-in default scale."""
    wanted, sheet, cell = reading.setting(grid, "severities", ruleset)
    own = reading.out.scale if reading.out.scale and same_name(reading.out.scale.ruleset, ruleset) else None
    if wanted is None:
        return own.value if own else DEFAULT_SCALE
    if own and same_name(own.name, wanted):
        return own.value
    known = reading.catalog.scales(ruleset)
    for name, scale in known.items():
        if same_name(name, wanted):
            return scale
    names = sorted({*known, *([own.name] if own else [])})
    elsewhere = sorted(stored for key, stored in reading.catalog.rulesets.items()
                       if key != fold(ruleset) and any(same_name(n, wanted) for n in reading.catalog.contents(stored).scales))
    beyond = f"; ruleset {', '.join(map(repr, elsewhere))} has it, and a table's scale stays in its own ruleset" if elsewhere else ""
    reading.problem(sheet, cell, f"unknown severity scale {wanted!r}{in_ruleset(ruleset)} (known: {', '.join(names)}{beyond})")
    return None
