"""The simulate use case: N random attacks, counted; progress on stderr."""

from __future__ import annotations

from typing import Any, Unpack

from tables_app.domain.simulate import simulate_formula, simulate_table
from tables_app.services import attacks
from tables_app.services.reporting import ProgressBar, reporting
from tables_app.services.results import Simulation
from tables_app.storage.database import Database

PROGRESS_FROM = 1_000_000  # table attacks; formula systems show it from 50,000
FORMULA_PROGRESS_FROM = 50_000


def table(database: Database, weapon: attacks.WeaponParts, target: attacks.TargetParts, *, count: int, seed: int,
          progress_bar: ProgressBar | None = None, **attack: Unpack[attacks.TableOptions]) -> Simulation:
    prepared = attacks.prepare(database, weapon, target, **attack)
    with reporting(progress_bar, count, count >= PROGRESS_FROM, "simulating") as progress:
        tally = simulate_table(prepared.attack, prepared.tables, count, seed, progress, prepared.rules)
    return Simulation("table", tally, seed, attacks.setup_of(prepared), attacks.feature_warnings(target, prepared.tables))


def formula(system_id: str, values: dict[str, Any], *, count: int, seed: int, progress_bar: ProgressBar | None = None) -> Simulation:
    from tables_app.services import formulas  # the formula systems load only when one is simulated

    system = formulas.system(system_id)
    params = formulas.build(system_id, values)
    with reporting(progress_bar, count, count >= FORMULA_PROGRESS_FROM, "simulating") as progress:
        if system.sample is not None:  # vectorised with numpy (domain/systems/vectorised.py)
            from tables_app.domain.systems.vectorised import simulate

            tally = simulate(system.sample, params, system.outcomes, count, seed, progress)
        else:
            tally = simulate_formula(system.resolve, params, system.outcomes, count, seed, progress)
    return Simulation(system_id, tally, seed)
