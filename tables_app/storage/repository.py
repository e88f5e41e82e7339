"""Typed queries: the catalog of names, loading compiled tables, writing imports.

Reads build immutable domain values once (no ORM object escapes this
module); writes are bulk inserts inside the caller's transaction.
"""

from __future__ import annotations

from collections import defaultdict

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from tables_app.domain.cells import AttackCell, Outcome
from tables_app.domain.ranges import Range, RangeTable
from tables_app.domain.severity import Severity, SeverityScale
from tables_app.domain.tables import (
    AttackTable,
    Creature,
    EffectTable,
    Entry,
    Rank,
    RollKind,
    TableKind,
    Weapon,
)
from tables_app.errors import NotFound
from tables_app.sheets.parse import Catalog, Defined, ParsedWorkbook
from tables_app.storage import models as m

DEFAULT_SCALE_ID = 1

# kind word (as in `tables list KIND`) → model
NAMED = {
    "severities": m.SeverityScale,
    "attack": m.AttackTable,
    "critical": m.CriticalTable,
    "fumble": m.FumbleTable,
    "weapons": m.Weapon,
    "creatures": m.Creature,
}


# ---------------------------------------------------------------- reading
def load_catalog(session: Session) -> Catalog:
    catalog = Catalog(scales={})
    for scale_id in session.scalars(select(m.SeverityScale.id)):
        scale = load_scale(session, scale_id)
        catalog.scales[scale.name] = scale
    workbook_names = dict(session.execute(select(m.Workbook.id, m.Workbook.file_name)).all())
    scale_names = dict(session.execute(select(m.SeverityScale.id, m.SeverityScale.name)).all())
    for name, code, scale_id in session.execute(
        select(m.CriticalTable.name, m.CriticalTable.code, m.CriticalTable.scale_id)
    ):
        catalog.critical[name.casefold()] = (name, scale_names[scale_id])
        if code:
            catalog.critical.setdefault(code.casefold(), (name, scale_names[scale_id]))
    for (name,) in session.execute(select(m.AttackTable.name)):
        catalog.attack[name.casefold()] = name
    for (name,) in session.execute(select(m.FumbleTable.name)):
        catalog.fumble[name.casefold()] = name
    for kind, model in NAMED.items():
        for name, workbook_id in session.execute(select(model.name, model.workbook_id)):
            catalog.owners[(kind, name.casefold())] = workbook_names.get(workbook_id)
    return catalog


def load_scale(session: Session, scale_id: int) -> SeverityScale:
    name = session.scalar(select(m.SeverityScale.name).where(m.SeverityScale.id == scale_id))
    levels = session.execute(
        select(m.Severity.code, m.Severity.name, m.Severity.modifier)
        .where(m.Severity.scale_id == scale_id)
        .order_by(m.Severity.position)
    ).all()
    return SeverityScale(name, tuple(Severity(*level) for level in levels))


def _find(session: Session, model, name: str, what: str):  # type: ignore[no-untyped-def]
    row = session.execute(select(model).where(model.name == name)).scalar_one_or_none()
    if row is None:
        known = sorted(session.scalars(select(model.name)))
        hint = f" (known: {', '.join(known)})" if known and len(known) <= 40 else ""
        raise NotFound(f"no {what} named {name!r}{hint}")
    return row


def load_attack_table(session: Session, name: str) -> AttackTable:
    table = _find(session, m.AttackTable, name, "attack table")
    armors = session.execute(
        select(m.ArmorColumn.id, m.ArmorColumn.code)
        .where(m.ArmorColumn.attack_table_id == table.id)
        .order_by(m.ArmorColumn.position)
    ).all()
    column_index = {column_id: i for i, (column_id, _) in enumerate(armors)}
    severity_codes = dict(session.execute(select(m.Severity.id, m.Severity.code)).all())
    critical_names = dict(session.execute(select(m.CriticalTable.id, m.CriticalTable.name)).all())
    rows = session.execute(
        select(m.AttackRow.id, m.AttackRow.low, m.AttackRow.high)
        .where(m.AttackRow.attack_table_id == table.id)
        .order_by(m.AttackRow.position)
    ).all()
    cells: dict[int, list[AttackCell | None]] = {row_id: [None] * len(armors) for row_id, _, _ in rows}
    for row_id, column_id, outcome, hits, severity_id, critical_id in session.execute(
        select(
            m.AttackCell.row_id,
            m.AttackCell.armor_column_id,
            m.AttackCell.outcome,
            m.AttackCell.hits,
            m.AttackCell.severity_id,
            m.AttackCell.critical_table_id,
        )
        .join(m.AttackRow, m.AttackRow.id == m.AttackCell.row_id)
        .where(m.AttackRow.attack_table_id == table.id)
    ):
        cells[row_id][column_index[column_id]] = AttackCell(
            Outcome(outcome),
            hits,
            severity_codes.get(severity_id) if severity_id else None,
            critical_names.get(critical_id) if critical_id else None,
        )
    pairs = [(Range(low, high), tuple(cells[row_id])) for row_id, low, high in rows]
    return AttackTable(table.name, tuple(code for _, code in armors), RangeTable(pairs), load_scale(session, table.scale_id))  # type: ignore[arg-type]


