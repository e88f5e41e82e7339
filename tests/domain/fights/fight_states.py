"""Fights built for the rule tests: fighters, a fight of them, a duel, a blow."""

from __future__ import annotations

from tables_app.domain.fights import Attack, Blow, Combatant, Fight, Fighter, Harm, Join, replay


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
