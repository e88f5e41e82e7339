"""openpyxl out: tables back to the import format, and blank templates.

Everything written here imports again: export → import gives the same
lookups. Text is always written as text — a name or note that begins with
=, +, -, @, a tab or a carriage return never becomes a formula.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Generic, TypeVar, cast

from tables_app.domain.bounds import AUTOMATIC_MISS
from tables_app.domain.cells import AttackCell, Outcome
from tables_app.domain.branches import parse_branches
from tables_app.domain.effects import Effects, conditions_of, tag_conditions
from tables_app.domain.legend import DEFAULT_LEGEND, Legend
from tables_app.domain.ranges import RangeTable, row_label
from tables_app.domain.severity import DEFAULT_SCALE, SeverityScale
from tables_app.domain.names import fold
from tables_app.domain.rulesets import DEFAULT_RULESET
from tables_app.domain.branches import Branch
from tables_app.domain.creature_attacks import attacks_text
from tables_app.domain.tables import (
    AttackTable,
    ConditionReading,
    Creature,
    EffectTable,
    Entry,
    Rank,
    RollKind,
    TableKind,
    Weapon,
    condition_feature,
)
from tables_app.sheets.grid import NOTES_KIND

if TYPE_CHECKING:  # openpyxl is imported only when it writes
    from openpyxl.cell.cell import Cell
    from openpyxl.worksheet.worksheet import Worksheet

T = TypeVar("T")
CellValue = str | int | float | None  # what a cell is written with (None and "": left empty)
Target = str | Path | IO[bytes]  # a path or an open binary file

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
ENTRY_HEADER = ("Roll", "Title", "Text", "Hits", "Bleed", "Stun", "Penalty", "Effects", "Condition")
WEAPON_HEADER = ("Name", "Attack table", "Max result", "Clumsy", "Critical", "Secondary critical",
                 "Fumble table", "Fumble modifier", "Roll", "Notes")
WEAPON_COLUMNS = ("Critical column", "Fumble column", "Max critical")  # written only when a weapon of the sheet has one
PRINTED_ROLL = "Roll"  # a printed critical or fumble grid: `Roll | A | B | ...`
CREATURE_HEADER = ("Name", "DEF", "Armor", "Rank", "HP", "Features", "Attacks", "Notes")
ATTACKS_COLUMN = "Attacks"  # an export writes it when a creature of the sheet has attacks (version 1 sheets stay as they were)
SEVERITY_HEADER = ("Code", "Name", "Modifier")
INVALID_TITLE = re.compile(r"[\[\]:*?/\\]")
NO_AUTOMATIC_MISS = "none"  # `Automatic miss | none`: every row is read


@dataclass
class Named(Generic[T]):
    """A table, weapon or creature with its provenance and ruleset."""

    value: T
    source: str | None = None
    notes: str | None = None
    ruleset: str = DEFAULT_RULESET


@dataclass
class Export:
    scales: list[Named[SeverityScale]] = field(default_factory=list)
    critical: list[Named[EffectTable]] = field(default_factory=list)
    fumble: list[Named[EffectTable]] = field(default_factory=list)
    attack: list[Named[AttackTable]] = field(default_factory=list)
    weapons: list[Named[Weapon]] = field(default_factory=list)
    creatures: list[Named[Creature]] = field(default_factory=list)
    death_at: dict[str, int] = field(default_factory=dict)  # by ruleset: `Death at`, on its creatures sheet


class Sheets:
    """A new workbook with safe cell writing and unique sheet titles."""

    def __init__(self) -> None:
        import openpyxl

        self.book = openpyxl.Workbook()
        first = self.book.active
        assert first is not None  # a new workbook has one sheet, active
        self.book.remove(first)
        self.titles: set[str] = set()

    def sheet(self, title: str) -> Worksheet:
        base = INVALID_TITLE.sub("_", title).strip("'")[:31] or "Sheet"
        candidate, n = base, 2
        while candidate.casefold() in self.titles:
            suffix = f" ({n})"
            candidate, n = base[: 31 - len(suffix)] + suffix, n + 1
        self.titles.add(candidate.casefold())
        return self.book.create_sheet(candidate)

    def save(self, target: Target) -> None:
        """Save to a path or an open binary file, as openpyxl's Workbook.save
        does, but with the zip closed whatever happens: a write that fails (a
        full disk) leaves no open zip whose finalizer would write to a file
        closed meanwhile (`Exception ignored in: ZipFile.__del__`)."""
        import datetime
        import zipfile

        from openpyxl.writer.excel import ExcelWriter

        archive = zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, allowZip64=True)
        try:
            self.book.properties.modified = datetime.datetime.now(tz=datetime.timezone.utc).replace(tzinfo=None)
            ExcelWriter(self.book, archive).save()  # writes every part, then closes the zip
        except BaseException:
            try:
                archive.close()  # the caller removes the file; closing may fail again (the disk is still full)
            except Exception:
                pass
            raise


def put(sheet: Worksheet, row: int, column: int, value: CellValue) -> None:
    """Write one value; text stays text (never a formula)."""
    if value is None or value == "":
        return
    cell = sheet.cell(row=row, column=column, value=value)
    if isinstance(value, str):
        cell.data_type = "s"
        if value.startswith(FORMULA_STARTS):
            cell.number_format = "@"  # and stays text when someone edits it


def header_block(sheet: Worksheet, pairs: list[tuple[str, CellValue]]) -> int:
    """Key | Value rows from A1, then a blank row; returns the grid's first row."""
    row = 1
    for key, value in pairs:
        if value is None or value == "":
            continue
        put(sheet, row, 1, key)
        put(sheet, row, 2, value)
        row += 1
    return row + 1


