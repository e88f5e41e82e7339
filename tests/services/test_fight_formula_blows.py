"""The blows the odds of a fight step with, for an attack in a formula system
(services/fight_odds._Blows): looked up by every term the tracker fills in
(docs/fights.md, "Odds of a fight", "Formula systems"): the attacker's CMB
modifiers, the target's DEF and parry, its hits and its hits taken (pte reads
them as its max HP and HP; a heal is held to the hits taken), so a state that
differs in any of them gets its own distribution, and one that does not
gets the same one (the same object, as the simulation's draws expect)."""

from __future__ import annotations

from dataclasses import replace

from tables_app.domain.fights import formulas
from tables_app.domain.fights.blow_odds import formula_blow_distribution
from tables_app.domain.fights.state import Combatant, Counters, Fight, Fighter
from tables_app.services.fight_odds import _Blows

ABSORBED = ["accuracy=2", "ac=2", "stat=5", "damage-base=6", "def=3", "absorb"]  # heals 8, or 16 on a critical


def duel(options: list[str], taken: int = 0, penalty: int = 0) -> Fight:
    arm = formulas.armament("pte", options)
    hero = Combatant(Fighter("Hero", "A", 30, 0, "", attacks=(arm,)), start=Counters(penalty=penalty),
                     now=Counters(penalty=penalty))
    orc = Combatant(Fighter("Orc", "B", 20, 5, "", parry=1, attacks=(arm,)), taken=taken)
    return Fight("Duel", combatants=(hero, orc))


def exact(fight: Fight) -> dict:  # type: ignore[type-arg]
    return formula_blow_distribution(fight, "Hero", "Orc", fight.combatants[0].fighter.attacks[0])


def test_a_heal_is_looked_up_by_the_hits_taken() -> None:
    fresh, hurt = duel(ABSORBED), duel(ABSORBED, taken=3)
    blows = _Blows(None, fresh)  # type: ignore[arg-type]  # no table attack: the database is never read
    assert blows(fresh, "Hero", "Orc") == exact(fresh)
    assert blows(hurt, "Hero", "Orc") == exact(hurt)
    assert min(b.to_target.hits for b in blows(fresh, "Hero", "Orc")) == 0  # nothing taken: nothing to heal
    assert min(b.to_target.hits for b in blows(hurt, "Hero", "Orc")) == -3  # held to the 3 hits taken


def test_the_same_terms_give_the_same_distribution_and_others_their_own() -> None:
    plain = ["accuracy=2", "ac=2", "stat=8", "damage-base=6", "def=3"]
    first = duel(plain)
    blows = _Blows(None, first)  # type: ignore[arg-type]
    found = blows(first, "Hero", "Orc")
    assert blows(duel(plain), "Hero", "Orc") is found  # an equal state: the same object
    penalised = duel(plain, penalty=-4)  # 4 less accuracy: misses more
    assert blows(penalised, "Hero", "Orc") == exact(penalised) != found
    orc = penalised.combatants[1]
    no_parry = replace(penalised, combatants=(penalised.combatants[0], replace(orc, start=Counters(no_parry=1))))
    assert blows(no_parry, "Hero", "Orc") == exact(no_parry) != exact(penalised)  # its Evasion without the parry