def load_effect_table(session: Session, kind: TableKind, name: str) -> EffectTable:
    table_model, entry_model, effect_model, key = _effect_models(kind)
    table = _find(session, table_model, name, f"{kind.value} table")
    entries = session.execute(
        select(entry_model).where(getattr(entry_model, key) == table.id).order_by(entry_model.position)
    ).scalars().all()
    tags: dict[int, list[str]] = defaultdict(list)
    for entry_id, tag in session.execute(
        select(effect_model.entry_id, effect_model.tag)
        .join(entry_model, entry_model.id == effect_model.entry_id)
        .where(getattr(entry_model, key) == table.id)
        .order_by(effect_model.entry_id, effect_model.position)
    ):
        tags[entry_id].append(tag)
    groups: dict[Range, list[Entry]] = defaultdict(list)
    for e in entries:
        span = Range(e.low, e.high)
        groups[span].append(
            Entry(span, e.text, e.title, e.hits, e.bleed, e.stun, e.penalty, tuple(tags[e.id]), e.condition)
        )
    code = getattr(table, "code", None)
    scale = load_scale(session, table.scale_id) if kind is TableKind.CRITICAL else load_scale(session, DEFAULT_SCALE_ID)
    return EffectTable(kind, table.name, RangeTable((r, tuple(es)) for r, es in groups.items()), code, scale)


def find_critical_name(session: Session, name_or_code: str) -> str:
    """A critical table's name, given its name or its code."""
    found = session.scalar(select(m.CriticalTable.name).where(m.CriticalTable.name == name_or_code))
    found = found or session.scalar(select(m.CriticalTable.name).where(m.CriticalTable.code == name_or_code))
    if found is None:
        _find(session, m.CriticalTable, name_or_code, "critical table")
    return found  # type: ignore[return-value]


def _effect_models(kind: TableKind):  # type: ignore[no-untyped-def]
    if kind is TableKind.CRITICAL:
        return m.CriticalTable, m.CriticalEntry, m.CriticalEffect, "critical_table_id"
    return m.FumbleTable, m.FumbleEntry, m.FumbleEffect, "fumble_table_id"


def _names(session: Session, model) -> dict[int, str]:  # type: ignore[no-untyped-def]
    return dict(session.execute(select(model.id, model.name)).all())


def load_weapon(session: Session, name: str) -> Weapon:
    return _weapon(_find(session, m.Weapon, name, "weapon"), session)


def _weapon(row: m.Weapon, session: Session) -> Weapon:
    attack, critical, fumble = _names(session, m.AttackTable), _names(session, m.CriticalTable), _names(session, m.FumbleTable)
    return Weapon(
        row.name,
        attack[row.attack_table_id],
        row.max_result,
        row.clumsy,
        critical[row.critical_table_id],
        critical.get(row.secondary_critical_table_id) if row.secondary_critical_table_id else None,
        fumble.get(row.fumble_table_id) if row.fumble_table_id else None,
        row.fumble_modifier,
        RollKind(row.roll_kind),
        row.notes,
    )


def load_creature(session: Session, name: str) -> Creature:
    return _creature(_find(session, m.Creature, name, "creature"), session)


def _creature(row: m.Creature, session: Session) -> Creature:
    features = tuple(
        session.scalars(select(m.CreatureFeature.feature).where(m.CreatureFeature.creature_id == row.id).order_by(m.CreatureFeature.id))
    )
    return Creature(row.name, row.defense, row.armor, Rank(row.rank), row.hp, features, row.notes)


