"""Writing imports with the ORM's core: the catalog an import checks against,
the writer, and what a removal would leave dangling.

Reads for everyday commands live in reader.py (plain sqlite3); writes here
are bulk inserts inside the caller's transaction.
"""

from __future__ import annotations

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from tables_app.domain.kinds import LABELS
from tables_app.domain.names import fold
from tables_app.domain.rulesets import shown
from tables_app.domain.severity import DEFAULT_SCALE, SeverityScale
from tables_app.domain.tables import AttackTable, Creature, EffectTable, TableKind, Weapon
from tables_app.import_model import Catalog, Defined, ParsedWorkbook, Shelf
from tables_app.storage import models as m

# kind word (as in `tables list KIND`) → model
NAMED = {
    "severities": m.SeverityScale,
    "attack": m.AttackTable,
    "critical": m.CriticalTable,
    "fumble": m.FumbleTable,
    "weapons": m.Weapon,
    "creatures": m.Creature,
}


def load_catalog(session: Session) -> Catalog:
    """What the database holds, by ruleset, read inside the import's own transaction."""
    from tables_app.storage.reader import Reader

    reader = Reader(connection=session.connection().connection.driver_connection)
    catalog = Catalog(rulesets={fold(name): name for name in reader.rulesets()})
    for ruleset in reader.rulesets():
        catalog.shelves[fold(ruleset)] = Shelf()
    for ruleset, scale in reader.scales_by_ruleset():
        catalog.shelf(ruleset).scales[scale.name] = scale
    for ruleset, name, code, scale_name in reader.critical_names():
        shelf = catalog.shelf(ruleset)
        shelf.critical[fold(name)] = (name, scale_name)
        if code:
            shelf.critical.setdefault(fold(code), (name, scale_name))
    for kind in ("attack", "fumble"):
        for ruleset, name in reader.names(kind):
            getattr(catalog.shelf(ruleset), kind)[fold(name)] = name
    catalog.owners = reader.owners()
    return catalog


def _effect_models(kind: TableKind):  # type: ignore[no-untyped-def]
    if kind is TableKind.CRITICAL:
        return m.CriticalTable, m.CriticalEntry, m.CriticalEffect, "critical_table_id"
    return m.FumbleTable, m.FumbleEntry, m.FumbleEffect, "fumble_table_id"


def _keyed(session: Session, model) -> dict[tuple[int, str], int]:  # type: ignore[no-untyped-def]
    """(ruleset id, folded name) → id of every row of a named model."""
    return {(ruleset_id, fold(name)): i for i, ruleset_id, name in session.execute(select(model.id, model.ruleset_id, model.name))}


def drop_empty_rulesets(session: Session) -> list[str]:
    """Delete the rulesets (but ``default``) that nothing is in any more; their names."""
    used = set()
    for model in NAMED.values():
        used |= set(session.scalars(select(model.ruleset_id).distinct()))
    empty = dict(session.execute(select(m.Ruleset.id, m.Ruleset.name).where(
        m.Ruleset.id != m.DEFAULT_RULESET_ID, m.Ruleset.id.not_in(used))).all())
    if empty:
        session.execute(delete(m.Ruleset).where(m.Ruleset.id.in_(empty)))
    return sorted(empty.values())


