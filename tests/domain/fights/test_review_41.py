"""Review of #41's fight rules (docs/fights.md): rules the suite did not pin, each found by a mutation of the
code that no test noticed, and the wrong answers found reading the change."""

from __future__ import annotations

from dataclasses import replace

import pytest
from fight_states import ATTACK, fight, fighter, hit, state, tiny_fight
from test_fight_crippling_odds import CASES, FUMBLES, _e, _table, armed, blows_on, dice_blows, exact_blows
from test_fight_odds import every_path

from tables_app.domain.effects import conditions_of, parse_effects, tag_conditions
from tables_app.domain.fights import (
    Adjust, Attack, Blow, Edit, EndRound, Harm, Status, apply, cmb_modifiers, replay,
)
from tables_app.domain.fights.account import account
from tables_app.domain.fights.state import Armament
from tables_app.domain.resolve import TableSet
from tables_app.domain.tables import TableKind


def test_a_penalty_for_rounds_counts_from_the_next_round_on_the_cmb():  # type: ignore[no-untyped-def]
    """docs/fights.md, "When things count": "The rest of a critical counts from the next round like every other
    effect: prone, blinded, a penalty for N rounds"; "The rules": CMB adds A's penalties for N rounds."""
    f = apply(fight(fighter("Hero"), fighter("Orc", "B")), hit("Hero", "Orc", hits=1, timed_penalties=((-20, 2),)))
    assert cmb_modifiers(f, "Orc") == ()  # received in this round: not yet
    f = apply(f, EndRound())
    assert cmb_modifiers(f, "Orc") == (("timed penalty", -20),)
    f = apply(f, EndRound())
    assert cmb_modifiers(f, "Orc") == (("timed penalty", -20),)  # its second round
    f = apply(f, EndRound())
    assert cmb_modifiers(f, "Orc") == ()  # gone


@pytest.mark.parametrize("tag, field, value", [("blinded 2", "blinded", 2), ("knocked out 3", "knocked_out", 3),
                                               ("prone 2", "prone", 2), ("prone", "prone", 1),
                                               ("knocked out", "knocked_out", 0)])
def test_an_effects_tag_with_a_bare_count_is_rounds(tag, field, value):  # type: ignore[no-untyped-def]
    """docs/workbook-format.md, "Effects in words": the Effects tags say the rest of a critical in the same words
    (`prone`, `knocked out`); a count bare after the words, as the workbook's tags count (`death in 3`), is rounds:
    `blinded 2` is blinded 2 rounds, `knocked out` without one is until woken."""
    read = conditions_of(parse_effects("A scratch."))
    assert tag_conditions([tag], read)[field] == value


def test_the_odds_from_a_fight_whose_last_attack_was_made_with_another_weapon_are_every_path():  # type: ignore[no-untyped-def]
    """docs/fights.md, "The rest of a critical": a dropped weapon is "the attack it made last (of a combatant
    with several attacks)"; "odds fight and simulate fight follow the same rules (the same functions)". From a
    fight where Hero attacked with its Club by hand (`--attack Club`), the odds' turns attack with the Knife, its
    first: a fumble's drop then strikes the Knife, as the tracker's `round --auto` would have it."""
    start = tiny_fight(CASES["duel"])
    start = replace(start, combatants=tuple(replace(c, last_weapon="Club") if c.name == "Hero" else c
                                            for c in start.combatants))
    _, paths = every_path(start, 2, exact_blows, dice_blows)
    assert any(c.name == "Hero" and c.now.dropped == ("Knife",) for _, ends, _ in paths for s in ends
               for c in s.combatants)


# A critical table whose rest of a critical comes without hits, so that the one it strikes stays up carrying it
# (on test_fight_crippling_odds' table every such row also deals the hit that puts the tiny fighters down).
SOFT = _table(TableKind.CRITICAL, "Soft", [
    _e("1-20", "floored", prone=1), _e("21-40", "dazzled", blinded=1), _e("41-60", "arm numb", useless_arm=True),
    _e("61-80", "winded", timed_penalties=((-10, 1),)), _e("81+", "dazed", knocked_out=1)])
SOFT_TABLES = TableSet(ATTACK, {"Maul": SOFT}, FUMBLES)


SOFT_EXACT, SOFT_DICE = blows_on(SOFT_TABLES)


@pytest.mark.slow  # seconds
def test_the_odds_with_one_standing_prone_blinded_or_one_armed_are_every_path_played_out():  # type: ignore[no-untyped-def]
    """docs/fights.md, "The rest of a critical" and "Odds of a fight": prone (no attack, no parry), blinded (no
    parry), a useless arm (its weapon dropped), knocked out and a penalty for a round, carried by one still up,
    and the exact odds equal every path of the fight played out."""
    start = tiny_fight((armed("Hero", "A", 7, parry=5), armed("Orc", "B", 6, parry=5)))
    _, paths = every_path(start, 2, SOFT_EXACT, SOFT_DICE)
    standing = [c for _, ends, _ in paths for s in ends for c in s.combatants if c.status is Status.UP]
    assert any(c.start.prone for c in standing) and any(c.start.blinded for c in standing)
    assert any(c.now.useless_arm and c.now.dropped for c in standing)


