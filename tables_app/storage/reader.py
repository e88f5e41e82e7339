"""Reading compiled tables with plain SQL (sqlite3): no ORM on the read path.

Each public method runs in one read transaction (a consistent snapshot) and
returns immutable domain values. Names and codes match by the one rule of
domain/names.py (any letter case, any Unicode compatibility form): the
columns' COLLATE NOCASE folds only ASCII, so a lookup tries the index
first and then folds the stored names of that table in Python (hundreds at
most), on SQLite and PostgreSQL alike; plain SQL still sees the stored
spelling.
"""

from __future__ import annotations

import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from tables_app.domain.cells import AttackCell, Outcome
from tables_app.domain.kinds import LABELS
from tables_app.domain.effects import CONDITION_FIELDS, condition_said, conditions_of
from tables_app.domain.legend import DEFAULT_LEGEND, parse_legend
from tables_app.domain.names import fold, is_utf8
from tables_app.domain.ranges import Range, RangeTable
from tables_app.domain.rulesets import name_key, qualified, split_qualified
from tables_app.domain.severity import Severity, SeverityScale
from tables_app.domain.tables import (AttackTable, ColumnChoice, ConditionReading, Creature, CreatureAttack, EffectTable, Entry, Rank,
                                      RollKind, TableKind, Weapon)
from tables_app.errors import Ambiguous, NotFound
from tables_app.storage import sql

if TYPE_CHECKING:  # a lookup needs no rules: table_rules (and dice) load with the first table set
    from tables_app.domain.table_rules import TableSet

T = TypeVar("T")

DEFAULT_SCALE_ID = 1
NAMED_TABLES = {
    "severities": "severity_scale", "attack": "attack_table", "critical": "critical_table",
    "fumble": "fumble_table", "weapons": "weapon", "creatures": "creature",
}
ENTRY_TABLES = {TableKind.CRITICAL: ("critical_table", "critical_entry", "critical_effect", "critical_table_id"),
                TableKind.FUMBLE: ("fumble_table", "fumble_entry", "fumble_effect", "fumble_table_id")}

# The statements that read a named table of any kind, or the entries of
# either effect table: one per table, made once (sql.py).
_NAMED = NAMED_TABLES.values()
# _matches: (column, in one ruleset) → table → statement; the NOCASE index
# finds ASCII spellings (any spelling that differs in case only, on
# PostgreSQL); the others are found among the stored spellings (_SPELLINGS)
# folded in Python, then read by id
_MATCHING = {
    ("name", False): sql.per_table("SELECT * FROM {table} WHERE name = ? ORDER BY ruleset_id", _NAMED),
    ("name", True): sql.per_table("SELECT * FROM {table} WHERE name = ? AND ruleset_id = ? ORDER BY ruleset_id", _NAMED),
    ("code", False): {"critical_table": "SELECT * FROM critical_table WHERE code = ? ORDER BY ruleset_id"},
    ("code", True): {"critical_table": "SELECT * FROM critical_table WHERE code = ? AND ruleset_id = ? ORDER BY ruleset_id"},
}
_SPELLINGS = {
    ("name", False): sql.per_table("SELECT id, name FROM {table}", _NAMED),
    ("name", True): sql.per_table("SELECT id, name FROM {table} WHERE ruleset_id = ?", _NAMED),
    ("code", False): {"critical_table": "SELECT id, code FROM critical_table"},
    ("code", True): {"critical_table": "SELECT id, code FROM critical_table WHERE ruleset_id = ?"},
}
_ROWS_BY_IDS = sql.per_table("SELECT * FROM {table} WHERE id IN (SELECT value FROM json_each(?)) ORDER BY ruleset_id", _NAMED)
_NAMES_IN = {False: sql.per_table("SELECT name FROM {table}", _NAMED),  # by: in one ruleset
             True: sql.per_table("SELECT name FROM {table} WHERE ruleset_id = ?", _NAMED)}
