"""A fight's attack in a formula system (docs/fights.md, "Formula systems").

A combatant declares its attack once, as ``resolve SYSTEM`` takes it
(``Armament.options``, by option name); at each attack the fight fills in
the target's side (its DEF, plus its parry while it can parry, and for pte
its hits) and adds its CMB modifiers (parry, penalty, pending bonus, the
attack's own) to the system's bonus. The system's damage goes to the
target's hits; none of the four systems gives a condition the fight tracks
(bleed, stun, parry, penalty, a death countdown), so the blow is damage only
(``formula_blow`` would carry ``extras["conditions"]`` of a system that did).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from tables_app.domain.fights.blows import formula_blow
from tables_app.domain.fights.rules import cmb_modifiers, defense_of
from tables_app.domain.fights.state import Armament, Blow, Fight
from tables_app.domain.systems import get
from tables_app.domain.systems.base import Option, OptionError, Resolution, System


@dataclass(frozen=True)
class Terms:
    """How a fight meets one system: ``bonus`` the option its CMB modifiers
    add to; ``cmb`` the options summed as the attack's bonus (its CMB in the
    fight's account); ``target`` the options the fight fills from the target."""

    bonus: str
    cmb: tuple[str, ...]
    target: tuple[str, ...]


TERMS = {
    "rise": Terms("accuracy", ("accuracy",), ("def",)),
    "worlds-awakening": Terms("equipment", ("stat", "weapon-bonus", "level", "equipment"), ("def",)),
    "d10-pool": Terms("bonus", ("bonus",), ("ad", "gd")),
    "pte": Terms("accuracy", ("accuracy",), ("evasion", "max-hp", "hp")),
}
TRUE, FALSE = ("", "true", "yes", "on", "1"), ("false", "no", "off", "0")
METAVARS = {"int": "N", "float": "X", "dice": "EXPR", "text": "TEXT", "choice": "WORD", "flag": "true"}


def _filled_how(name: str) -> str:
    if name in ("max-hp", "hp"):
        return "the target's hits (most, and left) in the fight"
    return "the target's DEF in the fight"


def _option(system: System[Any], key: str) -> Option:
    wanted = key.strip().lower().replace("_", "-")
    for option in system.options:
        if wanted in (option.name, option.key.replace("_", "-"), *(a.replace("_", "-") for a in option.aliases)):
            return option
    names = ", ".join(o.name for o in system.options if o.name not in TERMS[system.id].target)
    raise OptionError(f"{system.id} has no option {key.strip()!r} (its options: {names})")


def _value(system_id: str, option: Option, text: str, given: str) -> Any:
    where = f"{system_id}: --option {given}"
    if option.kind == "flag":
        if text.strip().lower() in TRUE:
            return True
        if text.strip().lower() in FALSE:
            return False
        raise OptionError(f"{where}: true or false, not {text!r}")
    if option.kind in ("int", "float"):
        try:
            return int(text) if option.kind == "int" else float(text)
        except ValueError:
            raise OptionError(f"{where}: {text!r} is not {'a whole number' if option.kind == 'int' else 'a number'}") \
                from None
    if option.kind == "choice" and text not in option.choices:
        raise OptionError(f"{system_id}: --{option.name} must be one of {', '.join(option.choices)}, not {text!r}")
    return text


def parse_options(system_id: str, texts: Iterable[str]) -> tuple[tuple[str, Any], ...]:
    """``KEY=VALUE`` texts (a flag alone: ``stab``) as the attack's options,
    by option name, each typed by its declaration; OptionError naming the
    option (unknown, given twice, a target's option, a value of the wrong kind)."""
    system = get(system_id)
    given: dict[str, Any] = {}
    for text in texts:
        key, sep, raw = text.partition("=")
        option = _option(system, key)
        if not sep and option.kind != "flag":
            raise OptionError(f"{system_id}: --option {text}: give it as {option.name}={METAVARS[option.kind]}")
        if option.name in TERMS[system_id].target:
            raise OptionError(f"{system_id}: --option {option.name} is {_filled_how(option.name)}, "
                              "filled in at each attack: leave it out")
        value = _value(system_id, option, raw.strip(), text)
        if option.multiple:
            given[option.name] = (*given.get(option.name, ()), value)
        elif option.name in given:
            raise OptionError(f"{system_id}: --option {option.name} given twice")
        else:
            given[option.name] = value
    for option in system.options:
        if option.required and option.name not in given and option.name not in TERMS[system_id].target:
            raise OptionError(f"{system_id} needs --option {option.name}={METAVARS[option.kind]} ({option.help})")
    return tuple(given.items())


