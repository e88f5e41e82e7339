"""Each rule of a fight (docs/fights.md, "The rules"), pinned with the rule
it checks quoted: the state is built with ``apply`` only, event by event."""

from __future__ import annotations

from dataclasses import replace

import pytest
from fight_states import duel, fight, fighter, hit, state

from tables_app.domain.fights import (
    Armament, Attack, Blow, Edit, EndRound, Fight, Fighter, FightRuleError, Harm, Join, Status, apply, attack_terms,
    auto_target, refusal, replay,
)
from tables_app.domain.fights.account import account, status_line


def test_hits_act_at_once():
    # "Three things act at once: hits (taken), instant death, and down the moment taken ≥ hits"
    after = apply(duel(), hit("Hero", "Orc", hits=12))
    assert state(after, "Orc").taken == 12


def test_bleeding_starts_at_the_next_rounds_end_not_straight_after_the_hit():
    # "taken += the bleed it had at the round's start ... no bleeding straight after the hit"
    f = apply(duel(), hit("Hero", "Orc", hits=5, bleed=3))
    f = apply(f, EndRound())
    assert state(f, "Orc").taken == 5  # received in round 1: not bled at its end
    assert state(f, "Orc").now.bleed == 3
    f = apply(f, EndRound())
    assert state(f, "Orc").taken == 8  # bled at the end of round 2
    f = apply(f, EndRound())
    assert state(f, "Orc").taken == 11


def test_bleeding_adds_up():
    # "bleed hits lost per round (the sum of every bleed received)"
    f = apply(duel(), hit("Hero", "Orc", bleed=2))
    f = apply(f, EndRound())
    f = apply(f, hit("Hero", "Orc", bleed=3))
    assert state(f, "Orc").now.bleed == 5
    f = apply(f, EndRound())
    assert state(f, "Orc").taken == 2  # the round's start had bleed 2: the new 3 counts from the next
    f = apply(f, EndRound())
    assert state(f, "Orc").taken == 7


def test_stun_received_counts_from_the_next_round():
    # "everything a combatant receives during a round ... counts from the next round"
    f = apply(duel(), hit("Hero", "Orc", stun=2))
    assert refusal(f, "Orc", "Hero") is None  # still free in the round it was stunned
    f = apply(f, EndRound())  # round 2: stunned, 2 rounds left
    assert refusal(f, "Orc", "Hero") == "Orc cannot attack: stunned, 2 rounds left"
    f = apply(f, EndRound())  # round 3: 1 left
    assert refusal(f, "Orc", "Hero") == "Orc cannot attack: stunned, 1 round left"
    f = apply(f, EndRound())
    assert refusal(f, "Orc", "Hero") is None
    assert state(f, "Orc").now.stun == 0


def test_a_stunned_attack_is_refused_naming_why():
    f = apply(apply(duel(), hit("Hero", "Orc", stun=1)), EndRound())
    with pytest.raises(FightRuleError, match="^Orc cannot attack: stunned, 1 round left$"):
        apply(f, hit("Orc", "Hero", hits=3))


def test_stun_and_no_parry_add_to_both():
    # "`2∑∏`, stunned and unable to parry, adds 2 to both"; "bleed, stun, no_parry, must_parry and penalty add"
    f = apply(duel(), hit("Hero", "Orc", stun=2, no_parry=2))
    f = apply(f, EndRound())
    f = apply(f, hit("Hero", "Orc", stun=1, no_parry=1, must_parry=1, penalty=-10))
    orc = state(f, "Orc").now
    assert (orc.stun, orc.no_parry, orc.must_parry, orc.penalty) == (2 + 1, 2 + 1, 1, -10)  # round 1 had none at its start: nothing ticked


def test_must_parry_takes_the_attack_away():
    # "with stun and must_parry both 0 as they stood when the round began, attacks"
    f = apply(apply(duel(), hit("Hero", "Orc", must_parry=1)), EndRound())
    assert refusal(f, "Orc", "Hero") == "Orc cannot attack: must parry, 1 round left"


def test_parry_moves_cmb_to_def_and_is_lost_with_no_parry():
    # "CMB = A's CMB − A's parry + ..., DEF = B's DEF + B's parry if B can parry (no_parry = 0)"
    f = fight(fighter("Hero", parry=15), fighter("Orc", "B", defense=20, parry=10))
    assert attack_terms(f, "Hero", "Orc", 60) == (45, 30)
    f = apply(f, hit("Hero", "Orc", no_parry=1))
    assert attack_terms(f, "Orc", "Hero", 50) == (40, 25)  # received this round: it still parries
    f = apply(f, EndRound())
    assert attack_terms(f, "Hero", "Orc", 60) == (45, 20)  # Orc cannot parry in round 2
    assert attack_terms(f, "Orc", "Hero", 50) == (50, 25)  # ... nor keep its parry back (decision)
    f = apply(f, EndRound())
    assert attack_terms(f, "Hero", "Orc", 60) == (45, 30)


