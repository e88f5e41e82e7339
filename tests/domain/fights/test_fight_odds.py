"""The exact odds of a fight (domain/fights/odds.py) equal, as Fractions,
the odds worked out the long way: every fight played out path by path,
never merging two states, each attack's blows from every sequence of its
dice (fight_states.dice_blows), on tiny invented tables (fight_states)
whose criticals bleed, stun, take the parry away, force a parry, lower the
CMB, give the attacker a bonus and kill in a round, and whose fumbles
strike back."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from fight_states import TINY_FIGHTERS, dice_blows, fighter_on_tiny, tiny_blows, tiny_fight
from float_agreement import float64_agrees  # noqa: F401  # every exact odds here checked in float64 too

from tables_app.domain.fights import Attack, Blow, Edit, EndRound, Fight, Harm, apply, auto_target
from tables_app.domain.fights import replay, skipped
from tables_app.domain.fights.rules import turn_weapon
from tables_app.domain.fights.odds import Blows, FightOdds, ReadsTaken, TooManyStates, TooMuchWork, fight_odds
from tables_app.domain.fights.state import Status

def the_long_way(start: Fight, rounds: int, blows: Blows = dice_blows) -> list[tuple[Fraction, list[Fight], int | None]]:
    """Every path: its probability, the fight at each round's end (its last
    state after the round it ended in), and the round (0-based) it ended in."""
    order = [c.name for c in start.combatants]
    paths: list[tuple[Fraction, list[Fight], int | None]] = []

    def play(state: Fight, p: Fraction, k: int, i: int, ends: list[Fight]) -> None:
        if i == len(order):
            after = apply(state, EndRound())
            if after.over or k + 1 == rounds:
                paths.append((p, [*ends, after], k if after.over else None))
            else:
                play(after, p, k + 1, 0, [*ends, after])
            return
        c = state.find(order[i])
        target = auto_target(state, order[i]) if c is not None and c.fighter.attacks and skipped(c) is None else None
        if target is None:
            play(state, p, k, i + 1, ends)
            return
        arm = turn_weapon(c) if c is not None else None  # its first attack not dropped or broken
        for blow, q in blows(state, order[i], target).items():
            after = apply(state, Attack(order[i], target, blow, arm.weapon if arm else ""))
            if after.over:
                paths.append((p * q, [*ends, after], k))
            else:
                play(after, p * q, k, i + 1, ends)

    play(start, Fraction(1), 0, 0, [])
    return paths


def _at(ends: list[Fight], j: int) -> Fight:
    return ends[j] if j < len(ends) else ends[-1]


def every_path(start: Fight, rounds: int, blows: Blows = tiny_blows, slow: Blows = dice_blows,
               reads_taken: ReadsTaken | None = None) -> tuple[FightOdds, list[tuple[Fraction, list[Fight], int | None]]]:
    """The odds of ``start`` equal every path played out: each round's P(over), P(each side won), P(each
    combatant down, dead), the mass unfinished and the expected rounds (docs/fights.md, "Odds of a fight")."""
    odds = fight_odds(start, blows, rounds, reads_taken=reads_taken)
    paths = the_long_way(start, rounds, slow)
    assert sum(p for p, _, _ in paths) == 1
    for j, measured in enumerate(odds.rounds):
        assert measured.over == sum(p for p, _, ended in paths if ended is not None and ended <= j)
        for side in start.sides:
            assert measured.sides[side] == sum(p for p, ends, ended in paths
                                               if ended is not None and ended <= j and ends[-1].winner == side)
        for c in start.combatants:
            fates = [(p, s.status) for p, ends, _ in paths if (s := _at(ends, j).find(c.name)) is not None]
            assert measured.down[c.name] == sum(p for p, status in fates if status is Status.DOWN)
            assert measured.dead[c.name] == sum(p for p, status in fates if status is Status.DEAD)
    assert odds.unfinished == sum(p for p, _, ended in paths if ended is None)
    assert odds.expected_rounds == sum(p * (rounds if ended is None else ended + 1) for p, _, ended in paths)
    return odds, paths


@pytest.mark.parametrize("case, rounds", [("duel", 2), ("one-sided", 3), ("two against one", 2)])
def test_the_odds_of_a_fight_are_every_path_played_out(case, rounds):  # type: ignore[no-untyped-def]
    start = tiny_fight(TINY_FIGHTERS[case])
    odds = fight_odds(start, tiny_blows, rounds)
    paths = the_long_way(start, rounds)
    assert sum(p for p, _, _ in paths) == 1
    assert len(odds.rounds) == rounds
    for j, measured in enumerate(odds.rounds):
        assert measured.round == j + 1
        assert measured.over == sum(p for p, _, ended in paths if ended is not None and ended <= j)
        for side in start.sides:
            assert measured.sides[side] == sum(p for p, ends, ended in paths
                                               if ended is not None and ended <= j and ends[-1].winner == side)
        for c in start.combatants:
            statuses = [(p, state.status) for p, ends, _ in paths
                        if (state := _at(ends, j).find(c.name)) is not None]
            assert measured.down[c.name] == sum(p for p, status in statuses if status is Status.DOWN)
            assert measured.dead[c.name] == sum(p for p, status in statuses if status is Status.DEAD)
    assert odds.unfinished == sum(p for p, _, ended in paths if ended is None)
    assert any(odds.rounds[-1].dead.values()) and any(odds.rounds[-1].down.values())  # the effects were in play
    carried = [c for _, ends, _ in paths for state in ends for c in state.combatants]
    assert any(c.now.bleed for c in carried) and any(c.now.stun for c in carried) and any(c.bonus for c in carried)
    assert odds.expected_rounds == sum(p * (rounds if ended is None else ended + 1) for p, _, ended in paths)


def test_a_fight_in_progress_is_counted_from_its_round():  # type: ignore[no-untyped-def]
    start = replay(tiny_fight(TINY_FIGHTERS["duel"]), [EndRound(), EndRound()])
    odds = fight_odds(start, tiny_blows, 2)
    assert [r.round for r in odds.rounds] == [3, 4]


def test_past_its_bound_a_fight_is_refused_naming_its_states():  # type: ignore[no-untyped-def]
    start = tiny_fight((fighter_on_tiny("Hero", "A", 30), fighter_on_tiny("Orc", "B", 30)))
    with pytest.raises(TooManyStates, match=r"more than 50 states \(\d+ by round \d\)"):
        fight_odds(start, tiny_blows, 10, limit=50)


def _two_against_two() -> Fight:
    return tiny_fight((fighter_on_tiny("Hero", "A", 3), fighter_on_tiny("Elf", "A", 2, cmb=20),
                       fighter_on_tiny("Orc", "B", 3, parry=10), fighter_on_tiny("Rat", "B", 2, armed=False)))


def _mid_round() -> Fight:
    """Hero has struck (the Orc bleeds and is dying) and taken hits; the Orc has yet to strike back."""
    start = tiny_fight(TINY_FIGHTERS["duel"])
    return replay(start, [Attack("Hero", "Orc", Blow(to_target=Harm(hits=2, bleed=1, death_in=2), attacker_bonus=5)),
                          Edit("Hero", (("taken", 3),))])


def _beaten_but_up() -> Fight:
    """A ruling keeps the Orc up past its hits: the down rule downs it at the next harm or round's end, not before."""
    return replay(tiny_fight(TINY_FIGHTERS["duel"]), [Edit("Orc", (("taken", 7), ("status", "up")))])