def grid_header(sheet: Worksheet, row: int, names: tuple[str, ...] | list[str]) -> None:
    from openpyxl.styles import Font, PatternFill

    bold, fill = Font(bold=True), PatternFill("solid", fgColor="DDE3EA")
    for column, name in enumerate(names, start=1):
        put(sheet, row, column, name)
        sheet.cell(row=row, column=column).font = bold
        sheet.cell(row=row, column=column).fill = fill
    sheet.freeze_panes = _cell(sheet, row + 1, 2)
    sheet.column_dimensions["A"].width = 12


def _cell(sheet: Worksheet, row: int, column: int) -> Cell:
    """The cell there, made if absent: nothing written here merges cells, so never a MergedCell."""
    return cast("Cell", sheet.cell(row=row, column=column))


def attack_value(cell: AttackCell) -> CellValue:
    """Numbers stay numbers; a miss is the em dash, a fumble `F`; criticals
    are text, several in one cell joined as printed (`36 E Heat + A Impact`)."""
    if cell.outcome in (Outcome.NO_DAMAGE, Outcome.HIT):
        return cell.hits
    return cell.text


def _scale_key(scale: SeverityScale) -> list[tuple[str, CellValue]]:
    return [] if scale.name == DEFAULT_SCALE.name else [("Severities", scale.name)]


def _ruleset_key(ruleset: str) -> list[tuple[str, CellValue]]:
    """Version-1 workbooks (everything in ``default``) stay as they were."""
    return [] if fold(ruleset) == DEFAULT_RULESET else [("Ruleset", ruleset)]


def _automatic_miss_key(table: AttackTable) -> list[tuple[str, CellValue]]:
    """Only a table whose automatic miss is not the usual 10 says so."""
    if table.automatic_miss == AUTOMATIC_MISS:
        return []
    return [("Automatic miss", NO_AUTOMATIC_MISS if table.automatic_miss is None else table.automatic_miss)]


def attack_rows(table: AttackTable) -> list[tuple[str, tuple[AttackCell, ...]]]:
    """(row label, cells), ascending; the `UM` rows last, so that read from
    the bottom up, as printed, they come first."""
    unmodified = table.unmodified or RangeTable([])
    return [(row_label(span, by_die), cells) for rows, by_die in ((table.rows, False), (unmodified, True))
            for span, cells in zip(rows.ranges, rows.values)]


