"""What a re-import changes: tables added, cells and entries before → after.

Read before the writer runs, inside the import's transaction, so a
--dry-run shows exactly what an import would do.
"""

from __future__ import annotations

from dataclasses import asdict, replace

from tables_app.domain.kinds import SINGULAR
from tables_app.domain.rulesets import shown
from tables_app.domain.tables import Entry, TableKind
from tables_app.errors import NotFound
from tables_app.import_model import ParsedWorkbook
from tables_app.storage.reader import Reader


def _entry_text(entry: Entry) -> str:
    parts = [entry.title or "", entry.text]
    numbers = [f"{k} {v}" for k, v in (("hits", entry.hits), ("bleed", entry.bleed), ("stun", entry.stun), ("penalty", entry.penalty)) if v]
    return " | ".join(p for p in [*parts, ", ".join(numbers), ", ".join(entry.effects)] if p)


def describe_changes(reader: Reader, parsed: ParsedWorkbook) -> dict:
    added: dict[str, list[str]] = {}
    cells, rows, entries, fields = [], [], [], []

    def old(load, item, kind: str):  # type: ignore[no-untyped-def]
        """What the database held under the item's name, in its ruleset (asked
        first whether it held anything: a miss builds near-name suggestions)."""
        if not reader.exists(kind, item.name, item.ruleset):
            return None
        try:
            return load(item.name, item.ruleset)
        except NotFound:
            return None

    for item in parsed.attack_tables:
        before = old(reader.load_attack_table, item, "attack")
        if before is None:
            added.setdefault("attack", []).append(shown(item.ruleset, item.name))
            continue
        new = replace(item.value, name=shown(item.ruleset, item.name))
        old_rows = {span.label: cells_ for span, cells_ in zip(before.rows.ranges, before.rows.values)}
        new_rows = {span.label: cells_ for span, cells_ in zip(new.rows.ranges, new.rows.values)}
        rows += [{"table": new.name, "row": label, "change": "removed"} for label in old_rows if label not in new_rows]
        rows += [{"table": new.name, "row": label, "change": "added"} for label in new_rows if label not in old_rows]
        for label in (label for label in new_rows if label in old_rows):
            for armor in new.armors:
                i, j = new.column(armor), before.column(armor)
                was = old_rows[label][j].text if j is not None else None
                now = new_rows[label][i].text
                if was != now:
                    cells.append({"table": new.name, "row": label, "armor": armor, "before": was, "after": now})
    for kind, items in ((TableKind.CRITICAL, parsed.critical_tables), (TableKind.FUMBLE, parsed.fumble_tables)):
        for item in items:
            before = old(lambda n, r, k=kind: reader.load_effect_table(k, n, r), item, kind.value)
            if before is None:
                added.setdefault(kind.value, []).append(shown(item.ruleset, item.name))
                continue
            was = {(e.range.label, e.condition): e for e in before.entries}
            now = {(e.range.label, e.condition): e for e in item.value.entries}
            for key in sorted(was.keys() | now.keys(), key=str):
                a, b = was.get(key), now.get(key)
                if a != b:
                    entries.append({"table": shown(item.ruleset, item.name), "row": key[0], "condition": key[1],
                                    "before": _entry_text(a) if a else None, "after": _entry_text(b) if b else None})
    for kind, items, load in (("weapons", parsed.weapons, reader.load_weapon), ("creatures", parsed.creatures, reader.load_creature)):
        for item in items:
            before = old(load, item, kind)
            if before is None:
                added.setdefault(kind, []).append(shown(item.ruleset, item.name))
                continue
            for key, value in asdict(item.value).items():
                previous = asdict(before)[key]
                if previous != value and key != "name":
                    fields.append({"kind": SINGULAR[kind], "name": shown(item.ruleset, item.name), "field": key,
                                   "before": _plain(previous), "after": _plain(value)})
    if parsed.scale is not None and not reader.exists("severities", parsed.scale.name, parsed.scale.ruleset):
        added["severities"] = [shown(parsed.scale.ruleset, parsed.scale.name)]
    return {"added": added, "cells": cells, "rows": rows, "entries": entries, "fields": fields}


def _plain(value: object) -> object:
    if isinstance(value, tuple):
        return list(value)
    return getattr(value, "value", value)


def change_lines(changes: dict, limit: int = 40) -> list[str]:
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
