"""Writing imports with plain SQL (sqlite3's face, on either database: postgres.py): the catalog an import checks
against, the writer, and what a removal would leave dangling.

Everything here runs inside the caller's write transaction
(transactions.py). The SQL follows the schema the migrations made
(models.py describes it; sql.py says how statements are made, and the tests
prepare each one against it); every INSERT names every column the ORM used
to fill in, defaults included, so the rows are the same as when it wrote them.
"""

from __future__ import annotations

import json
import sqlite3

from tables_app.domain.kinds import LABELS, named_by_kind
from tables_app.domain.names import fold
from tables_app.domain.rulesets import shown
from tables_app.domain.severity import DEFAULT_SCALE, SeverityScale
from tables_app.domain.tables import AttackTable, Creature, EffectTable, TableKind, Weapon
from tables_app.import_model import Catalog, Defined, ParsedWorkbook, RulesetContents
from tables_app.storage import sql
from tables_app.storage.dialect import on_server
from tables_app.storage.reader import ENTRY_TABLES, NAMED_TABLES, Reader, conditions_column

# models.DEFAULT_RULESET_ID (`default`, made by migration 0003); models.py imports SQLAlchemy
DEFAULT_RULESET_ID = 1


def load_catalog(connection: sqlite3.Connection) -> Catalog:
    """What the database holds, by ruleset, read inside the import's own transaction."""
    reader = Reader(connection=connection)
    catalog = Catalog(rulesets={fold(name): name for name in reader.rulesets()})
    for ruleset in reader.rulesets():
        catalog.by_ruleset[fold(ruleset)] = RulesetContents()
    for ruleset, scale in reader.scales_by_ruleset():
        catalog.contents(ruleset).scales[scale.name] = scale
    for ruleset, name, code, scale_name in reader.critical_names():
        held = catalog.contents(ruleset)
        held.critical[fold(name)] = (name, scale_name)
        if code:
            held.critical.setdefault(fold(code), (name, scale_name))
    for kind in ("attack", "fumble", "weapons"):
        for ruleset, name in reader.names(kind):
            getattr(catalog.contents(ruleset), kind)[fold(name)] = name
    for ruleset, legend, owner in reader.legends():
        catalog.contents(ruleset).legends.setdefault(legend, set()).add(owner or "")
    catalog.owners = reader.owners()
    return catalog


_KEYED = sql.per_table("SELECT id, ruleset_id, name FROM {table}", NAMED_TABLES.values())
_OWNED = sql.per_table("SELECT id, ruleset_id, name FROM {table} WHERE workbook_id = ?", NAMED_TABLES.values())
_RULESETS_USED = sql.per_table("SELECT DISTINCT ruleset_id FROM {table}", NAMED_TABLES.values())


def _keyed(connection: sqlite3.Connection, table: str) -> dict[tuple[int, str], int]:
    """(ruleset id, folded name) → id of every row of a named table."""
    return {(ruleset_id, fold(name)): i for i, ruleset_id, name in connection.execute(_KEYED[table])}


def drop_empty_rulesets(connection: sqlite3.Connection) -> list[str]:
    """Delete the rulesets (but ``default``) that nothing is in any more; their names."""
    used = set()
    for table in NAMED_TABLES.values():
        used |= {ruleset_id for (ruleset_id,) in connection.execute(_RULESETS_USED[table])}
    rows = connection.execute("SELECT id, name FROM ruleset WHERE id != ?", (DEFAULT_RULESET_ID,))
    empty = {i: name for i, name in rows if i not in used}
    if empty:
        connection.execute("DELETE FROM ruleset WHERE id IN (SELECT value FROM json_each(?))", (sql.id_list(empty),))
    return sorted(empty.values())