def write_attack(book: Sheets, item: Named[AttackTable]) -> None:
    table = item.value
    sheet = book.sheet(table.name)
    row = header_block(sheet, [("Kind", "attack"), ("Name", table.name), *_ruleset_key(item.ruleset), *_scale_key(table.scale),
                               *_automatic_miss_key(table), ("Source", item.source), ("Notes", item.notes)])
    grid_header(sheet, row, ["Result", *table.armors])
    for r, (label, cells) in enumerate(attack_rows(table), start=row + 1):
        put(sheet, r, 1, label)
        for c, cell in enumerate(cells, start=2):
            put(sheet, r, c, attack_value(cell))
    for c in range(2, len(table.armors) + 2):
        sheet.column_dimensions[_cell(sheet, row, c).column_letter].width = 12


def write_effect(book: Sheets, item: Named[EffectTable]) -> None:
    table = item.value
    sheet = book.sheet(table.name)
    critical = table.kind is TableKind.CRITICAL
    pairs = [("Kind", table.kind.value), ("Name", table.name), *_ruleset_key(item.ruleset)]
    if critical:
        pairs += [("Code", table.code), *_scale_key(table.scale)]
    pairs += _roll_kind_key(table)
    if not table.legend.is_default:  # the book's key travels with its entries
        pairs.append(("Legend", table.legend.written()))
    if table.condition_reading is not ConditionReading.ALSO:  # and how its conditions after effects read
        pairs.append(("Conditions", table.condition_reading.value))
    row = header_block(sheet, [*pairs, ("Source", item.source), ("Notes", item.notes)])
    if table.columns:
        _write_printed_entries(sheet, row, table)
        return
    grid_header(sheet, row, ENTRY_HEADER)
    rows: list[tuple[CellValue, ...]] = []
    for entries in table.rows.values:
        cell = _one_row(entries, table.legend, table.condition_reading)
        if cell is not None:  # the branches as the book prints them, in one Text: its numbers are the text's
            first = entries[0]
            rows.append((first.range.label, first.title, cell, None, None, None, None, ", ".join(first.effects) or None, None))
            continue
        rows += [(entry.range.label, entry.title, entry.text, entry.hits, entry.bleed or None, entry.stun or None,
                  entry.penalty or None, ", ".join(entry.effects) or None, entry.condition) for entry in entries]
    for r, values in enumerate(rows, start=row + 1):
        for c, value in enumerate(values, start=1):
            put(sheet, r, c, value)
    sheet.column_dimensions["C"].width = 60


_READ_FIELDS = ("hits", "bleed", "stun", "penalty", "must_parry", "no_parry", "attacker_bonus", "death_in", "parry_penalty")
_GIVEN_FIELDS = ("hits", "bleed", "stun", "penalty")  # a one-column row's own columns; a text reading 0 takes them
_TEXT_FIELDS = ("must_parry", "no_parry", "attacker_bonus", "parry_penalty")  # no column: the text's alone


def _one_row(entries: tuple[Entry, ...], legend: Legend, reading: ConditionReading) -> str | None:
    """A one-column range's branches as one Text, without a Condition, where
    a row per branch would not read back as its entry (`Otherwise: +4H.`
    alone is a condition no branch reads; `If not: as above, and 2∑.` needs
    the branch above it) and the whole cell does; else None (a row each)."""
    if len(entries) < 2 or all(_reads_back(entry, legend, reading) for entry in entries):
        return None
    if len({(entry.title, entry.effects) for entry in entries}) != 1:
        return None  # a title or tags of a branch's own: only rows can hold them
    try:
        text = printed_cell(entries, legend, reading)
    except ValueError:
        return None
    branches = _branches(text, legend, reading)
    same = all(entry.unread == branch.unread and all(getattr(entry, name) == getattr(branch.effects, name) for name in _READ_FIELDS)
               and _conditions_read_back(entry, branch.effects) for entry, branch in zip(entries, branches))
    return text if same else None


def _reads_back(entry: Entry, legend: Legend, reading: ConditionReading) -> bool:
    """Whether ``entry``, written as a row with its Condition, imports as itself
    (sheets/effect_sheet.py, _row_entries): its branch of its text reads its
    text, its unread pieces, and effects its own columns do not contradict."""
    branches = _branches(entry.text, legend, reading)
    if entry.condition is not None and len(branches) > 1:
        mine = [b for b in branches if b.condition is not None and condition_feature(b.condition) == condition_feature(entry.condition)]
        branches = tuple(mine[:1])
    if len(branches) != 1 or branches[0].text != entry.text or branches[0].unread != entry.unread:
        return False
    effects = branches[0].effects
    return (all(getattr(effects, name) in (0, getattr(entry, name)) for name in _GIVEN_FIELDS)
            and all(getattr(effects, name) == getattr(entry, name) for name in _TEXT_FIELDS)
            and effects.death_in in (None, entry.death_in) and _conditions_read_back(entry, effects))


