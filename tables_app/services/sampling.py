"""The simulate use case: N random attacks, counted; progress on stderr."""

from __future__ import annotations

from typing import Any

from tables_app.domain.simulate import Tally, simulate_formula, simulate_table
from tables_app.services import attacks
from tables_app.services.reporting import ProgressBar, reporting
from tables_app.storage.database import Database

PROGRESS_FROM = 1_000_000  # table attacks; formula systems show it from 50,000
FORMULA_PROGRESS_FROM = 50_000


def _json(system: str, tally: Tally, seed: int) -> dict:
    count = tally.count
    mean = tally.damage_sum / count if count else 0.0
    variance = max(tally.damage_squares / count - mean * mean, 0.0) if count else 0.0
    data: dict[str, Any] = {
        "system": system, "count": count, "seed": seed,
        "outcomes": {word: n / count for word, n in tally.outcomes.items()},
        "counts": dict(tally.outcomes),
        "mean_damage": mean,
        "damage_standard_error": (variance / count) ** 0.5 if count else 0.0,
    }
    for name, counts in tally.extra.items():
        data[name] = {key: n / count for key, n in counts.items()}
        data[f"{name}_counts"] = counts
    return data


def table(database: Database, weapon: attacks.WeaponParts, target: attacks.TargetParts, *, count: int, seed: int,
          progress_bar: ProgressBar | None = None, **attack: Any) -> dict:
    prepared = attacks.prepare(database, weapon, target, **attack)
    with reporting(progress_bar, count, count >= PROGRESS_FROM, "simulating") as progress:
        tally = simulate_table(prepared.attack, prepared.tables, count, seed, progress)
    data = _json("table", tally, seed)
    data.update(attacks.ruleset_json(prepared))
    return attacks.add_feature_warnings(data, target, prepared.tables)


def formula(system_id: str, values: dict[str, Any], *, count: int, seed: int, progress_bar: ProgressBar | None = None) -> dict:
    from tables_app.services import formulas  # the formula systems load only when one is simulated

    system = formulas.system(system_id)
    params = formulas.build(system_id, values)
    with reporting(progress_bar, count, count >= FORMULA_PROGRESS_FROM, "simulating") as progress:
        if system.sample is not None:  # vectorised with numpy (domain/systems/vectorised.py)
            from tables_app.domain.systems.vectorised import simulate

            tally = simulate(system.sample, params, system.outcomes, count, seed, progress)
        else:
            tally = simulate_formula(system.resolve, params, system.outcomes, count, seed, progress)
    return _json(system_id, tally, seed)
