"""The odds use cases: exact distributions for every system, and sweeps.

Probabilities stay exact Fractions in the results; they become floats once,
when the JSON is made (services/results.py).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Unpack

from tables_app.domain.odds import sweep_odds, table_odds
from tables_app.errors import TablesError, UsageMistake
from tables_app.services import attacks
from tables_app.services.reporting import ProgressBar, reporting
from tables_app.services.results import FormulaOdds, Sweep, SweepPoint, TableOddsResult
from tables_app.storage.database import Database


def table(database: Database, weapon: attacks.WeaponParts, target: attacks.TargetParts,
          **attack: Unpack[attacks.TableOptions]) -> TableOddsResult:
    prepared = attacks.prepare(database, weapon, target, **attack)
    odds = table_odds(prepared.attack, prepared.tables, prepared.rules)
    return TableOddsResult(attacks.setup_of(prepared), odds, attacks.feature_warnings(target, prepared.tables))


def parse_span(text: str, flag: str) -> range:
    """``A:B`` (inclusive) or ``A:B:STEP``."""
    parts = text.split(":")
    try:
        numbers = [int(p) for p in parts]
    except ValueError:
        raise UsageMistake(f"{flag} {text!r} is not A:B or A:B:STEP (whole numbers)") from None
    if len(numbers) not in (2, 3) or (len(numbers) == 3 and numbers[2] <= 0) or numbers[1] < numbers[0]:
        raise UsageMistake(f"{flag} {text!r} is not A:B or A:B:STEP with A <= B and STEP > 0")
    step = numbers[2] if len(numbers) == 3 else 1
    if (numbers[1] - numbers[0]) // step > 2000:
        raise UsageMistake(f"{flag} {text!r} has more than 2000 steps")
    return range(numbers[0], numbers[1] + 1, step)


SWEEP_PROGRESS_FROM = 1_000  # attacks (values × armor columns): about half a second here


def sweep(prepared: attacks.Prepared, axis: str, values: range, progress_bar: ProgressBar | None = None,
          warnings: tuple[str, ...] = ()) -> Sweep:
    """Outcome odds and expected damage per bonus (or DEF) and armor column."""
    grid: list[SweepPoint] = []
    tables = prepared.tables
    armors = tables.attack.armors
    attacks_count = len(values) * len(armors)
    attack = prepared.attack
    results = sweep_odds((replace(attack, cmb=value, armor=armor) if axis == "cmb" else replace(attack, defense=value, armor=armor)
                          for value in values for armor in armors), tables)  # or "def"
    with reporting(progress_bar, attacks_count, attacks_count >= SWEEP_PROGRESS_FROM, "computing odds") as progress:
        for value in values:
            for armor in armors:
                outcomes, expected_damage = next(results)
                grid.append(SweepPoint(value, armor, outcomes, expected_damage))
            if progress:
                progress(len(armors))
    return Sweep(attacks.setup_of(prepared), axis, tuple(values), tuple(armors), tuple(grid), warnings)


def table_sweep(database: Database, weapon: attacks.WeaponParts, target: attacks.TargetParts, axis: str, span: str,
                progress_bar: ProgressBar | None = None, **attack: Unpack[attacks.TableOptions]) -> Sweep:
    values = parse_span(span, f"--sweep-{axis}")  # a usage mistake before any lookup
    prepared = attacks.prepare(database, weapon, target, **attack)
    return sweep(prepared, axis, values, progress_bar, attacks.feature_warnings(target, prepared.tables))


def formula(system_id: str, values: dict[str, Any]) -> FormulaOdds:
    from tables_app.services import formulas

    system = formulas.system(system_id)
    params = formulas.build(system_id, values)
    if system.odds is None:
        raise TablesError(f"{system_id} has no exact odds yet")
    given = {}  # in the system's own order of options, however they were given
    for option in system.options:
        value = values.get(option.key)
        if value is not None and value != () and value is not False:
            given[option.key] = list(value) if isinstance(value, tuple) else value
    return FormulaOdds(system_id, system.odds(params), given)
