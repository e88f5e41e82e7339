"""Compiled tables, weapons and creatures: immutable values read in memory."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache
from typing import Iterable

from tables_app.domain.bounds import AUTOMATIC_MISS
from tables_app.domain.cells import AttackCell
from tables_app.domain.legend import DEFAULT_LEGEND, Legend
from tables_app.domain.names import did_you_mean, fold, suggest
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


class ConditionReading(StrEnum):
    """How a condition that follows effects in an earlier sentence reads
    (`X. If the target has no Y, then Z`): its targets get Z as well as X
    (``also``, most books), or Z in place of X (``instead``, as Against the
    Darkmaster means it). docs/workbook-format.md, "Branches inside a cell"."""

    ALSO = "also"
    INSTEAD = "instead"


class RollKind(StrEnum):
    """How the attack's d100 opens (docs/table-system.md, "Roll kinds")."""

    OE = "oe"
    OEH = "oeh"
    OEL = "oel"
    D100 = "d100"


class ColumnChoice(StrEnum):
    """How a critical or fumble table's column is chosen (printed layouts)."""

    NONE = "none"  # one column; a critical roll adds the severity's modifier (version 1)
    SEVERITY = "severity"  # `Roll | A | B | C | D | E`: the severity picks the column, the roll is not modified
    ATTACK = "attack"  # `Roll | Normal | Magic | ...` or `Roll | 1HE | 2H | ...`: the weapon (or the attack) picks it


@dataclass(frozen=True)
class Entry:
    """A row of a critical or fumble table, with its structured effects.

    ``stun`` is every round stunned, ``no_parry`` every round unable to
    parry (stunned or not); ``must_parry`` rounds the target must parry, at
    ``parry_penalty`` (0 or less) to those parries; ``attacker_bonus``
    the attacker's bonus next round; ``death_in`` rounds until death (0 at
    once, None: no death); ``column`` the printed column it stands in (None:
    a one-column table)."""

    range: Range
    text: str
    title: str | None = None
    hits: int = 0
    bleed: int = 0
    stun: int = 0
    penalty: int = 0
    effects: tuple[str, ...] = ()
    condition: str | None = None
    must_parry: int = 0
    no_parry: int = 0
    attacker_bonus: int = 0
    death_in: int | None = None
    column: str | None = None
    parry_penalty: int = 0
    unread: tuple[str, ...] = ()  # printed pieces not read: the GM decides them at the table
    # the rest of a critical (domain/effects.py, CONDITION_FIELDS; docs/fights.md, "The rest of a critical"):
    # rounds prone and blinded, knocked out (rounds; 0 until woken; None not), a weapon dropped or broken, a useless
    # arm or leg, and penalties for N rounds as (penalty, rounds)
    prone: int = 0
    knocked_out: int | None = None
    blinded: int = 0
    drops_weapon: bool = False
    breaks_weapon: bool = False
    useless_arm: bool = False
    useless_leg: bool = False
    timed_penalties: tuple[tuple[int, int], ...] = ()


@lru_cache(maxsize=1024)
def condition_feature(condition: str) -> tuple[str, bool]:
    """``"helm"`` → ("helm", True); ``"not helm"`` → ("helm", False);
    the feature folded (domain/names.py)."""
    words = condition.split(maxsplit=1)
    if len(words) == 2 and fold(words[0]) == "not":
        return fold(words[1]), False
    return fold(condition), True


_MARKER_WORDS = {True: ("with", "w/", "if"), False: ("without", "w/o", "if not")}


def states_its_condition(text: str, condition: str | None) -> bool:
    """Whether a branch's text says its condition itself (`w/ leg armor:
    Greave takes ...`, `Without helm: ...`), so that showing it as
    `if leg armor: w/ leg armor: ...` would say it twice; a lone branch's
    other entry (plain text for everyone else) does not."""
    if not condition:
        return False
    import re

    words = condition.split(maxsplit=1)
    positive = not (len(words) == 2 and fold(words[0]) == "not")
    feature = words[-1] if not positive else condition
    markers = "|".join(re.escape(word) for word in _MARKER_WORDS[positive])
    return re.search(rf"(?<![\w/])(?:{markers})\s*{re.escape(feature)}\s*:", text, re.IGNORECASE) is not None


@dataclass(frozen=True)
class Choice:
    """The entry a target gets, and the branches it did not (empty if no branches)."""

    entry: Entry
    others: tuple[Entry, ...] = ()

    @property
    def other(self) -> Entry | None:
        """The first branch not taken (of two, the other one); None if no branches."""
        return self.others[0] if self.others else None


def choose_branch(entries: tuple[Entry, ...], features: frozenset[str]) -> Choice:
    """Pick the entry whose condition the target's features satisfy
    (docs/table-system.md step 10): the first with a feature the target has,
    in printed order; else the first "not" branch whose feature it lacks;
    else the branch for everyone else (condition None), which a range has
    beside conditions on several features. Of a feature and its negation, a
    target that does not have the feature (or whose features are unknown)
    takes the "not" branch.
    """
    if len(entries) == 1:
        return Choice(entries[0])
    wanted = _folded(features)
    read = [(entry, condition_feature(entry.condition)) for entry in entries if entry.condition is not None]
    chosen = (next((entry for entry, (feature, positive) in read if positive and feature in wanted), None)
              or next((entry for entry, (feature, positive) in read if not positive and feature not in wanted), None)
              or next((entry for entry in entries if entry.condition is None), None))
    if chosen is None:
        raise ValueError("branches do not cover the target")  # prevented by validation
    return Choice(chosen, tuple(entry for entry in entries if entry is not chosen))


@lru_cache(maxsize=256)
def _folded(features: frozenset[str]) -> frozenset[str]:
    return frozenset(fold(f) for f in features)