def _conditions_read_back(entry: Entry, effects: Effects) -> bool:
    """Whether the rest of a critical its text (and its Effects tags) read is the entry's own."""
    return tag_conditions(entry.effects, conditions_of(effects)) == conditions_of(entry)


def _roll_kind_key(table: EffectTable) -> list[tuple[str, CellValue]]:
    """Only a critical or fumble table rolled open-ended (`Roll kind | oeh`) says so."""
    return [] if table.roll is RollKind.D100 else [("Roll kind", table.roll.value)]


def _write_printed_entries(sheet: Worksheet, row: int, table: EffectTable) -> None:
    """The grid as the book prints it: `Roll | A | B | ...`, a cell per range and column."""
    try:
        rows = printed_effect_rows(table)
    except ValueError as exc:
        raise ValueError(f"{table.kind.value} table {table.name!r}: {exc}") from None
    grid_header(sheet, row, [PRINTED_ROLL, *table.columns])
    for r, (label, cells) in enumerate(rows, start=row + 1):
        put(sheet, r, 1, label)
        for c, text in enumerate(cells, start=2):
            put(sheet, r, c, text)
    for c in range(2, len(table.columns) + 2):
        sheet.column_dimensions[_cell(sheet, row, c).column_letter].width = 40


def printed_effect_rows(table: EffectTable) -> list[tuple[str, list[str]]]:
    """(range label, each column's cell text) of a printed table, ascending.
    Every column has the same ranges (the sheet gives one Roll column)."""
    by_range = [dict(zip(rows.ranges, rows.values)) for rows in table.column_rows]
    return [(span.label, [printed_cell(column[span], table.legend, table.condition_reading) for column in by_range])
            for span in table.column_rows[0].ranges]


_JOININGS_TRIED = 4  # own parts whose joinings (a space or a line break before each) are all tried; past it, two


def printed_cell(entries: tuple[Entry, ...], legend: Legend = DEFAULT_LEGEND,
                 reading: ConditionReading = ConditionReading.ALSO) -> str:
    """The text of one printed cell that reads back as ``entries``.

    A branch's entry holds the cell's shared text (a title, effects for
    everyone), then its own part (`Blow to head. With helm: +3H.`); a lone
    branch's other entry the shared text and what follows for everyone else;
    of several features' branches, the one for everyone else the shared text
    (and its `Otherwise:` part). The cell is the shared text once, then each
    own part. Which prefix is shared, and whether parts join by a space or a
    line break (`Title` with no full stop needs the break to open a branch),
    is settled by reading each candidate back with the importer's own parser."""
    if len(entries) == 1:
        return entries[0].text
    wanted = [(entry.condition, entry.text) for entry in entries]
    texts = [entry.text for entry in entries]
    splits = (_shared_splits(*texts) if len(texts) == 2 else
              [(shared, *owns) for shared, owns in _shared_prefixes(texts)])
    for shared, *owns in splits:
        for text in _joinings([shared, *owns]):
            if [(branch.condition, branch.text) for branch in _branches(text, legend, reading)] == wanted:
                return text
    label = entries[0].range.label
    raise ValueError(f"the branches of roll {label}{_in_column(entries[0])} ({', '.join(repr(t) for _, t in wanted)}) "
                     "cannot be written as one printed cell")


def _shared_splits(first: str, second: str) -> list[tuple[str, str, str]]:
    """(shared text, first's own part, second's own part) for every word
    boundary both texts share, the empty shared text first."""
    splits = [("", first, second)]
    for end, character in enumerate(first):
        if not second.startswith(first[: end + 1]):
            break
        if character == " " and second[end:end + 1] in (" ", ""):
            splits.append((first[:end], first[end + 1:], second[end + 1:]))
    if second == first[: len(second)] and first[len(second): len(second) + 1] == " ":
        splits.append((second, first[len(second) + 1:], ""))  # a lone branch, nothing for everyone else
    return splits


