"""A critical or fumble sheet: one entry per roll range, or two branches
of a range under a condition (docs/workbook-format.md, "critical", "fumble");
or a table as a book prints it, one column per severity, per attack kind or
per weapon category, every cell an entry in printed notation
(`Roll | A | B | C | D | E`, `Roll | 1HE | 1HC | 2H | ...`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace

from tables_app.domain.bounds import D100, EFFECT_LIMIT, HITS, PENALTY
from tables_app.domain.branches import MAX_BRANCHES, Branch, condition_in_mid_sentence, parse_branches
from tables_app.domain.effects import conditions_of, tag_conditions, unread_warning, words_not_read
from tables_app.domain.legend import DEFAULT_LEGEND, Legend
from tables_app.domain.names import fold, same_name
from tables_app.domain.ranges import Range, RangeTable
from tables_app.domain.severity import Severity, SeverityScale
from tables_app.domain.tables import (
    ColumnChoice,
    ConditionReading,
    EffectTable,
    Entry,
    RollKind,
    TableKind,
    condition_feature,
)
from tables_app.import_model import Defined
from tables_app.sheets.grid import ROLL_COLUMN
from tables_app.sheets.reading import Reading
from tables_app.sheets.shape import Grid
from tables_app.sheets.values import (
    as_int,
    as_tags,
    as_text,
    check_value,
    coordinate,
    is_blank,
    with_lines,
)


def read_effect_table(reading: Reading, grid: Grid, kind: TableKind, scale: SeverityScale, ruleset: str,
                      legend: Legend = DEFAULT_LEGEND) -> None:
    """``legend``: the book's key its entries are read with (Reading.legend_for)."""
    conditions = _condition_reading(reading, grid, ruleset)
    if conditions is None:  # every entry's effects would be suspect: not read
        return
    if "text" not in grid.columns:  # grid.py let no other sheet through without its Text column
        _read_printed_table(reading, grid, kind, scale, ruleset, legend, conditions)
        return
    name = grid.meta("name")
    located = _read_entries(reading, grid, legend, conditions)
    groups: dict[Range, list[tuple[Entry, str]]] = defaultdict(list)
    row_of: dict[Range, int] = {}  # the sheet row of each range's first entry, for quality warnings
    for entry, cell, _, number in located:
        groups[entry.range].append((entry, cell))
        row_of.setdefault(entry.range, number)
    rows: list[tuple[Range, tuple[Entry, ...]]] = []
    for table_range, members in groups.items():
        if _check_branches(reading, grid.sheet, members):
            rows.append((table_range, tuple(entry for entry, _ in members)))
    top = D100 + (scale.max_modifier if kind is TableKind.CRITICAL else 0)
    cells = [members[0][1] for members in groups.values()]
    reading.check_ranges(grid.sheet, list(groups), cells, must_cover_from=1, must_cover_to=top)
    sound = len({number for _, _, ok, number in located if ok})  # rows: a row with branches in its text is two entries
    if name is None or sound != len(grid.rows) or not rows:
        if not grid.rows:
            reading.problem(grid.sheet, coordinate(grid.header_row + 1, 1), "the grid has no rows")
        return
    code = _code(grid, kind)
    _define(reading, grid, EffectTable(kind, name, RangeTable(rows), code, scale, legend=legend, condition_reading=conditions),
            ruleset, tuple(row_of.items()))


def _condition_reading(reading: Reading, grid: Grid, ruleset: str) -> ConditionReading | None:
    """How the sheet's conditions after effects read (docs/workbook-format.md,
    "Branches inside a cell"): its own `Conditions | instead` (or `also`), else
    its workbook's ruleset sheet's, else `also`; None after a problem, named
    once on the key's cell."""
    written, sheet, cell = reading.setting(grid, "conditions", ruleset)
    if written is None:
        return ConditionReading.ALSO
    if fold(written) in {choice.value for choice in ConditionReading}:
        return ConditionReading(fold(written))
    if not any(p.sheet == sheet and p.cell == cell for p in reading.out.problems):  # a ruleset sheet's: said once
        reading.problem(sheet, cell, f"Conditions {written!r} must be also or instead")
    return None