# ---------------------------------------------------------------- writing
class Writer:
    """Writes one parsed workbook; named rows keep their ids on re-import.

    Keeping ids means weapons and cells of *other* workbooks that point at a
    re-imported table still point at it; only child rows are replaced. The
    caller defers foreign keys to the commit, so a table may be dropped by
    one workbook and its users re-pointed by the next in the same import;
    ``dangling_users`` then says who would still be left pointing at nothing.
    """

    def __init__(self, session: Session, parsed: ParsedWorkbook, imported_at: str):
        self.session = session
        self.parsed = parsed
        self.imported_at = imported_at
        self.removed_ids: dict[str, dict[int, str]] = {}  # kind → {id: name}
        self.ids_by_name: dict[type, dict[tuple[int, str], int]] = {}  # model → {(ruleset id, folded name): id}
        self.ruleset_ids: dict[str, int] = {fold(name): i for i, name in self.session.execute(select(m.Ruleset.id, m.Ruleset.name))}

    def run(self) -> dict[str, list[str]]:
        s, p = self.session, self.parsed
        if not p.defines_anything and self._workbook_id() is None:
            return {}  # nothing to write and nothing written before: the database stays as it was
        self.workbook_id = self._upsert_workbook()
        self.old = {kind: self._owned(model) for kind, model in NAMED.items()}
        # Free the codes this workbook's critical tables held: a renamed
        # table may take its old code with it.
        s.execute(update(m.CriticalTable).where(m.CriticalTable.workbook_id == self.workbook_id).values(code=None))
        if p.scale:
            self._write_scale()
        self.scale_ids = _keyed(s, m.SeverityScale)
        self.severity_ids = {
            (scale_id, fold(code)): sid
            for sid, scale_id, code in s.execute(select(m.Severity.id, m.Severity.scale_id, m.Severity.code))
        }
        for table in p.critical_tables:
            self._write_effect_table(table, TableKind.CRITICAL)
        for table in p.fumble_tables:
            self._write_effect_table(table, TableKind.FUMBLE)
        self.critical_ids = _keyed(s, m.CriticalTable)
        for table in p.attack_tables:
            self._write_attack_table(table)
        for weapon in p.weapons:
            self._write_weapon(weapon)
        for creature in p.creatures:
            self._write_creature(creature)
        return self._remove_dropped()

    def _upsert_workbook(self) -> int:
        p = self.parsed
        values = dict(sha256=p.sha256, imported_at=self.imported_at, size_bytes=p.size_bytes, file_name=p.file_name)
        found = self._workbook_id()
        if found is not None:
            self.session.execute(update(m.Workbook).where(m.Workbook.id == found).values(**values))
            return found
        return self.session.scalar(insert(m.Workbook).values(**values).returning(m.Workbook.id))

    def _workbook_id(self) -> int | None:
        return self.session.scalar(select(m.Workbook.id).where(m.Workbook.file_name == self.parsed.file_name))

    def _owned(self, model) -> dict[tuple[int, str], int]:  # type: ignore[no-untyped-def]
        rows = self.session.execute(select(model.id, model.ruleset_id, model.name).where(model.workbook_id == self.workbook_id))
        return {(ruleset_id, fold(name)): i for i, ruleset_id, name in rows}

    def ruleset_id(self, name: str) -> int:
        """The id of a ruleset, made on first use (a namespace has nothing else to it)."""
        key = fold(name)
        if key not in self.ruleset_ids:
            self.ruleset_ids[key] = self.session.scalar(insert(m.Ruleset).values(name=name).returning(m.Ruleset.id))
        return self.ruleset_ids[key]

    def _upsert_named(self, kind: str, defined: Defined, **values: object) -> int:
        """Insert or update by ruleset and name (taking it over from another workbook with --replace)."""
        model = NAMED[kind]
        ruleset_id = self.ruleset_id(defined.ruleset)
        values = {"source": defined.source, "notes": defined.notes, **values}
        values.update(workbook_id=self.workbook_id, sheet=defined.sheet, name=defined.name, ruleset_id=ruleset_id)
        # The NOCASE index finds an ASCII spelling; another spelling of the
        # same name (ÆRØ for ærø) is the same row too (domain/names.py).
        found = self.session.scalar(select(model.id).where(model.name == defined.name, model.ruleset_id == ruleset_id))
        if found is None:
            key = (ruleset_id, fold(defined.name))
            found = _keyed(self.session, model).get(key)
        self.old[kind].pop((ruleset_id, fold(defined.name)), None)
        if found is None:
            return self.session.scalar(insert(model).values(**values).returning(model.id))
        self.session.execute(update(model).where(model.id == found).values(**values))
        return found

    def _write_scale(self) -> None:
        """Severities keep their ids by code (cells elsewhere point at them)."""
        defined = self.parsed.scale
        assert defined is not None
        scale_id = self._upsert_named("severities", defined)
        rows = self.session.execute(select(m.Severity.id, m.Severity.code).where(m.Severity.scale_id == scale_id)).all()
        existing = {fold(code): sid for sid, code in rows}
        # Park every row on unique placeholders so codes, names and positions can be shuffled.
        for sid, _ in rows:
            self.session.execute(update(m.Severity).where(m.Severity.id == sid).values(code=f"~{sid}", name=f"~{sid}", position=-sid))
        for position, level in enumerate(defined.value.levels):
            values = dict(position=position, code=level.code, name=level.name, modifier=level.modifier)
            sid = existing.pop(fold(level.code), None)
            if sid is None:
                self.session.execute(insert(m.Severity).values(scale_id=scale_id, **values))
            else:
                self.session.execute(update(m.Severity).where(m.Severity.id == sid).values(**values))
        if existing:
            self.removed_ids["severity"] = {sid: code for code, sid in existing.items()}
            self.session.execute(delete(m.Severity).where(m.Severity.id.in_(existing.values())))

    def _scale_id(self, scale: SeverityScale, ruleset: str) -> int:
        """The ruleset's scale of that name, or the built-in one (every ruleset may use it)."""
        found = self.scale_ids.get((self.ruleset_id(ruleset), fold(scale.name)))
        return found if found is not None else self.scale_ids[(m.DEFAULT_RULESET_ID, fold(DEFAULT_SCALE.name))]

    # Child rows (cells, rows, entries, tags) are the bulk of an import: they go
    # in with one executemany each on the transaction's own connection, with ids
    # assigned here (the import holds the write lock: BEGIN IMMEDIATE).
    @property
    def _raw(self):  # type: ignore[no-untyped-def]
        return self.session.connection().connection.driver_connection

    def _new_ids(self, table: str, count: int) -> range:
        start = self._raw.execute(f"SELECT coalesce(max(id), 0) + 1 FROM {table}").fetchone()[0]
        return range(start, start + count)

    def _insert(self, table: str, columns: tuple[str, ...], rows: list[tuple]) -> None:
        if rows:
            marks = ", ".join("?" * len(columns))
            self._raw.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks})", rows)

    def _write_effect_table(self, defined: Defined[EffectTable], kind: TableKind) -> None:
        table_model, entry_model, effect_model, key = _effect_models(kind)
        table = defined.value
        extra = dict(code=table.code, scale_id=self._scale_id(table.scale, defined.ruleset),
                     roll_kind=table.roll.value) if kind is TableKind.CRITICAL else {}
        table_id = self._upsert_named(kind.value, defined, column_choice=table.choice.value, **extra)
        self.session.execute(delete(entry_model).where(getattr(entry_model, key) == table_id))
        entries = table.entries
        ids = self._new_ids(entry_model.__tablename__, len(entries))
        self._insert(
            entry_model.__tablename__,
            ("id", key, "position", "low", "high", "label", "condition", "title", "text", "hits", "bleed", "stun", "penalty",
             "must_parry", "no_parry", "attacker_bonus", "death_in", "column_name"),
            [(entry_id, table_id, i, e.range.low, e.range.high, e.range.label, e.condition, e.title, e.text,
              e.hits, e.bleed, e.stun, e.penalty, e.must_parry, e.no_parry, e.attacker_bonus, e.death_in, e.column)
             for i, (entry_id, e) in enumerate(zip(ids, entries))],
        )
        self._insert(effect_model.__tablename__, ("entry_id", "position", "tag"),
                     [(entry_id, j, tag) for entry_id, e in zip(ids, entries) for j, tag in enumerate(e.effects)])

    def _write_attack_table(self, defined: Defined[AttackTable]) -> None:
        table = defined.value
        scale_id = self._scale_id(table.scale, defined.ruleset)
        table_id = self._upsert_named("attack", defined, scale_id=scale_id, automatic_miss=table.automatic_miss)
        ruleset_id = self.ruleset_id(defined.ruleset)
        s = self.session
        s.execute(delete(m.AttackRow).where(m.AttackRow.attack_table_id == table_id))
        s.execute(delete(m.ArmorColumn).where(m.ArmorColumn.attack_table_id == table_id))
        column_ids = self._new_ids("armor_column", len(table.armors))
        self._insert("armor_column", ("id", "attack_table_id", "position", "code"),
                     [(i, table_id, position, code) for position, (i, code) in enumerate(zip(column_ids, table.armors))])
        # The rows read by the result, then the `UM` rows read by the unmodified die.
        groups = [(table.rows, False)] + ([(table.unmodified, True)] if table.unmodified else [])
        rows = [(span, cells, unmodified) for rows, unmodified in groups for span, cells in zip(rows.ranges, rows.values)]
        row_ids = self._new_ids("attack_row", len(rows))
        self._insert("attack_row", ("id", "attack_table_id", "position", "low", "high", "label", "unmodified"),
                     [(i, table_id, position, r.low, r.high, r.label, unmodified)
                      for position, (i, (r, _, unmodified)) in enumerate(zip(row_ids, rows))])
        # Equal cells are often one parsed object (cell parsing is cached), so
        # each distinct cell is turned into its columns once.
        severity_ids = {code: sid for (scale, code), sid in self.severity_ids.items() if scale == scale_id}

        def critical_id(name: str | None) -> int | None:
            return self.critical_ids[(ruleset_id, fold(name))] if name else None

        distinct = {id(cell): cell for _, row_cells, _ in rows for cell in row_cells}
        columns = {
            key: (cell.text, cell.outcome.value, cell.hits,
                  severity_ids[fold(cell.severity)] if cell.severity else None, critical_id(cell.critical))
            for key, cell in distinct.items()
        }
        placed = [(row_id, column_id, cell) for row_id, (_, row_cells, _) in zip(row_ids, rows)
                  for column_id, cell in zip(column_ids, row_cells)]
        cell_ids = self._new_ids("attack_cell", len(placed))
        self._insert(
            "attack_cell", ("id", "row_id", "armor_column_id", "text", "outcome", "hits", "severity_id", "critical_table_id"),
            [(cell_id, row_id, column_id) + columns[id(cell)] for cell_id, (row_id, column_id, cell) in zip(cell_ids, placed)],
        )
        self._insert(  # a cell's second and further criticals (`36 E Heat + A Impact`)
            "attack_cell_critical", ("cell_id", "position", "severity_id", "critical_table_id"),
            [(cell_id, position, severity_ids[fold(severity)], critical_id(critical))
             for cell_id, (_, _, cell) in zip(cell_ids, placed)
             for position, (severity, critical) in enumerate(getattr(cell, "more", ()), start=1)],
        )

    def _id_of(self, model, name: str | None, ruleset: str) -> int | None:  # type: ignore[no-untyped-def]
        """The id of a table by name in a ruleset (written by now), from one query per kind."""
        if name is None:
            return None
        if model not in self.ids_by_name:
            self.ids_by_name[model] = _keyed(self.session, model)
        return self.ids_by_name[model].get((self.ruleset_id(ruleset), fold(name)))

    def _write_weapon(self, defined: Defined[Weapon]) -> None:  # max_result None: no cap
        w, ruleset = defined.value, defined.ruleset
        self._upsert_named(
            "weapons", defined,
            attack_table_id=self._id_of(m.AttackTable, w.attack_table, ruleset),
            max_result=w.max_result, clumsy=w.clumsy,
            critical_table_id=self._id_of(m.CriticalTable, w.critical, ruleset),
            secondary_critical_table_id=self._id_of(m.CriticalTable, w.secondary_critical, ruleset),
            fumble_table_id=self._id_of(m.FumbleTable, w.fumble_table, ruleset),
            fumble_modifier=w.fumble_modifier, roll_kind=w.roll.value,
            critical_column=w.critical_column, fumble_column=w.fumble_column,
        )

    def _write_creature(self, defined: Defined[Creature]) -> None:
        c = defined.value
        creature_id = self._upsert_named("creatures", defined, defense=c.defense, armor=c.armor, rank=c.rank.value, hp=c.hp)
        self.session.execute(delete(m.CreatureFeature).where(m.CreatureFeature.creature_id == creature_id))
        features = list(dict.fromkeys(fold(f) for f in c.features))
        if features:
            self.session.execute(insert(m.CreatureFeature), [{"creature_id": creature_id, "feature": f} for f in features])

    def _remove_dropped(self) -> dict[str, list[str]]:
        """Delete what this workbook defined before and no longer does;
        their names, qualified outside ``default`` (RM:Slash) as reports name them."""
        removed: dict[str, list[str]] = {}
        ruleset_names = dict(self.session.execute(select(m.Ruleset.id, m.Ruleset.name)).all())
        for kind in ("weapons", "creatures", "attack", "critical", "fumble", "severities"):
            model = NAMED[kind]
            ids = list(self.old[kind].values())
            if not ids:
                continue
            rows = self.session.execute(select(model.id, model.ruleset_id, model.name).where(model.id.in_(ids))).all()
            named = {i: shown(ruleset_names[ruleset_id], name) for i, ruleset_id, name in rows}
            removed[kind] = sorted(named.values())
            self.removed_ids[kind] = named
            self.session.execute(delete(model).where(model.id.in_(ids)))
        return removed


