"""The rules of the GM's moves (docs/fights.md, "By hand" and "Combatants"),
written once in rules.py: an adjustment by so much, clamped and counted at
once; DEF, parry, CMB and the attack in use changed; a combatant who
leaves; reinforcements after the end; the log's JSON of each; the odds of a
fight with a combatant that never attacks."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from fight_states import duel, fight, fighter, hit, state
from float_agreement import float64_agrees  # noqa: F401  # every exact odds here checked in float64 too

from tables_app.domain.fights import (
    Adjust, Armament, Blow, Edit, EndRound, Fight, FightRuleError, Harm, Join, Leave, Status, apply, event_json, event_of,
    refusal, replay,
)
from tables_app.domain.fights.odds import fight_odds


def replace_attacks(f: Fight, name: str, attacks: tuple[Armament, ...]) -> Fight:
    """``f`` with ``name``'s attacks ``attacks``."""
    c = state(f, name)
    return replace(f, combatants=tuple(replace(k, fighter=replace(c.fighter, attacks=attacks)) if k is c else k
                                       for k in f.combatants))


def adjusted(**deltas: int) -> Adjust:
    return Adjust("Orc", tuple(deltas.items()))


# ------------------------------------------------------------------ adjust
def test_an_adjustment_adds_and_clamps_each_value():
    # "clamped (taken ≥ 0, counters ≥ 0, penalty ≤ 0)"
    f = apply(duel(), Edit("Orc", (("taken", 5), ("bleed", 2), ("penalty", -10), ("bonus", 3))))
    orc = state(apply(f, adjusted(heal=9, bleed=-5, stun=2, penalty=15, bonus=-7, must_parry=-1)), "Orc")
    assert (orc.taken, orc.now.bleed, orc.now.stun, orc.now.penalty, orc.bonus, orc.now.must_parry) == (0, 0, 2, 0, 0, 0)
    orc = state(apply(f, adjusted(damage=4, penalty=-5, no_parry=1)), "Orc")
    assert (orc.taken, orc.now.penalty, orc.now.no_parry) == (9, -15, 1)


def test_an_adjustment_counts_at_once_the_rounds_start_too():
    f = apply(apply(duel(), hit("Hero", "Orc", stun=1)), EndRound())
    assert refusal(f, "Orc", "Hero") == "Orc cannot attack: stunned, 1 round left"
    f = apply(f, adjusted(stun=-1))
    assert refusal(f, "Orc", "Hero") is None and state(f, "Orc").start.stun == 0


def test_hits_adjusted_put_down_and_bring_up_as_an_edits_do():
    f = apply(duel(), adjusted(damage=40))
    assert state(f, "Orc").status is Status.DOWN and f.over
    f = apply(f, adjusted(heal=1))
    assert state(f, "Orc").status is Status.UP and not f.over
    dead = apply(apply(duel(), Edit("Orc", (("status", "dead"),))), adjusted(heal=10))
    assert state(dead, "Orc").status is Status.DEAD  # the dead stay dead


def test_a_countdown_adjusted():
    # none running: a positive change starts one, counted at once; a negative one leaves none; at 0 it is death
    assert state(apply(duel(), adjusted(dying=-2)), "Orc").now.dying is None
    f = apply(duel(), adjusted(dying=2))
    orc = state(f, "Orc")
    assert (orc.now.dying, orc.start.dying, orc.fresh_dying) == (2, 2, False)
    assert state(apply(f, EndRound()), "Orc").now.dying == 1  # it ran from this round's end
    assert state(apply(f, adjusted(dying=-2)), "Orc").status is Status.DEAD


def test_an_adjustment_of_no_such_field_is_refused():
    with pytest.raises(FightRuleError, match="'taken' cannot be adjusted"):
        apply(duel(), Adjust("Orc", (("taken", 1),)))