def _code(grid: Grid, kind: TableKind) -> str | None:
    return grid.meta("code") if kind is TableKind.CRITICAL else None


def _define(reading: Reading, grid: Grid, table: EffectTable, ruleset: str, rows_at: tuple = (),
            columns_at: tuple[int, ...] = (), header_at: int = 0) -> None:
    """Check the table's name and code in its ruleset, and record it."""
    kind, name, code = table.kind, table.name, table.code
    if kind is TableKind.CRITICAL:
        _check_critical_name(reading, grid, name, ruleset)
    if code is not None:
        _check_code(reading, grid, name, code, ruleset)
    for key in ("code", "severities"):
        if kind is TableKind.FUMBLE and key in grid.header:
            reading.problem(grid.sheet, grid.header[key][1], f"only critical and attack tables have {key.title()} in the header block")
    # A ruleset sheet's Roll kind reaches its critical sheets only, as it always has (a fumble sheet
    # writes its own), so no workbook's fumbles change their dice
    if kind is TableKind.CRITICAL:
        written, sheet, cell = reading.setting(grid, "roll kind", ruleset)
    else:
        written, sheet, cell = grid.texts.get("roll kind"), grid.sheet, grid.cell_of("roll kind")
    if written is not None:  # `Roll kind | oeh`: large-creature criticals (and some fumbles), rolled open-ended high
        if fold(written) not in (RollKind.D100.value, RollKind.OEH.value):
            reading.problem(sheet, cell, f"Roll kind {written!r} must be d100 or oeh")
            return
        table = replace(table, roll=RollKind(fold(written)))
    target = reading.out.critical_tables if kind is TableKind.CRITICAL else reading.out.fumble_tables
    target.append(Defined(table, name, grid.sheet, grid.cell_of("name"), grid.meta("source"), grid.meta("notes"), ruleset,
                          rows_at=rows_at, columns_at=columns_at, header_at=header_at))


# ---------------------------------------------------------------- printed layouts

def _read_printed_table(reading: Reading, grid: Grid, kind: TableKind, scale: SeverityScale, ruleset: str,
                        legend: Legend, conditions: ConditionReading) -> None:
    """`Roll | <column> | <column> ...`: one Roll column for every column; each
    cell an entry in printed notation, its branches written inside it."""
    printed = [(key, column) for key, column in grid.column_order if key != ROLL_COLUMN]
    chosen = _column_choice(reading, grid, kind, scale, printed)
    rows, cells, numbers, broken = _read_printed_rows(reading, grid, printed, legend, conditions)
    # The column is chosen by the severity or the attack, never by a modified roll: rows cover 1-100.
    covered = reading.check_ranges(grid.sheet, [r for r, _ in rows], cells, must_cover_from=1, must_cover_to=D100)
    if not grid.rows:
        reading.problem(grid.sheet, coordinate(grid.header_row + 1, 1), "the grid has no rows")
        return
    name = grid.meta("name")
    if name is None or chosen is None or broken or not covered or not rows:
        return
    choice, names = chosen
    column_rows = tuple(
        RangeTable([(span, tuple(_entry(span, branch, names[i]) for branch in branches[i])) for span, branches in rows])
        for i in range(len(names))
    )
    table = EffectTable(kind, name, column_rows[0], _code(grid, kind), scale, choice=choice, columns=names,
                        column_rows=column_rows, legend=legend, condition_reading=conditions)
    _define(reading, grid, table, ruleset, tuple(zip((span for span, _ in rows), numbers)),
            columns_at=tuple(column for _, column in printed), header_at=grid.header_row)


