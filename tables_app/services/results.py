"""The typed results of the attack operations, each with the one function
that makes its JSON (docs/cli.md has the shapes): what a Python caller gets
from the library, and what the CLI and the HTTP API print.

Exact probabilities stay Fractions here; they become floats once, in
``to_json`` (``as_float``: the one rounding).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from tables_app.domain.table_rules import Attack

if TYPE_CHECKING:  # resolving loads the resolver, odds and simulate their own modules
    from tables_app.domain.dice import Dice
    from tables_app.domain.odds import TableOdds
    from tables_app.domain.resolve import AttackResult, CriticalRoll
    from tables_app.domain.simulate import Tally
    from tables_app.domain.systems.base import Odds, Resolution

PRINTED_DIGITS = 12  # probabilities are exact to 1e-9; below 1e-12 is noise to a reader


def as_float(value: Any) -> Any:
    """Fractions → floats, recursively: the one rounding, to 12 decimal
    places (so a 1e-15 tail prints as 0, not as 1.0000000000000002e-15)."""
    if isinstance(value, Fraction):
        return round(float(value), PRINTED_DIGITS)
    if isinstance(value, dict):
        return {str(k) if not isinstance(k, str) else k: as_float(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_float(v) for v in value]
    return value


@dataclass(frozen=True)
class AttackSetup:
    """An attack on the d100 tables as the lookups made it: the weapon with
    its overrides, the target's DEF, armor, rank and features, and where
    the names were found."""

    attack: Attack
    target: str | None  # the creature, as the bestiary spells it (None without --target)
    ruleset: str  # the weapon's and its tables'
    target_ruleset: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``attack`` block of resolve, odds and simulate alike."""
        attack, weapon = self.attack, self.attack.weapon
        return {
            "weapon": weapon.name, "attack_table": weapon.attack_table, "max_result": weapon.max_result,
            "clumsy": weapon.clumsy, "critical": weapon.critical, "secondary_critical": weapon.secondary_critical,
            "fumble_table": weapon.fumble_table, "fumble_modifier": weapon.fumble_modifier, "roll": weapon.roll.value,
            "max_critical": weapon.max_critical, "cmb": attack.cmb, "modifiers": {name: value for name, value in attack.modifiers},
            "effective_cmb": attack.effective_cmb, "target": self.target, "defense": attack.defense, "armor": attack.armor,
            "rank": attack.rank.value, "crit_reduction": attack.reduction, "features": sorted(attack.features),
            "ruleset": self.ruleset, "target_ruleset": self.target_ruleset,
        }


@dataclass(frozen=True)
class DiceUsed:
    """The dice of one resolution: those read, and the seed or the dice left over."""

    used: tuple[int, ...]
    seed: int | None = None  # seeded dice
    unused: tuple[int, ...] | None = None  # dice given by hand (None when seeded)

    @classmethod
    def of(cls, dice: Dice) -> DiceUsed:
        from tables_app.domain.dice import ForcedDice, SeededDice

        return cls(tuple(dice.used), dice.seed if isinstance(dice, SeededDice) else None,
                   tuple(dice.unused) if isinstance(dice, ForcedDice) else None)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"dice": list(self.used)}
        if self.seed is not None:
            data["seed"] = self.seed
        if self.unused is not None:
            data["unused_dice"] = list(self.unused)
        return data


def _with_warnings(data: dict[str, Any], warnings: tuple[str, ...]) -> dict[str, Any]:
    if warnings:
        data["warnings"] = [*data.get("warnings", []), *warnings]
    return data


def critical_json(roll: CriticalRoll | None) -> dict[str, Any] | None:
    from tables_app.services.lookups import entry_json

    if roll is None:
        return None
    return {
        "severity": roll.severity, "rolled_severity": roll.rolled_severity, "reduction": roll.reduction,
        "table": roll.table, "roll": roll.roll, "modified_roll": roll.modified_roll,
        "entry": entry_json(roll.entry), "other_branch": entry_json(roll.other) if roll.other else None,
        "other_branches": [entry_json(other) for other in roll.others],
        "severity_why": roll.why,  # why `severity` is not `rolled_severity` (null: it is)
    }


