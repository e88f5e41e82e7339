"""What an import reads and checks against, whatever it was read from.

The spreadsheet layer (sheets/) fills a ParsedWorkbook; the import service
(services/importing.py) settles its names against the Catalog of the database, and
the storage writes it. None of them owns this model, so it lives here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from tables_app.domain.names import fold
from tables_app.domain.rulesets import DEFAULT_RULESET
from tables_app.domain.severity import DEFAULT_SCALE, SeverityScale
from tables_app.domain.tables import AttackTable, Creature, EffectTable, Weapon
from tables_app.errors import Problem

T = TypeVar("T")


@dataclass(frozen=True)
class Defined(Generic[T]):
    """A table, weapon or creature with where it was defined."""

    value: T
    name: str
    sheet: str
    cell: str  # the cell holding its name
    source: str | None = None
    notes: str | None = None
    ruleset: str = DEFAULT_RULESET  # as the database (or else the workbook) spells it
    # where a table's rows and columns stand on its sheet (row numbers by the
    # row's range, column numbers in the table's column order), so quality
    # warnings can name a cell; empty when not read from a sheet
    rows_at: tuple[tuple[object, int], ...] = ()
    columns_at: tuple[int, ...] = ()
    header_at: int = 0  # the row of the grid's column headers

    def position(self, span: object, column: int | None = None) -> tuple[int, int] | None:
        """(row, column) on the sheet of a row (its range cell, or the cell in
        ``column``; ``span`` None: the column's header cell), if known."""
        row = (self.header_at or None) if span is None else dict(self.rows_at).get(span)
        if row is None:
            return None
        return row, 1 if column is None or column >= len(self.columns_at) else self.columns_at[column]


@dataclass
class RulesetContents:
    """What one ruleset of the database holds, as a workbook may refer to it."""

    scales: dict[str, SeverityScale] = field(default_factory=dict)  # by name as stored
    # folded name or code (domain/names.py) → (canonical name, scale name)
    critical: dict[str, tuple[str, str]] = field(default_factory=dict)
    attack: dict[str, str] = field(default_factory=dict)  # folded name → name
    fumble: dict[str, str] = field(default_factory=dict)
    weapons: dict[str, str] = field(default_factory=dict)  # folded name → name (a creature's attacks name them)
    # the legends (as written) its critical and fumble tables were read with → the workbooks that hold them
    legends: dict[str, set[str]] = field(default_factory=dict)


@dataclass
class Catalog:
    """What the database already holds, for references and conflicts, by ruleset.

    The built-in severity scale (``default``) belongs to tables_app, not to a
    ruleset's names: every ruleset may use it.
    """

    rulesets: dict[str, str] = field(default_factory=lambda: {DEFAULT_RULESET: DEFAULT_RULESET})  # folded → stored
    by_ruleset: dict[str, RulesetContents] = field(default_factory=dict)  # folded ruleset → its contents
    # (kind, folded ruleset, folded name) → file name of the workbook that owns it (None: tables_app itself)
    owners: dict[tuple[str, str, str], str | None] = field(default_factory=dict)

    def contents(self, ruleset: str) -> RulesetContents:
        """What the ruleset holds (nothing, for a ruleset the database does not hold yet)."""
        return self.by_ruleset.get(fold(ruleset)) or RulesetContents()

    def scales(self, ruleset: str) -> dict[str, SeverityScale]:
        """The scales a table of ``ruleset`` may use: its own and the built-in one."""
        return {DEFAULT_SCALE.name: DEFAULT_SCALE, **self.contents(ruleset).scales}

    def owner(self, kind: str, ruleset: str, name: str) -> tuple[bool, str | None]:
        """(whether the database has it, the file name of the workbook that owns it)."""
        key = (kind, fold(ruleset), fold(name))
        return key in self.owners, self.owners.get(key)

    def owned_by(self, kind: str, ruleset: str, name: str, file_name: str) -> bool:
        """Whether the workbook ``file_name`` (an earlier import of it) owns ``name`` in ``ruleset``."""
        return same_file(self.owner(kind, ruleset, name)[1], file_name)


def same_file(a: str | None, b: str | None) -> bool:
    """Workbook file names compare in any letter case (as the database does)."""
    return (a or "").casefold() == (b or "").casefold()


@dataclass(frozen=True)
class Conflict:
    kind: str  # as in domain/kinds.py
    item: Defined
    problem: Problem


@dataclass
class ParsedWorkbook:
    file_name: str
    sha256: str
    size_bytes: int
    scale: Defined[SeverityScale] | None = None
    ruleset: Defined[str] | None = None  # a `Kind | ruleset` sheet: the ruleset of sheets that name none
    attack_tables: list[Defined[AttackTable]] = field(default_factory=list)
    critical_tables: list[Defined[EffectTable]] = field(default_factory=list)
    fumble_tables: list[Defined[EffectTable]] = field(default_factory=list)
    weapons: list[Defined[Weapon]] = field(default_factory=list)
    creatures: list[Defined[Creature]] = field(default_factory=list)
    # `Death at` by ruleset, as the ruleset sheet or a creatures sheet gives it: the hits left at or below which a
    # combatant of a fight in that ruleset is dead; None: `none` (only down)
    death_at: dict[str, int | None] = field(default_factory=dict)
    warnings: list[Problem] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    # names other workbooks own: a problem unless the content is what the
    # database already holds (services/importing.py compares, with the database)
    conflicts: list[Conflict] = field(default_factory=list)

    @property
    def defines_anything(self) -> bool:
        return bool(self.scale or self.attack_tables or self.critical_tables or self.fumble_tables
                    or self.weapons or self.creatures)

    def items(self, kind: str) -> list[Defined]:
        """What the workbook defines of ``kind`` (a kind of domain/kinds.py), in sheet order."""
        if kind == "severities":
            return [self.scale] if self.scale else []
        by_kind: dict[str, list[Defined]] = {"attack": self.attack_tables, "critical": self.critical_tables,
                                             "fumble": self.fumble_tables, "weapons": self.weapons, "creatures": self.creatures}
        return by_kind[kind]