def _column_choice(reading: Reading, grid: Grid, kind: TableKind, scale: SeverityScale,
                   printed: list[tuple[str, int]]) -> tuple[ColumnChoice, tuple[str, ...]] | None:
    """How the table's column is chosen, and the columns' names; None after a problem.

    A critical table whose every column names a severity of its scale is read
    by severity (each column named by the severity's code); any other
    critical table, and every printed fumble table, by the attack (a weapon's
    Critical column or Fumble column)."""
    written = tuple(key for key, _ in printed)
    if kind is TableKind.FUMBLE:
        return ColumnChoice.ATTACK, written
    severities = [scale.find(key) for key in written]
    if None in severities:
        named = [key for key, severity in zip(written, severities) if severity is not None]
        if named:  # a typo in one severity would silently make the table read by the attack
            others = ", ".join(repr(key) for key, severity in zip(written, severities) if severity is None)
            reading.warn(grid.sheet, f"columns {', '.join(named)} name severities of scale {scale.name!r} but {others} "
                                     "does not: the columns are chosen by the attack (a weapon's Critical column), not by severity")
        return ColumnChoice.ATTACK, written
    every = [severity for severity in severities if severity is not None]  # all of them: None is not among them
    if not _one_column_per_severity(reading, grid, scale, printed, every):
        return None
    return ColumnChoice.SEVERITY, tuple(severity.code for severity in every)


def _one_column_per_severity(reading: Reading, grid: Grid, scale: SeverityScale, printed: list[tuple[str, int]],
                             severities: list[Severity]) -> bool:
    first: dict[str, str] = {}  # severity code → the column that names it
    ok = True
    for (key, column), severity in zip(printed, severities):
        if severity.code in first:
            reading.problem(grid.sheet, coordinate(grid.header_row, column),
                            f"column {key!r} is severity {severity.code} again (column {first[severity.code]!r})")
            ok = False
        first.setdefault(severity.code, key)
    missing = [level.code for level in scale.levels if level.code not in first]
    if missing:
        after_last = coordinate(grid.header_row, max(column for _, column in printed) + 1)
        codes = ", ".join(level.code for level in scale.levels)
        reading.problem(grid.sheet, after_last, f"no column for severit{'y' if len(missing) == 1 else 'ies'} "
                                                f"{', '.join(missing)}: a table read by severity has a column for "
                                                f"every severity of scale {scale.name!r} ({codes})")
        ok = False
    return ok


def _read_printed_rows(reading: Reading, grid: Grid, printed: list[tuple[str, int]], legend: Legend,
                       conditions: ConditionReading) -> tuple[list[tuple[Range, list[tuple[Branch, ...]]]], list[str], list[int], bool]:
    """Every row with a readable range (each range once) and its cells'
    branches, column by column; the range cells and their sheet rows; whether
    anything was unreadable."""
    rows: list[tuple[Range, list[tuple[Branch, ...]]]] = []
    cells: list[str] = []
    numbers: list[int] = []
    first: dict[Range, str] = {}
    broken = False
    for row, span in zip(grid.rows, reading.read_rolls(grid, ROLL_COLUMN)):  # a column of tops reads as a whole
        number, values = row
        range_cell = reading.cell(grid, row, ROLL_COLUMN)[1]
        read = [_printed_cell(reading, grid.sheet, values[column - 1] if column <= len(values) else None, (number, column),
                              legend, conditions) for _, column in printed]
        found = [branches for branches in read if branches is not None]
        broken = broken or span is None or len(found) != len(read)
        if span is None:
            continue
        if span in first:
            reading.problem(grid.sheet, range_cell, f"roll {span.label} appears twice (row {first[span]}); in a printed "
                                                    "layout a cell holds its branches (With helm: ... Without helm: ...)")
            broken = True
            continue
        first[span] = range_cell
        rows.append((span, found))
        cells.append(range_cell)
        numbers.append(number)
    return rows, cells, numbers, broken


def _printed_cell(reading: Reading, sheet: str, value: object, where: tuple[int, int], legend: Legend,
                  conditions: ConditionReading) -> tuple[Branch, ...] | None:
    """A cell's branches (one, condition None, when it has none); None after a problem."""
    if (reason := check_value(value)) is not None:
        reading.problem(sheet, coordinate(*where), reason)
        return None
    if is_blank(value):
        reading.empty(sheet, where, "empty entry", "empty entries")
        return None
    return _branches(reading, sheet, coordinate(*where), with_lines(value), legend, conditions)  # a line break opens a sentence