@dataclass(frozen=True)
class TableResolution:
    """One attack resolved on the d100 tables (docs/table-system.md, steps 1-12)."""

    setup: AttackSetup
    result: AttackResult
    dice: DiceUsed
    warnings: tuple[str, ...] = ()

    @property
    def unused_dice(self) -> tuple[int, ...]:
        return self.dice.unused or ()

    def to_json(self) -> dict[str, Any]:
        """docs/cli.md, "JSON shape of resolve"."""
        from tables_app.services.lookups import entry_json

        result, cell, fumble = self.result, self.result.cell, self.result.fumble
        data = {
            "system": "table",
            "outcome": result.outcome.value,
            "damage": result.damage,
            "dice": list(self.dice.used),
            "steps": list(result.steps),
            "roll": {"unmodified": result.roll.unmodified, "total": result.roll.total, "open_ended": list(result.roll.extra)},
            "result": result.result,
            "uncapped_result": result.uncapped,
            "capped": result.capped,
            "cell": None if cell is None else {
                "table": cell.table, "row": cell.row, "armor": cell.armor, "text": cell.cell.text,
                "hits": cell.cell.hits, "severity": cell.cell.severity, "critical_table": cell.cell.critical,
            },
            "critical": critical_json(result.critical),
            "secondary_critical": critical_json(result.secondary_critical),
            "more_criticals": [critical_json(roll) for roll in result.more_criticals],
            "cancelled_critical": None if result.cancelled_critical is None else {
                "rolled_severity": result.cancelled_critical.rolled_severity,
                "reduction": result.cancelled_critical.reduction,
            },
            "fumble": None if fumble is None else {
                "table": fumble.table, "roll": fumble.roll, "modified_roll": fumble.modified_roll,
                "entry": entry_json(fumble.entry),
            },
            "attack": self.setup.to_json(),
        }
        data.update(self.dice.to_json())
        return _with_warnings(data, self.warnings)


@dataclass(frozen=True)
class TableOddsResult:
    """The exact odds of one attack on the d100 tables."""

    setup: AttackSetup
    odds: TableOdds
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        odds = self.odds
        data = {
            "system": "table",
            "outcomes": as_float(odds.outcomes),
            "critical_severity": as_float(odds.critical_severity),
            "fumble_rows": as_float(odds.fumble_rows),
            "expected_damage": float(odds.expected_damage),
            "rows": [{"row": label, "probability": as_float(p)} for label, p in odds.rows],
            "attack": self.setup.to_json(),
        }
        return _with_warnings(data, self.warnings)


@dataclass(frozen=True)
class SweepPoint:
    """The odds at one value of the swept bonus (or DEF), in one armor column."""

    value: int
    armor: str
    outcomes: dict[str, Fraction]
    expected_damage: Fraction


@dataclass(frozen=True)
class Sweep:
    """The odds over a range of CMB (or DEF), in every armor column."""

    setup: AttackSetup  # the attack at the range's first value
    axis: str  # "cmb" or "def"
    values: tuple[int, ...]
    armors: tuple[str, ...]
    grid: tuple[SweepPoint, ...]
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        grid = [{self.axis: point.value, "armor": point.armor, "outcomes": as_float(point.outcomes),
                 "expected_damage": float(point.expected_damage)} for point in self.grid]
        data = {"system": "table", "sweep": self.axis, "values": list(self.values), "armor": list(self.armors),
                "grid": grid, "attack": self.setup.to_json()}
        return _with_warnings(data, self.warnings)


@dataclass(frozen=True)
class Simulation:
    """``count`` random attacks, counted (any system)."""

    system: str
    tally: Tally
    seed: int
    setup: AttackSetup | None = None  # the table system's attack
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        tally, count = self.tally, self.tally.count
        mean = tally.damage_sum / count if count else 0.0
        variance = max(tally.damage_squares / count - mean * mean, 0.0) if count else 0.0
        data: dict[str, Any] = {
            "system": self.system, "count": count, "seed": self.seed,
            "outcomes": {word: n / count for word, n in tally.outcomes.items()},
            "counts": dict(tally.outcomes),
            "mean_damage": mean,
            "damage_standard_error": (variance / count) ** 0.5 if count else 0.0,
        }
        for name, counts in tally.extra.items():
            data[name] = {key: n / count for key, n in counts.items()}
            data[f"{name}_counts"] = counts
        if self.setup is not None:
            data["ruleset"], data["target_ruleset"] = self.setup.ruleset, self.setup.target_ruleset
            data["attack"] = self.setup.to_json()
        return _with_warnings(data, self.warnings)


@dataclass(frozen=True)
class FormulaResolution:
    """One attack resolved in a formula system."""

    system: str
    resolution: Resolution
    dice: DiceUsed

    @property
    def unused_dice(self) -> tuple[int, ...]:
        return self.dice.unused or ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"system": self.system, "outcome": self.resolution.outcome, "damage": self.resolution.damage}
        data.update(self.dice.to_json())
        data["steps"] = list(self.resolution.steps)
        data.update(self.resolution.extras)
        return data


@dataclass(frozen=True)
class FormulaOdds:
    """The exact odds of one attack in a formula system; ``given`` the
    attack's options as given (defaults filled in, the unset left out)."""

    system: str
    odds: Odds
    given: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        data = {"system": self.system, "outcomes": as_float(self.odds.outcomes),
                "expected_damage": float(self.odds.expected_damage), "attack": dict(self.given)}
        # A distribution's counts whose odds print as 0 at 12 decimals (a
        # 40-wound tail of 1e-40) are left out, as the human output leaves them.
        data.update({name: {k: v for k, v in shares.items() if v != 0} if isinstance(shares, dict) else shares
                     for name, shares in as_float(self.odds.extras).items()})
        return data
