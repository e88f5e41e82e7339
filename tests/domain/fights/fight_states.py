"""Fights built for the rule tests: fighters, a fight of them, a duel, a blow."""

from __future__ import annotations

from fractions import Fraction

from tables_app.domain.dice import ForcedDice
from tables_app.domain.fights import Attack, Blow, Combatant, Fight, Fighter, Harm, Join, replay
from tables_app.domain.fights.blows import table_blow
from tables_app.domain.resolve import TableSet, resolve_attack
from tables_app.domain.table_rules import Attack as TableAttack
from tables_app.domain.table_rules import AttackRules


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