def list_named(session: Session, kind: str) -> list[dict]:
    """One dict per table, weapon or creature of ``kind``, with provenance."""
    model = NAMED[kind]
    workbooks = dict(session.execute(select(m.Workbook.id, m.Workbook.file_name)).all())
    out = []
    for row in session.execute(select(model).order_by(model.name)).scalars():
        item: dict = {"name": row.name}
        if kind == "weapons":
            w = _weapon(row, session)
            item.update(
                attack_table=w.attack_table, max_result=w.max_result, clumsy=w.clumsy, critical=w.critical,
                secondary_critical=w.secondary_critical, fumble_table=w.fumble_table,
                fumble_modifier=w.fumble_modifier, roll=w.roll.value,
            )
        elif kind == "creatures":
            c = _creature(row, session)
            item.update(defense=c.defense, armor=c.armor, rank=c.rank.value, hp=c.hp, features=list(c.features))
        elif kind == "critical":
            item["code"] = row.code
        if kind in ("attack", "critical", "fumble"):
            item["rows"] = _row_count(session, kind, row.id)
        if kind == "attack":
            item["armor"] = list(session.scalars(select(m.ArmorColumn.code).where(m.ArmorColumn.attack_table_id == row.id).order_by(m.ArmorColumn.position)))
        item["workbook"] = workbooks.get(row.workbook_id)
        item["sheet"] = row.sheet
        out.append(item)
    return out


def _row_count(session: Session, kind: str, table_id: int) -> int:
    from sqlalchemy import func

    if kind == "attack":
        return session.scalar(select(func.count()).where(m.AttackRow.attack_table_id == table_id)) or 0
    _, entry_model, _, key = _effect_models(TableKind(kind))
    return session.scalar(select(func.count(func.distinct(entry_model.low))).where(getattr(entry_model, key) == table_id)) or 0