REMOVED_LABELS = {**LABELS, "severity": "severity"}  # one level of a scale is removed too


def dangling_users(session: Session, removed: dict[str, dict[int, str]]) -> list[str]:
    """What still points at rows an import removed (foreign keys are deferred):
    one sentence per removed thing that is still used."""
    found: list[str] = []

    def names(model, where) -> list[str]:  # type: ignore[no-untyped-def]
        """The users' names, qualified outside ``default`` (a user may be in another ruleset)."""
        rows = session.execute(select(m.Ruleset.name, model.name).join(m.Ruleset, m.Ruleset.id == model.ruleset_id).where(where))
        return sorted({shown(ruleset, name) for ruleset, name in rows})

    def tables_with_cells(where) -> list[str]:  # type: ignore[no-untyped-def]
        cells = select(m.AttackRow.attack_table_id).join(m.AttackCell, m.AttackCell.row_id == m.AttackRow.id).where(where)
        return names(m.AttackTable, m.AttackTable.id.in_(cells))

    for kind, named in removed.items():
        for row_id, name in named.items():
            users: list[str] = []
            if kind == "critical":
                users += [f"weapon {n!r}" for n in names(m.Weapon,
                    (m.Weapon.critical_table_id == row_id) | (m.Weapon.secondary_critical_table_id == row_id))]
                users += [f"attack table {n!r}" for n in tables_with_cells(m.AttackCell.critical_table_id == row_id)]
            elif kind == "attack":
                users += [f"weapon {n!r}" for n in names(m.Weapon, m.Weapon.attack_table_id == row_id)]
            elif kind == "fumble":
                users += [f"weapon {n!r}" for n in names(m.Weapon, m.Weapon.fumble_table_id == row_id)]
            elif kind == "severities":
                users += [f"attack table {n!r}" for n in names(m.AttackTable, m.AttackTable.scale_id == row_id)]
                users += [f"critical table {n!r}" for n in names(m.CriticalTable, m.CriticalTable.scale_id == row_id)]
            elif kind == "severity":
                users += [f"attack table {n!r}" for n in tables_with_cells(m.AttackCell.severity_id == row_id)]
            if users:
                found.append(f"{REMOVED_LABELS[kind]} {name!r}, which {', '.join(users)} still use{'s' if len(users) == 1 else ''}")
    return found