def _shared_prefixes(texts: list[str]) -> list[tuple[str, list[str]]]:
    """(shared text, each text's part after it) for every word boundary all
    the texts share, the empty shared text first: several features' branches
    (the one for everyone else may be the shared text alone)."""
    common = os.path.commonprefix(texts)
    return [("", list(texts))] + [(common[:end], [text[end + 1:] for text in texts])
                                  for end in range(1, len(common) + 1)
                                  if all(text[end:end + 1] in (" ", "") for text in texts)]


def _joinings(parts: list[str]) -> list[str]:
    """The non-empty parts joined by spaces, then with line breaks tried where one is needed
    (of many parts, all by spaces or all by line breaks: a bounded number of readings)."""
    present = [part for part in parts if part]
    if len(present) > _JOININGS_TRIED + 1:
        return [" ".join(present), "\n".join(present)]
    texts = [present[0]] if present else [""]
    for part in present[1:]:
        texts = [f"{text}{gap}{part}" for text in texts for gap in (" ", "\n")]
    return texts


def _branches(text: str, legend: Legend, reading: ConditionReading = ConditionReading.ALSO) -> tuple[Branch, ...]:
    try:
        return parse_branches(text, legend, reading)
    except ValueError:
        return ()


def _in_column(entry: Entry) -> str:
    return f" in column {entry.column}" if entry.column else ""


def write_scale(book: Sheets, item: Named[SeverityScale]) -> None:
    scale = item.value
    sheet = book.sheet(f"Severities {scale.name}")
    row = header_block(sheet, [("Kind", "severities"), ("Name", scale.name), *_ruleset_key(item.ruleset),
                               ("Source", item.source), ("Notes", item.notes)])
    grid_header(sheet, row, SEVERITY_HEADER)
    for r, level in enumerate(scale.levels, start=row + 1):
        level_cells: tuple[CellValue, ...] = (level.code, level.name, level.modifier)
        for c, value in enumerate(level_cells, start=1):
            put(sheet, r, c, value)


def write_list(book: Sheets, title: str, kind: str, header: tuple[str, ...], rows: list[tuple[CellValue, ...]],
               ruleset: str, keys: tuple[tuple[str, CellValue], ...] = ()) -> None:
    """A weapons or creatures sheet of one ruleset: one row per item (``keys``: more of its header block)."""
    sheet = book.sheet(title if fold(ruleset) == DEFAULT_RULESET else f"{title} {ruleset}")
    first = header_block(sheet, [("Kind", kind), *_ruleset_key(ruleset), *keys])
    grid_header(sheet, first, header)
    for r, values in enumerate(rows, start=first + 1):
        for c, value in enumerate(values, start=1):
            put(sheet, r, c, value)


def _by_ruleset(items: list[Named[T]]) -> dict[str, list[T]]:
    grouped: dict[str, list[T]] = {}
    for item in items:
        grouped.setdefault(item.ruleset, []).append(item.value)
    return grouped


def write_weapons(book: Sheets, weapons: list[Named[Weapon]]) -> None:
    for ruleset, values in _by_ruleset(weapons).items():
        columns = _weapon_columns(values)
        write_list(book, "Weapons", "weapons", (*WEAPON_HEADER, *columns), [
            (w.name, w.attack_table, w.max_result, w.clumsy, w.critical, w.secondary_critical,
             w.fumble_table, w.fumble_modifier, w.roll.value, w.notes, *_weapon_column_values(w, columns))
            for w in values], ruleset)


def _weapon_columns(weapons: list[Weapon]) -> tuple[str, ...]:
    """Critical column, Fumble column, Max critical: those some weapon sets (version 1 sheets stay as they were)."""
    return tuple(name for name in WEAPON_COLUMNS if any(_weapon_column_values(w, (name,))[0] for w in weapons))


def _weapon_column_values(weapon: Weapon, columns: tuple[str, ...]) -> tuple[str | None, ...]:
    values = dict(zip(WEAPON_COLUMNS, (weapon.critical_column, weapon.fumble_column, weapon.max_critical)))
    return tuple(values[name] for name in columns)


