"""Lookups: list, show and query, read with sqlite3 (no ORM on this path).

A query's answer is typed (CellAnswer, EntryAnswer: the domain's own cell
and entry, with ``to_json``); list and show answer the JSON shapes of
docs/cli.md as dicts, being rows of the database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tables_app.domain.bounds import D100
from tables_app.domain.kinds import KIND_OF_WORD, LISTED, SINGULAR, label
from tables_app.domain.legend import Legend
from tables_app.domain.ranges import RangeTable, row_label
from tables_app.domain.table_reads import critical_roll_at, fumble_roll, printed_column, result_row
from tables_app.domain.cells import AttackCell, compact_text
from tables_app.domain.effects import effect_words
from tables_app.domain.tables import (
    AttackTable, ColumnChoice, EffectTable, Entry, TableKind, Weapon, states_its_condition, unknown_feature_warnings,
)
from tables_app.errors import BadInput, NotFound, UsageMistake
from tables_app.storage.database import Database
from tables_app.services.armor_columns import armor_column


RULESETS_WORDS = ("rulesets", "ruleset")  # `tables list rulesets`


def list_items(database: Database, kind: str | None, *, ruleset: str | None = None) -> dict:
    """Everything of ``kind`` (or of every kind, and the rulesets), in
    ``ruleset`` or in all of them."""
    reader = database.reader()
    if kind in RULESETS_WORDS:
        wanted = None if ruleset is None else reader.rulesets_named(ruleset)  # NotFound, as for every other kind
        return {"rulesets": [r for r in reader.list_rulesets() if wanted is None or r["name"] == wanted]}
    kinds = [KIND_OF_WORD[kind]] if kind else list(LISTED)
    listed = {k: reader.list_named(k, ruleset) for k in kinds}
    if kind is None:
        listed["rulesets"] = list_items(database, "rulesets", ruleset=ruleset)["rulesets"]
    return listed


def legend_json(legend: Legend) -> list[dict] | None:
    """The book's key a table's entries were read with; None: the default legend."""
    if legend.is_default:
        return None
    return [{"symbol": symbol, "means": meaning.value} for symbol, meaning in legend.symbols]


def entry_json(entry: Entry) -> dict:
    return {
        "range": entry.range.label, "text": entry.text, "title": entry.title, "hits": entry.hits,
        "bleed": entry.bleed, "stun": entry.stun, "penalty": entry.penalty,
        "effects": list(entry.effects), "condition": entry.condition,
        "must_parry": entry.must_parry, "no_parry": entry.no_parry, "attacker_bonus": entry.attacker_bonus,
        "death_in": entry.death_in, "column": entry.column, "parry_penalty": entry.parry_penalty,
        "states_condition": states_its_condition(entry.text, entry.condition),
        "unread": list(entry.unread),
        **conditions_json(entry),
        "effect_words": effect_words(entry),  # the fields above in words, as every face says them
    }


def conditions_json(entry: Entry) -> dict:
    """The rest of a critical an entry holds (docs/fights.md, "The rest of a critical"), as its JSON keys."""
    return {"prone": entry.prone, "knocked_out": entry.knocked_out, "blinded": entry.blinded,
            "drops_weapon": entry.drops_weapon, "breaks_weapon": entry.breaks_weapon, "useless_arm": entry.useless_arm,
            "useless_leg": entry.useless_leg,
            "timed_penalties": [{"penalty": penalty, "rounds": rounds} for penalty, rounds in entry.timed_penalties]}


@dataclass(frozen=True)
class CellAnswer:
    """The cell of an attack table a modified result reads (None: a miss, no row read)."""

    table: str
    result: int
    armor: str  # as the table spells it
    ruleset: str
    row: str | None = None  # the row's range, as printed
    cell: AttackCell | None = None
    automatic_miss: int | None = None  # the table's: a result of this or less misses

    def to_json(self) -> dict:
        """docs/cli.md, `query attack`."""
        cell = self.cell
        if cell is None:
            return {"table": self.table, "result": self.result, "row": None, "armor": self.armor, "text": "",
                    "outcome": "miss", "hits": 0, "severity": None, "critical_table": None, "ruleset": self.ruleset,
                    "criticals": [], "automatic_miss": self.automatic_miss}
        return {
            "table": self.table, "result": self.result, "row": self.row, "armor": self.armor, "text": cell.text,
            "outcome": cell.outcome.value, "hits": cell.hits, "severity": cell.severity, "critical_table": cell.critical,
            "ruleset": self.ruleset,
            "criticals": [{"severity": severity, "critical_table": named} for severity, named in cell.criticals],
            "automatic_miss": self.automatic_miss,
        }


@dataclass(frozen=True)
class EntryAnswer:
    """The entry of a critical or fumble table a roll reads."""

    table: str
    roll: int
    modified_roll: int
    entry: Entry
    ruleset: str
    column: str | None  # the printed column read, if the table has several
    branches: tuple[Entry, ...] | None = None  # a critical's range's branches, if it has several (None: a fumble)
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict:
        """docs/cli.md, `query critical` and `query fumble`."""
        data: dict = {"table": self.table, "roll": self.roll, "modified_roll": self.modified_roll,
                      "entry": entry_json(self.entry)}
        if self.branches is not None:
            data["branches"] = [entry_json(e) for e in self.branches]
        data.update({"ruleset": self.ruleset, "column": self.column})
        if self.warnings:
            data["warnings"] = list(self.warnings)
        return data


def query_attack(database: Database, table_name: str, result: int, armor: str, *, ruleset: str | None = None) -> CellAnswer:
    """The cell a modified result reads, by the rule resolve reads it with
    (docs/table-system.md, steps 7-8): at or below the table's automatic miss,
    and below its lowest row, a miss that reads no row. No weapon: a printed
    `XX-33` row is read from 1, named as printed (docs/workbook-format.md, "attack")."""
    with database.snapshot():  # one read; rows damaged by hand are reported as such, also when the rule trips on them
        found = database.reader().locate("attack", table_name, ruleset)
        table = database.load_attack_table(found)  # the process's copy in the HTTP API (storage/compiled.py)
        column = armor_column(table, armor)
        row = result_row(table, result)
    if row is None:
        return CellAnswer(table.name, result, table.armors[column], found.ruleset, automatic_miss=table.automatic_miss)
    return CellAnswer(table.name, result, table.armors[column], found.ruleset, table.rows.ranges[row].label,
                      table.rows.values[row][column], table.automatic_miss)


def attack_rows_json(table: AttackTable, columns: Sequence[int] | None = None,
                     codes: Mapping[str, str] | None = None) -> list[dict]:
    """Every row, ascending: the rows the modified result reads, then the
    `UM` rows the unmodified die reads (labelled `UM 96-100`); only the
    armor ``columns`` given (all by default). With ``codes`` (of the critical
    tables the cells name) each row has its cells in compact notation too."""
    unmodified = table.unmodified or RangeTable([])
    shown = range(len(table.armors)) if columns is None else columns
    rows = []
    for group, by_die in ((table.rows, False), (unmodified, True)):
        for span, cells in zip(group.ranges, group.values):
            row: dict[str, Any] = {"range": row_label(span, by_die), "unmodified": by_die,
                                   "cells": [cells[i].text for i in shown]}
            if codes is not None:
                row["compact"] = [compact_text(cells[i].text, codes) for i in shown]
            rows.append(row)
    return rows


def named_criticals(table: AttackTable) -> set[str]:
    """The critical tables an attack table's cells name themselves (`18 E Hacking`)."""
    return {critical for group in (table.rows, table.unmodified or RangeTable([])) for cells in group.values
            for cell in cells for _, critical in cell.criticals if critical}