def list_workbooks(session: Session) -> list[dict]:
    return [
        {"file_name": w.file_name, "sha256": w.sha256, "imported_at": w.imported_at, "size_bytes": w.size_bytes}
        for w in session.execute(select(m.Workbook).order_by(m.Workbook.file_name)).scalars()
    ]


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

    def run(self) -> dict[str, list[str]]:
        s, p = self.session, self.parsed
        self.workbook_id = self._upsert_workbook()
        self.old = {kind: self._owned(model) for kind, model in NAMED.items()}
        # Free the codes this workbook's critical tables held: a renamed
        # table may take its old code with it.
        s.execute(update(m.CriticalTable).where(m.CriticalTable.workbook_id == self.workbook_id).values(code=None))
        if p.scale:
            self._write_scale()
        self.scale_ids = {name.casefold(): i for i, name in _names(s, m.SeverityScale).items()}
        self.severity_ids = {
            (scale_id, code.casefold()): sid
            for sid, scale_id, code in s.execute(select(m.Severity.id, m.Severity.scale_id, m.Severity.code))
        }
        for table in p.critical_tables:
            self._write_effect_table(table, TableKind.CRITICAL)
        for table in p.fumble_tables:
            self._write_effect_table(table, TableKind.FUMBLE)
        self.critical_ids = {name.casefold(): i for i, name in _names(s, m.CriticalTable).items()}
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
        found = self.session.scalar(select(m.Workbook.id).where(m.Workbook.file_name == p.file_name))
        if found is not None:
            self.session.execute(update(m.Workbook).where(m.Workbook.id == found).values(**values))
            return found
        return self.session.scalar(insert(m.Workbook).values(**values).returning(m.Workbook.id))

    def _owned(self, model) -> dict[str, int]:  # type: ignore[no-untyped-def]
        rows = self.session.execute(select(model.id, model.name).where(model.workbook_id == self.workbook_id))
        return {name.casefold(): i for i, name in rows}

    def _upsert_named(self, kind: str, defined: Defined, **values: object) -> int:
        """Insert or update by name (taking it over from another workbook with --replace)."""
        model = NAMED[kind]
        values = {"source": defined.source, "notes": defined.notes, **values}
        values.update(workbook_id=self.workbook_id, sheet=defined.sheet, name=defined.name)
        found = self.session.scalar(select(model.id).where(model.name == defined.name))
        self.old[kind].pop(defined.name.casefold(), None)
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
        existing = {code.casefold(): sid for sid, code in rows}
        # Park every row on unique placeholders so codes, names and positions can be shuffled.
        for sid, _ in rows:
            self.session.execute(update(m.Severity).where(m.Severity.id == sid).values(code=f"~{sid}", name=f"~{sid}", position=-sid))
        for position, level in enumerate(defined.value.levels):
            values = dict(position=position, code=level.code, name=level.name, modifier=level.modifier)
            sid = existing.pop(level.code.casefold(), None)
            if sid is None:
                self.session.execute(insert(m.Severity).values(scale_id=scale_id, **values))
            else:
                self.session.execute(update(m.Severity).where(m.Severity.id == sid).values(**values))
        if existing:
            self.removed_ids["severity"] = {sid: code for code, sid in existing.items()}
            self.session.execute(delete(m.Severity).where(m.Severity.id.in_(existing.values())))

    def _scale_id(self, scale: SeverityScale) -> int:
        return self.scale_ids[scale.name.casefold()]

    def _write_effect_table(self, defined: Defined[EffectTable], kind: TableKind) -> None:
        table_model, entry_model, effect_model, key = _effect_models(kind)
        table = defined.value
        extra = dict(code=table.code, scale_id=self._scale_id(table.scale)) if kind is TableKind.CRITICAL else {}
        table_id = self._upsert_named(kind.value, defined, **extra)
        self.session.execute(delete(entry_model).where(getattr(entry_model, key) == table_id))
        entries = table.entries
        ids = self.session.scalars(
            insert(entry_model).returning(entry_model.id, sort_by_parameter_order=True),
            [
                {
                    key: table_id, "position": i, "low": e.range.low, "high": e.range.high, "label": e.range.label,
                    "condition": e.condition, "title": e.title, "text": e.text, "hits": e.hits,
                    "bleed": e.bleed, "stun": e.stun, "penalty": e.penalty,
                }
                for i, e in enumerate(entries)
            ],
        ).all()
        tags = [
            {"entry_id": entry_id, "position": j, "tag": tag}
            for entry_id, e in zip(ids, entries)
            for j, tag in enumerate(e.effects)
        ]
        if tags:
            self.session.execute(insert(effect_model), tags)

    def _write_attack_table(self, defined: Defined[AttackTable]) -> None:
        table = defined.value
        scale_id = self._scale_id(table.scale)
        table_id = self._upsert_named("attack", defined, scale_id=scale_id)
        s = self.session
        s.execute(delete(m.AttackRow).where(m.AttackRow.attack_table_id == table_id))
        s.execute(delete(m.ArmorColumn).where(m.ArmorColumn.attack_table_id == table_id))
        column_ids = s.scalars(
            insert(m.ArmorColumn).returning(m.ArmorColumn.id, sort_by_parameter_order=True),
            [{"attack_table_id": table_id, "position": i, "code": code} for i, code in enumerate(table.armors)],
        ).all()
        row_ids = s.scalars(
            insert(m.AttackRow).returning(m.AttackRow.id, sort_by_parameter_order=True),
            [
                {"attack_table_id": table_id, "position": i, "low": r.low, "high": r.high, "label": r.label}
                for i, r in enumerate(table.rows.ranges)
            ],
        ).all()
        cells = []
        for row_id, row_cells in zip(row_ids, table.rows.values):
            for column_id, cell in zip(column_ids, row_cells):
                cells.append(
                    {
                        "row_id": row_id, "armor_column_id": column_id, "text": cell.text,
                        "outcome": cell.outcome.value, "hits": cell.hits,
                        "severity_id": self.severity_ids[(scale_id, cell.severity.casefold())] if cell.severity else None,
                        "critical_table_id": self.critical_ids[cell.critical.casefold()] if cell.critical else None,
                    }
                )
        s.execute(insert(m.AttackCell), cells)

    def _id_of(self, model, name: str | None) -> int | None:  # type: ignore[no-untyped-def]
        if name is None:
            return None
        return self.session.scalar(select(model.id).where(model.name == name))

    def _write_weapon(self, defined: Defined[Weapon]) -> None:
        w = defined.value
        self._upsert_named(
            "weapons", defined,
            attack_table_id=self._id_of(m.AttackTable, w.attack_table),
            max_result=w.max_result, clumsy=w.clumsy,
            critical_table_id=self._id_of(m.CriticalTable, w.critical),
            secondary_critical_table_id=self._id_of(m.CriticalTable, w.secondary_critical),
            fumble_table_id=self._id_of(m.FumbleTable, w.fumble_table),
            fumble_modifier=w.fumble_modifier, roll_kind=w.roll.value,
        )

    def _write_creature(self, defined: Defined[Creature]) -> None:
        c = defined.value
        creature_id = self._upsert_named("creatures", defined, defense=c.defense, armor=c.armor, rank=c.rank.value, hp=c.hp)
        self.session.execute(delete(m.CreatureFeature).where(m.CreatureFeature.creature_id == creature_id))
        features = list(dict.fromkeys(f.casefold() for f in c.features))
        if features:
            self.session.execute(insert(m.CreatureFeature), [{"creature_id": creature_id, "feature": f} for f in features])

    def _remove_dropped(self) -> dict[str, list[str]]:
        """Delete what this workbook defined before and no longer does."""
        removed: dict[str, list[str]] = {}
        for kind in ("weapons", "creatures", "attack", "critical", "fumble", "severities"):
            model = NAMED[kind]
            ids = list(self.old[kind].values())
            if not ids:
                continue
            named = dict(self.session.execute(select(model.id, model.name).where(model.id.in_(ids))).all())
            removed[kind] = sorted(named.values())
            self.removed_ids[kind] = named
            self.session.execute(delete(model).where(model.id.in_(ids)))
        return removed