def write_creatures(book: Sheets, creatures: list[Named[Creature]], death_at: dict[str, int] | None = None) -> None:
    """A creatures sheet per ruleset, with its ruleset's `Death at` (a ruleset with one and no creature: a sheet
    with no rows, to carry it)."""
    death_at = death_at or {}
    grouped = _by_ruleset(creatures)
    for ruleset in death_at:
        grouped.setdefault(ruleset, [])
    for ruleset, values in grouped.items():
        attacks = any(c.attacks for c in values)
        header = CREATURE_HEADER if attacks else tuple(h for h in CREATURE_HEADER if h != ATTACKS_COLUMN)
        keys = (("Death at", death_at[ruleset]),) if ruleset in death_at else ()
        write_list(book, "Creatures", "creatures", header, [
            (c.name, c.defense, c.armor, c.rank.value, c.hp, ", ".join(c.features) or None,
             *([attacks_text(c.attacks) or None] if attacks else []), c.notes) for c in values], ruleset, keys)


def write_export(target: Target, export: Export) -> None:
    book = Sheets()
    for scale in export.scales:
        write_scale(book, scale)
    for effect in export.critical + export.fumble:
        write_effect(book, effect)
    for attack in export.attack:
        write_attack(book, attack)
    if export.weapons:
        write_weapons(book, export.weapons)
    if export.creatures or export.death_at:
        write_creatures(book, export.creatures, export.death_at)
    if not book.titles:
        raise ValueError("nothing to export")
    book.save(target)


# ---------------------------------------------------------------- templates
@dataclass(frozen=True)
class TemplateLists:
    """Names the drop-downs of a template offer (from the database)."""

    attack: tuple[str, ...] = ()
    critical: tuple[str, ...] = ()
    fumble: tuple[str, ...] = ()
    armor: tuple[str, ...] = ()
    severities: tuple[str, ...] = tuple(level.code for level in DEFAULT_SCALE.levels)


INSTRUCTIONS = {
    "attack": "Fill every cell: a dash (—) misses, 0 connects for no damage, 7 is 7 hits, 16 Mod is 16 hits and a Moderate critical, "
              "16 Mod Cut names the critical table, F fumbles. Rows may be ascending or descending, without gaps; results below "
              "the lowest row miss; the last row may be open (176+). UM 96-100 rows are read by the unmodified die, whatever "
              "the modifiers; Automatic miss | none in the header block reads every row (by default 10 or less misses).",
    "critical": "One row per roll range, 1 up to 100 + the largest severity modifier (150 by default). Hits, Bleed, Stun and Penalty "
                "are numbers; Effects are comma-separated tags; a range may appear twice with Condition 'helm' and 'not helm'. "
                "A printed layout is also read: Roll | A | B | C | D | E (a column per severity, rows 1-100) or "
                "Roll | Normal | Magic | ... (the weapon's Critical column picks it), each cell an entry in printed notation "
                "(Foe reels. +5H – 2∑ – 1∫ – (-10); With helm: +3H. Without helm: +6H – 3∑∏.).",
    "fumble": "One row per roll range from 1 up; the last row may be open (121+) to catch large fumble modifiers. "
              "A printed layout is also read: Roll | 1HE | 1HC | 2H | ... (a column per weapon category, the weapon's "
              "Fumble column picks it), each cell an entry in printed notation (Trips. +2H – 1∑).",
    "weapons": "One weapon per row. Attack table, Critical and Fumble table name tables in this workbook or already imported; "
               "Clumsy is 4 or 1-4; Roll is oe (default), oeh, oel or d100. Optional columns may follow Notes: Critical column "
               "and Fumble column, the column the weapon reads in printed critical and fumble tables (Magic, 2H), and Max "
               "critical, the highest severity its criticals reach (C).",
    "creatures": "One creature per row. Armor is an armor column of the attack tables; Rank is normal, heroic or epic; "
                 "Features are comma-separated (helm, metal armor). Attacks are weapons and their CMB, separated by ; "
                 "(Scimitar 55; Bite 40, or 55 Scimitar as bestiaries print it), the first the one used unless another "
                 "is named; each a weapon of this workbook or already imported.",
    "severities": "Lowest severity first. Cells may use the code or the name; the modifier is added to the critical roll.",
}


