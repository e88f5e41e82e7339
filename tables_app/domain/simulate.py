"""Many random attacks at once: the table system vectorised with numpy,
formula systems through their own resolvers.

numpy is imported inside the functions, so nothing else pays for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from tables_app.domain.cells import Outcome
from tables_app.domain.dice import OPEN_HIGH, OPEN_LOW, SeededDice
from tables_app.domain.resolve import AUTOMATIC_MISS, SECONDARY_DEGREES, Attack, TableSet
from tables_app.domain.tables import EffectTable, RollKind

OUTCOMES = tuple(o.value for o in Outcome)
CHUNK = 500_000  # attacks per vectorised step: bounded memory, a progress tick each
Progress = Callable[[int], None]


@dataclass
class Tally:
    count: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    damage_sum: int = 0
    damage_squares: int = 0
    extra: dict[str, dict[str, int]] = field(default_factory=dict)

    def add_damage(self, total: int, squares: int) -> None:
        self.damage_sum += total
        self.damage_squares += squares


def _critical_hits(table: EffectTable, modifier: int, features: frozenset[str]):  # type: ignore[no-untyped-def]
    import numpy as np

    return np.array([table.choose(roll + modifier, features).entry.hits for roll in range(1, 101)], dtype=np.int64)


def simulate_table(attack: Attack, tables: TableSet, count: int, seed: int, progress: Progress | None = None) -> Tally:
    import numpy as np

    rng = np.random.default_rng(seed)
    weapon, scale = attack.weapon, tables.attack.scale
    column = tables.attack.column(attack.armor)
    assert column is not None
    ranges = tables.attack.rows.ranges
    lows = np.array([r.low for r in ranges], dtype=np.int64)
    codes = {word: i for i, word in enumerate(OUTCOMES)}
    # Per row: outcome code, cell hits, and which critical look-ups apply.
    row_outcome, row_hits, row_lookup, row_secondary, row_severity = [], [], [], [], []
    lookups: list = []  # arrays of extra hits by critical roll 1-100
    severity_codes = [level.code for level in scale.levels]
    for cells in tables.attack.rows.values:
        cell = cells[column]
        row_hits.append(cell.hits)
        lookup = secondary = severity_index = -1
        outcome = cell.outcome.value
        if cell.outcome is Outcome.CRITICAL:
            severity = scale.lower(scale.get(cell.severity), attack.reduction)  # type: ignore[arg-type]
            if severity is None:
                outcome = Outcome.HIT.value
            else:
                severity_index = severity_codes.index(severity.code)
                lookups.append(_critical_hits(tables.criticals[cell.critical or weapon.critical], severity.modifier, attack.features))
                lookup = len(lookups) - 1
                lower = scale.lower(severity, SECONDARY_DEGREES)
                if weapon.secondary_critical and lower is not None:
                    lookups.append(_critical_hits(tables.criticals[weapon.secondary_critical], lower.modifier, attack.features))
                    secondary = len(lookups) - 1
        row_outcome.append(codes[outcome])
        row_lookup.append(lookup)
        row_secondary.append(secondary)
        row_severity.append(severity_index)
    row_outcome_a, row_hits_a = np.array(row_outcome), np.array(row_hits, dtype=np.int64)
    row_lookup_a, row_secondary_a, row_severity_a = np.array(row_lookup), np.array(row_secondary), np.array(row_severity)
    table_hits = np.stack(lookups) if lookups else np.zeros((1, 100), dtype=np.int64)
    tally = Tally()
    outcome_counts = np.zeros(len(OUTCOMES), dtype=np.int64)
    severity_counts = np.zeros(len(severity_codes), dtype=np.int64)
    shift = attack.effective_cmb - attack.defense
    done = 0
    while done < count:
        n = min(CHUNK, count - done)
        first = rng.integers(1, 101, n)
        fumble = first <= weapon.clumsy
        total = first.astype(np.int64)
        if weapon.roll in (RollKind.OE, RollKind.OEH):
            _open(rng, total, ~fumble & (first >= OPEN_HIGH), +1)
        if weapon.roll in (RollKind.OE, RollKind.OEL):
            _open(rng, total, ~fumble & (first <= OPEN_LOW), -1)
        result = total + shift
        if weapon.max_result is not None:
            result = np.minimum(result, weapon.max_result)
        outcome = np.empty(n, dtype=np.int64)
        damage = np.zeros(n, dtype=np.int64)
        outcome[fumble] = codes["fumble"]
        reached = ~fumble
        if attack.effective_cmb < 0:
            outcome[reached] = codes["ineffective"]
        else:
            missed = reached & (result <= AUTOMATIC_MISS)
            outcome[missed] = codes["miss"]
            read = reached & ~missed
            rows = np.clip(np.searchsorted(lows, result[read], side="right") - 1, 0, len(ranges) - 1)
            outcome[read] = row_outcome_a[rows]
            damage[read] = row_hits_a[rows]
            for lookup_index in (row_lookup_a[rows], row_secondary_a[rows]):
                rolled = lookup_index >= 0
                if rolled.any():
                    dice = rng.integers(1, 101, int(rolled.sum()))
                    positions = np.flatnonzero(read)[rolled]
                    damage[positions] += table_hits[lookup_index[rolled], dice - 1]
            severities = row_severity_a[rows]
            severity_counts += np.bincount(severities[severities >= 0], minlength=len(severity_codes))
        outcome_counts += np.bincount(outcome, minlength=len(OUTCOMES))
        tally.add_damage(int(damage.sum()), int((damage * damage).sum()))
        done += n
        if progress:
            progress(n)
    tally.count = count
    tally.outcomes = {word: int(outcome_counts[i]) for i, word in enumerate(OUTCOMES)}
    tally.extra["critical_severity"] = {code: int(severity_counts[i]) for i, code in enumerate(severity_codes)}
    return tally


def _open(rng, total, mask, sign: int) -> None:  # type: ignore[no-untyped-def]
    """Roll the open-ended chain for the attacks in ``mask``: add (or
    subtract) d100s while the new die is 96+."""
    import numpy as np

    active = np.flatnonzero(mask)
    while active.size:
        dice = rng.integers(1, 101, active.size)
        total[active] += sign * dice
        active = active[dice >= OPEN_HIGH]


def simulate_formula(resolve: Callable, params: object, outcomes: tuple[str, ...], count: int, seed: int,
                     progress: Progress | None = None) -> Tally:
    """Formula systems: their own resolver, one seeded dice stream."""
    dice = SeededDice(seed=seed)
    tally = Tally(outcomes={word: 0 for word in outcomes})
    step = max(count // 100, 1)
    for i in range(count):
        dice.used.clear()
        dice.purposes.clear()
        resolution = resolve(params, dice)
        tally.outcomes[resolution.outcome] = tally.outcomes.get(resolution.outcome, 0) + 1
        tally.add_damage(resolution.damage, resolution.damage * resolution.damage)
        if progress and (i + 1) % step == 0:
            progress(step)
    tally.count = count
    return tally
