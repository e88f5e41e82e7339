"""What a re-import changes: tables added, cells and entries before → after.

Read before the writer runs, inside the import's transaction, so a
--dry-run shows exactly what an import would do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from typing import Any, TypedDict, TypeVar

from tables_app.domain.kinds import SINGULAR
from tables_app.domain.effects import effect_words
from tables_app.domain.rulesets import shown
from tables_app.domain.tables import (
    AttackTable,
    Creature,
    EffectTable,
    Entry,
    TableKind,
    Weapon,
)
from tables_app.errors import NotFound
from tables_app.import_model import Defined, ParsedWorkbook
from tables_app.storage.reader import Reader

T = TypeVar("T")
Record = TypeVar("Record", Weapon, Creature)


def _entry_text(entry: Entry) -> str:
    """`Title | text | +3 hits, must parry 1, attacker +5` (its effects as effect_words says them everywhere)."""
    return " | ".join(p for p in [entry.title or "", entry.text, effect_words(entry)] if p)


class CellChange(TypedDict):
    table: str
    row: str
    armor: str
    before: str | None  # None: the old table had no such armor column
    after: str


class RowChange(TypedDict):
    table: str
    row: str
    change: str  # "removed" or "added"


class EntryChange(TypedDict):
    table: str
    row: str
    condition: str | None
    before: str | None  # None: no such entry before (or after)
    after: str | None


class FieldChange(TypedDict):
    kind: str  # weapon or creature
    name: str
    field: str
    before: object
    after: object


@dataclass
class _Changes:
    """What describe_changes gathers, kind by kind: ``added`` in the order
    the kinds are compared (the JSON keeps it)."""

    reader: Reader
    added: dict[str, list[str]] = field(default_factory=dict)
    cells: list[CellChange] = field(default_factory=list)
    rows: list[RowChange] = field(default_factory=list)
    entries: list[EntryChange] = field(default_factory=list)
    fields: list[FieldChange] = field(default_factory=list)

    def old(self, load: Callable[[str, str], T], item: Defined[Any], kind: str) -> T | None:
        """What the database held under the item's name, in its ruleset (asked
        first whether it held anything: a miss builds near-name suggestions)."""
        if not self.reader.exists(kind, item.name, item.ruleset):
            return None
        try:
            return load(item.name, item.ruleset)
        except NotFound:
            return None

    def add(self, kind: str, item: Defined[Any]) -> None:
        self.added.setdefault(kind, []).append(shown(item.ruleset, item.name))

    def attack_tables(self, items: list[Defined[AttackTable]]) -> None:
        for item in items:
            before = self.old(self.reader.load_attack_table, item, "attack")
            if before is None:
                self.add("attack", item)
                continue
            new = replace(item.value, name=shown(item.ruleset, item.name))
            old_rows = {span.label: cells_ for span, cells_ in zip(before.rows.ranges, before.rows.values)}
            new_rows = {span.label: cells_ for span, cells_ in zip(new.rows.ranges, new.rows.values)}
            self.rows += [{"table": new.name, "row": label, "change": "removed"} for label in old_rows if label not in new_rows]
            self.rows += [{"table": new.name, "row": label, "change": "added"} for label in new_rows if label not in old_rows]
            for label in (label for label in new_rows if label in old_rows):
                for armor in new.armors:
                    i, j = new.column(armor), before.column(armor)
                    assert i is not None  # one of the table's own armor columns
                    was = old_rows[label][j].text if j is not None else None
                    now = new_rows[label][i].text
                    if was != now:
                        self.cells.append({"table": new.name, "row": label, "armor": armor, "before": was, "after": now})

    def effect_tables(self, kind: TableKind, items: list[Defined[EffectTable]]) -> None:
        for item in items:
            before = self.old(partial(self.reader.load_effect_table, kind), item, kind.value)
            if before is None:
                self.add(kind.value, item)
                continue
            was = {(e.range.label, e.condition): e for e in before.entries}
            now = {(e.range.label, e.condition): e for e in item.value.entries}
            for key in sorted(was.keys() | now.keys(), key=str):
                a, b = was.get(key), now.get(key)
                if a != b:
                    self.entries.append({"table": shown(item.ruleset, item.name), "row": key[0], "condition": key[1],
                                         "before": _entry_text(a) if a else None, "after": _entry_text(b) if b else None})

    def records(self, kind: str, items: list[Defined[Record]], load: Callable[[str, str], Record]) -> None:
        for item in items:
            before = self.old(load, item, kind)
            if before is None:
                self.add(kind, item)
                continue
            for key, value in asdict(item.value).items():
                previous = asdict(before)[key]
                if previous != value and key != "name":
                    self.fields.append({"kind": SINGULAR[kind], "name": shown(item.ruleset, item.name), "field": key,
                                        "before": _plain(previous), "after": _plain(value)})


def describe_changes(reader: Reader, parsed: ParsedWorkbook) -> dict[str, Any]:
    """``added`` (the names new to the database, by kind), and the ``cells``,
    ``rows``, ``entries`` and ``fields`` an import changes (the report's
    ``changes``: docs/cli.md)."""
    changes = _Changes(reader)
    changes.attack_tables(parsed.attack_tables)
    changes.effect_tables(TableKind.CRITICAL, parsed.critical_tables)
    changes.effect_tables(TableKind.FUMBLE, parsed.fumble_tables)
    changes.records("weapons", parsed.weapons, reader.load_weapon)
    changes.records("creatures", parsed.creatures, reader.load_creature)
    if parsed.scale is not None and not reader.exists("severities", parsed.scale.name, parsed.scale.ruleset):
        changes.added["severities"] = [shown(parsed.scale.ruleset, parsed.scale.name)]
    return {"added": changes.added, "cells": changes.cells, "rows": changes.rows, "entries": changes.entries,
            "fields": changes.fields}


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    return getattr(value, "value", value)


def change_lines(changes: dict[str, Any], limit: int = 40) -> list[str]:
    """The changes for people, one line each, at most ``limit`` lines."""
    lines = [f"added {kind}: {', '.join(names)}" for kind, names in changes["added"].items()]
    lines += [f"{r['table']} row {r['row']} {r['change']}" for r in changes["rows"]]
    lines += [f"{c['table']} {c['row']} {c['armor']}: {c['before']} → {c['after']}" for c in changes["cells"]]
    lines += [f"{e['table']} {e['row']}{' (' + e['condition'] + ')' if e['condition'] else ''}: {e['before'] or '(none)'} → {e['after'] or '(none)'}"
              for e in changes["entries"]]
    lines += [f"{f['kind']} {f['name']} {f['field']}: {f['before']} → {f['after']}" for f in changes["fields"]]
    if len(lines) > limit:
        lines = lines[:limit] + [f"... and {len(lines) - limit} more (see --json)"]
    return lines
