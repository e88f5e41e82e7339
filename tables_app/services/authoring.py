"""Authoring use cases: export tables back to .xlsx, and blank templates."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol, TypeVar

from tables_app.domain.kinds import TABLE_KINDS
from tables_app.domain.names import fold
from tables_app.domain.rulesets import qualified, shown
from tables_app.domain.severity import DEFAULT_SCALE
from tables_app.domain.tables import AttackTable, EffectTable, TableKind
from tables_app.errors import Ambiguous, NotFound, TablesError, UsageMistake
from tables_app.files import check_write_target, os_problem, save
from tables_app.storage.database import Database

if TYPE_CHECKING:
    from tables_app.domain.severity import SeverityScale
    from tables_app.sheets.write import Named
    from tables_app.storage.reader import Found


class Nameable(Protocol):
    @property
    def name(self) -> str: ...


Table = TypeVar("Table", EffectTable, AttackTable)
Item = TypeVar("Item", bound=Nameable)

WORKBOOK_SUFFIX = ".xlsx"
DEFAULT_ARMOR = "NA,LA,MA,HA"


class Selection:
    """Which named items an export takes: every item (no names given), or
    those the names mean (``RULESET:NAME``, a plain name that one ruleset
    has, a critical table's code). Offer each item to ``chosen``, then
    ``check`` the names: one in several rulesets is Ambiguous, one that
    matched nothing NotFound (with the near names)."""

    def __init__(self, names: tuple[str, ...]):
        self.names = names
        self.wanted = {fold(n) for n in names}
        self.found: set[str] = set()
        self.every: list[str] = []  # every exportable name, for suggestions
        self.homes: dict[str, dict[str, str]] = {}  # folded name asked for → ruleset → the qualified name it matched

    def matches(self, item: dict[str, Any]) -> set[str]:
        """The folded names asked for that ``item`` answers to (a critical table to its code too, as in every lookup)."""
        spellings = {fold(text) for bare in (item["name"], item.get("code")) if bare
                     for text in (bare, qualified(item["ruleset"], bare))}
        return spellings & self.wanted

    def chosen(self, item: dict[str, Any]) -> bool:
        matched = self.matches(item)
        self.every.append(shown(item["ruleset"], item["name"]))
        if not self.wanted or matched:
            self.found.update(matched)
            for name in matched:  # a plain name: where it was found (one ruleset, or ambiguous)
                self.homes.setdefault(name, {})[item["ruleset"]] = qualified(item["ruleset"], item["name"])
            return True
        return False

    def check(self, elsewhere: dict[str, str] | None = None) -> None:
        """``elsewhere``: folded name → why it is not exported (an item the
        export does not write), said in place of "nothing named"."""
        for name in self.names:  # as in every lookup, a plain name in several rulesets must be qualified
            matched = self.homes.get(fold(name), {})
            if len(matched) > 1:
                candidates = sorted(matched.values(), key=fold)
                raise Ambiguous(f"{name!r} is in {len(matched)} rulesets: {', '.join(candidates)}; "
                                "write RULESET:NAME or give --ruleset", candidates)
        missing = sorted(n for n in self.names if fold(n) not in self.found)
        for name in missing:
            if elsewhere and fold(name) in elsewhere:
                raise NotFound(elsewhere[fold(name)])
        if len(missing) == 1:
            raise NotFound.unknown(f"nothing named {missing[0]!r} to export", missing[0], self.every, "see `tables list`")
        if missing:
            raise NotFound(f"nothing named {', '.join(repr(n) for n in missing)} to export")


def export(database: Database, path: str | Path, names: tuple[str, ...] = (), *, ruleset: str | None = None,
           force: bool = False) -> dict[str, Any]:
    """Write the named tables, weapons and creatures (all when none are named;
    only those of ``ruleset`` when given) in the import format, with the
    severity scales they use and each sheet's ruleset. A name may be written
    RULESET:NAME; a plain name exports it in every ruleset that has it."""
    from tables_app.sheets.write import Export, Named, write_export

    path = _output(path, force)
    reader = database.reader()
    if ruleset is not None:
        ruleset = reader.rulesets_named(ruleset)
    selection = Selection(names)
    chosen = selection.chosen

    content = Export()
    scales: dict[tuple[str, str], SeverityScale] = {}  # (ruleset, name): the scales the tables use, in their order

    def exported(kind: str, item: dict[str, Any], value: Table) -> Named[Table]:
        """The table with its provenance; a scale of its own kept for the severities sheet."""
        if value.scale.name != DEFAULT_SCALE.name:
            scales[(item["ruleset"], value.scale.name)] = value.scale
        return Named(value, *reader.provenance(kind, item["name"], item["ruleset"]), item["ruleset"])

    def located(kind: str, item: dict[str, Any]) -> Found:
        return reader.locate(kind, qualified(item["ruleset"], item["name"]))

    for kind, effect_tables in ((TableKind.CRITICAL, content.critical), (TableKind.FUMBLE, content.fumble)):
        for item in reader.list_named(kind.value, ruleset):
            if chosen(item):
                table = reader.load_effect_table(kind, located(kind.value, item))
                effect_tables.append(exported(kind.value, item, table))
    for item in reader.list_named("attack", ruleset):
        if chosen(item):
            content.attack.append(exported("attack", item, reader.load_attack_table(located("attack", item))))
    content.scales = [Named(scale, *reader.provenance("severities", name, home), home) for (home, name), scale in scales.items()]
    for item in reader.list_named("weapons", ruleset):
        if chosen(item):
            content.weapons.append(Named(reader.load_weapon(item["name"], item["ruleset"]), ruleset=item["ruleset"]))
    for item in reader.list_named("creatures", ruleset):
        if chosen(item):
            content.creatures.append(Named(reader.load_creature(item["name"], item["ruleset"]), ruleset=item["ruleset"]))
    selection.check()
    # a ruleset's death threshold goes out on its creatures sheet: with its creatures, or with the whole ruleset
    exported_rulesets = {c.ruleset for c in content.creatures} if names else \
        ({ruleset} if ruleset is not None else set(reader.rulesets()))
    content.death_at = {r: at for r in sorted(exported_rulesets) if (at := reader.death_at(r)) is not None}
    _save(path, force, lambda handle: write_export(handle, content))

    def listed(items: Sequence[Named[Item]]) -> list[str]:
        return [shown(i.ruleset, i.value.name) for i in items]

    return {
        "file": str(path), "severities": listed(content.scales), "attack": listed(content.attack),
        "critical": listed(content.critical), "fumble": listed(content.fumble), "weapons": listed(content.weapons),
        "creatures": listed(content.creatures),
    }


def template(database: Database, kind: str, path: str | Path, *, name: str | None = None, armor: str | None = None,
             rows: str | None = None, force: bool = False, printed: bool = False) -> dict[str, Any]:
    """A blank authoring workbook for ``kind``. ``name`` is the table's or
    the severity scale's name, or the first weapon's or creature's; ``armor``
    (attack) and ``rows`` (attack, critical, fumble) shape the grid. Options
    that cannot apply, or do not parse, are usage mistakes."""
    from tables_app.sheets.write import PRINTED_ARMOR, PRINTED_KINDS, TemplateLists, parse_rows, write_template

    if printed and kind not in PRINTED_KINDS:
        raise UsageMistake(f"--printed shapes {', '.join(PRINTED_KINDS)} templates, not {kind}")
    path = _output(path, force)
    if name is not None and not name.strip():
        raise UsageMistake("--name must not be empty")
    if rows is not None and kind not in TABLE_KINDS:
        raise UsageMistake(f"--rows shapes attack, critical and fumble templates, not {kind}")
    if armor is not None and kind != "attack":
        raise UsageMistake(f"--armor shapes attack templates, not {kind}")
    default_armor = ",".join(PRINTED_ARMOR) if printed else DEFAULT_ARMOR
    columns = tuple(code.strip() for code in (armor or default_armor).split(",") if code.strip())
    if not columns or len({fold(c) for c in columns}) != len(columns):
        raise UsageMistake(f"--armor {armor!r} must list distinct armor codes, e.g. {DEFAULT_ARMOR}")
    try:
        bands = parse_rows(rows) if rows is not None else None
    except ValueError as exc:
        raise UsageMistake(str(exc)) from None
    reader = database.reader()
    attack = tuple(sorted(t["name"] for t in reader.list_named("attack")))
    armors = tuple(dict.fromkeys(code for t in reader.list_named("attack") for code in t["armor"]))
    lists = TemplateLists(
        attack=attack, critical=tuple(sorted(t["name"] for t in reader.list_named("critical"))),
        fumble=tuple(sorted(t["name"] for t in reader.list_named("fumble"))), armor=armors,
    )
    written: dict[str, Any] = {}
    _save(path, force, lambda handle: written.update(
        write_template(handle, kind, name=name, armor=columns, bands=bands, lists=lists, printed=printed)))
    return {"file": str(path), "kind": kind, **written}


def _output(path: str | Path, force: bool) -> Path:
    """Where export and template write. A name without .xlsx is a usage
    mistake (exit 2: the command line alone says so); a file already there
    without ``force`` is exit 1, like any other state of the disk that stops
    a write (a directory that is missing or read-only)."""
    path = Path(path)
    if path.suffix.casefold() != WORKBOOK_SUFFIX:
        raise UsageMistake(f"-o {str(path)!r} must name an {WORKBOOK_SUFFIX} file (the format import reads)")
    check_write_target(path, named=str(path), suffix=WORKBOOK_SUFFIX)
    if path.exists() and not force:
        raise TablesError(_exists(path))
    return path


def _exists(path: Path) -> str:
    return f"{path} already exists; give --force to overwrite it, or another name"


def _save(path: Path, force: bool, write: Callable[[IO[bytes]], object]) -> None:
    """Run ``write(handle)`` into ``path`` (files.save: without ``force``
    created exclusively; with it, the old file replaced only by a whole new
    one); every failure one TablesError."""
    try:
        save(path, write, overwrite=force)
    except FileExistsError:
        raise TablesError(_exists(path)) from None
    except OSError as exc:
        raise TablesError(f"cannot write {path}: {os_problem(exc)}") from None
    except ValueError as exc:
        raise TablesError(str(exc)) from None
