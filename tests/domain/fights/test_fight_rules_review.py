"""The fight's rules once more, from a review by mutation: each test below
fails on a small change of rules.py or blows.py that the other tests let
through (a comparison flipped, the value as it is now used for the value
as the round began, a term dropped...). Each quotes the line of
docs/fights.md it pins."""

from __future__ import annotations

import pytest
from fight_states import duel, fight, fighter, hit, state

from tables_app.domain.fights import (
    Attack, Blow, Edit, EndRound, FightRuleError, Harm, Join, Status, apply, refusal, replay,
)


# ------------------------------------------------------------------ who may attack
def test_must_parry_received_in_the_round_does_not_take_this_rounds_attack():
    # "A combatant attacks at most once a round, when it is up and its stun and must-parry rounds,
    # **as they stood when the round began**, are both 0."
    f = apply(duel(), hit("Hero", "Orc", must_parry=2))
    assert refusal(f, "Orc", "Hero") is None
    f = apply(f, EndRound())
    assert refusal(f, "Orc", "Hero") == "Orc cannot attack: must parry, 2 rounds left"


def test_the_stun_refusal_counts_the_rounds_as_the_round_began():
    # "Orc Warrior #1 cannot attack: stunned, 1 round left" — the rounds as they stood when the round
    # began, even when more stun was received since (it shows on the status line, from the next round).
    f = apply(apply(duel(), hit("Hero", "Orc", stun=1)), EndRound())
    f = apply(f, hit("Hero", "Orc", stun=2))
    assert state(f, "Orc").now.stun == 3
    assert refusal(f, "Orc", "Hero") == "Orc cannot attack: stunned, 1 round left"


def test_nobody_attacks_itself():
    # "an attack it is not allowed ... is refused, exit 1, naming why"
    assert refusal(duel(), "Hero", "hero") == "Hero cannot attack itself"
    with pytest.raises(FightRuleError, match="itself"):
        apply(duel(), hit("Hero", "Hero", hits=1))


def test_after_the_end_even_an_attack_on_an_ally_is_refused():
    # "After that, only undo (and edit) is taken: an attack, a join or a round's end is refused."
    f = fight(fighter("Hero"), fighter("Friend"), fighter("Orc", "B"))
    f = apply(f, hit("Hero", "Orc", hits=40))
    assert f.over and f.winner == "A"
    assert refusal(f, "Friend", "Hero") == "the fight is over: side A wins (undo to go back)"


def test_a_combatant_needs_one_hit_or_more():
    # "hits (its most hit points)": a combatant of 0 hits would be down before it began
    with pytest.raises(FightRuleError, match="needs hits"):
        apply(duel(), Join(fighter("Ghost", hits=0)))


# ------------------------------------------------------------------ a fumble
def test_a_fumbles_bonus_goes_to_the_foe_on_top_of_its_own():
    # "Decision: a fumble entry's (+N) goes to B, the foe who profits from it."
    f = apply(duel(), Attack("Hero", "Orc", Blow(to_target=Harm(hits=1), attacker_bonus=5)))
    f = apply(f, Attack("Orc", "Hero", Blow(to_attacker=Harm(hits=2), target_bonus=10)))
    assert (state(f, "Hero").bonus, state(f, "Orc").bonus) == (5 + 10, 0)


# ------------------------------------------------------------------ death countdowns
def test_two_countdowns_received_in_one_round_the_least_wins():
    # "dies in N sets B's countdown to the least of the one running (as it is now) and N"
    f = apply(fight(fighter("Hero"), fighter("Friend"), fighter("Orc", "B")), hit("Hero", "Orc", death_in=5))
    f = apply(f, hit("Friend", "Orc", death_in=7))
    assert state(f, "Orc").now.dying == 5


def test_an_equal_countdown_leaves_the_running_one_with_its_start():
    # "the winner keeping its own start"; decision: of two equal ones the running one wins (it ends sooner)
    f = apply(duel(), hit("Hero", "Orc", death_in=3))
    f = apply(f, EndRound())  # round 2: the 3 runs
    f = apply(f, hit("Hero", "Orc", death_in=3))
    f = apply(f, EndRound())
    assert state(f, "Orc").now.dying == 2  # ticked: it is still the countdown received in round 1
    f = replay(f, [EndRound(), EndRound()])
    assert state(f, "Orc").status is Status.DEAD