def test_the_odds_down_one_kept_up_past_its_hits_at_a_harm_without_hits():  # type: ignore[no-untyped-def]
    """docs/fights.md, "By hand": one set `--status up` with hits taken at or past its hits stands only until
    the round ends, or (the down rule, applied where hits or effects are taken) until it is harmed: its fumble
    that only drops its weapon puts it down at once, and Hero then strikes the Rat, the first foe up. The odds
    follow the tracker there too."""
    start = replay(tiny_fight((armed("Orc", "B", 3), armed("Hero", "A", 4), armed("Rat", "B", 2))),
                   [Edit("Orc", (("taken", 3), ("status", "up")))])
    _, paths = every_path(start, 1, exact_blows, dice_blows)
    assert any(s.find("Orc").status is Status.DOWN and s.find("Orc").now.lost  # type: ignore[union-attr]
               for _, ends, _ in paths for s in ends)


@pytest.mark.parametrize("harm, carried", [
    ({"prone": 1}, ("prone", 1)), ({"blinded": 2}, ("blinded", 2)), ({"knocked_out": 0}, ("knocked_out", 0)),
    ({"knocked_out": 2}, ("knocked_out", 2)), ({"useless_leg": True}, ("useless_leg", True)),
    ({"useless_arm": True}, ("useless_arm", True)), ({"timed_penalties": ((-10, 2),)}, ("timed_penalties", ((-10, 2),))),
])
def test_the_rest_of_a_critical_alone_without_hits_is_carried(harm, carried):  # type: ignore[no-untyped-def]
    """docs/fights.md, "The rest of a critical": a critical (or a fumble) may leave the rest without hits (a
    fumble's `slips and falls`): what it leaves is carried all the same, by a critical's target or a fumbler."""
    f = apply(fight(fighter("Hero"), fighter("Orc", "B")), hit("Hero", "Orc", **harm))
    key, value = carried
    assert getattr(state(f, "Orc").now, key) == value
    fumbled = apply(fight(fighter("Hero"), fighter("Orc", "B")),
                    Attack("Hero", "Orc", Blow(to_attacker=Harm(**harm))))  # type: ignore[arg-type]
    assert getattr(state(fumbled, "Hero").now, key) == value


def test_a_countdown_received_in_this_round_and_adjusted_counts_at_once():  # type: ignore[no-untyped-def]
    """docs/fights.md, "By hand", relative changes: "It counts at once, the round's start too, as an edit
    does"; a countdown dealt in this round first ticks at the next round's end, but once adjusted it ticks at
    this one's."""
    f = apply(fight(fighter("Hero"), fighter("Orc", "B")), hit("Hero", "Orc", hits=1, death_in=3))
    assert state(apply(f, EndRound()), "Orc").now.dying == 3  # dealt in this round: not yet
    f = apply(f, Adjust("Orc", (("dying", 1),)))
    assert state(f, "Orc").now.dying == 4
    assert state(apply(f, EndRound()), "Orc").now.dying == 3


def test_rounds_prone_and_blinded_and_the_penalties_for_rounds_of_two_blows_add_up():  # type: ignore[no-untyped-def]
    """docs/fights.md, "The rest of a critical": "rounds prone, blinded and knocked out add up as stun's do
    ..., the penalties for N rounds are kept each with its rounds", blow after blow as within one."""
    f = fight(fighter("Hero"), fighter("Ally"), fighter("Orc", "B", hits=90), fighter("Rat", "B"))
    blow = {"hits": 1, "prone": 1, "blinded": 2, "timed_penalties": ((-10, 2),)}
    f = apply(apply(f, hit("Hero", "Orc", **blow)), hit("Ally", "Orc", **blow))  # type: ignore[arg-type]
    orc = state(f, "Orc").now
    assert (orc.prone, orc.blinded, orc.timed_penalties) == (2, 4, ((-10, 2), (-10, 2)))


def test_a_blow_that_drops_and_breaks_the_weapon_breaks_it():  # type: ignore[no-untyped-def]
    """docs/fights.md, "The rest of a critical": a weapon lost once is enough; broken, `--recover` does not
    bring it back (only `--repair`): of a blow whose criticals drop it and break it, it is broken, not dropped."""
    f = fight(fighter("Hero"), fighter("Orc", "B"))
    f = replace(f, combatants=tuple(replace(c, fighter=replace(c.fighter, attacks=(Armament("Scimitar", 50),)))
                                    if c.name == "Orc" else c for c in f.combatants))
    orc = state(apply(f, hit("Hero", "Orc", hits=1, drops_weapon=True, breaks_weapon=True)), "Orc").now
    assert (orc.dropped, orc.broken) == ((), ("Scimitar",))


def test_one_knocked_out_that_bleeds_down_as_its_rounds_run_out_does_not_wake():  # type: ignore[no-untyped-def]
    """docs/fights.md, "The rest of a critical": "at 0 it wakes (`Bob wakes.`), if its hits taken are still
    below its hits (else it went down at the round's end, as anyone)"."""
    f = fight(fighter("Hero", hits=40), fighter("Orc", "B", hits=10), fighter("Rat", "B", hits=10))
    f = apply(apply(f, hit("Hero", "Orc", hits=5, bleed=6, knocked_out=1)), EndRound())
    assert state(f, "Orc").now.knocked_out == 1  # counted from round 2: it runs out at round 2's end
    after = apply(f, EndRound())
    orc = state(after, "Orc")
    assert (orc.status.value, orc.taken) == ("down", 11)
    lines = account(f, EndRound(), after)
    assert "Orc is down." in lines
    assert "Orc wakes." not in lines