_CODES_IN = {False: "SELECT code FROM critical_table", True: "SELECT code FROM critical_table WHERE ruleset_id = ?"}
_ROW_BY_ID = sql.per_table("SELECT * FROM {table} WHERE id = ?", _NAMED)
_NAME_BY_ID = sql.per_table("SELECT name FROM {table} WHERE id = ?", _NAMED)
_LISTED = {False: sql.per_table("SELECT * FROM {table} ORDER BY name, ruleset_id", _NAMED),  # by: in one ruleset
           True: sql.per_table("SELECT * FROM {table} WHERE ruleset_id = ? ORDER BY name, ruleset_id", _NAMED)}
_COUNT_IN_RULESET = sql.per_table("SELECT count(*) FROM {table} WHERE ruleset_id = ?", _NAMED)
_WORKBOOKS_IN_RULESET = sql.per_table(
    "SELECT DISTINCT b.file_name FROM {table} t JOIN workbook b ON b.id = t.workbook_id WHERE t.ruleset_id = ?", _NAMED)

def conditions_column(entry: Entry) -> str | None:
    """An entry's rest of a critical as its `conditions` column keeps it (0012): a JSON object of the fields it
    holds (`{"prone": 1, "timed_penalties": [[-20, 3]]}`); None when it holds none."""
    held = {name: value for name, value in conditions_of(entry).items() if condition_said(name, value)}
    if "timed_penalties" in held:
        held["timed_penalties"] = [list(pair) for pair in held["timed_penalties"]]
    return json.dumps(held) if held else None


def entry_conditions(column: str | None) -> dict[str, Any]:
    """The Entry fields of a `conditions` column (conditions_column's inverse)."""
    if not column:
        return {}
    held = json.loads(column)
    if "timed_penalties" in held:
        held["timed_penalties"] = tuple((int(penalty), int(rounds)) for penalty, rounds in held["timed_penalties"])
    return {name: value for name, value in held.items() if name in CONDITION_FIELDS}

_OWNERS = sql.per_table("SELECT name, ruleset_id, workbook_id FROM {table}", _NAMED)
_NAMES = sql.per_table("SELECT r.name, t.name FROM {table} t JOIN ruleset r ON r.id = t.ruleset_id", _NAMED)
_TAGS = {kind: sql.fill("SELECT f.entry_id, f.tag FROM {effects} f JOIN {entries} e ON e.id = f.entry_id "
                        "WHERE e.{table}_id = ? ORDER BY f.entry_id, f.position", effects=effects, entries=entries, table=table)
         for kind, (table, entries, effects, _) in ENTRY_TABLES.items()}
_ENTRIES = {kind: sql.fill("SELECT id, low, high, text, title, hits, bleed, stun, penalty, condition, must_parry, no_parry, "
                           "attacker_bonus, death_in, column_name, parry_penalty, unread, conditions FROM {entries} "
                           "WHERE {table}_id = ? "
                           "ORDER BY position", entries=entries, table=table)
            for kind, (table, entries, _, _) in ENTRY_TABLES.items()}
_ENTRY_ROWS = {kind: sql.fill("SELECT count(DISTINCT low) FROM {entries} WHERE {table}_id = ?", entries=entries, table=table)
               for kind, (table, entries, _, _) in ENTRY_TABLES.items()}


@dataclass(frozen=True)
class Found:
    """A named row, located: its kind, id, stored name and ruleset."""

    kind: str
    id: int
    name: str
    ruleset: str


