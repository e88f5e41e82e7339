"""A review of the grouped engine of the odds of a fight (domain/fights/odds.py,
docs/fights.md "Odds of a fight", "How the states are held"): fights whose
states sit where grouping by condition could go wrong, each equal, as
Fractions, to every path played out state by state (test_fight_odds.the_long_way):
more than two sides, combatants down or dead from the start, a countdown
received in the round its combatant went down, nobody left standing after
bleeding, fumbles that kill or down the attacker, blows whose denominators
change from condition to condition, a pte heal looked up through the
service's blows; and the `states` and `largest` figures."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from fight_states import dice_blows, fighter_on_tiny, tiny_blows, tiny_fight
from test_fight_odds import every_path
from float_agreement import float64_agrees  # noqa: F401  # every exact odds here checked in float64 too

from tables_app.domain.fights import Attack, Blow, Edit, Fight, Harm, apply, auto_target, formulas, replay, skipped
from tables_app.domain.fights.odds import Blows, fight_odds
from tables_app.domain.fights.state import Combatant, Fighter, Status
from tables_app.services.fight_odds import _Blows


def test_three_sides_each_attacking_the_first_foe_up():  # type: ignore[no-untyped-def]
    start = tiny_fight((fighter_on_tiny("Hero", "A", 2), fighter_on_tiny("Orc", "B", 2), fighter_on_tiny("Elf", "C", 2)))
    odds, paths = every_path(start, 2)
    # each side wins some fights: C's Elf wins only once A's Hero and B's Orc are both down
    assert all(0 < odds.rounds[-1].sides[side] < 1 for side in "ABC")


def test_combatants_down_and_dead_from_the_start():  # type: ignore[no-untyped-def]
    """A combatant down keeps its death countdown (it dies at a round's end), one dead stays dead; neither attacks
    nor is attacked."""
    start = tiny_fight((fighter_on_tiny("Hero", "A", 3), fighter_on_tiny("Orc", "B", 3), fighter_on_tiny("Rat", "B", 2),
                        fighter_on_tiny("Imp", "A", 2)))
    start = replay(start, [Edit("Rat", (("taken", 2), ("dying", 1))), Edit("Imp", (("status", "dead"),))])
    assert [c.status for c in start.combatants] == [Status.UP, Status.UP, Status.DOWN, Status.DEAD]
    odds, _ = every_path(start, 2)
    assert 0 < odds.rounds[0].dead["Rat"] < 1  # dead at the first round's end, unless the fight ended before it
    assert odds.rounds[-1].dead["Imp"] == 1 and odds.rounds[-1].down["Imp"] == 0


def test_a_lesser_countdown_received_in_the_round_its_combatant_went_down_ticks_from_the_next_rounds_end():  # type: ignore[no-untyped-def]
    """docs/fights.md, "The rules": a death countdown counts from the next round's end, the least one winning
    over one already running, down or not (the grouped states keep a down combatant's countdown, as the round
    began and now, and whether it is fresh)."""
    start = tiny_fight((fighter_on_tiny("Hero", "A", 4), fighter_on_tiny("Orc", "B", 3), fighter_on_tiny("Rat", "B", 3)))
    start = replay(start, [Edit("Orc", (("dying", 3),)),  # a countdown running (from the round's start)
                           Attack("Hero", "Orc", Blow(to_target=Harm(hits=3, death_in=1)))])  # a lesser one: down
    orc = start.find("Orc")
    assert orc is not None and (orc.status, orc.start.dying, orc.now.dying, orc.fresh_dying) == (Status.DOWN, 3, 1, True)
    odds, _ = every_path(start, 2)
    assert odds.rounds[0].dead["Orc"] == 0 < odds.rounds[1].dead["Orc"]


def test_both_bleeding_to_their_hits_at_the_rounds_end_nobody_wins():  # type: ignore[no-untyped-def]
    start = tiny_fight((fighter_on_tiny("Hero", "A", 6, parry=5), fighter_on_tiny("Orc", "B", 5)))
    start = replay(start, [Edit("Hero", (("taken", 5), ("bleed", 1))), Edit("Orc", (("taken", 4), ("bleed", 1)))])
    odds, paths = every_path(start, 1)
    nobody = sum(p for p, ends, ended in paths if ended is not None and ends[-1].winner is None)
    assert nobody > 0 and odds.rounds[0].over - sum(odds.rounds[0].sides.values()) == nobody


def _deadly_fumbles(blows: Blows) -> Blows:
    """A fumble's trip kills its attacker at once; its opening deals 9 hits to both (both down in one blow)."""
    def dealt(state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
        found: dict[Blow, Fraction] = {}
        for blow, p in blows(state, attacker, target).items():
            if blow.to_attacker.stun:
                blow = replace(blow, to_attacker=Harm(death_in=0))
            elif blow.to_attacker.hits == 2:
                blow = replace(blow, to_attacker=Harm(hits=9), to_target=Harm(hits=9))
            found[blow] = found.get(blow, Fraction(0)) + p
        return found
    return dealt


def test_fumbles_that_kill_or_down_their_attacker():  # type: ignore[no-untyped-def]
    start = tiny_fight((fighter_on_tiny("Hero", "A", 6, cmb=-20), fighter_on_tiny("Orc", "B", 5, cmb=-20),
                        fighter_on_tiny("Rat", "B", 2, armed=False)))
    odds, paths = every_path(start, 2, _deadly_fumbles(tiny_blows), _deadly_fumbles(dice_blows))
    assert odds.rounds[-1].dead["Hero"] > 0 and odds.rounds[-1].dead["Orc"] > 0
    assert any(ended is not None and ends[-1].winner is None for _, ends, ended in paths)  # Hero and Orc down at once


def _thirds(blows: Blows) -> Blows:
    """An attacker with a penalty or a pending bonus does nothing a third of the time: the denominators of a turn's
    blows, and so the factor its weights are scaled by, change from round to round."""
    def dealt(state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
        a = state.find(attacker)
        assert a is not None
        found = blows(state, attacker, target)
        if not (a.start.penalty or a.bonus):
            return found
        out = {blow: p * Fraction(2, 3) for blow, p in found.items()}
        out[Blow()] = out.get(Blow(), Fraction(0)) + Fraction(1, 3)
        return out
    return dealt


def test_a_condition_met_again_under_another_scale_is_stepped_at_that_scale():  # type: ignore[no-untyped-def]
    """The steps of a condition are reused round after round at the scale of the turn they were worked out at
    (odds._Turn.steps): the start recurs in round 2, when some of Hero's conditions deal blows in thirds."""
    start = tiny_fight((fighter_on_tiny("Hero", "A", 4, parry=5), fighter_on_tiny("Orc", "B", 3)))
    every_path(start, 2, _thirds(tiny_blows), _thirds(dice_blows))


PTE_HEALS = ["accuracy=2", "ac=2", "stat=5", "damage-base=4", "def=3", "absorb"]  # heals 6, or 12 on a critical
PTE_HURTS = ["accuracy=2", "ac=2", "stat=5", "damage-base=4", "def=3"]


def test_a_pte_heal_is_looked_up_state_by_state_through_the_services_blows():  # type: ignore[no-untyped-def]
    """A pte attack reads its target's hits left (formulas.reads_taken); the service's blows say so
    (services/fight_odds._Blows.reads_taken) and the odds ask them state by state: the Elf's absorbed attack heals
    its foe the Orc by at most the hits the Orc has taken (docs/fights.md, "Formula systems")."""
    hurts, heals = formulas.armament("pte", PTE_HURTS), formulas.armament("pte", PTE_HEALS)
    start = Fight("pte", combatants=(Combatant(Fighter("Hero", "A", 9, 3, "", attacks=(hurts,))),
                                     Combatant(Fighter("Elf", "A", 9, 3, "", attacks=(heals,))),
                                     Combatant(Fighter("Orc", "B", 12, 3, "", attacks=(hurts,)), taken=3)))
    blows = _Blows(None, start)  # type: ignore[arg-type]  # no table attack: the database is never read
    assert blows.reads_taken(start, "Elf") and formulas.reads_taken("pte")
    odds, paths = every_path(start, 3, blows, _Blows(None, start), blows.reads_taken)  # type: ignore[arg-type]
    assert any(s.find("Orc").taken < 3 for _, ends, _ in paths for s in ends)  # type: ignore[union-attr]  # healed
    asked_at_0 = fight_odds(start, _Blows(None, start), 3)  # type: ignore[arg-type]
    assert asked_at_0.rounds[-1].sides != odds.rounds[-1].sides


def _as_the_rules_read_it(state: Fight) -> tuple[object, ...]:
    """A state as docs/fights.md says the odds hold it: a combatant down keeps only its death countdown, one dead
    nothing (no measure and no rule reads the rest)."""
    def read(c: Combatant) -> object:
        if c.status is Status.DEAD:
            return c.name, c.status
        if c.status is Status.DOWN:
            return c.name, c.status, c.now.dying, c.start.dying, c.fresh_dying
        return c
    return tuple(read(c) for c in state.combatants)


def test_the_states_going_are_the_distinct_states_the_rules_still_read():  # type: ignore[no-untyped-def]
    """`states` of a round (docs/fights.md: "how many distinct states are still going after the round"): the
    Orc dies at the round's end (unless the Hero fell before it), with whatever hits and bleeding it had taken: dead,
    those are one."""
    start = tiny_fight((fighter_on_tiny("Hero", "A", 4), fighter_on_tiny("Orc", "B", 3), fighter_on_tiny("Rat", "B", 2)))
    start = replay(start, [Edit("Orc", (("dying", 1),))])
    odds, paths = every_path(start, 1)
    going = {_as_the_rules_read_it(ends[0]) for _, ends, ended in paths if ended is None}
    assert odds.rounds[0].dead["Orc"] > 0 and odds.rounds[0].states == len(going) > 0
    assert len({ends[0] for _, ends, ended in paths if ended is None}) > len(going)  # the dead Orc's hits, merged


def _attacks_of_a_round(start: Fight, blows: Blows) -> set[Fight]:
    """Every state going after each combatant's attack of the round (its end not yet played)."""
    states = {start}
    for c in start.combatants:
        after = set()
        for state in states:
            a = state.find(c.name)
            target = auto_target(state, c.name) if a is not None and a.fighter.attacks and skipped(a) is None else None
            if target is None:
                after.add(state)
                continue
            after |= {s for blow in blows(state, c.name, target) if not (s := apply(state, Attack(c.name, target, blow))).over}
        states = after
    return states


def test_the_largest_count_holds_the_states_within_a_round():  # type: ignore[no-untyped-def]
    """`largest` (largest_states): the most states held at once, within a round too: after both attacks of a duel's
    round there are more states than after its end, where bleeding downs some."""
    start = tiny_fight((fighter_on_tiny("Hero", "A", 6, parry=5), fighter_on_tiny("Orc", "B", 5)))
    start = replay(start, [Edit("Orc", (("taken", 3), ("bleed", 1)))])  # down at the round's end from 4 hits taken
    odds = fight_odds(start, tiny_blows, 1)
    within = len(_attacks_of_a_round(start, tiny_blows))
    assert odds.largest >= within > odds.rounds[0].states
