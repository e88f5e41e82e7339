"""Quality warnings beyond errors (`tables lint`): things that import but are
probably mistakes. Warnings never fail an import unless --strict."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from tables_app.domain.bounds import AUTOMATIC_MISS, D100
from tables_app.domain.cells import Outcome
from tables_app.domain.kinds import LABELS, TABLE_KINDS
from tables_app.domain.rulesets import name_key
from tables_app.domain.effects import DEATH_WORDS, PARRY_WORDS, STUN_WORDS, has_effects, parse_effects
from tables_app.domain.cells import AttackCell
from tables_app.domain.legend import Legend
from tables_app.domain.tables import AttackTable, ColumnChoice, EffectTable, Entry, RollKind, TableKind
from tables_app.errors import Problem
from tables_app.import_model import Defined, ParsedWorkbook
from tables_app.sheets.values import coordinate

T = TypeVar("T")
Warn = Callable[[str, str | None, str], None]  # (sheet, cell, message): one warning

ARMOR_DIGITS = 18  # numbered armor columns (`1`..`20`) compared as numbers; longer ones as text
WIDE_CLUMSY = 10  # a Clumsy Range above 1-10 fumbles more than one attack in ten
KNOWN_ARMOR_ORDERS = (("na", "la", "ma", "ha"),)
# The other side of an entry: the attacker on a critical table, the opponent on a fumble table.
OTHER_PARTY = {TableKind.CRITICAL: ("attacker", re.compile(r"(?i)\battacker\b"), "its target's"),
               TableKind.FUMBLE: ("opponent", re.compile(r"(?i)\b(?:foe|opponent|enemy)\b"), "the fumbler's")}
SENTENCE = re.compile(r"(?<=[.!?;])\s+")


def quality_warnings(parsed: ParsedWorkbook, used: dict[str, set[tuple[str, str]]], attack_tops: dict[tuple[str, str], int | None],
                     weapons_in_import: bool = True) -> list[Problem]:
    """``used``: tables (name_key: ruleset and name, folded) used by weapons and cells elsewhere;
    ``attack_tops``: the top of every attack table in the database (None: open);
    ``weapons_in_import``: whether the import (any of its workbooks) defines weapons.

    A table nothing uses is a warning only in an import with weapons: then it
    is probably a misspelt name. Tables alone (a filled template) are waiting
    for their weapons, and are used directly meanwhile (--attack-table)."""
    warnings: list[Problem] = []

    def warn(sheet: str, cell: str | None, message: str) -> None:
        warnings.append(Problem(parsed.file_name, sheet, cell, message))

    tops = dict(attack_tops)
    for attack in parsed.attack_tables:
        table = attack.value
        tops[name_key(attack.ruleset, table.name)] = table.rows.highest
        _falling_damage(attack, warn)
        _armor_order(table.armors, attack.sheet, warn, _cell(attack, None, 0))
    for effect_table in [*parsed.critical_tables, *parsed.fumble_tables]:
        _unread_death(effect_table, warn)
        _unread_stun(effect_table, warn)
        _unread_parry(effect_table, warn)
        _effects_of_the_other_party(effect_table, warn)
    for critical_table in parsed.critical_tables:
        _unrolled_rows(critical_table, warn)
    for item in parsed.weapons:
        weapon = item.value
        top = tops.get(name_key(item.ruleset, weapon.attack_table))
        if weapon.max_result is not None and top is not None and weapon.max_result > top:
            warn(item.sheet, item.cell, f"{weapon.name}: Max result {weapon.max_result} is above the top of {weapon.attack_table} ({top}); results above it read the top row anyway")
        if weapon.max_result is not None and weapon.max_result <= AUTOMATIC_MISS:
            warn(item.sheet, item.cell, f"{weapon.name}: Max result {weapon.max_result} always misses (10 or less)")
        if weapon.clumsy > WIDE_CLUMSY:
            warn(item.sheet, item.cell, f"{weapon.name}: Clumsy range 1-{weapon.clumsy} fumbles {weapon.clumsy}% of attacks")
    in_workbook: dict[str, set[tuple[str, str]]] = {"attack": set(), "critical": set(), "fumble": set()}
    for item in parsed.weapons:
        w, ruleset = item.value, item.ruleset
        in_workbook["attack"].add(name_key(ruleset, w.attack_table))
        in_workbook["critical"] |= {name_key(ruleset, n) for n in (w.critical, w.secondary_critical) if n}
        if w.fumble_table:
            in_workbook["fumble"].add(name_key(ruleset, w.fumble_table))
    for attack in parsed.attack_tables:  # every critical a cell names: UM rows' and a cell's further ones too
        table = attack.value
        rows = [*table.rows.values, *(table.unmodified.values if table.unmodified else ())]
        distinct = {id(c): c for cells in rows for c in cells}  # equal cells are mostly one object: each looked at once
        named = {critical for c in distinct.values() for _, critical in c.criticals if critical}
        in_workbook["critical"] |= {name_key(attack.ruleset, critical) for critical in named}
    for kind in TABLE_KINDS:
        for item in parsed.items(kind) if weapons_in_import else ():
            key = name_key(item.ruleset, item.name)
            if key not in used[kind] and key not in in_workbook[kind]:
                warn(item.sheet, item.cell, f"no weapon{' or attack cell' if kind == 'critical' else ''} uses {LABELS[kind]} {item.name!r}")
    return warnings


def _cell(item: Defined[T], span: object, column: int | None = None) -> str | None:
    """Where a warning points: the cell of ``item``'s row and column, if known."""
    found = item.position(span, column)
    return None if found is None else coordinate(*found)