def _branches(reading: Reading, sheet: str, cell: str, text: str, legend: Legend,
              conditions: ConditionReading = ConditionReading.ALSO) -> tuple[Branch, ...] | None:
    """The branches of an entry's text, read with ``legend``; None after a problem.
    A penalty for a time (`-20 to activity for 3 rounds`) is a warning on the cell:
    it stays in the text, as the fields hold lasting penalties only."""
    try:
        branches = parse_branches(text, legend, conditions)
    except ValueError as exc:
        reading.problem(sheet, cell, str(exc))
        return None
    for warning in dict.fromkeys(branch.warning for branch in branches if branch.warning):
        reading.warn_at(sheet, cell, warning)
    if (unplaced := condition_in_mid_sentence(text, legend)) is not None:
        reading.warn_at(sheet, cell, unplaced)
    timed = dict.fromkeys(t for branch in branches for t in branch.effects.timed)
    for piece in timed:
        reading.warn_at(sheet, cell, f"{piece!r} is a penalty for a time: it stays in the text "
                                     "(an entry's penalty is a lasting one)")
    for piece in dict.fromkeys(u for branch in branches for u in branch.unread if u not in timed):
        reading.warn_at(sheet, cell, unread_warning(piece))
    return branches


def _entry(span: Range, branch: Branch, column: str | None, **given: object) -> Entry:
    """The entry of one branch: its effects as the text reads them (``given``:
    a one-column row's own fields, which the text agrees with)."""
    effects = branch.effects
    read = dict(hits=effects.hits, bleed=effects.bleed, stun=effects.stun, penalty=effects.penalty,
                must_parry=effects.must_parry, no_parry=effects.no_parry, attacker_bonus=effects.attacker_bonus,
                death_in=effects.death_in, parry_penalty=effects.parry_penalty)
    read |= tag_conditions(given.get("effects", ()), conditions_of(effects))  # type: ignore[arg-type]  # its tags
    entry = Entry(span, branch.text, condition=branch.condition, column=column, unread=branch.unread,
                  **(read | given))  # type: ignore[arg-type]  # checked against every field; each is its own's type
    # a death, a stun or a parry its words say and no field holds: flagged too (the lint's quality warning says so)
    # (in the text its effects were read from: what `Conditions | instead` replaced is no word left unread)
    implied = words_not_read(effects.text, entry.unread, died=entry.death_in is not None, stunned=entry.stun > 0,
                             parried=entry.must_parry + entry.no_parry > 0, tags=entry.effects)
    return replace(entry, unread=entry.unread + implied) if implied else entry


# ---------------------------------------------------------------- one column (version 1)

_NUMBER_COLUMNS = ("hits", "bleed", "stun", "penalty")


def _read_entries(reading: Reading, grid: Grid, legend: Legend, conditions: ConditionReading
                  ) -> list[tuple[Entry, str, bool, int]]:
    """Every entry of a row with a readable range, its range cell, whether it
    is sound, and its row number. The Text's effects are read as in a printed
    cell (docs/workbook-format.md, "Effects in the one-column layout"): the
    row's own Hits, Bleed, Stun and Penalty, and a death among its Effects
    tags, must agree with them; a text with branches and no Condition is the
    range's two branches."""
    entries = []
    for row, parsed_range in zip(grid.rows, reading.read_rolls(grid, ROLL_COLUMN)):  # a column of tops reads as a whole
        range_cell = reading.cell(grid, row, ROLL_COLUMN)[1]
        text = reading.value(grid, row, "text", with_lines, required=True)  # a line break opens a sentence
        given, sound = _given_numbers(reading, grid, row)
        tags = reading.value(grid, row, "effects", as_tags, default=())
        condition = reading.value(grid, row, "condition", lambda v: fold(as_text(v)))
        title = reading.value(grid, row, "title", as_text)
        text_cell = coordinate(row[0], grid.columns["text"])
        branches = None if text is None else _branches(reading, grid.sheet, text_cell, text, legend, conditions)
        if parsed_range is None:
            continue
        read = None if branches is None or not sound or tags is None else _row_entries(
            reading, grid, row, text_cell, parsed_range, branches, condition, given, title, tags)
        if read is None:
            # keep the range so coverage is judged on what the author wrote
            entries.append((Entry(parsed_range, "", condition=condition), range_cell, False, row[0]))
            continue
        entries.extend((entry, range_cell, True, row[0]) for entry in read)
    return entries