def test_penalty_is_added_to_cmb_from_the_next_round():
    f = apply(duel(), hit("Hero", "Orc", penalty=-20))
    assert attack_terms(f, "Orc", "Hero", 50) == (50, 10)
    f = apply(f, EndRound())
    assert attack_terms(f, "Orc", "Hero", 50) == (30, 10)


def test_the_attackers_bonus_is_spent_on_its_next_attack():
    # "(+N) adds to A's bonus"; "The attacker's (+N) bonus is spent on its next attack, in this round or a later one"
    f = apply(duel(), Attack("Hero", "Orc", Blow(to_target=Harm(hits=5), attacker_bonus=10)))
    assert state(f, "Hero").bonus == 10
    f = apply(f, EndRound())
    assert attack_terms(f, "Hero", "Orc", 60) == (70, 10)
    f = apply(f, hit("Hero", "Orc", hits=1))
    assert state(f, "Hero").bonus == 0
    f = apply(f, EndRound())
    assert attack_terms(f, "Hero", "Orc", 60) == (60, 10)


def test_a_fumble_strikes_the_attacker():
    # "A fumble's entry applies its effects, hits included, to A."
    f = apply(duel(), Attack("Hero", "Orc", Blow(to_attacker=Harm(hits=4, stun=1))))
    hero = state(f, "Hero")
    assert (hero.taken, hero.now.stun, state(f, "Orc").taken) == (4, 1, 0)
    assert hero.acted


def test_instant_death_acts_at_once():
    f = apply(duel(), hit("Hero", "Orc", hits=3, death_in=0))
    assert state(f, "Orc").status is Status.DEAD
    assert f.over and f.winner == "A"


def test_dying_counts_down_from_the_next_round():
    # "dies in N ... one received this round first ticks at the next round's end"
    f = apply(duel(), hit("Hero", "Orc", death_in=2))
    f = apply(f, EndRound())
    assert (state(f, "Orc").now.dying, state(f, "Orc").status) == (2, Status.UP)
    f = apply(f, EndRound())
    assert state(f, "Orc").now.dying == 1
    f = apply(f, EndRound())
    assert state(f, "Orc").status is Status.DEAD


def test_the_least_dying_wins_and_keeps_its_own_start():
    # "dies in N sets dying to the least of the running countdown (as it is now) and N"
    f = apply(duel(), hit("Hero", "Orc", death_in=6))
    f = replay(f, [EndRound(), EndRound()])  # 6 → 5 at the end of round 2
    assert state(f, "Orc").now.dying == 5
    f = apply(f, hit("Hero", "Orc", death_in=9))  # longer: the running 5 keeps going
    f = apply(f, EndRound())
    assert state(f, "Orc").now.dying == 4
    f = apply(f, hit("Hero", "Orc", death_in=2))  # shorter: 2 wins, first ticks at the next round's end
    f = apply(f, EndRound())
    assert state(f, "Orc").now.dying == 2
    f = replay(f, [EndRound(), EndRound()])
    assert state(f, "Orc").status is Status.DEAD


def test_down_at_taken_reaching_hits_at_once_and_at_a_rounds_end():
    f = apply(duel(), hit("Hero", "Orc", hits=40))
    assert state(f, "Orc").status is Status.DOWN
    f = fight(fighter("Hero"), fighter("Orc", "B", hits=10), fighter("Goblin", "B"))
    f = apply(f, hit("Hero", "Orc", hits=8, bleed=2))
    f = replay(f, [EndRound(), EndRound()])
    assert state(f, "Orc").status is Status.DOWN and state(f, "Orc").taken == 10


def test_a_down_combatant_still_bleeds_and_its_countdown_runs():
    # "For every combatant not dead"
    f = fight(fighter("Hero"), fighter("Orc", "B", hits=10), fighter("Goblin", "B"))
    f = apply(f, hit("Hero", "Orc", hits=10, bleed=1, death_in=1))
    f = replay(f, [EndRound(), EndRound()])
    orc = state(f, "Orc")
    assert (orc.taken, orc.status) == (11, Status.DEAD)


def test_down_or_dead_cannot_attack_nor_be_attacked():
    f = fight(fighter("Hero"), fighter("Orc", "B", hits=10), fighter("Goblin", "B"))
    f = apply(f, hit("Hero", "Orc", hits=10))
    assert refusal(f, "Orc", "Hero") == "Orc cannot attack: down"
    assert refusal(f, "Goblin", "Orc") == "Orc is down"


def test_once_a_round():
    f = apply(duel(), hit("Hero", "Orc", hits=1))
    assert refusal(f, "Hero", "Orc") == "Hero cannot attack: has already attacked this round"
    assert refusal(apply(f, EndRound()), "Hero", "Orc") is None


def test_a_fight_is_over_when_one_side_stands_and_only_reinforcements_take_it_up():
    f = apply(duel(), hit("Hero", "Orc", hits=40))
    assert f.over and f.winner == "A"
    with pytest.raises(FightRuleError, match="the fight is over"):
        apply(f, EndRound())
    again = apply(f, Join(fighter("Troll", "B")))  # "a join after the fight is over is taken: the fight goes on"
    assert not again.over and again.winner is None