def test_instant_death_starts_no_countdown():
    # "instant death → dead"; "dying (rounds left until death, ...; none if none)"
    f = apply(duel(), hit("Hero", "Orc", death_in=0))
    orc = state(f, "Orc")
    assert (orc.status, orc.now.dying) == (Status.DEAD, None)


# ------------------------------------------------------------------ counters add
def test_must_parry_adds():
    # "bleed, stun, no parry, must parry and penalty **add** to what B carries"
    f = apply(fight(fighter("Hero"), fighter("Friend"), fighter("Orc", "B")), hit("Hero", "Orc", must_parry=1))
    f = apply(f, hit("Friend", "Orc", must_parry=2))
    assert state(f, "Orc").now.must_parry == 3


# ------------------------------------------------------------------ the end of a round
def test_must_parry_runs_out():
    # "each of stun, no parry and must parry that was above 0 at the round's start goes down by 1"
    f = replay(apply(duel(), hit("Hero", "Orc", must_parry=1)), [EndRound(), EndRound()])
    assert (state(f, "Orc").now.must_parry, refusal(f, "Orc", "Hero")) == (0, None)


def test_the_dead_do_not_bleed():
    # "For every combatant not dead, in this order ...: 1. hits taken += the bleeding it had at the round's start"
    f = fight(fighter("Hero"), fighter("Orc", "B"), fighter("Goblin", "B"))
    f = apply(f, hit("Hero", "Orc", hits=5, bleed=3))
    f = apply(f, EndRound())
    f = apply(f, hit("Hero", "Orc", death_in=0))
    f = apply(f, EndRound())
    assert (state(f, "Orc").status, state(f, "Orc").taken) == (Status.DEAD, 5)


# ------------------------------------------------------------------ by hand
def test_a_countdown_set_by_hand_counts_at_once_even_over_one_received_this_round():
    # "`fight edit` ... counts at once (decision: at the round's start too)"
    f = apply(duel(), hit("Hero", "Orc", death_in=5))  # received this round: would first tick at the next round's end
    f = apply(f, Edit("Orc", (("dying", 2),)))
    f = apply(f, EndRound())
    assert state(f, "Orc").now.dying == 1


def test_a_ruling_of_down_stays_when_something_else_is_edited():
    # "hits taken set by hand put a combatant down at once when they reach its hits, and bring a down one up
    # when they fall below (healing), unless --status is given too" — only hits taken: an edit of its stun
    # does not stand up one a ruling put down with hits left
    f = fight(fighter("Hero"), fighter("Orc", "B"), fighter("Goblin", "B"))
    f = apply(f, Edit("Orc", (("taken", 10), ("status", "down"))))
    f = apply(f, Edit("Orc", (("stun", 2),)))
    assert state(f, "Orc").status is Status.DOWN
    assert refusal(f, "Orc", "Hero") == "Orc cannot attack: down"
    f = apply(f, Edit("Orc", (("taken", 5),)))  # healed by hand: up again
    assert state(f, "Orc").status is Status.UP


def test_brought_back_from_a_countdown_run_out_it_does_not_die_again():
    # "`--dying 0` stops a countdown"; decision: set up (or down) by hand, one whose countdown ran out
    # has none left
    f = apply(duel(), hit("Hero", "Orc", death_in=1))
    f = replay(f, [EndRound(), EndRound()])
    assert state(f, "Orc").status is Status.DEAD
    f = apply(f, Edit("Orc", (("status", "up"),)))
    assert state(f, "Orc").now.dying is None
    f = apply(f, EndRound())
    assert state(f, "Orc").status is Status.UP
    again = apply(apply(duel(), hit("Hero", "Orc", death_in=1)), EndRound())
    again = apply(apply(again, EndRound()), Edit("Orc", (("status", "up"), ("dying", 3))))
    assert state(again, "Orc").now.dying == 3