def _given_numbers(reading: Reading, grid: Grid, row: tuple) -> tuple[dict[str, int], bool]:
    """The row's Hits, Bleed, Stun and Penalty that are filled in; whether all read."""
    given: dict[str, int] = {}
    sound = True
    _, values = row
    known = reading.numbers
    for column in _NUMBER_COLUMNS:
        index = grid.columns.get(column)
        if index is None or index > len(values) or is_blank(values[index - 1]):
            continue
        value = values[index - 1]
        key = (column, type(value), value)  # the same few numbers fill every table: each read once
        number = known.get(key)
        if number is None:
            number = reading.value(grid, row, column, _number_reader(column))
            if number is not None:
                known[key] = number
        if number is None:
            sound = False
        else:
            given[column] = number
    return given, sound


def _number_reader(column: str) -> Callable[[object], int]:
    """How a one-column row's number is read: Hits, Bleed and Stun are counts, Penalty a modifier."""
    if column == "penalty":
        return lambda v: as_int(v, "Penalty", PENALTY)
    return lambda v: _count(v, column.title())


def _row_entries(reading: Reading, grid: Grid, row: tuple, text_cell: str, span: Range, branches: tuple[Branch, ...],
                 condition: str | None, given: dict[str, int], title: str | None, tags: tuple[str, ...]
                 ) -> list[Entry] | None:
    """A one-column row's entries (its text's branches, when it holds some and the row has no
    Condition); None after a problem."""
    if condition is not None and len(branches) > 1:  # the row is one branch: its own part of the text
        mine = [b for b in branches if b.condition is not None and condition_feature(b.condition) == condition_feature(condition)]
        if not mine:
            features = ", ".join(sorted({repr(b.condition) for b in branches if b.condition}))
            reading.problem(grid.sheet, text_cell, f"Condition {condition!r}, but the text's branches are {features}")
            return None
        branches = (replace(mine[0], condition=condition),)
    elif condition is not None:
        branches = (replace(branches[0], condition=condition),)
    try:
        tag_death = _tag_death(tags)
    except ValueError as exc:
        reading.problem(grid.sheet, reading.cell(grid, row, "effects")[1], str(exc))
        return None
    entries = []
    for branch in branches:
        fields = dict(given)
        for column, number in given.items():
            read = getattr(branch.effects, column)
            if read and read != number:
                reading.problem(grid.sheet, reading.cell(grid, row, column)[1],
                                f"{column.title()} {number}, but the text reads {read} ({_field_words[column]})")
                return None
        if tag_death is not None:
            if branch.effects.death_in is not None and branch.effects.death_in != tag_death:
                reading.problem(grid.sheet, reading.cell(grid, row, "effects")[1],
                                f"the Effects say death in {tag_death}, but the text reads death in {branch.effects.death_in}")
                return None
            fields["death_in"] = tag_death
        entries.append(_entry(span, branch, None, title=title, effects=tags, **fields))
    return entries


_field_words = {"hits": "extra hits", "bleed": "hits a round", "stun": "rounds stunned", "penalty": "its penalty"}


def _tag_death(tags: tuple[str, ...]) -> int | None:
    """A death among the Effects tags: `death in 3`, `instant death` (0);
    ValueError for two, or rounds beyond an entry's counts."""
    deaths = []
    for tag in tags:
        words = fold(tag).split()
        if words == ["instant", "death"]:
            deaths.append((tag, 0))
        elif len(words) == 3 and words[:2] == ["death", "in"] and words[2].isascii() and words[2].isdigit():
            if len(words[2].lstrip("0")) > len(str(EFFECT_LIMIT)) or int(words[2]) > EFFECT_LIMIT:
                raise ValueError(f"Effects {tag!r}: more rounds than {EFFECT_LIMIT:,}")
            deaths.append((tag, int(words[2])))
    if len(deaths) > 1:
        raise ValueError(f"two deaths among the Effects: {deaths[0][0]!r} and {deaths[1][0]!r}")
    return deaths[0][1] if deaths else None


