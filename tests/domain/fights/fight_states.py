"""Fights built for the rule tests: fighters, a fight of them, a duel, a blow; every
dice sequence of an attack (enumerated); tiny invented tables for the odds of a fight."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

from tables_app.domain.cells import parse_attack_cell
from tables_app.domain.dice import ForcedDice
from tables_app.domain.fights import Attack, Blow, Combatant, Fight, Fighter, Harm, Join, cmb_modifiers, defense_of, replay
from tables_app.domain.fights.blow_odds import blow_distribution
from tables_app.domain.fights.blows import table_blow
from tables_app.domain.fights.state import Armament
from tables_app.domain.ranges import RangeTable, parse_range
from tables_app.domain.resolve import TableSet, resolve_attack
from tables_app.domain.severity import DEFAULT_SCALE
from tables_app.domain.table_rules import Attack as TableAttack
from tables_app.domain.table_rules import AttackRules
from tables_app.domain.tables import AttackTable, EffectTable, Entry, RollKind, TableKind, Weapon


def fighter(name: str, side: str = "A", hits: int = 40, defense: int = 10, parry: int = 0) -> Fighter:
    return Fighter(name=name, side=side, hits=hits, defense=defense, armor="MA", parry=parry)


def fight(*fighters: Fighter) -> Fight:
    return replay(Fight("test"), [Join(f) for f in fighters])


def duel() -> Fight:
    """Hero (side A) against Orc (side B), 40 hits and DEF 10 each."""
    return fight(fighter("Hero"), fighter("Orc", "B"))


def hit(attacker: str, target: str, **harm: int | None) -> Attack:
    """An attack whose blow harms the target by ``harm`` (Harm's fields)."""
    return Attack(attacker, target, Blow(to_target=Harm(**harm)))  # type: ignore[arg-type]


def state(f: Fight, name: str) -> Combatant:
    found = f.find(name)
    assert found is not None
    return found


def enumerated(attack: TableAttack, tables: TableSet) -> dict[Blow, Fraction]:
    """Every sequence of dice the attack can read, die by die, each weighed 1/100 per die."""
    found: dict[Blow, Fraction] = {}
    rules = AttackRules(attack, tables)  # read once: the rules are the same for every sequence

    def explore(prefix: tuple[int, ...]) -> None:
        dice = ForcedDice(values=prefix)
        result = resolve_attack(attack, tables, dice, rules)
        if dice.missing:
            for face in range(1, 101):
                explore((*prefix, face))
            return
        blow = table_blow(result)
        found[blow] = found.get(blow, Fraction(0)) + Fraction(1, 100 ** len(prefix))

    explore(())
    return found


# ------------------------------------------------------------------ tiny tables for the odds of a fight
# Criticals that bleed, stun, take the parry away, force a parry, lower the CMB, give the attacker a
# bonus and kill in a round; fumbles that strike back. A d100 attack die (no open end): every dice
# sequence of an attack can be enumerated.
ROWS = [("01-50", "—"), ("51-80", "2"), ("81-100", "3 Sup"), ("101+", "4 Lig")]
ATTACK = AttackTable("Tiny", ("NA",), RangeTable(
    (parse_range(r), (parse_attack_cell(c, DEFAULT_SCALE, lambda t: None),)) for r, c in ROWS), automatic_miss=None)


def _e(label: str, text: str, **effects: object) -> Entry:
    return Entry(parse_range(label), text, **effects)  # type: ignore[arg-type]


def _table(kind: TableKind, name: str, entries: list[Entry]) -> EffectTable:
    return EffectTable(kind, name, RangeTable((e.range, (e,)) for e in entries))


CUT = _table(TableKind.CRITICAL, "Cut", [
    _e("1-40", "bleeds", hits=1, bleed=1), _e("41-70", "reels", hits=1, stun=1, attacker_bonus=5),
    _e("71-90", "off balance", no_parry=1, must_parry=1, penalty=-10), _e("91+", "mortal", death_in=1)])
SLIPS = _table(TableKind.FUMBLE, "Slips", [_e("1-50", "trips", hits=1, stun=1), _e("51+", "opens up", hits=2, attacker_bonus=5)])
TABLES = TableSet(ATTACK, {"Cut": CUT}, SLIPS)
WEAPON = Weapon("Knife", "Tiny", None, 3, "Cut", None, "Slips", 0, roll=RollKind.D100)


def fighter_on_tiny(name: str, side: str, hits: int, parry: int = 0, cmb: int = 30, armed: bool = True) -> Fighter:
    return Fighter(name, side, hits, 0, "NA", parry=parry, attacks=(Armament("Knife", cmb),) if armed else ())


def table_attack(state: Fight, attacker: str, target: str) -> TableAttack:
    a = state.find(attacker)
    assert a is not None
    return TableAttack(WEAPON, cmb=a.fighter.attacks[0].cmb, armor="NA", modifiers=cmb_modifiers(state, attacker),
                       defense=defense_of(state, target))


@cache
def _exact(attack: TableAttack) -> dict[Blow, Fraction]:
    return blow_distribution(attack, TABLES)


@cache
def _dice(attack: TableAttack) -> dict[Blow, Fraction]:
    return enumerated(attack, TABLES)


TINY_FIGHTERS = {
    "duel": (fighter_on_tiny("Hero", "A", 6, parry=5), fighter_on_tiny("Orc", "B", 5)),
    "one-sided": (fighter_on_tiny("Hero", "A", 7, cmb=45), fighter_on_tiny("Dummy", "B", 6, armed=False)),
    "two against one": (fighter_on_tiny("Hero", "A", 4), fighter_on_tiny("Orc", "B", 3, parry=10),
                        fighter_on_tiny("Rat", "B", 2, cmb=10, armed=False)),
}


def tiny_fight(fighters: tuple[Fighter, ...]) -> Fight:
    return replay(Fight("tiny"), [Join(f) for f in fighters])


def tiny_blows(state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
    """The exact blows of an attack on the tiny tables (blow_odds), the fight's terms in."""
    return _exact(table_attack(state, attacker, target))


def dice_blows(state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
    """The same, from every sequence of the attack's dice (enumerated)."""
    return _dice(table_attack(state, attacker, target))
