"""A fight's attack in a formula system (docs/fights.md, "Formula systems"):
the attack declared at `fight join --system S --option KEY=VALUE`, resolved
at `fight attack` with the system's resolver and the fight's dice, recorded
with the system's resolve JSON (as `tables resolve S --json` prints it,
plus ``options``: what it was resolved with)."""

from __future__ import annotations

from typing import Any

from tables_app.domain.dice import DiceError, DiceExpressionError, SeededDice
from tables_app.domain.fights import Armament, Attack, Combatant, Fight
from tables_app.domain.fights import formulas as rules
from tables_app.domain.systems import get
from tables_app.domain.systems.base import OptionError
from tables_app.errors import TablesError, UsageMistake
from tables_app.services.results import DiceUsed, FormulaResolution

# Dice after which more may follow (a missing one makes the count "at least"), as `resolve SYSTEM` says.
OPEN_ENDED = ("attack", "explosion", "critical follow-up", "accuracy")


def armament(system_id: str | None, texts: tuple[str, ...]) -> Armament:
    """`fight join`'s --system and --option: the attack, checked by the system (UsageMistake, exit 2)."""
    if system_id is None:
        raise UsageMistake("--option needs --system (the formula system whose options they are)")
    try:
        return rules.armament(system_id, texts)
    except (OptionError, DiceExpressionError) as exc:
        text = str(exc)
        raise UsageMistake(text if text.startswith(system_id) else f"{system_id}: {text}") from None


def resolve_one(fight: Fight, a: Combatant, t: Combatant, arm: Armament, mods: tuple[tuple[str, int], ...],
                dice: Any) -> tuple[Attack, dict[str, Any]]:
    """One attack of ``a`` on ``t`` in ``arm``'s system, with the fight's
    modifiers and the target's side; the event and its recorded account."""
    system = get(arm.system)
    try:
        options, params = rules.attack_params(fight, a.name, t.name, arm, mods)
    except (OptionError, DiceExpressionError) as exc:
        raise UsageMistake(f"{a.name}'s {arm.system} attack on {t.name}: {exc}") from None
    first = len(dice.used)
    try:
        resolution = system.resolve(params, dice)
    except DiceError as exc:
        raise TablesError(str(exc)) from None
    used = tuple(dice.used[first:])
    seed = dice.seed if isinstance(dice, SeededDice) else None
    data = FormulaResolution(system.id, resolution, DiceUsed(used, seed)).to_json()
    data["options"] = {name: list(value) if isinstance(value, tuple) else value for name, value in options}
    by_name = dict(options)
    terms = rules.TERMS[arm.system]
    event = Attack(a.name, t.name, rules.blow_of(fight, t.name, arm.system, options, resolution), arm.weapon,
                   rules.bonus_of(arm.system, options), by_name[terms.target[0]], used, data)
    return event, data


__all__ = ["OPEN_ENDED", "armament", "resolve_one"]
