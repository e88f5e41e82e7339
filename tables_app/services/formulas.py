"""The formula systems' use case: options in, one resolution's JSON out."""

from __future__ import annotations

from typing import Any

from tables_app.domain.dice import DiceError, DiceExpressionError
from tables_app.domain.systems import get
from tables_app.domain.systems.base import OptionError, System
from tables_app.errors import TablesError, UsageMistake
from tables_app.services.rolling import check_enough, dice_json, dice_source


class UsageProblem(UsageMistake):
    """Options that cannot go together, or a bad dice expression: a usage
    mistake, so the CLI exits 2 (errors.UsageMistake)."""


def system(system_id: str) -> System:
    return get(system_id)


def build(system_id: str, values: dict[str, Any]) -> Any:
    try:
        return system(system_id).build(values)
    except (OptionError, DiceExpressionError) as exc:
        raise UsageProblem(str(exc)) from None


def resolve(system_id: str, values: dict[str, Any], *, seed: int | None, forced: tuple[int, ...] | None) -> dict:
    chosen = system(system_id)
    params = build(system_id, values)
    dice = dice_source(seed, forced)
    try:
        resolution = chosen.resolve(params, dice)
    except DiceError as exc:
        raise TablesError(str(exc)) from None
    check_enough(dice, open_ended=("attack", "explosion", "critical follow-up", "accuracy"))
    data = {"system": chosen.id, "outcome": resolution.outcome, "damage": resolution.damage}
    data.update(dice_json(dice))
    data["steps"] = list(resolution.steps)
    data.update(resolution.extras)
    return data