def _unrolled_rows(item: Defined[EffectTable], warn: Warn) -> None:
    """Critical rows above the highest roll: d100 + the largest modifier on
    one column, the d100 as it fell on a printed table (the column is chosen).
    A `Roll kind | oeh` die opens past any row, so all of its rows are rolled
    (large-creature tables run to 251+)."""
    table = item.value
    if table.roll is RollKind.OEH:
        return
    if table.choice is ColumnChoice.NONE:
        reach, how = D100 + table.scale.max_modifier, "d100 + the largest modifier reaches"
    else:
        reach, how = D100, "a printed table reads the d100 as it fell (the column is chosen, the roll not modified), which reaches"
    beyond = [span for span in table.rows.ranges if span.low > reach]
    if beyond:
        rows = beyond[0].label if len(beyond) == 1 else f"{beyond[0].label} to {beyond[-1].label}"
        warn(item.sheet, _cell(item, beyond[0]), f"rows {rows} can never be rolled: {how} {reach}")


def _unread_death(item: Defined[EffectTable], warn: Warn) -> None:
    """Entries whose text says the target dies but read no death, once per cell."""
    _unread(item, warn, DEATH_WORDS,
            lambda entry: entry.death_in is not None or any("death" in tag or DEATH_WORDS.search(tag) for tag in entry.effects),
            "no death was read: write 'dies in 6 rounds' or 'instant death' if it kills")


def _unread_stun(item: Defined[EffectTable], warn: Warn) -> None:
    """Entries whose text says the target is stunned but read no stun (`Foe quite stunned`), once per cell."""
    _unread(item, warn, STUN_WORDS, lambda entry: entry.stun > 0 or any(STUN_WORDS.search(tag) for tag in entry.effects),
            "no stun was read: write 'stunned 2 rounds' (or the legend's sign, 2∑) if it stuns")


def _unread_parry(item: Defined[EffectTable], warn: Warn) -> None:
    """Entries whose text words a parry (`cannot parry`, `must parry`) but read none, once per cell."""
    _unread(item, warn, PARRY_WORDS, lambda entry: entry.must_parry > 0 or entry.no_parry > 0,
            "no parry was read: write 'must parry 2 rounds' or 'unable to parry for 2 rounds' (or the legend's signs)")


def _effects_of_the_other_party(item: Defined[EffectTable], warn: Warn) -> None:
    """A sentence about the other side of the entry that reads effects
    (`falls upon attacker, who then takes 20 hits` on a critical table, `Foe
    is stunned 2 rounds laughing` on a fumble table): an entry's effects are
    its target's (the fumbler's, on a fumble table), so the reading is said
    at the cell, once."""
    table = item.value
    party, other, owner = OTHER_PARTY[table.kind]
    columns = table.column_rows or (table.rows,)
    for row, span in enumerate(columns[0].ranges):
        for column, rows in enumerate(columns):
            for entry in {e.text: e for e in rows.values[row]}.values():
                found = next((s for s in SENTENCE.split(entry.text) if other.search(s) and _reads_effects(s, table.legend)), None)
                if found is not None:
                    where = f" {table.columns[column]}" if table.column_rows else ""
                    warn(item.sheet, _cell(item, span, column if table.column_rows else None),
                         f"{span.label}{where}: {found.strip()[:60]!r} reads effects in a sentence about the "
                         f"{party}; an entry's effects are {owner}")
                    break


def _reads_effects(sentence: str, legend: Legend) -> bool:
    try:
        found = parse_effects(sentence, legend)
    except ValueError:
        return False
    return has_effects(found, but=("attacker_bonus",))  # the attacker's bonus is the attacker's anyway


