"""Exact odds of a fight (docs/fights.md, "Odds of a fight"): the
distribution of the fight's states, attack after attack and round after
round, stepped with the tracker's own rules (rules.apply), identical states
merged, nothing sampled.

Each round, every combatant able to attack attacks, in initiative order,
the first combatant up of another side (the targeting rule); the blow it
deals has the exact distribution ``blows(fight, attacker, target)`` gives
(blow_odds.py for the d100 tables). A state where the fight is over leaves
the distribution: it ended in that round, with that winner.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction

from tables_app.domain.fights.events import Attack, EndRound
from tables_app.domain.fights.rules import apply, turn_target
from tables_app.domain.fights.state import Blow, Fight, Status

Blows = Callable[[Fight, str, str], dict[Blow, Fraction]]  # (state, attacker, target) → each blow's probability
Ending = tuple["str | None", tuple[Status, ...]]  # an ended fight as the odds read it: its winner, each one's status
MAX_STATES = 200_000  # states of a fight held at once: past it, the odds are refused (simulate fight samples them)


class TooManyStates(ValueError):
    """The fight's states passed the bound: ``states`` found by ``round``."""

    def __init__(self, states: int, round_: int, limit: int):
        super().__init__(f"the fight reaches more than {limit:,} states ({states:,} by round {round_})")
        self.states, self.round, self.limit = states, round_, limit


@dataclass(frozen=True)
class RoundOdds:
    """By the end of ``round``: P(the fight is over), P(each side has won),
    P(each combatant is down) and P(dead) (over every fight, ended or not)."""

    round: int
    over: Fraction
    sides: dict[str, Fraction]
    down: dict[str, Fraction]
    dead: dict[str, Fraction]
    states: int  # the distinct states still going after it


@dataclass(frozen=True)
class FightOdds:
    """The odds of each round from ``start`` (the fight's round), the expected
    number of rounds E[min(end, N)] and the mass left going after N rounds."""

    start: int
    rounds: tuple[RoundOdds, ...]
    expected_rounds: Fraction
    unfinished: Fraction
    largest: int = 0  # the most distinct states held at once
    sides: tuple[str, ...] = field(default=())


def _add(into: dict[Fight, Fraction], state: Fight, p: Fraction) -> None:
    into[state] = into.get(state, Fraction(0)) + p


def _attack_turn(going: dict[Fight, Fraction], name: str, blows: Blows, ended: dict[Fight, Fraction],
                 limit: int, round_: int) -> dict[Fight, Fraction]:
    """Every state after ``name``'s turn: its attack where it may make one."""
    after: dict[Fight, Fraction] = {}
    for state, p in going.items():
        target = turn_target(state, name)
        if target is None:
            _add(after, state, p)
            continue
        for blow, q in blows(state, name, target).items():
            new = apply(state, Attack(name, target, blow))
            _add(ended if new.over else after, new, p * q)
        if len(after) + len(ended) > limit:  # the states held: those going on, and those that ended in the round
            raise TooManyStates(len(after) + len(ended), round_, limit)
    return after


def _round(going: dict[Fight, Fraction], order: tuple[str, ...], blows: Blows, limit: int,
           round_: int) -> tuple[dict[Fight, Fraction], dict[Fight, Fraction]]:
    """One round: (the states still going after its end, the states that ended in it)."""
    ended: dict[Fight, Fraction] = {}
    for name in order:
        going = _attack_turn(going, name, blows, ended, limit, round_)
    after: dict[Fight, Fraction] = {}
    for state, p in going.items():
        new = apply(state, EndRound())
        _add(ended if new.over else after, new, p)
    return after, ended


def fight_odds(fight: Fight, blows: Blows, rounds: int, limit: int = MAX_STATES) -> FightOdds:
    """The odds of ``fight`` from its state now, for ``rounds`` rounds (the
    current one first, from wherever it stands); TooManyStates past ``limit``."""
    names = tuple(c.name for c in fight.combatants)
    sides = fight.sides
    going: dict[Fight, Fraction] = {fight: Fraction(1)}
    # how the fight ended, so far: its winner and each combatant's status (all a measure reads of an ended fight)
    finished: dict[Ending, Fraction] = {}
    results: list[RoundOdds] = []
    largest = 1
    expected = Fraction(0)
    for k in range(rounds):
        if not going:
            break
        expected += sum(going.values(), Fraction(0))  # P(the fight lasts into this round)
        going, ended = _round(going, names, blows, limit, fight.round + k)
        for state, p in ended.items():
            key = (state.winner, tuple(c.status for c in state.combatants))
            finished[key] = finished.get(key, Fraction(0)) + p
        largest = max(largest, len(going))
        results.append(_measured(fight.round + k, going, finished, names, sides))
    unfinished = sum(going.values(), Fraction(0))
    return FightOdds(fight.round, tuple(results), expected, unfinished, largest, sides)


def _endings(going: dict[Fight, Fraction], finished: dict[Ending, Fraction]) -> Iterator[tuple[Ending, Fraction]]:
    yield from finished.items()
    for state, p in going.items():
        yield (None, tuple(c.status for c in state.combatants)), p


def _measured(round_: int, going: dict[Fight, Fraction], finished: dict[Ending, Fraction], names: tuple[str, ...],
              sides: tuple[str, ...]) -> RoundOdds:
    over = sum(finished.values(), Fraction(0))
    won = {side: Fraction(0) for side in sides}
    for (winner, _), p in finished.items():
        if winner is not None:
            won[winner] += p
    down = dict.fromkeys(names, Fraction(0))
    dead = dict.fromkeys(names, Fraction(0))
    for (_, statuses), p in _endings(going, finished):
        for name, status in zip(names, statuses):
            if status is Status.DOWN:
                down[name] += p
            elif status is Status.DEAD:
                dead[name] += p
    return RoundOdds(round_, over, won, down, dead, len(going))
