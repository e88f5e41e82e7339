"""The formula systems' use case: options in, one resolution out."""

from __future__ import annotations

from typing import Any

from tables_app.domain.dice import DiceError, DiceExpressionError
from tables_app.domain.systems import get
from tables_app.domain.systems.base import OptionError, System
from tables_app.errors import TablesError, UsageMistake
from tables_app.services.results import DiceUsed, FormulaResolution
from tables_app.services.rolling import check_enough, dice_source


class UsageProblem(UsageMistake):
    """Options that cannot go together, or a bad dice expression: a usage
    mistake, so the CLI exits 2 (errors.UsageMistake)."""


def system(system_id: str) -> System[Any]:
    return get(system_id)


def build(system_id: str, values: dict[str, Any]) -> Any:
    try:
        return system(system_id).build(values)
    except (OptionError, DiceExpressionError) as exc:
        raise UsageProblem(str(exc)) from None


def resolve(system_id: str, values: dict[str, Any], *, seed: int | None, forced: tuple[int, ...] | None) -> FormulaResolution:
    chosen = system(system_id)
    params = build(system_id, values)
    dice = dice_source(seed, forced)
    try:
        resolution = chosen.resolve(params, dice)
    except DiceError as exc:
        raise TablesError(str(exc)) from None
    check_enough(dice, open_ended=("attack", "explosion", "critical follow-up", "accuracy"))
    return FormulaResolution(chosen.id, resolution, DiceUsed.of(dice))