def _unread(item: Defined[EffectTable], warn: Warn, words: re.Pattern[str], read: Callable[[Entry], bool],
            advice: str) -> None:
    """Entries whose text has one of ``words`` though ``read`` says the effect
    was not read (or is a one-column entry's tag): one warning per cell."""
    table = item.value
    columns = table.column_rows or (table.rows,)  # a printed table's columns share their rows
    for row, span in enumerate(columns[0].ranges):  # in reading order: row by row, left to right
        for column, rows in enumerate(columns):
            for entry in rows.values[row]:
                if read(entry):
                    continue
                if word := words.search(entry.text):
                    where = f" {table.columns[column]}" if table.column_rows else ""
                    warn(item.sheet, _cell(item, span, column if table.column_rows else None),
                         f"{span.label}{where} says {word.group()!r} but {advice}")
                    break


def _falling_damage(item: Defined[AttackTable], warn: Warn) -> None:
    """Damage that falls as the result rises, once per column. A cell is worth
    more when it calls a more severe critical, then when it has more hits:
    printed tables trade hits for a critical (`7` below `5 A`), which is no fall.
    Severities compare only on one critical table: printed creature tables
    move from one table to another (`10 E Tiny` below `11 A Puncture`), and
    weapons alternate Slash, Krush and Puncture row by row, so a critical is
    judged against the best one on its own table so far; a cell without a
    critical, against the best of the whole column."""
    table, sheet = item.value, item.sheet
    levels = {level.code: i for i, level in enumerate(table.scale.levels)}
    automatic = table.automatic_miss
    rows = [(span, cells) for span, cells in zip(table.rows.ranges, table.rows.values)
            if automatic is None or span.high is None or span.high > automatic]  # rows at or below it are never read
    # Each distinct cell judged once (printed tables repeat a few hundred cells), then every row as a tuple.
    judged: dict[int, tuple[tuple[int, int], object]] = {}
    for _, cells in rows:
        for cell in cells:
            if id(cell) not in judged:
                judged[id(cell)] = _worth(cell, levels)
    verdicts = [[judged[id(cell)] for cell in cells] for _, cells in rows]
    for column, armor in enumerate(table.armors):
        best: dict[object, tuple[tuple[int, int], int]] = {}  # critical table (_ALL: any cell) → worth, row index
        last = None
        for index, row in enumerate(verdicts):
            verdict = row[column]
            if verdict is last:
                continue  # the cell above judged the same: it changed nothing, so this one changes nothing either
            last = verdict
            worth, on = verdict
            if worth[0] == -2 and _ALL not in best:
                continue  # misses and fumbles low in a table are as printed
            previous = best.get(on)
            if previous is not None and worth < previous[0]:
                (was, was_cells), (span, cells) = rows[previous[1]], rows[index]
                warn(sheet, _cell(item, span, column),  # the cell where it falls
                     f"damage falls in column {armor}: {was.label} gives {was_cells[column].text}, {span.label} gives {cells[column].text}")
                break
            if previous is None or worth > previous[0]:
                best[on] = (worth, index)
            if on is not _ALL and ((overall := best.get(_ALL)) is None or worth > overall[0]):
                best[_ALL] = (worth, index)


def _worth(cell: AttackCell, levels: dict[str, int]) -> tuple[tuple[int, int], object]:
    """What a cell is worth (its critical's severity, then its hits) and the
    critical table it is judged on (_ALL for a cell without a critical)."""
    if cell.outcome in (Outcome.MISS, Outcome.FUMBLE):
        return ((-2, 0) if cell.outcome is Outcome.MISS else (-2, -1)), _ALL
    worth = (max((levels.get(code, -1) for code, _ in cell.criticals), default=-1), cell.hits)
    return worth, (cell.criticals[0][1] if cell.criticals else _ALL)


_ALL = object()  # _falling_damage's key for the best cell of a column, whatever its critical


def _armor_order(armors: tuple[str, ...], sheet: str, warn: Warn, cell: str | None = None) -> None:
    """Armor columns out of a known order, named at the first armor column's header."""
    keys = tuple(a.casefold() for a in armors)
    # ASCII digits only: `፩` and `²` are isdigit() but no int(); and no run of
    # thousands of digits reaches int() (a header is any text up to a cell's limit)
    if all(k.isascii() and k.isdigit() and len(k) <= ARMOR_DIGITS for k in keys):
        numbers = [int(k) for k in keys]
        if numbers != sorted(numbers) and numbers != sorted(numbers, reverse=True):
            warn(sheet, cell, f"armor columns out of order: {', '.join(armors)}")
        return
    for order in KNOWN_ARMOR_ORDERS:
        if set(keys) <= set(order):
            expected = [k for k in order if k in keys]
            if list(keys) != expected:
                warn(sheet, cell, f"armor columns out of order: {', '.join(armors)} (expected {', '.join(k.upper() for k in expected)})")
