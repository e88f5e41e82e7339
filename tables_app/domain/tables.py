"""Compiled tables, weapons and creatures: immutable values read in memory."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from tables_app.domain.cells import AttackCell
from tables_app.domain.ranges import Range, RangeTable
from tables_app.domain.severity import DEFAULT_SCALE, SeverityScale


class TableKind(StrEnum):
    ATTACK = "attack"
    CRITICAL = "critical"
    FUMBLE = "fumble"


class Rank(StrEnum):
    """Bestiary ranks; docs/table-system.md step 9 gives their critical reduction."""

    NORMAL = "normal"
    HEROIC = "heroic"
    EPIC = "epic"

    @property
    def critical_reduction(self) -> int:
        return {"normal": 0, "heroic": 1, "epic": 2}[self.value]


class RollKind(StrEnum):
    """How the attack's d100 opens (docs/table-system.md, "Roll kinds")."""

    OE = "oe"
    OEH = "oeh"
    OEL = "oel"
    D100 = "d100"


@dataclass(frozen=True)
class Entry:
    """A row of a critical or fumble table, with its structured effects."""

    range: Range
    text: str
    title: str | None = None
    hits: int = 0
    bleed: int = 0
    stun: int = 0
    penalty: int = 0
    effects: tuple[str, ...] = ()
    condition: str | None = None


def condition_feature(condition: str) -> tuple[str, bool]:
    """``"helm"`` → ("helm", True); ``"not helm"`` → ("helm", False)."""
    words = condition.split(maxsplit=1)
    if len(words) == 2 and words[0].casefold() == "not":
        return words[1].casefold(), False
    return condition.casefold(), True


@dataclass(frozen=True)
class Choice:
    """The entry a target gets, and the branch it did not (None if no branches)."""

    entry: Entry
    other: Entry | None


def choose_branch(entries: tuple[Entry, ...], features: frozenset[str]) -> Choice:
    """Pick the entry whose condition the target's features satisfy.

    A target that does not have the feature (or whose features are unknown)
    takes the "not" branch (docs/table-system.md step 10).
    """
    if len(entries) == 1:
        return Choice(entries[0], None)
    wanted = {f.casefold() for f in features}
    for entry in entries:
        feature, positive = condition_feature(entry.condition or "")
        if (feature in wanted) == positive:
            others = [e for e in entries if e is not entry]
            return Choice(entry, others[0] if others else None)
    raise ValueError("branches do not cover the target")  # prevented by validation


@dataclass(frozen=True)
class EffectTable:
    """A critical or fumble table: ranges → one entry or two conditional branches."""

    kind: TableKind
    name: str
    rows: RangeTable[tuple[Entry, ...]]
    code: str | None = None
    scale: SeverityScale = DEFAULT_SCALE

    def row(self, roll: int) -> tuple[Range, tuple[Entry, ...]]:
        """Rolls above the top read the top row, below the bottom the bottom row."""
        found = self.rows.lookup(roll, clamp_high=True, clamp_low=True)
        assert found is not None
        return found

    def choose(self, roll: int, features: frozenset[str] = frozenset()) -> Choice:
        return choose_branch(self.row(roll)[1], features)

    @property
    def entries(self) -> list[Entry]:
        return [entry for entries in self.rows.values for entry in entries]


@dataclass(frozen=True)
class AttackTable:
    name: str
    armors: tuple[str, ...]
    rows: RangeTable[tuple[AttackCell, ...]]
    scale: SeverityScale = DEFAULT_SCALE

    def column(self, armor: str) -> int | None:
        key = armor.strip().casefold()
        for i, code in enumerate(self.armors):
            if code.casefold() == key:
                return i
        return None

    def read(self, result: int, armor_index: int) -> tuple[Range, AttackCell] | None:
        """The cell for ``result``; above the top row reads the top row (step 8)."""
        found = self.rows.lookup(result, clamp_high=True)
        if found is None:
            return None
        row_range, cells = found
        return row_range, cells[armor_index]


@dataclass(frozen=True)
class Weapon:
    name: str
    attack_table: str
    max_result: int | None  # None: no cap (a weapon assembled from options)
    clumsy: int
    critical: str
    secondary_critical: str | None = None
    fumble_table: str | None = None
    fumble_modifier: int = 0
    roll: RollKind = RollKind.OE
    notes: str | None = None


@dataclass(frozen=True)
class Creature:
    name: str
    defense: int
    armor: str
    rank: Rank = Rank.NORMAL
    hp: int | None = None
    features: tuple[str, ...] = field(default_factory=tuple)
    notes: str | None = None