def _list_validation(sheet: Worksheet, values: tuple[str, ...], cells: str, title: str) -> None:
    from openpyxl.worksheet.datavalidation import DataValidation

    formula = '"' + ",".join(values) + '"'
    if not values or len(formula) > 255 or any("," in v or '"' in v for v in values):
        return  # Excel's inline lists hold 255 characters without commas
    validation = DataValidation(type="list", formula1=formula, allow_blank=True, showDropDown=False)
    validation.error, validation.errorTitle = f"Choose a {title} from the list", title
    validation.prompt, validation.promptTitle = f"Choose a {title}", title
    sheet.add_data_validation(validation)
    validation.add(cells)


def _prompt(sheet: Worksheet, cells: str, title: str, text: str) -> None:
    from openpyxl.worksheet.datavalidation import DataValidation

    validation = DataValidation(allow_blank=True)
    validation.prompt, validation.promptTitle = text[:255], title[:32]
    sheet.add_data_validation(validation)
    validation.add(cells)


def parse_rows(spec: str) -> list[str]:
    """``11-175/5`` → 11-15, 16-20, ..., 171-175 (the last band may be shorter)."""
    m = re.fullmatch(r"\s*(\d+)\s*-\s*(\d+)\s*(?:/\s*(\d+))?\s*", spec)
    if not m or int(m.group(1)) > int(m.group(2)) or (m.group(3) and int(m.group(3)) < 1):
        raise ValueError(f"--rows {spec!r} is not LOW-HIGH/STEP (e.g. 11-175/5)")
    low, high, step = int(m.group(1)), int(m.group(2)), int(m.group(3) or 1)
    if (high - low) // step > 1000:
        raise ValueError(f"--rows {spec!r} makes more than 1000 rows")
    bands = []
    for start in range(low, high + 1, step):
        end = min(start + step - 1, high)
        bands.append(str(start) if start == end else f"{start:02d}-{end:02d}" if low < 10 else f"{start}-{end}")
    return bands


DEFAULT_ROWS = {"attack": "11-175/5", "critical": "1-150/5", "fumble": "1-100/10"}
# `template --printed`: the layouts of a printed book (docs/workbook-format.md)
PRINTED_ROWS = {"attack": "1-150/5", "critical": "1-100/5", "fumble": "1-100/10"}
PRINTED_ARMOR = tuple(str(n) for n in range(20, 0, -1))  # armor types 20 down to 1
PRINTED_CATEGORIES = ("1HE", "1HC", "2H", "PA", "MIS", "TH")  # weapon categories of a fumble table
PRINTED_KINDS = (*DEFAULT_ROWS, "weapons")


