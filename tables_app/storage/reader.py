"""Reading compiled tables with plain SQL (sqlite3): no ORM on the read path.

Each public method runs in one read transaction (a consistent snapshot) and
returns immutable domain values. Names and codes match by the one rule of
domain/names.py (any letter case, any Unicode compatibility form): the
columns' COLLATE NOCASE folds only ASCII, so a lookup tries the index
first and then compares ``fold(name)``, a function registered on the
connection; plain SQL still sees the stored spelling.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from contextlib import AbstractContextManager
from typing import Callable

from tables_app.domain.cells import AttackCell, Outcome
from tables_app.domain.kinds import LABELS
from tables_app.domain.names import fold
from tables_app.domain.ranges import Range, RangeTable
from tables_app.domain.severity import Severity, SeverityScale
from tables_app.domain.table_rules import TableSet
from tables_app.domain.tables import AttackTable, Creature, EffectTable, Entry, Rank, RollKind, TableKind, Weapon
from tables_app.errors import NotFound

DEFAULT_SCALE_ID = 1
NAMED_TABLES = {
    "severities": "severity_scale", "attack": "attack_table", "critical": "critical_table",
    "fumble": "fumble_table", "weapons": "weapon", "creatures": "creature",
}
ENTRY_TABLES = {TableKind.CRITICAL: ("critical_table", "critical_entry", "critical_effect", "critical_table_id"),
                TableKind.FUMBLE: ("fumble_table", "fumble_entry", "fumble_effect", "fumble_table_id")}


class Reader:
    def __init__(self, snapshot: Callable[[], AbstractContextManager[sqlite3.Connection]] | None = None,
                 connection: sqlite3.Connection | None = None):
        """Read through ``snapshot`` (each call one read transaction, as
        Database.snapshot), or a connection already in a transaction."""
        assert (snapshot is None) != (connection is None)
        self._snapshot = snapshot
        self._connection = connection

    def _run(self, work):  # type: ignore[no-untyped-def]
        if self._connection is not None:
            return work(with_fold(self._connection))
        assert self._snapshot is not None
        with self._snapshot() as connection:
            return work(with_fold(connection))

    # ------------------------------------------------------------ names
    def _find(self, c: sqlite3.Connection, kind: str, name: str) -> sqlite3.Row | None:
        """The row named ``name`` by the one rule of names, or None."""
        cursor = c.cursor()
        cursor.row_factory = sqlite3.Row
        table = NAMED_TABLES[kind]
        # The NOCASE index finds ASCII spellings; other spellings need a scan
        # (hundreds of rows at most).
        return (cursor.execute(f"SELECT * FROM {table} WHERE name = ?", (name,)).fetchone()
                or cursor.execute(f"SELECT * FROM {table} WHERE fold(name) = ?", (fold(name),)).fetchone())

    def _row(self, c: sqlite3.Connection, kind: str, name: str) -> sqlite3.Row:
        row = self._find(c, kind, name)
        if row is None:
            known = [n for (n,) in c.execute(f"SELECT name FROM {NAMED_TABLES[kind]}")]
            if kind == "critical":  # a critical table is also asked for by its code
                known += [code for (code,) in c.execute("SELECT code FROM critical_table WHERE code IS NOT NULL")]
            raise NotFound.unknown(f"no {LABELS[kind]} named {name!r}", name, known, f"see `tables list {kind}`")
        return row

    def name_of(self, kind: str, name: str) -> str:
        """The stored spelling of a name given in any spelling (NotFound if none)."""
        return self._run(lambda c: self._row(c, kind, name)["name"])

    def find_critical_name(self, name_or_code: str) -> str:
        """A critical table's name, given its name or its code (a name wins)."""
        def work(c: sqlite3.Connection) -> str:
            found = c.execute("SELECT name FROM critical_table WHERE name = ? OR code = ? ORDER BY name = ? DESC",
                              (name_or_code, name_or_code, name_or_code)).fetchone()
            if found is None:
                key = fold(name_or_code)
                found = c.execute("SELECT name FROM critical_table WHERE fold(name) = ? OR fold(code) = ? "
                                  "ORDER BY fold(name) = ? DESC", (key, key, key)).fetchone()
            return found[0] if found else self._row(c, "critical", name_or_code)["name"]
        return self._run(work)

    # ------------------------------------------------------------ tables
    def _scale(self, c: sqlite3.Connection, scale_id: int) -> SeverityScale:
        name = c.execute("SELECT name FROM severity_scale WHERE id = ?", (scale_id,)).fetchone()[0]
        levels = c.execute("SELECT code, name, modifier FROM severity WHERE scale_id = ? ORDER BY position", (scale_id,))
        return SeverityScale(name, tuple(Severity(*level) for level in levels))

    def scales(self) -> list[SeverityScale]:
        return self._run(lambda c: [self._scale(c, i) for (i,) in c.execute("SELECT id FROM severity_scale ORDER BY id").fetchall()])

    def load_attack_table(self, name: str) -> AttackTable:
        return self._run(lambda c: self._attack_table(c, name))

    def _attack_table(self, c: sqlite3.Connection, name: str) -> AttackTable:
        table = self._row(c, "attack", name)
        armors = c.execute("SELECT id, code FROM armor_column WHERE attack_table_id = ? ORDER BY position", (table["id"],)).fetchall()
        column_index = {column_id: i for i, (column_id, _) in enumerate(armors)}
        rows = c.execute("SELECT id, low, high FROM attack_row WHERE attack_table_id = ? ORDER BY position", (table["id"],)).fetchall()
        cells: dict[int, list] = {row_id: [None] * len(armors) for row_id, _, _ in rows}
        for row_id, column_id, outcome, hits, severity, critical in c.execute(
            """SELECT c.row_id, c.armor_column_id, c.outcome, c.hits, s.code, t.name
               FROM attack_cell c JOIN attack_row r ON r.id = c.row_id
               LEFT JOIN severity s ON s.id = c.severity_id
               LEFT JOIN critical_table t ON t.id = c.critical_table_id
               WHERE r.attack_table_id = ?""", (table["id"],)):
            cells[row_id][column_index[column_id]] = AttackCell(Outcome(outcome), hits, severity, critical)
        pairs = [(Range(low, high), tuple(cells[row_id])) for row_id, low, high in rows]
        return AttackTable(table["name"], tuple(code for _, code in armors), RangeTable(pairs), self._scale(c, table["scale_id"]))

    def load_effect_table(self, kind: TableKind, name: str) -> EffectTable:
        return self._run(lambda c: self._effect_table(c, kind, name))

    def _effect_table(self, c: sqlite3.Connection, kind: TableKind, name: str) -> EffectTable:
        table_name, entry_name, effect_name, key = ENTRY_TABLES[kind]
        table = self._row(c, kind.value, name)
        tags: dict[int, list[str]] = defaultdict(list)
        for entry_id, tag in c.execute(
            f"SELECT f.entry_id, f.tag FROM {effect_name} f JOIN {entry_name} e ON e.id = f.entry_id "
            f"WHERE e.{key} = ? ORDER BY f.entry_id, f.position", (table["id"],)):
            tags[entry_id].append(tag)
        groups: dict[Range, list[Entry]] = defaultdict(list)
        for entry_id, low, high, text, title, hits, bleed, stun, penalty, condition in c.execute(
            f"SELECT id, low, high, text, title, hits, bleed, stun, penalty, condition FROM {entry_name} "
            f"WHERE {key} = ? ORDER BY position", (table["id"],)):
            span = Range(low, high)
            groups[span].append(Entry(span, text, title, hits, bleed, stun, penalty, tuple(tags[entry_id]), condition))
        rows = RangeTable((span, tuple(entries)) for span, entries in groups.items())
        if kind is TableKind.CRITICAL:
            return EffectTable(kind, table["name"], rows, table["code"], self._scale(c, table["scale_id"]))
        return EffectTable(kind, table["name"], rows, None, self._scale(c, DEFAULT_SCALE_ID))

    # ------------------------------------------------------------ weapons and creatures
    def load_weapon(self, name: str) -> Weapon:
        return self._run(lambda c: self._weapon(c, self._row(c, "weapons", name)))

    def _weapon(self, c: sqlite3.Connection, row: sqlite3.Row) -> Weapon:
        def named(table: str, row_id: int | None) -> str | None:
            if row_id is None:
                return None
            found = c.execute(f"SELECT name FROM {table} WHERE id = ?", (row_id,)).fetchone()
            # Only inside an import (foreign keys deferred) can a table be gone already.
            return found[0] if found else "(removed in this import)"

        return Weapon(
            row["name"], named("attack_table", row["attack_table_id"]), row["max_result"], row["clumsy"],
            named("critical_table", row["critical_table_id"]), named("critical_table", row["secondary_critical_table_id"]),
            named("fumble_table", row["fumble_table_id"]), row["fumble_modifier"], RollKind(row["roll_kind"]), row["notes"],
        )

    def load_creature(self, name: str) -> Creature:
        return self._run(lambda c: self._creature(c, self._row(c, "creatures", name)))

    def _creature(self, c: sqlite3.Connection, row: sqlite3.Row) -> Creature:
        features = tuple(f for (f,) in c.execute("SELECT feature FROM creature_feature WHERE creature_id = ? ORDER BY id", (row["id"],)))
        return Creature(row["name"], row["defense"], row["armor"], Rank(row["rank"]), row["hp"], features, row["notes"])

    def load_table_set(self, weapon: Weapon) -> TableSet:
        """The compiled tables one weapon can reach: its attack table, every
        critical table its cells or the weapon name, and its fumble table."""
        def work(c: sqlite3.Connection) -> TableSet:
            attack = self._attack_table(c, weapon.attack_table)
            names = {weapon.critical, weapon.secondary_critical} | {cell.critical for cells in attack.rows.values for cell in cells}
            criticals = {n: self._effect_table(c, TableKind.CRITICAL, n) for n in sorted(n for n in names if n)}
            fumble = self._effect_table(c, TableKind.FUMBLE, weapon.fumble_table) if weapon.fumble_table else None
            return TableSet(attack, criticals, fumble)
        return self._run(work)

    # ------------------------------------------------------------ listings
    def list_named(self, kind: str) -> list[dict]:
        """One dict per table, weapon or creature of ``kind``, with provenance."""
        def work(c: sqlite3.Connection) -> list[dict]:
            cursor = c.cursor()
            cursor.row_factory = sqlite3.Row
            workbooks = dict(c.execute("SELECT id, file_name FROM workbook").fetchall())
            out = []
            for row in cursor.execute(f"SELECT * FROM {NAMED_TABLES[kind]} ORDER BY name").fetchall():
                item: dict = {"name": row["name"]}
                if kind == "weapons":
                    w = self._weapon(c, row)
                    item.update(attack_table=w.attack_table, max_result=w.max_result, clumsy=w.clumsy, critical=w.critical,
                                secondary_critical=w.secondary_critical, fumble_table=w.fumble_table,
                                fumble_modifier=w.fumble_modifier, roll=w.roll.value)
                elif kind == "creatures":
                    cr = self._creature(c, row)
                    item.update(defense=cr.defense, armor=cr.armor, rank=cr.rank.value, hp=cr.hp, features=list(cr.features))
                elif kind == "critical":
                    item["code"] = row["code"]
                if kind == "attack":
                    item["rows"] = c.execute("SELECT count(*) FROM attack_row WHERE attack_table_id = ?", (row["id"],)).fetchone()[0]
                    item["armor"] = [a for (a,) in c.execute("SELECT code FROM armor_column WHERE attack_table_id = ? ORDER BY position", (row["id"],))]
                elif kind in ("critical", "fumble"):
                    _, entry_name, _, key = ENTRY_TABLES[TableKind(kind)]
                    item["rows"] = c.execute(f"SELECT count(DISTINCT low) FROM {entry_name} WHERE {key} = ?", (row["id"],)).fetchone()[0]
                item["workbook"] = workbooks.get(row["workbook_id"])
                item["sheet"] = row["sheet"]
                out.append(item)
            return out
        return self._run(work)

    def owners(self) -> dict[tuple[str, str], str | None]:
        """(kind, folded name) → the file name of the workbook that owns it."""
        def work(c: sqlite3.Connection) -> dict:
            workbooks = dict(c.execute("SELECT id, file_name FROM workbook").fetchall())
            return {(kind, fold(name)): workbooks.get(workbook_id)
                    for kind, table in NAMED_TABLES.items()
                    for name, workbook_id in c.execute(f"SELECT name, workbook_id FROM {table}")}
        return self._run(work)

    def critical_names(self) -> list[tuple[str, str | None, str]]:
        """(name, code, scale name) of every critical table."""
        return self._run(lambda c: c.execute(
            "SELECT t.name, t.code, s.name FROM critical_table t JOIN severity_scale s ON s.id = t.scale_id").fetchall())

    def names(self, kind: str) -> list[str]:
        return self._run(lambda c: [n for (n,) in c.execute(f"SELECT name FROM {NAMED_TABLES[kind]}")])

    def provenance(self, kind: str, name: str) -> tuple[str | None, str | None]:
        """(source, notes) of a named table or scale."""
        def work(c: sqlite3.Connection) -> tuple[str | None, str | None]:
            row = self._find(c, kind, name)
            return (row["source"], row["notes"]) if row else (None, None)
        return self._run(work)

    def references(self, except_workbook: str | None = None) -> dict[str, set[str]]:
        """Table names the database's weapons and attack cells use (folded),
        leaving out the weapons of one workbook (it is being re-imported)."""
        def work(c: sqlite3.Connection) -> dict[str, set[str]]:
            weapons = c.execute(
                """SELECT a.name, k.name, s.name, f.name FROM weapon w
                   LEFT JOIN workbook b ON b.id = w.workbook_id
                   JOIN attack_table a ON a.id = w.attack_table_id
                   JOIN critical_table k ON k.id = w.critical_table_id
                   LEFT JOIN critical_table s ON s.id = w.secondary_critical_table_id
                   LEFT JOIN fumble_table f ON f.id = w.fumble_table_id
                   WHERE b.file_name IS NULL OR b.file_name != ? COLLATE NOCASE""", (except_workbook or "",)).fetchall()
            cells = c.execute(
                """SELECT DISTINCT k.name FROM attack_cell c JOIN critical_table k ON k.id = c.critical_table_id
                   JOIN attack_row r ON r.id = c.row_id JOIN attack_table a ON a.id = r.attack_table_id
                   LEFT JOIN workbook b ON b.id = a.workbook_id
                   WHERE b.file_name IS NULL OR b.file_name != ? COLLATE NOCASE""", (except_workbook or "",)).fetchall()
            used: dict[str, set[str]] = {"attack": set(), "critical": set(), "fumble": set()}
            for attack, critical, secondary, fumble in weapons:
                used["attack"].add(fold(attack))
                used["critical"] |= {fold(n) for n in (critical, secondary) if n}
                if fumble:
                    used["fumble"].add(fold(fumble))
            used["critical"] |= {fold(n) for (n,) in cells}
            return used
        return self._run(work)

    def exists(self, kind: str, name: str) -> bool:
        return self._run(lambda c: self._find(c, kind, name) is not None)

    def attack_tops(self) -> dict[str, int | None]:
        """The top of every attack table's last row (None: an open top), by folded name."""
        return self._run(lambda c: {fold(name): high for name, high in c.execute(
            """SELECT a.name, r.high FROM attack_table a JOIN attack_row r ON r.attack_table_id = a.id
               WHERE r.position = (SELECT max(position) FROM attack_row WHERE attack_table_id = a.id)""")})


def _fold_or_null(value: str | None) -> str | None:
    return None if value is None else fold(value)


def with_fold(connection: sqlite3.Connection) -> sqlite3.Connection:
    """``connection`` with the SQL function ``fold(text)`` (domain/names.py);
    registering again on the same connection is harmless and cheap."""
    connection.create_function("fold", 1, _fold_or_null, deterministic=True)
    return connection