def values_of(system_id: str, options: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """Every option by its key (what the system's ``build`` takes): those given, the rest their defaults."""
    by_name = dict(options)
    out = {}
    for option in get(system_id).options:
        default = option.default if option.default is not None else \
            False if option.kind == "flag" else () if option.multiple else None
        out[option.key] = by_name.get(option.name, default)
    return out


def bonus_of(system_id: str, options: Iterable[tuple[str, Any]]) -> int:
    """The attack's bonus: the sum of the system's bonus options (its CMB in the fight's account)."""
    values = values_of(system_id, options)
    keys = {o.name: o.key for o in get(system_id).options}
    return sum(values[keys[name]] or 0 for name in TERMS[system_id].cmb)


def placeholders(system_id: str) -> dict[str, Any]:
    """The target's options as a join checks the rest with (any target's: 0 DEF, 1 hit)."""
    return {name: 1 if name in ("max-hp", "hp") else 0 for name in TERMS[system_id].target}


def armament(system_id: str, texts: Iterable[str]) -> Armament:
    """The attack a combatant declares in ``system_id``, checked by the
    system itself (its own messages) against a placeholder target."""
    options = parse_options(system_id, texts)
    get(system_id).build(values_of(system_id, (*options, *placeholders(system_id).items())))
    return Armament(system_id, bonus_of(system_id, options), system_id, options)


def attack_options(fight: Fight, attacker: str, target: str, arm: Armament,
                   mods: tuple[tuple[str, int], ...] = ()) -> tuple[tuple[str, Any], ...]:
    """The options an attack of ``attacker`` on ``target`` is resolved with,
    by name: the declared ones, the fight's CMB modifiers (and ``mods``, the
    attack's own) added to the system's bonus, the target's side filled in."""
    terms = TERMS[arm.system]
    values: dict[str, Any] = dict(arm.options)
    added = sum(n for _, n in (*cmb_modifiers(fight, attacker), *mods))
    values[terms.bonus] = (values.get(terms.bonus) or 0) + added
    t = fight.find(target)
    assert t is not None
    defense = defense_of(fight, t.name)
    filled = {"max-hp": t.fighter.hits, "hp": t.fighter.hits - t.taken}
    values.update({name: filled.get(name, defense) for name in terms.target})
    order = [o.name for o in get(arm.system).options]
    return tuple(sorted(values.items(), key=lambda item: order.index(item[0])))


def attack_params(fight: Fight, attacker: str, target: str, arm: Armament,
                  mods: tuple[tuple[str, int], ...] = ()) -> tuple[tuple[tuple[str, Any], ...], Any]:
    """The attack's options (``attack_options``) and the system's parameters
    built from them; OptionError (or DiceExpressionError) when a value filled
    in is outside the system's bounds. What the tracker resolves an attack
    with, and what the odds of a fight weigh."""
    options = attack_options(fight, attacker, target, arm, mods)
    return options, get(arm.system).build(values_of(arm.system, options))


def dealt(system_id: str, options: Iterable[tuple[str, Any]], damage: int, taken: int) -> int:
    """The hits the system's ``damage`` deals a target that has taken
    ``taken``, with two exceptions its rules make: a d10-pool sunder strikes
    the item, not its holder (no hits); a pte absorbed attack heals (negative
    damage), at most the hits the target has taken."""
    if system_id == "d10-pool" and dict(options).get("option") == "sunder":
        damage = 0
    return max(damage, -taken)


def reads_taken(system_id: str) -> bool:
    """Whether an attack's blows depend on its target's hits taken: pte fills
    in the target's hits left (and its absorbed attack, the one that heals,
    is held to the hits taken: ``dealt``); the other systems read its DEF only."""
    return "hp" in TERMS[system_id].target


def blow_of(fight: Fight, target: str, system_id: str, options: Iterable[tuple[str, Any]],
            resolution: Resolution) -> Blow:
    """What the attack does in the fight: ``damage_blow`` of its damage and its conditions."""
    t = fight.find(target)
    assert t is not None
    return damage_blow(system_id, options, resolution.damage, t.taken, resolution.extras)


def damage_blow(system_id: str, options: Iterable[tuple[str, Any]], damage: int, taken: int,
                extras: Mapping[str, Any] | None = None) -> Blow:
    """The blow a formula system's ``damage`` deals a target that has taken ``taken``: the hits ``dealt``, and the
    conditions its rules give (``extras``: a resolution's; a damage distribution carries none, as none of the four
    systems gives one the fight tracks). The tracker and the odds of a fight both make blows with it."""
    return formula_blow(dealt(system_id, options, damage, taken), extras or {})


__all__ = ["TERMS", "Terms", "armament", "attack_options", "attack_params", "blow_of", "bonus_of", "damage_blow", "dealt", "reads_taken",
           "parse_options", "placeholders", "values_of"]