def write_template(target: Target, kind: str, *, name: str | None, armor: tuple[str, ...], bands: list[str] | None,
                   lists: TemplateLists, printed: bool = False) -> dict:
    """Write a template to ``target`` (a path or a binary file); returns the
    name it gave (a table's, a scale's, the first weapon's or creature's) and
    its sheets. ``bands``: the first column's ranges (parse_rows), else the
    kind's default. ``printed``: a printed book's layout (attack: no
    automatic miss, rows from 01; critical: a column per severity, entries in
    printed notation; fumble: a column per weapon category; weapons: their
    Critical and Fumble columns)."""
    from openpyxl.styles import Alignment, Font

    book = Sheets()
    guide = book.sheet("Instructions")
    tables = kind in DEFAULT_ROWS
    sheet = book.sheet(name if name and kind in (*DEFAULT_ROWS, "severities") else kind.title())
    if tables:
        name = name or f"New {kind} table"
        pairs = [("Kind", kind), ("Name", name)]
        if kind == "critical":
            pairs.append(("Code", "X"))
        if printed and kind == "attack":
            pairs.append(("Automatic miss", "none"))
        row = header_block(sheet, [*pairs, ("Source", "your source"), ("Notes", "")])
        if kind == "attack":
            header: list[str] | tuple[str, ...] = ["Result", *armor]
        elif printed:
            header = ["Roll", *(lists.severities if kind == "critical" else PRINTED_CATEGORIES)]
        else:
            header = list(ENTRY_HEADER)
        grid_header(sheet, row, header)
        bands = list(bands or parse_rows((PRINTED_ROWS if printed else DEFAULT_ROWS)[kind]))
        if kind == "fumble" or (printed and kind == "attack"):
            bands[-1] = bands[-1].split("-")[0].lstrip("0") + "+"  # catch large modifiers and results
        for r, band in enumerate(bands, start=row + 1):
            put(sheet, r, 1, band)
        last = row + len(bands)
        end = sheet.cell(row=last, column=len(header)).coordinate
        if kind == "attack":
            codes = ", ".join(lists.severities)
            _prompt(sheet, f"B{row + 1}:{end}", "Attack cell", f"— (miss), F (fumble), 0, 7, or hits and a severity: 16 Mod ({codes})")
        elif printed:
            _prompt(sheet, f"B{row + 1}:{end}", "Entry", "As printed: Nick. +2H – 1∑ – (-10). With helm: ... Without helm: ...")
            for column in range(2, len(header) + 1):
                sheet.column_dimensions[_cell(sheet, row, column).column_letter].width = 30
        else:
            _list_validation(sheet, ("helm", "not helm"), f"I{row + 1}:I{last}", "condition")
            sheet.column_dimensions["C"].width = 60
    else:
        scale_name = [("Name", name)] if kind == "severities" else []  # without one, the scale is named after the file
        row = header_block(sheet, [("Kind", kind), *scale_name, ("Source", "your source")])
        header = {"weapons": WEAPON_HEADER, "creatures": CREATURE_HEADER, "severities": SEVERITY_HEADER}[kind]
        if printed:  # weapons: the columns a printed critical or fumble table is read in, and the cap of their criticals
            header = (*header, *WEAPON_COLUMNS)
        grid_header(sheet, row, header)
        first, last = row + 1, row + 50
        if name and kind in ("weapons", "creatures"):
            put(sheet, first, 1, name)  # the first row, to fill in
        if kind == "weapons":
            for letter, values, title in (("B", lists.attack, "attack table"), ("E", lists.critical, "critical table"),
                                          ("F", lists.critical, "critical table"), ("G", lists.fumble, "fumble table"),
                                          ("I", tuple(k.value for k in RollKind), "roll kind")):
                _list_validation(sheet, values, f"{letter}{first}:{letter}{last}", title)
        elif kind == "creatures":
            _list_validation(sheet, lists.armor, f"C{first}:C{last}", "armor")
            _list_validation(sheet, tuple(r.value for r in Rank), f"D{first}:D{last}", "rank")
            _prompt(sheet, f"G{first}:G{last}", "Attacks", "Weapons and their CMB, separated by ; (Scimitar 55; Bite 40)")
        else:
            for r, level in enumerate(DEFAULT_SCALE.levels, start=first):
                level_cells: tuple[CellValue, ...] = (level.code, level.name, level.modifier)
                for c, value in enumerate(level_cells, start=1):
                    put(sheet, r, c, value)
        for letter in "BCDEFGHIJ":
            sheet.column_dimensions[letter].width = 16
    # Kind notes: the importer skips this sheet without a warning, so a filled
    # template passes `tables lint --strict`.
    first = header_block(guide, [("Kind", NOTES_KIND)])
    lines = [f"How to fill this {kind} template (tables_app workbook format, version 1)", "",
             INSTRUCTIONS[kind], "",
             "The header block (Kind, Name, ...) starts at A1 and ends at the first blank row; the grid follows.",
             "Leave no blank row inside the grid and nothing below it. This Instructions sheet (Kind notes) is skipped on import.",
             "Check your work with:  tables lint THIS_FILE.xlsx   then import it with:  tables import THIS_FILE.xlsx"]
    for r, line in enumerate(lines, start=first):
        put(guide, r, 1, line)
    guide.cell(row=first, column=1).font = Font(bold=True, size=13)
    guide.column_dimensions["A"].width = 110
    guide.cell(row=first + 2, column=1).alignment = Alignment(wrap_text=True)
    book.book.active = 1
    book.save(target)
    return {"name": name, "sheets": [s.title for s in book.book.worksheets]}