def _check_code(reading: Reading, grid: Grid, name: str, code: str, ruleset: str) -> None:
    """A code names one critical table of its ruleset and is nobody else's name or code there."""
    cell = grid.header["code"][1]
    key = fold(code)
    for other in reading.mine(reading.out.critical_tables, ruleset):
        if key in (fold(other.name), fold(other.value.code or "")):
            reading.problem(grid.sheet, cell, f"critical code {code!r} already names {other.name!r} ({other.sheet})")
            return
    if key == fold(name):
        return
    found = reading.catalog.contents(ruleset).critical.get(key)
    if found and not same_name(found[0], name) and not reading.catalog.owned_by("critical", ruleset, found[0], reading.raw.file_name):
        reading.problem(grid.sheet, cell, f"critical code {code!r} already names critical table {found[0]!r}")


def _check_critical_name(reading: Reading, grid: Grid, name: str, ruleset: str) -> None:
    """A table's name must not be another table's code in its ruleset (`S` would be ambiguous)."""
    key = fold(name)
    for other in reading.mine(reading.out.critical_tables, ruleset):
        if other.value.code and fold(other.value.code) == key:
            reading.problem(grid.sheet, grid.cell_of("name"), f"name {name!r} is the code of critical table {other.name!r}")
            return
    found = reading.catalog.contents(ruleset).critical.get(key)
    if found and fold(found[0]) != key and not reading.catalog.owned_by("critical", ruleset, found[0], reading.raw.file_name):
        reading.problem(grid.sheet, grid.cell_of("name"), f"name {name!r} is the code of critical table {found[0]!r}")


def _check_branches(reading: Reading, sheet: str, members: list[tuple[Entry, str]]) -> bool:
    """A range's rows: one; two, a feature and its negation; or conditions on
    several distinct features and one row without a Condition, for every
    other target (docs/workbook-format.md, "critical")."""
    conditions = [entry.condition for entry, _ in members]
    cell = members[-1][1]
    label = members[0][0].range.label
    if len(members) == 1:
        if conditions[0] is not None:
            feature, _ = condition_feature(conditions[0])
            reading.problem(sheet, cell, f"condition {conditions[0]!r} needs a second row {label} for the other branch ({feature!r} / 'not {feature}')")
            return False
        return True
    if len(members) == 2:
        if None in conditions:
            reading.problem(sheet, cell, f"roll {label} appears twice; give both rows a Condition (e.g. 'helm' and 'not helm')")
            return False
        (f1, p1), (f2, p2) = (condition_feature(c) for c in conditions if c is not None)
        if f1 != f2 or p1 == p2:
            reading.problem(sheet, cell, f"the branches of {label} must be a feature and its negation ('helm' / 'not helm'), not {conditions[0]!r} / {conditions[1]!r}")
            return False
        return True
    several = f"a range has one row, a feature and its negation, or up to {MAX_BRANCHES} features and a row without a Condition for every other target"
    if len(members) > MAX_BRANCHES + 1:
        reading.problem(sheet, cell, f"roll {label} appears {len(members)} times; {several}")
        return False
    if conditions.count(None) != 1:
        reading.problem(sheet, cell, f"roll {label} appears {len(members)} times with {conditions.count(None)} rows without a "
                                     f"Condition; {several}")
        return False
    seen: dict[str, str] = {}
    for condition in conditions:
        if condition is None:
            continue
        feature, _ = condition_feature(condition)
        if feature in seen:
            reading.problem(sheet, cell, f"the branches of {label} name feature {feature!r} twice ({seen[feature]!r} / "
                                         f"{condition!r}); {several}, each on its own feature")
            return False
        seen[feature] = condition
    return True


def _count(value: object, what: str) -> int:
    """Hits, Bleed, Stun: 0 or more, within HITS (domain/bounds.py)."""
    return as_int(value, what, HITS, lambda n: f"{what} must not be negative, not {n}" if n < 0 else None)