# ---------------------------------------------------------------- the statements the writer runs
# The columns of each table an import fills in, all but id (SQLite numbers the row).
_NAMED = ("workbook_id", "sheet", "name", "ruleset_id", "source", "notes")  # every named table has these
_EFFECT_TABLE = ("column_choice", "roll_kind", "legend", "condition_reading")
WRITTEN = {
    "workbook": ("sha256", "imported_at", "size_bytes", "file_name"),
    "severity_scale": _NAMED,
    "critical_table": (*_NAMED, *_EFFECT_TABLE, "code", "scale_id"),
    "fumble_table": (*_NAMED, *_EFFECT_TABLE),
    "attack_table": (*_NAMED, "scale_id", "automatic_miss"),
    "weapon": (*_NAMED, "attack_table_id", "max_result", "clumsy", "critical_table_id", "secondary_critical_table_id",
               "fumble_table_id", "fumble_modifier", "roll_kind", "critical_column", "fumble_column", "max_critical"),
    "creature": (*_NAMED, "defense", "armor", "rank", "hp"),
}
_INSERT_ROW = {table: sql.insert(table, columns) for table, columns in WRITTEN.items()}
_UPDATE_ROW = {table: sql.update(table, columns) for table, columns in WRITTEN.items()}

# Severities keep their ids by code; a scale's rows are parked on unique placeholders first (see _write_scale).
_PARK_SEVERITY = "UPDATE severity SET code = '~' || id, name = '~' || id, position = -id WHERE id = ?"
_INSERT_SEVERITY = ("INSERT INTO severity (scale_id, position, code, name, modifier) "
                    "VALUES (:scale_id, :position, :code, :name, :modifier)")
_UPDATE_SEVERITY = "UPDATE severity SET position = :position, code = :code, name = :name, modifier = :modifier WHERE id = :id"

# Child rows: numbered here (_new_ids), put in with one executemany each.
_NEXT_ID = sql.per_table("SELECT coalesce(max(id), 0) + 1 FROM {table}",
                         ("armor_column", "attack_row", "attack_cell", *(entries for _, entries, _, _ in ENTRY_TABLES.values())))
_DELETE_ENTRIES = {kind: sql.fill("DELETE FROM {entries} WHERE {table}_id = ?", entries=entries, table=table)
                   for kind, (table, entries, _, _) in ENTRY_TABLES.items()}
_INSERT_ENTRIES = {kind: sql.fill("INSERT INTO {entries} (id, {table}_id, position, low, high, label, condition, title, text, hits, "
                                  "bleed, stun, penalty, must_parry, no_parry, attacker_bonus, death_in, column_name, "
                                  "parry_penalty, unread, conditions) "
                                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                  entries=entries, table=table)
                   for kind, (table, entries, _, _) in ENTRY_TABLES.items()}
_INSERT_EFFECTS = {kind: sql.fill("INSERT INTO {effects} (entry_id, position, tag) VALUES (?, ?, ?)", effects=effects)
                   for kind, (_, _, effects, _) in ENTRY_TABLES.items()}