@pytest.mark.parametrize("make, rounds", [pytest.param(_two_against_two, 2, marks=pytest.mark.slow),  # (seconds)
                                         (_mid_round, 3), (_beaten_but_up, 2)])
def test_the_odds_from_any_state_are_every_path_played_out(make, rounds):  # type: ignore[no-untyped-def]
    """The states grouped by condition (odds.py) step as the rules do from
    wherever the fight stands: combatants down but alive (a countdown still
    runs), a round half played, hits taken set by hand."""
    odds, paths = every_path(make(), rounds)
    for j, measured in enumerate(odds.rounds):
        # the distinct states going, at most (those differing only in what the rules no longer read are one)
        assert (measured.states > 0) == (measured.over < 1)
        assert measured.states <= len({_at(ends, j) for _, ends, ended in paths if ended is None or ended > j})


def _reading_taken(blows: Blows) -> Blows:
    """Blows that depend on the target's hits taken (as pte's do): one more hit on a target
    that has taken 2 or more; a miss on one that has taken 1 heals it by 1 (held to the hits taken)."""
    def dealt(state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
        t = state.find(target)
        assert t is not None
        found: dict[Blow, Fraction] = {}
        for blow, p in blows(state, attacker, target).items():
            if t.taken >= 2 and blow.to_target.hits:
                blow = replace(blow, to_target=replace(blow.to_target, hits=blow.to_target.hits + 1))
            elif t.taken == 1 and blow == Blow():
                blow = Blow(to_target=Harm(hits=-1))
            found[blow] = found.get(blow, Fraction(0)) + p
        return found
    return dealt


@pytest.mark.slow  # seconds (the walk's own case: test_fight_simulate)
def test_blows_that_read_the_hits_taken_are_asked_state_by_state():  # type: ignore[no-untyped-def]
    """The states grouped by condition ask for blows with the hits taken at 0,
    unless told that an attacker's blows read them: then state by state, a
    heal's negative hits shifting back (fight_odds(reads_taken=...))."""
    start = replay(tiny_fight(TINY_FIGHTERS["duel"]), [Edit("Orc", (("taken", 1),))])
    exact = _reading_taken(tiny_blows)
    odds = fight_odds(start, exact, 3, reads_taken=lambda state, attacker: True)
    paths = the_long_way(start, 3, _reading_taken(dice_blows))
    for j, measured in enumerate(odds.rounds):
        for side in start.sides:
            assert measured.sides[side] == sum(p for p, ends, ended in paths
                                               if ended is not None and ended <= j and ends[-1].winner == side)
    assert odds.unfinished == sum(p for p, _, ended in paths if ended is None)
    assert odds.expected_rounds == sum(p * (3 if ended is None else ended + 1) for p, _, ended in paths)
    assert fight_odds(start, exact, 3).rounds[-1].sides != odds.rounds[-1].sides  # asked at 0: another answer


def test_past_its_moves_a_fight_is_refused_naming_them():  # type: ignore[no-untyped-def]
    """The time a fight's odds take is bounded too: its moves (a condition's states stepped by one blow's effects,
    or by a round's end), whose count grows with the rounds asked even where the states stay few."""
    start = tiny_fight(TINY_FIGHTERS["duel"])
    done = fight_odds(start, tiny_blows, 3)
    with pytest.raises(TooMuchWork, match=r"its states take more than 40 steps to work out \(\d+ by round [12]\)"):
        fight_odds(start, tiny_blows, 3, moves=40)
    assert fight_odds(start, tiny_blows, 3, moves=10_000) == done