# ------------------------------------------------------------------ DEF, parry, CMB, the attack in use
def armed() -> Edit:
    return Edit("Orc", (("wield", Armament("Dagger", 40, ruleset="default")), ("def", 30), ("parry", 5)))


def test_an_edit_changes_who_the_combatant_is():
    f = fight(fighter("Hero"), fighter("Orc", "B"))
    f = replace_attacks(f, "Orc", (Armament("Scimitar", 55), Armament("Dagger", 10)))
    orc = state(apply(f, armed()), "Orc").fighter
    assert (orc.defense, orc.parry, orc.attacks) == (30, 5, (Armament("Dagger", 40, ruleset="default"),
                                                             Armament("Scimitar", 55)))
    orc = state(apply(f, Edit("Orc", (("cmb", 70),))), "Orc").fighter
    assert orc.attacks == (Armament("Scimitar", 70), Armament("Dagger", 10))
    with pytest.raises(FightRuleError, match="Hero has no attack to set the CMB of"):
        apply(f, Edit("Hero", (("cmb", 70),)))


# ------------------------------------------------------------------ leaving, reinforcements
def test_one_who_leaves_is_no_combatant_and_its_side_is_beaten():
    f = apply(duel(), Leave("orc"))
    assert [c.name for c in f.combatants] == ["Hero"] and f.find("Orc") is None and f.departed("ORC") is not None
    assert (f.sides, f.over, f.winner) == (("A", "B"), True, "A")
    with pytest.raises(FightRuleError, match="Orc has left the fight, and its name stays taken"):
        apply(f, Join(fighter("orc", "B")))
    with pytest.raises(FightRuleError, match="no combatant named 'Orc'"):
        apply(f, Leave("Orc"))


def test_a_side_with_another_combatant_stands_without_the_one_who_left():
    f = apply(fight(fighter("Hero"), fighter("Orc", "B"), fighter("Wolf", "B")), Leave("Orc"))
    assert not f.over and f.standing == ("A", "B")


def test_reinforcements_take_up_a_fight_that_was_over():
    f = apply(duel(), hit("Hero", "Orc", hits=40))
    assert f.over
    assert apply(f, Join(fighter("Friend"))).over  # its own side: still over
    again = apply(f, Join(fighter("Troll", "B")))
    assert not again.over and apply(again, EndRound()).round == 2


# ------------------------------------------------------------------ the log's JSON
@pytest.mark.parametrize("event", [
    Adjust("Orc", (("heal", 3), ("bleed", -1), ("dying", 2))), Leave("Orc"), armed(), Edit("Orc", (("cmb", 5),)),
    Edit("Orc", (("wield", Armament("rise", 6, "rise", (("accuracy", 6), ("modifier", ("cover", "far"))))),)),
])
def test_each_event_is_kept_and_read_back_as_it_was(event):  # type: ignore[no-untyped-def]
    import json

    assert event_of(json.loads(json.dumps(event_json(event)))) == event


def test_a_log_with_moves_replays_to_the_same_fight():
    events = [Join(fighter("Hero")), Join(fighter("Orc", "B")), adjusted(damage=3), armed(), Leave("Hero")]
    f = replay(Fight("test"), events)
    assert f.departed("Hero") is not None and state(f, "Orc").taken == 3


# ------------------------------------------------------------------ the odds
def test_the_odds_never_ask_the_blows_of_one_without_attacks():
    f = replace_attacks(fight(fighter("Hero", hits=2), fighter("Door", "B", hits=2)), "Hero", (Armament("Sword", 50),))
    asked = []

    def blows(state, attacker, target):  # type: ignore[no-untyped-def]
        asked.append(attacker)
        return {Blow(to_target=Harm(hits=1)): Fraction(1, 2), Blow(): Fraction(1, 2)}

    odds = fight_odds(f, blows, 3)
    assert set(asked) == {"Hero"}
    assert odds.rounds[-1].sides == {"A": Fraction(1, 2), "B": Fraction(0)}  # two hits in three tries: 4/8