_INSERT_ARMOR_COLUMNS = "INSERT INTO armor_column (id, attack_table_id, position, code) VALUES (?, ?, ?, ?)"
_INSERT_ATTACK_ROWS = ("INSERT INTO attack_row (id, attack_table_id, position, low, high, label, unmodified, clumsy) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
_INSERT_ATTACK_CELLS = ("INSERT INTO attack_cell (id, row_id, armor_column_id, text, outcome, hits, severity_id, critical_table_id) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
_INSERT_MORE_CRITICALS = ("INSERT INTO attack_cell_critical (cell_id, position, severity_id, critical_table_id) "
                          "VALUES (?, ?, ?, ?)")
# PostgreSQL: a child table's id sequence moved past the ids an import gave
# (numbered here, they never drew on it), never back, so a row added later
# by hand, its id from the sequence, takes a new id.
_PAST_NUMBERED = ("SELECT setval(CAST(s AS regclass), ?) FROM (SELECT pg_get_serial_sequence(?, 'id') AS s) AS q "
                  "WHERE s IS NOT NULL AND ? > coalesce(pg_sequence_last_value(CAST(s AS regclass)), 0)")
_INSERT_FEATURES = "INSERT INTO creature_feature (creature_id, feature) VALUES (?, ?)"
_INSERT_ATTACKS = "INSERT INTO creature_attack (creature_id, position, weapon, cmb) VALUES (?, ?, ?, ?)"

_NAMED_BY_IDS = sql.per_table("SELECT id, ruleset_id, name FROM {table} WHERE id IN (SELECT value FROM json_each(?))",
                              NAMED_TABLES.values())
_DELETE_BY_IDS = sql.per_table("DELETE FROM {table} WHERE id IN (SELECT value FROM json_each(?))", NAMED_TABLES.values())


def _every_column(table: str, values: dict[str, object]) -> None:
    """A row of ``table`` names every column of WRITTEN (a named parameter too many would go unnoticed)."""
    if values.keys() != set(WRITTEN[table]):
        raise ValueError(f"a {table} row names {sorted(values)}, not the columns {sorted(WRITTEN[table])}")


# ---------------------------------------------------------------- writing
class Writer:
    """Writes one parsed workbook; named rows keep their ids on re-import.

    Keeping ids means weapons and cells of *other* workbooks that point at a
    re-imported table still point at it; only child rows are replaced. The
    caller defers foreign keys to the commit, so a table may be dropped by
    one workbook and its users re-pointed by the next in the same import;
    ``dangling_users`` then says who would still be left pointing at nothing.
    """

    def __init__(self, connection: sqlite3.Connection, parsed: ParsedWorkbook, imported_at: str):
        self.db = connection
        self.parsed = parsed
        self.imported_at = imported_at
        self.removed_ids: dict[str, dict[int, str]] = {}  # kind → {id: name}
        # table → {(ruleset id, folded name): id}, read once per table and kept up to date (see _ids)
        self.named_ids: dict[str, dict[tuple[int, str], int]] = {}
        self.ruleset_ids: dict[str, int] = {fold(name): i for i, name in self.db.execute("SELECT id, name FROM ruleset")}
        self.numbered: dict[str, int] = {}  # child table → the highest id _new_ids gave

    def run(self) -> dict[str, list[str]]:
        p = self.parsed
        for ruleset, death_at in p.death_at.items():  # a ruleset's setting: the last workbook to give it sets it
            self.db.execute("UPDATE ruleset SET death_at = ? WHERE id = ?", (death_at, self.ruleset_id(ruleset)))
        if not p.defines_anything and self._workbook_id() is None:
            return {}  # nothing to write and nothing written before: the database stays as it was
        self.workbook_id = self._upsert_workbook()
        self.old = {kind: self._owned(table) for kind, table in NAMED_TABLES.items()}
        # Free the codes this workbook's critical tables held: a renamed
        # table may take its old code with it.
        self.db.execute("UPDATE critical_table SET code = NULL WHERE workbook_id = ?", (self.workbook_id,))
        if p.scale:
            self._write_scale()
        self.severity_ids = {(scale_id, fold(code)): sid
                             for sid, scale_id, code in self.db.execute("SELECT id, scale_id, code FROM severity")}
        for critical in p.critical_tables:
            self._write_effect_table(critical, TableKind.CRITICAL)
        for fumble in p.fumble_tables:
            self._write_effect_table(fumble, TableKind.FUMBLE)
        for attack in p.attack_tables:
            self._write_attack_table(attack)
        for weapon in p.weapons:
            self._write_weapon(weapon)
        for creature in p.creatures:
            self._write_creature(creature)
        if on_server(self.db):
            for table, highest in self.numbered.items():
                self.db.execute(_PAST_NUMBERED, (highest, table, highest))
        return self._remove_dropped()

    def _insert_row(self, table: str, values: dict[str, object]) -> int:
        """Insert one row of a table of WRITTEN, every column given; its id."""
        _every_column(table, values)
        return self.db.execute(_INSERT_ROW[table], values).fetchone()[0]

    def _update_row(self, table: str, row_id: int, values: dict[str, object]) -> None:
        _every_column(table, values)
        self.db.execute(_UPDATE_ROW[table], {**values, "id": row_id})

    def _upsert_workbook(self) -> int:
        p = self.parsed
        values = dict(sha256=p.sha256, imported_at=self.imported_at, size_bytes=p.size_bytes, file_name=p.file_name)
        found = self._workbook_id()
        if found is not None:
            self._update_row("workbook", found, values)
            return found
        return self._insert_row("workbook", values)

    def _workbook_id(self) -> int | None:
        row = self.db.execute("SELECT id FROM workbook WHERE file_name = ?", (self.parsed.file_name,)).fetchone()
        return row[0] if row else None

    def _owned(self, table: str) -> dict[tuple[int, str], int]:
        rows = self.db.execute(_OWNED[table], (self.workbook_id,))
        return {(ruleset_id, fold(name)): i for i, ruleset_id, name in rows}

    def ruleset_id(self, name: str) -> int:
        """The id of a ruleset, made on first use (without a death threshold: a sheet sets it, `Death at`)."""
        key = fold(name)
        if key not in self.ruleset_ids:
            self.ruleset_ids[key] = self.db.execute("INSERT INTO ruleset (name, death_at) VALUES (?, NULL) RETURNING id",
                                                      (name,)).fetchone()[0]
        return self.ruleset_ids[key]

    def _upsert_named(self, kind: str, defined: Defined, **values: object) -> int:
        """Insert or update by ruleset and name (taking it over from another workbook with --replace)."""
        table = NAMED_TABLES[kind]
        ruleset_id = self.ruleset_id(defined.ruleset)
        values = {"source": defined.source, "notes": defined.notes, **values}
        values.update(workbook_id=self.workbook_id, sheet=defined.sheet, name=defined.name, ruleset_id=ruleset_id)
        key = (ruleset_id, fold(defined.name))
        ids = self._ids(table)
        found = ids.get(key)
        self.old[kind].pop(key, None)
        if found is None:
            found = ids[key] = self._insert_row(table, values)
            return found
        self._update_row(table, found, values)
        return found

    def _write_scale(self) -> None:
        """Severities keep their ids by code (cells elsewhere point at them)."""
        defined = self.parsed.scale
        assert defined is not None
        scale_id = self._upsert_named("severities", defined)
        rows = self.db.execute("SELECT id, code FROM severity WHERE scale_id = ?", (scale_id,)).fetchall()
        existing = {fold(code): sid for sid, code in rows}
        # Park every row on unique placeholders (~id) so codes, names and positions can be shuffled.
        self.db.executemany(_PARK_SEVERITY, [(sid,) for sid, _ in rows])
        for position, level in enumerate(defined.value.levels):
            values = {"position": position, "code": level.code, "name": level.name, "modifier": level.modifier}
            sid = existing.pop(fold(level.code), None)
            if sid is None:
                self.db.execute(_INSERT_SEVERITY, {"scale_id": scale_id, **values})
            else:
                self.db.execute(_UPDATE_SEVERITY, {**values, "id": sid})
        if existing:
            self.removed_ids["severity"] = {sid: code for code, sid in existing.items()}
            self.db.execute("DELETE FROM severity WHERE id IN (SELECT value FROM json_each(?))", (sql.id_list(existing.values()),))

    def _scale_id(self, scale: SeverityScale, ruleset: str) -> int:
        """The ruleset's scale of that name, or the built-in one (every ruleset may use it)."""
        scale_ids = self._ids("severity_scale")
        found = scale_ids.get((self.ruleset_id(ruleset), fold(scale.name)))
        return found if found is not None else scale_ids[(DEFAULT_RULESET_ID, fold(DEFAULT_SCALE.name))]

    # Child rows (cells, rows, entries, tags) are the bulk of an import: they go
    # in with one executemany each, with ids assigned here (the import holds
    # the write lock: BEGIN IMMEDIATE).
    def _new_ids(self, table: str, count: int) -> range:
        start = self.db.execute(_NEXT_ID[table]).fetchone()[0]
        if count:
            self.numbered[table] = start + count - 1
        return range(start, start + count)

    def _insert(self, statement: str, rows: list[tuple]) -> None:
        if rows:
            self.db.executemany(statement, rows)

    def _write_effect_table(self, defined: Defined[EffectTable], kind: TableKind) -> None:
        _, entry_table, _, _ = ENTRY_TABLES[kind]
        table = defined.value
        extra = dict(code=table.code, scale_id=self._scale_id(table.scale, defined.ruleset)) if kind is TableKind.CRITICAL else {}
        table_id = self._upsert_named(kind.value, defined, column_choice=table.choice.value, roll_kind=table.roll.value,
                                      legend=table.legend.written() or None,
                                      condition_reading=table.condition_reading.value, **extra)
        self.db.execute(_DELETE_ENTRIES[kind], (table_id,))
        entries = table.entries
        ids = self._new_ids(entry_table, len(entries))
        self._insert(
            _INSERT_ENTRIES[kind],
            [(entry_id, table_id, i, e.range.low, e.range.high, e.range.label, e.condition, e.title, e.text,
              e.hits, e.bleed, e.stun, e.penalty, e.must_parry, e.no_parry, e.attacker_bonus, e.death_in, e.column,
              e.parry_penalty, json.dumps(list(e.unread), ensure_ascii=False) if e.unread else None,
              conditions_column(e))
             for i, (entry_id, e) in enumerate(zip(ids, entries))],
        )
        self._insert(_INSERT_EFFECTS[kind],
                     [(entry_id, j, tag) for entry_id, e in zip(ids, entries) for j, tag in enumerate(e.effects)])

    def _write_attack_table(self, defined: Defined[AttackTable]) -> None:
        table = defined.value
        scale_id = self._scale_id(table.scale, defined.ruleset)
        table_id = self._upsert_named("attack", defined, scale_id=scale_id, automatic_miss=table.automatic_miss)
        ruleset_id = self.ruleset_id(defined.ruleset)
        self.db.execute("DELETE FROM attack_row WHERE attack_table_id = ?", (table_id,))
        self.db.execute("DELETE FROM armor_column WHERE attack_table_id = ?", (table_id,))
        column_ids = self._new_ids("armor_column", len(table.armors))
        self._insert(_INSERT_ARMOR_COLUMNS,
                     [(i, table_id, position, code) for position, (i, code) in enumerate(zip(column_ids, table.armors))])
        # The rows read by the result, then the `UM` rows read by the unmodified die.
        groups = [(table.rows, False)] + ([(table.unmodified, True)] if table.unmodified else [])
        rows = [(span, cells, unmodified) for rows, unmodified in groups for span, cells in zip(rows.ranges, rows.values)]
        row_ids = self._new_ids("attack_row", len(rows))
        self._insert(_INSERT_ATTACK_ROWS,
                     [(i, table_id, position, r.low, r.high, r.label, unmodified, r.clumsy)
                      for position, (i, (r, _, unmodified)) in enumerate(zip(row_ids, rows))])
        # Equal cells are often one parsed object (cell parsing is cached), so
        # each distinct cell is turned into its columns once.
        severity_ids = {code: sid for (scale, code), sid in self.severity_ids.items() if scale == scale_id}

        def critical_id(name: str | None) -> int | None:
            return self._ids("critical_table")[(ruleset_id, fold(name))] if name else None

        distinct = {id(cell): cell for _, row_cells, _ in rows for cell in row_cells}
        columns = {
            key: (cell.text, cell.outcome.value, cell.hits,
                  severity_ids[fold(cell.severity)] if cell.severity else None, critical_id(cell.critical))
            for key, cell in distinct.items()
        }
        # One cell per row and armor column, in that order: their ids run from the first one up.
        cell_ids = self._new_ids("attack_cell", len(rows) * len(column_ids))
        first = cell_ids.start
        width = len(column_ids)
        self._insert(
            _INSERT_ATTACK_CELLS,
            [(first + r * width + c, row_id, column_id, *columns[id(cell)])
             for r, (row_id, (_, row_cells, _)) in enumerate(zip(row_ids, rows))
             for c, (column_id, cell) in enumerate(zip(column_ids, row_cells))],
        )
        several = {key for key, cell in distinct.items() if getattr(cell, "more", ())}
        if several:  # a cell's second and further criticals (`36 E Heat + A Impact`): rare, so looked for by id
            self._insert(
                _INSERT_MORE_CRITICALS,
                [(first + r * width + c, position, severity_ids[fold(severity)], critical_id(critical))
                 for r, (_, row_cells, _) in enumerate(rows)
                 for c, cell in enumerate(row_cells) if id(cell) in several
                 for position, (severity, critical) in enumerate(cell.more, start=1)],
            )

    def _id_of(self, table: str, name: str | None, ruleset: str) -> int | None:
        """The id of a table by name in a ruleset (written by now, or already in the database)."""
        return None if name is None else self._ids(table).get((self.ruleset_id(ruleset), fold(name)))

    def _ids(self, table: str) -> dict[tuple[int, str], int]:
        """(ruleset id, folded name) → id of every row of a named table: read
        once, then kept up to date by _upsert_named. Names match folded: the
        NOCASE index finds an ASCII spelling only (ÆRØ is ærø too, domain/names.py)."""
        if table not in self.named_ids:
            self.named_ids[table] = _keyed(self.db, table)
        return self.named_ids[table]

    def _write_weapon(self, defined: Defined[Weapon]) -> None:  # max_result None: no cap
        w, ruleset = defined.value, defined.ruleset
        self._upsert_named(
            "weapons", defined,
            attack_table_id=self._id_of("attack_table", w.attack_table, ruleset),
            max_result=w.max_result, clumsy=w.clumsy,
            critical_table_id=self._id_of("critical_table", w.critical, ruleset),
            secondary_critical_table_id=self._id_of("critical_table", w.secondary_critical, ruleset),
            fumble_table_id=self._id_of("fumble_table", w.fumble_table, ruleset),
            fumble_modifier=w.fumble_modifier, roll_kind=w.roll.value,
            critical_column=w.critical_column, fumble_column=w.fumble_column, max_critical=w.max_critical,
        )

    def _write_creature(self, defined: Defined[Creature]) -> None:
        c = defined.value
        creature_id = self._upsert_named("creatures", defined, defense=c.defense, armor=c.armor, rank=c.rank.value, hp=c.hp)
        self.db.execute("DELETE FROM creature_feature WHERE creature_id = ?", (creature_id,))
        features = list(dict.fromkeys(fold(f) for f in c.features))
        self._insert(_INSERT_FEATURES, [(creature_id, f) for f in features])
        self.db.execute("DELETE FROM creature_attack WHERE creature_id = ?", (creature_id,))
        self._insert(_INSERT_ATTACKS, [(creature_id, i, a.weapon, a.cmb) for i, a in enumerate(c.attacks)])

    def _remove_dropped(self) -> dict[str, list[str]]:
        """Delete what this workbook defined before and no longer does;
        their names, qualified outside ``default`` (RM:Slash) as reports name them."""
        removed: dict[str, list[str]] = {}
        ruleset_names = dict(self.db.execute("SELECT id, name FROM ruleset").fetchall())
        for kind in ("weapons", "creatures", "attack", "critical", "fumble", "severities"):
            table = NAMED_TABLES[kind]
            ids = list(self.old[kind].values())
            if not ids:
                continue
            rows = self.db.execute(_NAMED_BY_IDS[table], (sql.id_list(ids),)).fetchall()
            named = {i: shown(ruleset_names[ruleset_id], name) for i, ruleset_id, name in rows}
            removed[kind] = sorted(named.values())
            self.removed_ids[kind] = named
            self.db.execute(_DELETE_BY_IDS[table], (sql.id_list(ids),))
        return removed


REMOVED_LABELS = {**LABELS, "severity": "severity"}  # one level of a scale is removed too


# Who uses a row a change removes, by the removed row's kind: how a user is
# named, and the (ruleset, name) of the users (?1: the removed row's id).
_USERS = {
    "critical": (
        ("weapon", ("SELECT r.name, w.name FROM weapon w JOIN ruleset r ON r.id = w.ruleset_id "
                    "WHERE w.critical_table_id = ?1 OR w.secondary_critical_table_id = ?1")),
        # a cell's first critical, or its second and further (attack_cell_critical)
        ("attack table", ("SELECT r.name, a.name FROM attack_table a JOIN ruleset r ON r.id = a.ruleset_id WHERE a.id IN ("
                          "SELECT w.attack_table_id FROM attack_row w JOIN attack_cell c ON c.row_id = w.id "
                          "WHERE c.critical_table_id = ?1 OR c.id IN ("
                          "SELECT x.cell_id FROM attack_cell_critical x WHERE x.critical_table_id = ?1))")),
    ),
    "attack": (("weapon", "SELECT r.name, w.name FROM weapon w JOIN ruleset r ON r.id = w.ruleset_id WHERE w.attack_table_id = ?1"),),
    "fumble": (("weapon", "SELECT r.name, w.name FROM weapon w JOIN ruleset r ON r.id = w.ruleset_id WHERE w.fumble_table_id = ?1"),),
    "severities": (
        ("attack table", "SELECT r.name, a.name FROM attack_table a JOIN ruleset r ON r.id = a.ruleset_id WHERE a.scale_id = ?1"),
        ("critical table", "SELECT r.name, k.name FROM critical_table k JOIN ruleset r ON r.id = k.ruleset_id WHERE k.scale_id = ?1"),
    ),
    "severity": (("attack table", ("SELECT r.name, a.name FROM attack_table a JOIN ruleset r ON r.id = a.ruleset_id WHERE a.id IN ("
                                   "SELECT w.attack_table_id FROM attack_row w JOIN attack_cell c ON c.row_id = w.id "
                                   "WHERE c.severity_id = ?1 OR c.id IN ("
                                   "SELECT x.cell_id FROM attack_cell_critical x WHERE x.severity_id = ?1))")),),
}


def dangling_users(connection: sqlite3.Connection, removed: dict[str, dict[int, str]]) -> list[str]:
    """What still points at rows an import removed (foreign keys are deferred):
    one sentence per removed thing that is still used."""
    found: list[str] = []
    attackers = _attackers_without_weapons(connection) if removed.get("weapons") else {}
    for kind, named in removed.items():
        for row_id, name in named.items():
            # the users' names, qualified outside ``default`` (a user may be in another ruleset)
            users = [(user, sorted({shown(ruleset, user_name) for ruleset, user_name in connection.execute(statement, (row_id,))}))
                     for user, statement in _USERS.get(kind, ())]
            if kind == "weapons":
                users.append(("creature", sorted(attackers.get(fold(name), ()))))
            if any(names for _, names in users):
                found.append(f"{REMOVED_LABELS[kind]} {name!r} (still used by {named_by_kind(users)})")
    return found


_ATTACKS = ("SELECT r.name, c.name, a.weapon, c.ruleset_id FROM creature_attack a JOIN creature c ON c.id = a.creature_id "
            "JOIN ruleset r ON r.id = c.ruleset_id")


def _attackers_without_weapons(connection: sqlite3.Connection) -> dict[str, set[str]]:
    """The creatures whose attacks name a weapon their ruleset no longer
    holds, by that weapon (folded, qualified outside ``default`` as removals
    name it): a creature's attack names its weapon, it does not point at its
    row, so a weapon that is gone is found by name (in any letter case)."""
    held = set(_keyed(connection, "weapon"))
    found: dict[str, set[str]] = {}
    for ruleset, creature, weapon, ruleset_id in connection.execute(_ATTACKS):
        if (ruleset_id, fold(weapon)) not in held:
            found.setdefault(fold(shown(ruleset, weapon)), set()).add(shown(ruleset, creature))
    return found
