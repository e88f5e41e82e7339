"""Rules no test pinned before a mutation review of the fight rules (each test kills a mutant that lived): the
initiative a log keeps, the dead a hand edit leaves dead, and whom the down rule looks at in the odds as in the
tracker (docs/fights.md)."""

from __future__ import annotations

from fractions import Fraction

from fight_states import TINY_FIGHTERS, tiny_fight
from test_fight_odds import every_path

from tables_app.domain.fights import Blow, Edit, Fight, Fighter, Harm, Join, apply, replay
from tables_app.domain.fights.events import event_json, event_of
from tables_app.domain.fights.state import Status


def test_initiative_survives_the_log():
    # "combatants in initiative order (the higher first, equal ones in the order they joined)": a Join's JSON keeps it
    events = [Join(Fighter("Scout", "A", 20, 0, "LA")), Join(Fighter("Goblin", "B", 20, 0, "LA", initiative=5))]
    replayed = replay(Fight("f"), [event_of(event_json(e)) for e in events])
    assert [c.name for c in replayed.combatants] == ["Goblin", "Scout"]


def test_hits_set_by_hand_leave_the_dead_dead():
    # "By hand": a dead one stays dead unless --status up says otherwise
    f = replay(Fight("f"), [Join(Fighter("Hero", "A", 20, 0, "LA")), Join(Fighter("Orc", "B", 20, 0, "LA"))])
    f = apply(apply(f, Edit("Orc", (("status", "dead"),))), Edit("Orc", (("taken", 0),)))
    orc = f.find("Orc")
    assert orc is not None and orc.status is Status.DEAD


def test_an_effects_only_blow_downs_a_combatant_standing_past_its_hits():
    # The tracker applies the down rule to whoever a blow harms, hits or not (rules.looked_at); the odds must too.
    # A blow that only stuns, on an Orc a ruling keeps up past its hits, downs it at once.
    def stuns(state, attacker, target):  # type: ignore[no-untyped-def]
        if attacker == "Hero":  # stuns (no hits) or misses
            return {Blow(to_target=Harm(stun=1)): Fraction(1, 2), Blow(): Fraction(1, 2)}
        return {Blow(to_target=Harm(hits=10)): Fraction(1)}  # the Orc, if it still stands, fells Hero

    start = replay(tiny_fight(TINY_FIGHTERS["duel"]), [Edit("Orc", (("taken", 7), ("status", "up")))])
    odds, _ = every_path(start, 1, stuns, stuns)
    assert odds.rounds[0].sides["A"] == Fraction(1, 2)