@dataclass(frozen=True)
class EffectTable:
    """A critical or fumble table: ranges → one entry, or its conditional branches."""

    kind: TableKind
    name: str
    rows: RangeTable[tuple[Entry, ...]]  # a one-column table's; else the first column's
    code: str | None = None
    scale: SeverityScale = DEFAULT_SCALE
    choice: ColumnChoice = ColumnChoice.NONE
    columns: tuple[str, ...] = ()  # printed columns, in order (empty: one column)
    column_rows: tuple[RangeTable[tuple[Entry, ...]], ...] = ()  # one per column
    roll: RollKind = RollKind.D100  # how its die is rolled: d100, or oeh (large-creature criticals, some fumbles)
    legend: Legend = DEFAULT_LEGEND  # the book's key its entries were read with
    condition_reading: ConditionReading = ConditionReading.ALSO  # how its conditions after effects were read

    def column(self, name: str) -> int | None:
        """The index of a printed column, its name in any spelling; None if none."""
        key = fold(name)
        return next((i for i, column in enumerate(self.columns) if fold(column) == key), None)

    def rows_of(self, column: int | None) -> RangeTable[tuple[Entry, ...]]:
        return self.rows if column is None else self.column_rows[column]

    def row(self, roll: int, column: int | None = None) -> tuple[Range, tuple[Entry, ...]]:
        """Rolls above the top read the top row, below the bottom the bottom row."""
        found = self.rows_of(column).lookup(roll, clamp_high=True, clamp_low=True)
        assert found is not None
        return found

    def choose(self, roll: int, features: frozenset[str] = frozenset(), column: int | None = None) -> Choice:
        return choose_branch(self.row(roll, column)[1], features)

    @property
    def entries(self) -> list[Entry]:
        """Every entry, column by column."""
        tables = self.column_rows or (self.rows,)
        return [entry for rows in tables for entries in rows.values for entry in entries]

    @property
    def features(self) -> frozenset[str]:
        """The features (folded) its branches ask about."""
        return frozenset(condition_feature(e.condition)[0] for e in self.entries if e.condition)


def unknown_feature_warnings(given: Iterable[str], tables: Iterable[EffectTable]) -> list[str]:
    """One sentence per feature given (``--has``) that no branch of ``tables``
    asks about: a typo there would silently take the "not" branches."""
    tables = list(tables)
    known = sorted(frozenset().union(*(table.features for table in tables)))
    which = f"critical table{'s' if len(tables) > 1 else ''} {', '.join(repr(t.name) for t in tables)}"
    knows = f"known features: {', '.join(known)}" if known else "no branch asks about any feature"
    warnings = []
    for feature in dict.fromkeys(given):
        if fold(feature) not in known:
            close = did_you_mean(suggest(feature, known))
            warnings.append(f"feature {feature!r} changes nothing: no branch of {which} asks about it{close} ({knows})")
    return warnings


@dataclass(frozen=True)
class AttackTable:
    """An attack table. ``rows`` are read by the modified result; ``unmodified``
    rows (printed `UM 96-100`) by the unmodified first die, before any
    modifier; ``automatic_miss``: a modified result of this or less misses
    (None: every row is read, as Rolemaster prints its tables)."""

    name: str
    armors: tuple[str, ...]
    rows: RangeTable[tuple[AttackCell, ...]]
    scale: SeverityScale = DEFAULT_SCALE
    automatic_miss: int | None = AUTOMATIC_MISS
    unmodified: RangeTable[tuple[AttackCell, ...]] | None = None

    def column(self, armor: str) -> int | None:
        return armor_index(self.armors, armor)

    def for_clumsy(self, clumsy: int) -> AttackTable:
        """The table as a weapon with the Clumsy Range 1-``clumsy`` reads it
        (docs/workbook-format.md, "attack"): a printed `XX-33` row from
        clumsy + 1 to 33, or none; the `UM 01-XX` row, the Clumsy Range
        itself, left out (Range.for_clumsy). A table without such rows is itself."""
        groups = (self.rows, self.unmodified or RangeTable([]))
        if not any(span.clumsy for rows in groups for span in rows.ranges):
            return self
        rows, unmodified = (RangeTable((kept, cells) for span, cells in zip(group.ranges, group.values)
                                       if (kept := span.for_clumsy(clumsy)) is not None) for group in groups)
        return replace(self, rows=rows, unmodified=unmodified if len(unmodified) else None)


def armor_index(armors: tuple[str, ...], armor: str) -> int | None:
    """The index of an armor column, its code in any spelling (domain/names.py)."""
    key = fold(armor)
    return next((i for i, code in enumerate(armors) if fold(code) == key), None)


@dataclass(frozen=True)
class Weapon:
    """A weapon: the attack table it reads, its cap and Clumsy Range, its critical and fumble tables."""

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
    critical_column: str | None = None  # the column of attack-chosen critical tables (`Magic`)
    fumble_column: str | None = None  # the column of a fumble table by weapon category (`2H`)
    max_critical: str | None = None  # the highest severity it delivers, on its attack table's scale (`C`); None: any


@dataclass(frozen=True)
class CreatureAttack:
    """One attack a bestiary prints for a creature (`Scimitar 55`): a weapon
    of the creature's ruleset, by name, and its CMB."""

    weapon: str
    cmb: int


@dataclass(frozen=True)
class Creature:
    """A creature of the bestiary: its DEF, armor column, rank, hits,
    features and attacks (the first is the one used unless another is named)."""

    name: str
    defense: int
    armor: str
    rank: Rank = Rank.NORMAL
    hp: int | None = None
    features: tuple[str, ...] = field(default_factory=tuple)
    notes: str | None = None
    attacks: tuple[CreatureAttack, ...] = ()