REMOVED_LABELS = {"critical": "critical table", "attack": "attack table", "fumble": "fumble table",
                  "severities": "severity scale", "severity": "severity", "weapons": "weapon", "creatures": "creature"}


def dangling_users(session: Session, removed: dict[str, dict[int, str]]) -> list[str]:
    """What still points at rows an import removed (foreign keys are deferred):
    one sentence per removed thing that is still used."""
    found: list[str] = []

    def names(query) -> list[str]:  # type: ignore[no-untyped-def]
        return sorted(set(session.scalars(query)))

    def tables_with_cells(where) -> list[str]:  # type: ignore[no-untyped-def]
        return names(select(m.AttackTable.name).join(m.AttackRow).join(m.AttackCell, m.AttackCell.row_id == m.AttackRow.id).where(where))

    for kind, named in removed.items():
        for row_id, name in named.items():
            users: list[str] = []
            if kind == "critical":
                users += [f"weapon {n!r}" for n in names(select(m.Weapon.name).where(
                    (m.Weapon.critical_table_id == row_id) | (m.Weapon.secondary_critical_table_id == row_id)))]
                users += [f"attack table {n!r}" for n in tables_with_cells(m.AttackCell.critical_table_id == row_id)]
            elif kind == "attack":
                users += [f"weapon {n!r}" for n in names(select(m.Weapon.name).where(m.Weapon.attack_table_id == row_id))]
            elif kind == "fumble":
                users += [f"weapon {n!r}" for n in names(select(m.Weapon.name).where(m.Weapon.fumble_table_id == row_id))]
            elif kind == "severities":
                users += [f"attack table {n!r}" for n in names(select(m.AttackTable.name).where(m.AttackTable.scale_id == row_id))]
                users += [f"critical table {n!r}" for n in names(select(m.CriticalTable.name).where(m.CriticalTable.scale_id == row_id))]
            elif kind == "severity":
                users += [f"attack table {n!r}" for n in tables_with_cells(m.AttackCell.severity_id == row_id)]
            if users:
                found.append(f"{REMOVED_LABELS[kind]} {name!r}, which {', '.join(users)} still use{'s' if len(users) == 1 else ''}")
    return found


def load_table_set(session: Session, weapon: Weapon):  # type: ignore[no-untyped-def]
    """The compiled tables one weapon can reach: its attack table, every
    critical table its cells or the weapon name, and its fumble table."""
    from tables_app.domain.resolve import TableSet

    attack = load_attack_table(session, weapon.attack_table)
    names = {weapon.critical, weapon.secondary_critical}
    names |= {cell.critical for cells in attack.rows.values for cell in cells}
    criticals = {
        name: load_effect_table(session, TableKind.CRITICAL, name) for name in sorted(n for n in names if n)
    }
    fumble = load_effect_table(session, TableKind.FUMBLE, weapon.fumble_table) if weapon.fumble_table else None
    return TableSet(attack, criticals, fumble)
