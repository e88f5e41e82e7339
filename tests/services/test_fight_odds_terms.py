"""The chances of a fight draw from the attack the tracker resolves (docs/fights.md, "Odds of a fight": the blows
of each attack "as the tracker deals them"): the same look-up, the fight's CMB modifiers and the target's DEF with
its parry. Each state differs from the first in one term; the odds' blows must follow it (a mutant that drops a
term from the odds alone passed every other test: the simulation draws from the same blows)."""

from __future__ import annotations

from dataclasses import replace

from tables_app.domain.fights import Armament, Combatant, Counters, Fight, Fighter
from tables_app.domain.fights.blow_odds import blow_distribution
from tables_app.services.attacks import TargetParts, WeaponParts, prepare
from tables_app.services.database_setup import open_database
from tables_app.services.fight_odds import _Blows


def _by_hand(database, weapon: str, cmb: int, modifiers: tuple[tuple[str, int], ...], defense: int):  # type: ignore[no-untyped-def]
    """The attack as `resolve table --weapon W --cmb N --def D --armor MA` with the modifiers written out by hand."""
    prepared = prepare(database, WeaponParts(name=weapon), TargetParts(defense=defense, armor="MA"), cmb=cmb,
                       modifiers=modifiers)
    return blow_distribution(prepared.attack, prepared.tables)


def test_the_odds_blows_follow_every_term_the_tracker_gives_an_attack(db_path):  # type: ignore[no-untyped-def]
    database = open_database(str(db_path))
    try:
        hero = Combatant(Fighter("Hero", "A", 50, 20, "MA", parry=10, attacks=(Armament("Longsword", 60),)))
        orc = Combatant(Fighter("Orc", "B", 60, 20, "MA", parry=5,
                                attacks=(Armament("Scimitar", 55), Armament("Shortbow", 35))))
        hurt, unable = Counters(penalty=-15), Counters(no_parry=1)
        cases = [  # the state, then Hero's modifiers and Orc's DEF as docs/fights.md words them
            (Fight("Duel", combatants=(hero, orc)), (("parry", -10),), 25),
            (Fight("Duel", combatants=(replace(hero, start=hurt, now=hurt), orc)), (("parry", -10), ("penalty", -15)), 25),
            (Fight("Duel", combatants=(replace(hero, bonus=10), orc)), (("parry", -10), ("bonus", 10)), 25),
            (Fight("Duel", combatants=(replace(hero, start=unable, now=unable), orc)), (), 25),  # whole CMB: no parry
            (Fight("Duel", combatants=(hero, replace(orc, start=unable, now=unable))), (("parry", -10),), 20),
        ]
        blows = _Blows(database, cases[0][0])
        for state, modifiers, defense in cases:
            assert blows(state, "Hero", "Orc") == _by_hand(database, "Longsword", 60, modifiers, defense), state
        # the Orc attacks with its first attack, as `fight round --auto` does; once it dropped it, with the next
        state = cases[0][0]
        assert blows(state, "Orc", "Hero") == _by_hand(database, "Scimitar", 55, (("parry", -5),), 30)
        dropped = Counters(dropped=("Scimitar",))
        state = Fight("Duel", combatants=(hero, replace(orc, start=dropped, now=dropped)))
        assert blows(state, "Orc", "Hero") == _by_hand(database, "Shortbow", 35, (("parry", -5),), 30)
    finally:
        database.dispose()
