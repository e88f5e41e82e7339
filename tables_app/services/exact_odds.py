"""The odds use cases: exact distributions for every system, and sweeps.

Probabilities are exact Fractions until here; they become floats once, when
the JSON is made.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from tables_app.domain.odds import TableOdds, sweep_odds, table_odds
from tables_app.domain.table_rules import Attack, TableSet
from tables_app.errors import TablesError, UsageMistake
from tables_app.services import attacks
from tables_app.services.reporting import ProgressBar, reporting
from tables_app.storage.database import Database


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


def _table_json(attack: Attack, odds: TableOdds, target: str | None = None) -> dict:
    return {
        "system": "table",
        "outcomes": as_float(odds.outcomes),
        "critical_severity": as_float(odds.critical_severity),
        "fumble_rows": as_float(odds.fumble_rows),
        "expected_damage": float(odds.expected_damage),
        "rows": [{"row": label, "probability": as_float(p)} for label, p in odds.rows],
        "attack": _attack_json(attack, target),
    }


def _attack_json(attack: Attack, target: str | None) -> dict:
    """The weapon and target an odds result is about (also of a sweep: the
    swept value is the one that varies)."""
    return {
        "weapon": attack.weapon.name, "attack_table": attack.weapon.attack_table, "max_result": attack.weapon.max_result,
        "clumsy": attack.weapon.clumsy, "cmb": attack.cmb, "effective_cmb": attack.effective_cmb,
        "target": target, "defense": attack.defense, "armor": attack.armor, "rank": attack.rank.value,
        "crit_reduction": attack.reduction, "features": sorted(attack.features),
    }


def table(database: Database, weapon: attacks.WeaponParts, target: attacks.TargetParts, **attack: Any) -> dict:
    prepared = attacks.prepare(database, weapon, target, **attack)
    data = _table_json(prepared.attack, table_odds(prepared.attack, prepared.tables, prepared.rules), prepared.target)
    data["attack"].update(attacks.ruleset_json(prepared))
    return attacks.add_feature_warnings(data, target, prepared.tables)


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


def sweep(prepared: Attack, tables: TableSet, axis: str, values: range, target: str | None = None,
          progress_bar: ProgressBar | None = None) -> dict:
    """Outcome odds and expected damage per bonus (or DEF) and armor column."""
    grid = []
    armors = tables.attack.armors
    attacks_count = len(values) * len(armors)
    changed = (replace(prepared, cmb=value) if axis == "cmb" else replace(prepared, defense=value) for value in values)  # or "def"
    results = sweep_odds((replace(attack, armor=armor) for attack in changed for armor in armors), tables)
    with reporting(progress_bar, attacks_count, attacks_count >= SWEEP_PROGRESS_FROM, "computing odds") as progress:
        for value in values:
            for armor in armors:
                outcomes, expected_damage = next(results)
                grid.append({axis: value, "armor": armor, "outcomes": as_float(outcomes), "expected_damage": float(expected_damage)})
            if progress:
                progress(len(armors))
    return {"system": "table", "sweep": axis, "values": list(values), "armor": list(tables.attack.armors), "grid": grid,
            "attack": _attack_json(prepared, target)}


def table_sweep(database: Database, weapon: attacks.WeaponParts, target: attacks.TargetParts, axis: str, span: str,
                progress_bar: ProgressBar | None = None, **attack: Any) -> dict:
    values = parse_span(span, f"--sweep-{axis}")  # a usage mistake before any lookup
    prepared = attacks.prepare(database, weapon, target, **attack)
    data = sweep(prepared.attack, prepared.tables, axis, values, prepared.target, progress_bar)
    data["attack"].update(attacks.ruleset_json(prepared))
    return attacks.add_feature_warnings(data, target, prepared.tables)


def formula(system_id: str, values: dict[str, Any]) -> dict:
    from tables_app.services import formulas

    system = formulas.system(system_id)
    params = formulas.build(system_id, values)
    if system.odds is None:
        raise TablesError(f"{system_id} has no exact odds yet")
    odds = system.odds(params)
    data = {"system": system_id, "outcomes": as_float(odds.outcomes), "expected_damage": float(odds.expected_damage)}
    data.update(as_float(odds.extras))
    return data