def test_one_side_alone_is_not_a_fight_yet():
    f = fight(fighter("Hero"), fighter("Friend"))
    assert not f.over and f.winner is None
    with pytest.raises(FightRuleError, match="two sides"):
        apply(f, EndRound())


def test_nobody_standing_is_over_without_a_winner():
    f = apply(duel(), Attack("Hero", "Orc", Blow(to_target=Harm(hits=40), to_attacker=Harm(hits=40))))
    assert f.over and f.winner is None


def test_the_targeting_rule_takes_the_first_up_of_another_side():
    f = fight(fighter("Hero"), fighter("Orc", "B", hits=5), fighter("Goblin", "B"), fighter("Friend"))
    assert auto_target(f, "Hero") == "Orc"
    f = apply(f, hit("Hero", "Orc", hits=5))
    assert auto_target(f, "Friend") == "Goblin"
    assert auto_target(f, "Goblin") == "Hero"


def test_names_are_unique_in_any_case():
    with pytest.raises(FightRuleError, match="already in the fight"):
        fight(fighter("Hero"), fighter("hero", "B"))


def test_an_edit_counts_at_once():
    f = apply(apply(duel(), hit("Hero", "Orc", hits=30, stun=2)), EndRound())
    f = apply(f, Edit("Orc", (("taken", 10), ("stun", 0))))
    orc = state(f, "Orc")
    assert (orc.taken, orc.now.stun, refusal(f, "Orc", "Hero")) == (10, 0, None)
    with pytest.raises(FightRuleError, match="cannot be edited"):
        apply(f, Edit("Orc", (("hits", 99),)))


def test_the_account_says_who_did_not_attack_and_why():
    f = apply(duel(), hit("Hero", "Orc", stun=1))
    f = apply(f, EndRound())
    after = apply(f, EndRound())
    lines = account(f, EndRound(), after)
    assert "Orc did not attack: stunned, 1 round left." in lines
    assert "Hero did not attack: it has no attack." in lines  # the fixture's fighters carry none
    armed = replay(Fight("test"), [Join(replace(fighter("Hero"), attacks=(Armament("Longsword", 60),))),
                                   Join(fighter("Orc", "B"))])
    assert "Hero did not attack: no attack was made." in account(armed, EndRound(), apply(armed, EndRound()))
    assert "Orc: no longer stunned." in lines


def test_the_status_line():
    f = fight(fighter("Orc Warrior #1", hits=45), fighter("Hero", "B"))
    f = apply(f, hit("Hero", "Orc Warrior #1", hits=18, bleed=3, stun=2, death_in=4))
    assert status_line(state(f, "Orc Warrior #1")) == "Orc Warrior #1  27/45 hits  bleeding 3/rnd  stunned 2  dying in 4"


def test_initiative_orders_the_round_equal_ones_as_they_joined():
    # "Order within a round: the fight's initiative order (the order combatants joined, unless set)"
    f = fight(fighter("Hero"), fighter("Orc", "B"))
    f = apply(f, Join(Fighter("Scout", "A", 20, 0, "LA", initiative=5)))
    f = apply(f, Join(Fighter("Goblin", "B", 20, 0, "LA", initiative=5)))
    assert [c.name for c in f.combatants] == ["Scout", "Goblin", "Hero", "Orc"]
    assert auto_target(f, "Hero") == "Goblin"


def test_hits_set_by_hand_put_down_or_heal_at_once_unless_a_status_is_set():
    f = apply(duel(), Edit("Orc", (("taken", 40),)))
    assert state(f, "Orc").status is Status.DOWN
    f = fight(fighter("Hero"), fighter("Orc", "B"), fighter("Goblin", "B"))
    f = apply(f, Edit("Orc", (("taken", 40),)))
    f = apply(f, Edit("Orc", (("taken", 30),)))  # healed: up again
    assert state(f, "Orc").status is Status.UP
    f = apply(f, Edit("Orc", (("taken", 45), ("status", "up"))))  # a ruling: still up
    assert state(f, "Orc").status is Status.UP


def test_the_account_says_what_the_gm_must_decide():
    # docs/workbook-format.md, "What is not read": an entry's pieces not read are never applied; the account
    # of the attack that read it says them, once each, for the GM to decide at the table
    from dataclasses import replace

    entry = {"unread": ["If the attacker keeps the hold, +5 Damage", "(-10 BEA)"]}
    attack = replace(hit("Hero", "Orc", hits=4), resolved={
        "critical": {"entry": entry}, "more_criticals": [], "secondary_critical": {"entry": {"unread": ["(-10 BEA)"]}},
        "fumble": None})
    before = duel()
    lines = account(before, attack, apply(before, attack))
    assert ("For the GM: not read: 'If the attacker keeps the hold, +5 Damage', '(-10 BEA)', decide at the table."
            in lines)
    plain = hit("Hero", "Orc", hits=4)
    assert not any("For the GM" in line for line in account(before, plain, apply(before, plain)))