class Reader:
    def __init__(self, snapshot: Callable[[], AbstractContextManager[sqlite3.Connection]] | None = None,
                 connection: sqlite3.Connection | None = None):
        """Read through ``snapshot`` (each call one read transaction, as
        Database.snapshot), or a connection already in a transaction."""
        assert (snapshot is None) != (connection is None)
        self._snapshot = snapshot
        self._connection = connection

    def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self._connection is not None:
            return work(self._connection)
        assert self._snapshot is not None
        with self._snapshot() as connection:
            return work(connection)

    # ------------------------------------------------------------ names
    def _rulesets(self, c: sqlite3.Connection) -> dict[int, str]:
        """Ruleset id → name, in the order they were made (``default`` first)."""
        return dict(c.execute("SELECT id, name FROM ruleset ORDER BY id").fetchall())

    def _ruleset_id(self, c: sqlite3.Connection, ruleset: str) -> int:
        key = fold(ruleset)
        for ruleset_id, name in self._rulesets(c).items():
            if fold(name) == key:
                return ruleset_id
        raise NotFound.unknown(f"no ruleset named {ruleset!r}", ruleset, self._rulesets(c).values(), "see `tables list rulesets`")

    def _matches(self, c: sqlite3.Connection, kind: str, name: str, ruleset_id: int | None) -> list[sqlite3.Row]:
        """The rows named ``name`` by the one rule of names, in one ruleset or
        in all; a critical table also answers to its code (its name first)."""
        if not is_utf8(name):  # bytes that are not UTF-8 (lone surrogates from the command line): no name is one
            return []
        cursor = c.cursor()
        cursor.row_factory = sqlite3.Row
        table = NAMED_TABLES[kind]
        scoped, args = (False, ()) if ruleset_id is None else (True, (ruleset_id,))
        key = fold(name)
        for column in ("name", "code") if kind == "critical" else ("name",):
            # The NOCASE index finds ASCII spellings; other spellings need a scan
            # (hundreds of rows at most).
            # The index's collation is wider than the rule on PostgreSQL (ICU at
            # level 2 also takes katakana for hiragana): only what the rule says is the name.
            rows = [row for row in cursor.execute(_MATCHING[(column, scoped)][table], (name, *args)).fetchall()
                    if fold(row[column]) == key]
            if not rows:
                ids = [i for i, spelling in c.execute(_SPELLINGS[(column, scoped)][table], args)
                       if spelling is not None and fold(spelling) == key]
                rows = cursor.execute(_ROWS_BY_IDS[table], (sql.id_list(ids),)).fetchall() if ids else []
            if rows:
                return rows
        return []

    def _row(self, c: sqlite3.Connection, kind: str, name: str, ruleset: str | None = None) -> sqlite3.Row:
        """The one row ``name`` means: ``RULESET:NAME`` in that ruleset, a
        plain name in ``ruleset`` when given, else wherever it is, if it is in
        one ruleset only (Ambiguous when in several, NotFound when in none)."""
        rulesets = self._rulesets(c)
        scope, bare = split_qualified(name, rulesets.values())
        if scope is not None:
            found = self._matches(c, kind, bare, self._ruleset_id(c, scope))
            if found:
                return found[0]
            if not self._matches(c, kind, name, None):  # not a name with a colon in it either
                return self._missing(c, kind, bare, scope)
        scope_id = None if ruleset is None else self._ruleset_id(c, ruleset)
        found = self._matches(c, kind, name, scope_id)
        if len(found) == 1:
            return found[0]
        if found:
            candidates = [qualified(rulesets[row["ruleset_id"]], row["name"]) for row in found]
            raise Ambiguous(f"{LABELS[kind]} {name!r} is in {len(found)} rulesets: {', '.join(candidates)}; "
                            "write RULESET:NAME or give --ruleset", candidates)
        return self._missing(c, kind, name, ruleset)

    def _missing(self, c: sqlite3.Connection, kind: str, name: str, ruleset: str | None) -> sqlite3.Row:
        table = NAMED_TABLES[kind]
        scope_id = None if ruleset is None else self._ruleset_id(c, ruleset)
        scoped, args = (False, ()) if scope_id is None else (True, (scope_id,))
        known = [n for (n,) in c.execute(_NAMES_IN[scoped][table], args)]
        if kind == "critical":  # a critical table is also asked for by its code
            known += [code for (code,) in c.execute(_CODES_IN[scoped], args) if code]
        subject = f"no {LABELS[kind]} named {name!r}"
        if scope_id is not None:  # a ruleset was given
            subject += f" in ruleset {self._rulesets(c)[scope_id]!r}"
            elsewhere = self._matches(c, kind, name, None)
            if elsewhere:
                rulesets = self._rulesets(c)
                places = ", ".join(qualified(rulesets[row["ruleset_id"]], row["name"]) for row in elsewhere)
                raise NotFound(f"{subject} (there is {places})", [qualified(rulesets[r["ruleset_id"]], r["name"]) for r in elsewhere])
        if not is_utf8(name):
            subject += " (its bytes are not UTF-8; no name can be)"
        raise NotFound.unknown(subject, name, known, f"see `tables list {kind}`")

    def locate(self, kind: str, name: str, ruleset: str | None = None) -> Found:
        """Which ``kind`` a name means (see _row): its stored name and ruleset."""
        def work(c: sqlite3.Connection) -> Found:
            row = self._row(c, kind, name, ruleset)
            return Found(kind, row["id"], row["name"], self._rulesets(c)[row["ruleset_id"]])
        return self._run(work)

    def name_of(self, kind: str, name: str, ruleset: str | None = None) -> str:
        """The stored spelling of a name given in any spelling (NotFound if none)."""
        return self.locate(kind, name, ruleset).name

    def rulesets(self) -> list[str]:
        return self._run(lambda c: list(self._rulesets(c).values()))

    def death_at(self, ruleset: str) -> int | None:
        """The ruleset's death threshold (`Death at`): the hits left at or below which a combatant of its fights
        is dead; None: only down. NotFound if there is no such ruleset."""
        return self._run(lambda c: c.execute("SELECT death_at FROM ruleset WHERE id = ?",
                                             (self._ruleset_id(c, ruleset),)).fetchone()[0])

    def rulesets_named(self, ruleset: str) -> str:
        """A ruleset's stored name (NotFound, with near names, if there is none)."""
        return self._run(lambda c: self._rulesets(c)[self._ruleset_id(c, ruleset)])

    def _by(self, c: sqlite3.Connection, kind: str, ref: str | Found, ruleset: str | None) -> sqlite3.Row:
        """The row of a name (see _row) or of a Found."""
        if isinstance(ref, Found):
            cursor = c.cursor()
            cursor.row_factory = sqlite3.Row
            row = cursor.execute(_ROW_BY_ID[NAMED_TABLES[kind]], (ref.id,)).fetchone()
            if row is None:
                raise NotFound(f"{LABELS[kind]} {ref.name!r} is gone (removed meanwhile)")
            return row
        return self._row(c, kind, ref, ruleset)

    # ------------------------------------------------------------ tables
    def _scale(self, c: sqlite3.Connection, scale_id: int) -> SeverityScale:
        name = c.execute("SELECT name FROM severity_scale WHERE id = ?", (scale_id,)).fetchone()[0]
        levels = c.execute("SELECT code, name, modifier FROM severity WHERE scale_id = ? ORDER BY position", (scale_id,))
        return SeverityScale(name, tuple(Severity(*level) for level in levels))

    def scales(self) -> list[SeverityScale]:
        return self._run(lambda c: [self._scale(c, i) for (i,) in c.execute("SELECT id FROM severity_scale ORDER BY id").fetchall()])

    def load_attack_table(self, name: str | Found, ruleset: str | None = None) -> AttackTable:
        return self._run(lambda c: self._attack_table(c, self._by(c, "attack", name, ruleset)))

    def _attack_table(self, c: sqlite3.Connection, table: sqlite3.Row) -> AttackTable:
        armors = c.execute("SELECT id, code FROM armor_column WHERE attack_table_id = ? ORDER BY position", (table["id"],)).fetchall()
        column_index = {column_id: i for i, (column_id, _) in enumerate(armors)}
        rows = c.execute("SELECT id, low, high, unmodified, clumsy FROM attack_row WHERE attack_table_id = ? ORDER BY position",
                         (table["id"],)).fetchall()
        cells: dict[int, list] = {row_id: [None] * len(armors) for row_id, *_ in rows}
        for row_id, column_id, cell in self._attack_cells(c, table["id"]):
            cells[row_id][column_index[column_id]] = cell
        by_result = [(Range(low, high, bool(clumsy)), tuple(cells[row_id])) for row_id, low, high, unmodified, clumsy in rows
                     if not unmodified]
        by_die = [(Range(low, high, bool(clumsy)), tuple(cells[row_id])) for row_id, low, high, unmodified, clumsy in rows
                  if unmodified]
        return AttackTable(table["name"], tuple(code for _, code in armors), RangeTable(by_result), self._scale(c, table["scale_id"]),
                           automatic_miss=table["automatic_miss"], unmodified=RangeTable(by_die) if by_die else None)

    @staticmethod
    def _attack_cells(c: sqlite3.Connection, table_id: int) -> list[tuple[int, int, AttackCell]]:
        """(row id, armor column id, cell) of every cell of an attack table, with their further criticals."""
        more: dict[int, list[tuple[str, str | None]]] = defaultdict(list)
        for cell_id, severity, critical in c.execute(
            """SELECT x.cell_id, s.code, t.name FROM attack_cell_critical x
               JOIN attack_cell c ON c.id = x.cell_id JOIN attack_row r ON r.id = c.row_id
               JOIN severity s ON s.id = x.severity_id LEFT JOIN critical_table t ON t.id = x.critical_table_id
               WHERE r.attack_table_id = ? ORDER BY x.cell_id, x.position""", (table_id,)):
            more[cell_id].append((severity, critical))
        found = []
        for cell_id, row_id, column_id, outcome, hits, severity, critical in c.execute(
            """SELECT c.id, c.row_id, c.armor_column_id, c.outcome, c.hits, s.code, t.name
               FROM attack_cell c JOIN attack_row r ON r.id = c.row_id
               LEFT JOIN severity s ON s.id = c.severity_id
               LEFT JOIN critical_table t ON t.id = c.critical_table_id
               WHERE r.attack_table_id = ?""", (table_id,)):
            extra = {"more": tuple(more[cell_id])} if cell_id in more else {}
            found.append((row_id, column_id, AttackCell(Outcome(outcome), hits, severity, critical, **extra)))
        return found

    def load_effect_table(self, kind: TableKind, name: str | Found, ruleset: str | None = None) -> EffectTable:
        return self._run(lambda c: self._effect_table(c, kind, self._by(c, kind.value, name, ruleset)))

    def _effect_table(self, c: sqlite3.Connection, kind: TableKind, table: sqlite3.Row) -> EffectTable:
        tags: dict[int, list[str]] = defaultdict(list)
        for entry_id, tag in c.execute(_TAGS[kind], (table["id"],)):
            tags[entry_id].append(tag)
        # entries by printed column (None: a one-column table), each column by range, in order
        columns: dict[str | None, dict[Range, list[Entry]]] = {}
        for (entry_id, low, high, text, title, hits, bleed, stun, penalty, condition, must_parry, no_parry, attacker_bonus,
             death_in, column, parry_penalty, unread, conditions) in c.execute(_ENTRIES[kind], (table["id"],)):
            span = Range(low, high)
            columns.setdefault(column, defaultdict(list))[span].append(
                Entry(span, text, title, hits, bleed, stun, penalty, tuple(tags[entry_id]), condition,
                      must_parry, no_parry, attacker_bonus, death_in, column, parry_penalty,
                      tuple(json.loads(unread)) if unread else (), **entry_conditions(conditions)))
        tables = {column: RangeTable((span, tuple(entries)) for span, entries in groups.items()) for column, groups in columns.items()}
        printed = [column for column in tables if column is not None]
        rows = tables[printed[0]] if printed else tables.get(None, RangeTable([]))
        choice, column_rows = ColumnChoice(table["column_choice"]), tuple(tables[column] for column in printed)
        legend = parse_legend(table["legend"]) if table["legend"] else DEFAULT_LEGEND
        # a critical table has its code and scale; a fumble table neither (the default scale)
        code, scale = ((table["code"], self._scale(c, table["scale_id"])) if kind is TableKind.CRITICAL
                       else (None, self._scale(c, DEFAULT_SCALE_ID)))
        return EffectTable(kind, table["name"], rows, code, scale, roll=RollKind(table["roll_kind"]), choice=choice,
                           columns=tuple(printed), column_rows=column_rows, legend=legend,
                           condition_reading=ConditionReading(table["condition_reading"]))

    # ------------------------------------------------------------ weapons and creatures
    def load_weapon(self, name: str | Found, ruleset: str | None = None) -> Weapon:
        return self._run(lambda c: self._weapon(c, self._by(c, "weapons", name, ruleset)))

    def _weapon(self, c: sqlite3.Connection, row: sqlite3.Row) -> Weapon:
        def named(table: str, row_id: int) -> str:
            found = c.execute(_NAME_BY_ID[table], (row_id,)).fetchone()
            # Only inside an import (foreign keys deferred) can a table be gone already.
            return found[0] if found else "(removed in this import)"

        def named_if(table: str, row_id: int | None) -> str | None:
            return None if row_id is None else named(table, row_id)

        # a weapon's attack and critical tables are NOT NULL columns (models.Weapon); the others may be NULL
        return Weapon(
            row["name"], named("attack_table", row["attack_table_id"]), row["max_result"], row["clumsy"],
            named("critical_table", row["critical_table_id"]), named_if("critical_table", row["secondary_critical_table_id"]),
            named_if("fumble_table", row["fumble_table_id"]), row["fumble_modifier"], RollKind(row["roll_kind"]), row["notes"],
            row["critical_column"], row["fumble_column"], row["max_critical"],
        )

    def load_creature(self, name: str | Found, ruleset: str | None = None) -> Creature:
        return self._run(lambda c: self._creature(c, self._by(c, "creatures", name, ruleset)))

    def _creature(self, c: sqlite3.Connection, row: sqlite3.Row) -> Creature:
        features = tuple(f for (f,) in c.execute("SELECT feature FROM creature_feature WHERE creature_id = ? ORDER BY id", (row["id"],)))
        attacks = tuple(CreatureAttack(weapon, cmb) for weapon, cmb in c.execute(
            "SELECT weapon, cmb FROM creature_attack WHERE creature_id = ? ORDER BY position", (row["id"],)))
        return Creature(row["name"], row["defense"], row["armor"], Rank(row["rank"]), row["hp"], features, row["notes"], attacks)

    def load_table_set(self, weapon: Weapon, ruleset: str) -> TableSet:
        """The compiled tables one weapon of ``ruleset`` can reach: its attack
        table, every critical table its cells or the weapon name, and its
        fumble table, all of that ruleset."""
        from tables_app.domain.table_rules import TableSet

        def work(c: sqlite3.Connection) -> TableSet:
            def row(kind: str, name: str) -> sqlite3.Row:
                return self._row(c, kind, name, ruleset)

            attack = self._attack_table(c, row("attack", weapon.attack_table))
            cells = [cell for rows in (attack.rows, attack.unmodified) if rows for row in rows.values for cell in row]
            names = {weapon.critical, weapon.secondary_critical} | {table for cell in cells for _, table in cell.criticals}
            criticals = {n: self._effect_table(c, TableKind.CRITICAL, row("critical", n)) for n in sorted(n for n in names if n)}
            fumble = self._effect_table(c, TableKind.FUMBLE, row("fumble", weapon.fumble_table)) if weapon.fumble_table else None
            return TableSet(attack, criticals, fumble)
        return self._run(work)

    # ------------------------------------------------------------ listings
    def list_named(self, kind: str, ruleset: str | None = None) -> list[dict]:
        """One dict per table, weapon or creature of ``kind`` (in ``ruleset``,
        or in every ruleset), with its ruleset and provenance."""
        def work(c: sqlite3.Connection) -> list[dict]:
            cursor = c.cursor()
            cursor.row_factory = sqlite3.Row
            workbooks = dict(c.execute("SELECT id, file_name FROM workbook").fetchall())
            rulesets = self._rulesets(c)
            scoped, args = (False, ()) if ruleset is None else (True, (self._ruleset_id(c, ruleset),))
            out = []
            for row in cursor.execute(_LISTED[scoped][NAMED_TABLES[kind]], args).fetchall():
                item: dict = {"name": row["name"], "ruleset": rulesets[row["ruleset_id"]]}
                if kind == "weapons":
                    w = self._weapon(c, row)
                    item.update(attack_table=w.attack_table, max_result=w.max_result, clumsy=w.clumsy, critical=w.critical,
                                secondary_critical=w.secondary_critical, fumble_table=w.fumble_table,
                                fumble_modifier=w.fumble_modifier, roll=w.roll.value, max_critical=w.max_critical)
                elif kind == "creatures":
                    cr = self._creature(c, row)
                    item.update(defense=cr.defense, armor=cr.armor, rank=cr.rank.value, hp=cr.hp, features=list(cr.features),
                                attacks=[{"weapon": a.weapon, "cmb": a.cmb} for a in cr.attacks])
                elif kind == "critical":
                    item["code"] = row["code"]
                if kind == "attack":
                    item["rows"] = c.execute("SELECT count(*) FROM attack_row WHERE attack_table_id = ?", (row["id"],)).fetchone()[0]
                    item["armor"] = [a for (a,) in c.execute("SELECT code FROM armor_column WHERE attack_table_id = ? ORDER BY position", (row["id"],))]
                elif kind in ("critical", "fumble"):
                    item["rows"] = c.execute(_ENTRY_ROWS[TableKind(kind)], (row["id"],)).fetchone()[0]
                item["workbook"] = workbooks.get(row["workbook_id"])
                item["sheet"] = row["sheet"]
                out.append(item)
            return out
        return self._run(work)

    def list_rulesets(self) -> list[dict]:
        """Every ruleset with how many things of each kind it holds, the workbooks they came from, and its death
        threshold (`Death at`; None: none)."""
        def work(c: sqlite3.Connection) -> list[dict]:
            out = []
            thresholds = dict(c.execute("SELECT id, death_at FROM ruleset").fetchall())
            for ruleset_id, name in self._rulesets(c).items():
                counts = {kind: c.execute(_COUNT_IN_RULESET[table], (ruleset_id,)).fetchone()[0]
                          for kind, table in NAMED_TABLES.items()}
                workbooks = sorted({f for table in NAMED_TABLES.values() for (f,) in c.execute(
                    _WORKBOOKS_IN_RULESET[table], (ruleset_id,))})
                out.append({"name": name, **counts, "workbooks": workbooks, "death_at": thresholds[ruleset_id]})
            return out
        return self._run(work)

    def owners(self) -> dict[tuple[str, str, str], str | None]:
        """(kind, folded ruleset, folded name) → the file name of the workbook that owns it."""
        def work(c: sqlite3.Connection) -> dict:
            workbooks = dict(c.execute("SELECT id, file_name FROM workbook").fetchall())
            rulesets = self._rulesets(c)
            return {(kind, *name_key(rulesets[ruleset_id], name)): workbooks.get(workbook_id)
                    for kind, table in NAMED_TABLES.items()
                    for name, ruleset_id, workbook_id in c.execute(_OWNERS[table])}
        return self._run(work)

    def legends(self) -> list[tuple[str, str, str | None]]:
        """(ruleset, legend as written — "" for the default legend —, owning
        workbook's file name) of every critical and fumble table."""
        return self._run(lambda c: c.execute(
            """SELECT r.name, coalesce(t.legend, ''), w.file_name FROM critical_table t JOIN ruleset r ON r.id = t.ruleset_id
               LEFT JOIN workbook w ON w.id = t.workbook_id
               UNION SELECT r.name, coalesce(t.legend, ''), w.file_name FROM fumble_table t JOIN ruleset r ON r.id = t.ruleset_id
               LEFT JOIN workbook w ON w.id = t.workbook_id""").fetchall())

    def critical_names(self) -> list[tuple[str, str, str | None, str]]:
        """(ruleset, name, code, scale name) of every critical table."""
        return self._run(lambda c: c.execute(
            """SELECT r.name, t.name, t.code, s.name FROM critical_table t JOIN severity_scale s ON s.id = t.scale_id
               JOIN ruleset r ON r.id = t.ruleset_id""").fetchall())

    def names(self, kind: str) -> list[tuple[str, str]]:
        """(ruleset, name) of every table, weapon or creature of ``kind``."""
        return self._run(lambda c: c.execute(_NAMES[NAMED_TABLES[kind]]).fetchall())

    def scales_by_ruleset(self) -> list[tuple[str, SeverityScale]]:
        return self._run(lambda c: [(ruleset, self._scale(c, i)) for i, ruleset in c.execute(
            "SELECT s.id, r.name FROM severity_scale s JOIN ruleset r ON r.id = s.ruleset_id ORDER BY s.id").fetchall()])

    def provenance(self, kind: str, name: str, ruleset: str) -> tuple[str | None, str | None]:
        """(source, notes) of a named table or scale."""
        def work(c: sqlite3.Connection) -> tuple[str | None, str | None]:
            found = self._matches(c, kind, name, self._ruleset_id(c, ruleset))
            return (found[0]["source"], found[0]["notes"]) if found else (None, None)
        return self._run(work)

    def references(self, except_workbook: str | None = None) -> dict[str, set[tuple[str, str]]]:
        """Tables the database's weapons and attack cells use (name_key:
        ruleset and name, folded), leaving out the weapons and attack tables
        of one workbook (it is being re-imported)."""
        def work(c: sqlite3.Connection) -> dict[str, set[tuple[str, str]]]:
            weapons = c.execute(
                """SELECT r.name, a.name, k.name, s.name, f.name FROM weapon w
                   JOIN ruleset r ON r.id = w.ruleset_id
                   LEFT JOIN workbook b ON b.id = w.workbook_id
                   JOIN attack_table a ON a.id = w.attack_table_id
                   JOIN critical_table k ON k.id = w.critical_table_id
                   LEFT JOIN critical_table s ON s.id = w.secondary_critical_table_id
                   LEFT JOIN fumble_table f ON f.id = w.fumble_table_id
                   WHERE b.file_name IS NULL OR b.file_name != ?""", (except_workbook or "",)).fetchall()
            cells = c.execute(  # a cell's first critical, and its further ones (`36 E Heat + A Impact`)
                # The kept tables' cells are found through their rows, by index: the workbook being imported
                # (~90,000 cells at Rolemaster scale) is left out before its cells are read, not after.
                """SELECT DISTINCT r.name, k.name FROM (
                       SELECT id AS cell_id, critical_table_id FROM attack_cell WHERE row_id IN (
                           SELECT w.id FROM attack_row w JOIN attack_table a ON a.id = w.attack_table_id
                           LEFT JOIN workbook b ON b.id = a.workbook_id WHERE b.file_name IS NULL OR b.file_name != ?)
                       UNION ALL SELECT x.cell_id, x.critical_table_id FROM attack_cell_critical x
                       JOIN attack_cell c ON c.id = x.cell_id WHERE c.row_id IN (
                           SELECT w.id FROM attack_row w JOIN attack_table a ON a.id = w.attack_table_id
                           LEFT JOIN workbook b ON b.id = a.workbook_id WHERE b.file_name IS NULL OR b.file_name != ?)) x
                   JOIN critical_table k ON k.id = x.critical_table_id
                   JOIN ruleset r ON r.id = k.ruleset_id""", (except_workbook or "",) * 2).fetchall()
            used: dict[str, set[tuple[str, str]]] = {"attack": set(), "critical": set(), "fumble": set()}
            for ruleset, attack, critical, secondary, fumble in weapons:
                used["attack"].add(name_key(ruleset, attack))
                used["critical"] |= {name_key(ruleset, n) for n in (critical, secondary) if n}
                if fumble:
                    used["fumble"].add(name_key(ruleset, fumble))
            used["critical"] |= {name_key(ruleset, n) for ruleset, n in cells}
            return used
        return self._run(work)

    def exists(self, kind: str, name: str, ruleset: str) -> bool:
        def work(c: sqlite3.Connection) -> bool:
            rulesets = {fold(r): i for i, r in self._rulesets(c).items()}
            return fold(ruleset) in rulesets and bool(self._matches(c, kind, name, rulesets[fold(ruleset)]))
        return self._run(work)

    def attack_tops(self) -> dict[tuple[str, str], int | None]:
        """The top of every attack table's last row (None: an open top), by name_key."""
        return self._run(lambda c: {name_key(ruleset, name): high for ruleset, name, high in c.execute(
            """SELECT s.name, a.name, r.high FROM attack_table a JOIN attack_row r ON r.attack_table_id = a.id
               JOIN ruleset s ON s.id = a.ruleset_id
               WHERE r.position = (SELECT max(position) FROM attack_row WHERE attack_table_id = a.id AND NOT unmodified)""")})