def chosen_columns(table: AttackTable, armor: Sequence[str]) -> list[int]:
    """The indices of the armor columns asked for (codes, or `A,B,C`), in the
    order asked; every column when none is asked for."""
    codes = [code.strip() for text in armor for code in text.split(",") if code.strip()]
    if not codes:
        if armor:  # `--armor ,,,`: given, naming nothing
            raise UsageMistake(f"--armor {','.join(armor)!r} names no armor column (give codes such as {table.armors[0]})")
        return list(range(len(table.armors)))
    return list(dict.fromkeys(armor_column(table, code) for code in codes))


def _natural_d100(roll: int) -> None:
    if not 1 <= roll <= D100:
        raise BadInput(f"roll {roll} is not a d100 roll (1-{D100}); modifiers are given separately")


def query_critical(database: Database, table_name: str, roll: int, *, severity: str | None = None,
                   features: tuple[str, ...] = (), ruleset: str | None = None, column: str | None = None) -> EntryAnswer:
    """The entry for a natural d100 ROLL: a one-column table adds the
    severity's modifier; a printed table is read in the severity's column
    (`Roll | A | B | ...`) or in ``column`` (`Normal | Magic | ...`)."""
    _natural_d100(roll)
    reader = database.reader()
    found = reader.locate("critical", table_name, ruleset)
    table = reader.load_effect_table(TableKind.CRITICAL, found)
    level = None
    if severity is not None:
        level = table.scale.find(severity)
        if level is None:
            codes = ", ".join(f"{s.code} (+{s.modifier})" for s in table.scale.levels)
            known = [s.code for s in table.scale.levels] + [s.name for s in table.scale.levels]
            raise NotFound.unknown(f"unknown severity {severity!r} for {table.name!r}", severity, known, f"severities: {codes}")
    if table.choice is ColumnChoice.SEVERITY:
        if column is not None:  # the severity picks the column: a --column given would be silently ignored
            raise BadInput(f"critical table {table.name!r} is read by severity ({', '.join(table.columns)}): "
                           "--column is for tables read by attack kind")
        if level is None:
            raise BadInput(f"critical table {table.name!r} has a column per severity ({', '.join(table.columns)}): give --severity")
    elif table.choice is ColumnChoice.ATTACK or column is not None:
        _column(table, column, "--column")  # the column given, and one the table has
    index = printed_column(table, level, column)  # then read as resolve reads it (step 10)
    modified = critical_roll_at(roll, level, index)
    _, entries = table.row(modified, index)
    choice = table.choose(modified, frozenset(features), index)
    return EntryAnswer(table.name, roll, modified, choice.entry, found.ruleset,
                       None if index is None else table.columns[index],
                       entries if len(entries) > 1 else (),  # a range's branches: a pair, or several and everyone else's
                       tuple(unknown_feature_warnings(features, [table])))


