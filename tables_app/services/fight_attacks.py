"""An attack in a fight, resolved (docs/fights.md, "An attack"): the attack a
combatant makes, looked up as `resolve table` looks it up, on the fight's
terms (its CMB modifiers and the target's DEF), and the dice it reads.

The odds of a fight (services/fight_odds.py) prepare each attack with the
same two steps, ``looked_up`` then ``on_terms``: the chances draw from the
attack the tracker would resolve, never from a second preparation of it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tables_app.domain.fights import Armament, Attack, Combatant, Fight, Fighter, refusal
from tables_app.domain.fights.rules import fight_terms, turn_weapon, weapon_refusal
from tables_app.domain.names import fold
from tables_app.errors import NotFound, TablesError
from tables_app.storage.database import Database

if TYPE_CHECKING:
    from tables_app.services.attacks import Prepared


def armament(c: Combatant, weapon: str | None) -> Armament:
    """The attack named, or the one it makes when none is: its first not dropped or broken (rules.turn_weapon)."""
    if not c.fighter.attacks:
        raise TablesError(f"{c.name} cannot attack: it has no attack")
    if weapon is None:
        return turn_weapon(c) or c.fighter.attacks[0]  # (none left: refused before, skipped says why)
    for arm in c.fighter.attacks:
        if fold(arm.weapon) == fold(weapon):
            if (why := weapon_refusal(c, arm.weapon)) is not None:
                raise TablesError(why)
            return arm
    known = [a.weapon for a in c.fighter.attacks]
    raise NotFound.unknown(f"{c.name} has no attack {weapon!r}", weapon, known, f"its attacks: {', '.join(known)}")


def looked_up(database: Database, ruleset: str | None, arm: Armament, target: Fighter) -> Prepared:
    """``arm``'s attack on ``target`` looked up as `resolve table` looks it up
    (services/attacks.prepare): its weapon in the ruleset it was found in (else
    the fight's), the target's armor, rank and features; no terms of the fight
    yet (``on_terms``). What the odds keep per weapon and target."""
    from tables_app.services.attacks import TargetParts, WeaponParts, prepare

    parts = TargetParts(defense=0, armor=target.armor, rank=target.rank.value, features=target.features)
    return prepare(database, WeaponParts(name=arm.weapon), parts, ruleset=arm.ruleset or ruleset, cmb=arm.cmb)


def on_terms(prepared: Prepared, terms: tuple[tuple[tuple[str, int], ...], int]) -> Prepared:
    """The looked-up attack on the fight's terms (rules.fight_terms: its CMB modifiers, the target's DEF), its
    rules moved to them."""
    modifiers, defense = terms
    attack = replace(prepared.attack, modifiers=modifiers, defense=defense)
    return replace(prepared, attack=attack, rules=prepared.rules.for_attack(attack) if prepared.rules else None)


def resolve_in_fight(database: Database, fight: Fight, a: Combatant, t: Combatant, weapon: str | None,
                     mods: tuple[tuple[str, int], ...], dice: Any) -> tuple[Attack, dict[str, Any]]:
    """One attack of ``a`` on ``t`` resolved as `resolve table` does, on the fight's terms (``mods``: the
    attack's own modifiers besides); the event and its recorded account."""
    from tables_app.domain.dice import DiceError, ForcedDice, SeededDice
    from tables_app.domain.fights.blows import table_blow
    from tables_app.domain.resolve import resolve_attack
    from tables_app.services.attacks import setup_of
    from tables_app.services.results import DiceUsed, TableResolution

    if (why := refusal(fight, a.name, t.name)) is not None:
        raise TablesError(why)
    arm = armament(a, weapon)
    if arm.system != "table":
        from tables_app.services.fight_formulas import resolve_one

        return resolve_one(fight, a, t, arm, mods, dice)
    if not t.fighter.armor:
        raise TablesError(f"{t.name} has no armor column for an attack on the tables (it joined with --system and "
                          "no --armor): attack it in a formula system, or join it with --armor")
    prepared = on_terms(looked_up(database, fight.ruleset, arm, t.fighter), fight_terms(fight, a.name, t.name, mods))
    first = len(dice.used)
    try:
        result = resolve_attack(prepared.attack, prepared.tables, dice, prepared.rules)
    except DiceError as exc:
        raise TablesError(str(exc)) from None
    used = tuple(dice.used[first:])
    seed = dice.seed if isinstance(dice, SeededDice) else None
    resolved = TableResolution(setup_of(prepared), result, DiceUsed(used, seed, None if not isinstance(dice, ForcedDice) else ()))
    data = resolved.to_json()
    data.pop("unused_dice", None)
    data["attack"]["target"] = t.name
    event = Attack(a.name, t.name, table_blow(result), arm.weapon, prepared.attack.effective_cmb,
                   prepared.attack.defense, used, data)
    return event, data


def check_enough(dice: Any, event: Attack, more_follow: bool = False) -> None:
    """NeedMoreDice naming the attack the given dice ran short in (`Hero's attack on Orc needs at least 1 more
    die: ...`); ``more_follow``: other attacks of the round come after it, whose dice are not counted."""
    from tables_app.services.fight_formulas import OPEN_ENDED
    from tables_app.services.rolling import NeedMoreDice, shortfall

    short = shortfall(dice, ("attack roll", "open-ended", *OPEN_ENDED))
    if short is None:
        return
    given, missing, opens = short
    at_least = "at least " if opens or more_follow else ""
    raise NeedMoreDice(f"--dice gave {given} {'die' if given == 1 else 'dice'}; {event.attacker}'s attack on "
                       f"{event.target} needs {at_least}{len(missing)} more {'die' if len(missing) == 1 else 'dice'}: "
                       + ", ".join(missing))


def refuse_unused(dice: Any) -> None:
    """Too many dice given: refused as too few are (exit 1), dice that do not fit the attacks (decision)."""
    from tables_app.domain.dice import ForcedDice

    if isinstance(dice, ForcedDice) and dice.unused:
        unused = ", ".join(map(str, dice.unused[:10])) + (", …" if len(dice.unused) > 10 else "")
        verb = "was" if len(dice.unused) == 1 else "were"
        raise TablesError(f"--dice: {len(dice.unused)} of the given dice {verb} not needed ({unused}); "
                          "nothing was written: give exactly the dice the attacks read")


__all__ = ["armament", "check_enough", "looked_up", "on_terms", "refuse_unused", "resolve_in_fight"]
