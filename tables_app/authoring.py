"""Authoring use cases: export tables back to .xlsx, and blank templates."""

from __future__ import annotations

from pathlib import Path

from tables_app.domain.severity import DEFAULT_SCALE
from tables_app.domain.tables import TableKind
from tables_app.errors import NotFound, TablesError
from tables_app.storage.sqlite import Database

def export(database: Database, path: str | Path, names: tuple[str, ...] = ()) -> dict:
    """Write the named tables, weapons and creatures (all when none are named)
    in the import format, with the severity scales they use."""
    from tables_app.sheets.write import Export, Named, write_export

    reader = database.reader()
    wanted = {n.casefold() for n in names}
    found: set[str] = set()

    def chosen(name: str) -> bool:
        if not wanted or name.casefold() in wanted:
            found.add(name.casefold())
            return True
        return False

    content = Export()
    scales: dict[str, object] = {}
    for kind, target in (("critical", content.critical), ("fumble", content.fumble), ("attack", content.attack)):
        for item in reader.list_named(kind):
            if not chosen(item["name"]):
                continue
            table = reader.load_attack_table(item["name"]) if kind == "attack" else reader.load_effect_table(TableKind(kind), item["name"])
            target.append(Named(table, *reader.provenance(kind, item["name"])))
            if table.scale.name != DEFAULT_SCALE.name:
                scales[table.scale.name] = table.scale
    content.scales = [Named(scale, *reader.provenance("severities", name)) for name, scale in scales.items()]
    content.weapons = [reader.load_weapon(i["name"]) for i in reader.list_named("weapons") if chosen(i["name"])]
    content.creatures = [reader.load_creature(i["name"]) for i in reader.list_named("creatures") if chosen(i["name"])]
    missing = sorted(n for n in names if n.casefold() not in found)
    if missing:
        raise NotFound(f"nothing named {', '.join(repr(n) for n in missing)} to export")
    try:
        write_export(path, content)
    except OSError as exc:
        raise TablesError(f"cannot write {path}: {exc.strerror or exc}") from None
    return {
        "file": str(path), "severities": [s.value.name for s in content.scales],
        "attack": [t.value.name for t in content.attack], "critical": [t.value.name for t in content.critical],
        "fumble": [t.value.name for t in content.fumble], "weapons": [w.name for w in content.weapons],
        "creatures": [c.name for c in content.creatures],
    }


def template(database: Database, kind: str, path: str | Path, *, name: str | None, armor: str, rows: str | None) -> dict:
    from tables_app.sheets.write import TemplateLists, write_template

    reader = database.reader()
    attack = tuple(sorted(t["name"] for t in reader.list_named("attack")))
    armors = tuple(dict.fromkeys(code for t in reader.list_named("attack") for code in t["armor"]))
    lists = TemplateLists(
        attack=attack, critical=tuple(sorted(t["name"] for t in reader.list_named("critical"))),
        fumble=tuple(sorted(t["name"] for t in reader.list_named("fumble"))), armor=armors,
    )
    columns = tuple(code.strip() for code in armor.split(",") if code.strip())
    if kind == "attack" and (not columns or len(set(c.casefold() for c in columns)) != len(columns)):
        raise TablesError(f"--armor {armor!r} must list distinct armor codes, e.g. NA,LA,MA,HA")
    try:
        write_template(path, kind, name=name, armor=columns, rows=rows, lists=lists)
    except ValueError as exc:
        raise TablesError(str(exc)) from None
    except OSError as exc:
        raise TablesError(f"cannot write {path}: {exc.strerror or exc}") from None
    return {"file": str(path), "kind": kind}