def _column(table: EffectTable, wanted: str | None, flag: str) -> int:
    """The printed column ``wanted`` of ``table`` (NotFound, with the columns, if none; BadInput
    on a one-column table, or without ``wanted`` on a printed one): the refusals of docs/cli.md."""
    if not table.columns:
        raise BadInput(f"{table.kind.value} table {table.name!r} has one column; {flag} is for printed tables with several")
    if wanted is None:
        raise BadInput(f"{table.kind.value} table {table.name!r} is read by column ({', '.join(table.columns)}): give {flag}")
    index = table.column(wanted)
    if index is None:
        raise NotFound.unknown(f"{table.kind.value} table {table.name!r} has no column {wanted!r}", wanted, table.columns,
                               f"columns: {', '.join(table.columns)}")
    return index


def query_fumble(database: Database, table_name: str, roll: int, *, modifier: int = 0, ruleset: str | None = None,
                 column: str | None = None) -> EntryAnswer:
    """The entry for a natural d100 ROLL plus ``modifier`` (step 2's fumble
    roll), in ``column`` of a table by weapon category (`1HE | 2H | ...`)."""
    _natural_d100(roll)
    reader = database.reader()
    found = reader.locate("fumble", table_name, ruleset)
    table = reader.load_effect_table(TableKind.FUMBLE, found)
    if table.columns or column is not None:
        _column(table, column, "--column")  # the column given, and one the table has
    index = printed_column(table, None, column)  # then read as resolve reads it (step 2)
    modified = fumble_roll(roll, modifier)
    return EntryAnswer(table.name, roll, modified, table.choose(modified, column=index).entry, found.ruleset,
                       None if index is None else table.columns[index])


def show(database: Database, kind: str, name: str, *, ruleset: str | None = None, armor: Sequence[str] = ()) -> dict:
    """The whole table (or weapon, creature) as rows for a grid."""
    kind = KIND_OF_WORD[kind]
    reader = database.reader()
    found = reader.locate(kind, name, ruleset)
    if kind == "attack":
        table = reader.load_attack_table(found)
        columns = chosen_columns(table, armor)
        named = named_criticals(table)
        codes = {item["name"]: item["code"] for item in reader.list_named("critical", found.ruleset)
                 if item["name"] in named and item.get("code")}
        data: dict[str, Any] = {
            "kind": "attack", "table": table.name, "severities": table.scale.name,
            "armor": [table.armors[i] for i in columns], "automatic_miss": table.automatic_miss,
            "rows": attack_rows_json(table, columns, codes if named else None), "ruleset": found.ruleset,
        }
        if named:  # the key of the compact notation
            data["critical_codes"] = codes
        return data
    if armor:
        raise UsageMistake(f"--armor chooses the columns of an attack table, not of a {label(kind)}")
    if kind in ("critical", "fumble"):
        effect = reader.load_effect_table(TableKind(kind), found)
        return {"kind": kind, "table": effect.name, "code": effect.code, "entries": [entry_json(e) for e in effect.entries],
                "ruleset": found.ruleset, "choice": effect.choice.value, "columns": list(effect.columns),
                "roll_kind": effect.roll.value, "legend": legend_json(effect.legend),
                "condition_reading": effect.condition_reading.value}
    items = [i for i in reader.list_named(kind, found.ruleset) if i["name"] == found.name]
    item = items[0]
    if kind == "weapons":
        item = _with_weapon_columns(item, reader.load_weapon(found))
    return {"kind": SINGULAR[kind], **item}


def _with_weapon_columns(item: dict, weapon: Weapon) -> dict:
    """The columns a weapon reads printed critical and fumble tables in,
    beside its other fields (before its workbook and sheet)."""
    provenance = ("workbook", "sheet")
    fields = {key: value for key, value in item.items() if key not in provenance}
    fields.setdefault("critical_column", weapon.critical_column)
    fields.setdefault("fumble_column", weapon.fumble_column)
    return {**fields, **{key: item[key] for key in provenance if key in item}}
