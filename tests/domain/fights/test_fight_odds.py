"""The exact odds of a fight (domain/fights/odds.py) equal, as Fractions,
the odds worked out the long way: every fight played out path by path,
never merging two states, each attack's blows from every sequence of its
dice (fight_states.enumerated), on tiny invented tables whose criticals
bleed, stun, take the parry away, force a parry, lower the CMB, give the
attacker a bonus and kill in a round, and whose fumbles strike back."""

from __future__ import annotations

from fractions import Fraction
from functools import cache

import pytest
from fight_states import enumerated

from tables_app.domain.cells import parse_attack_cell
from tables_app.domain.fights import Attack, EndRound, Fight, Fighter, Join, apply, auto_target, cmb_modifiers, defense_of
from tables_app.domain.fights import replay, skipped
from tables_app.domain.fights.blow_odds import blow_distribution
from tables_app.domain.fights.odds import TooManyStates, fight_odds
from tables_app.domain.fights.state import Armament, Blow, Status
from tables_app.domain.ranges import RangeTable, parse_range
from tables_app.domain.resolve import TableSet
from tables_app.domain.severity import DEFAULT_SCALE
from tables_app.domain.table_rules import Attack as TableAttack
from tables_app.domain.tables import AttackTable, EffectTable, Entry, RollKind, TableKind, Weapon

ROWS = [("01-50", "—"), ("51-80", "2"), ("81-100", "3 Sup"), ("101+", "4 Lig")]
ATTACK = AttackTable("Tiny", ("NA",), RangeTable(
    (parse_range(r), (parse_attack_cell(c, DEFAULT_SCALE, lambda t: None),)) for r, c in ROWS), automatic_miss=None)


def _e(label: str, text: str, **effects: object) -> Entry:
    return Entry(parse_range(label), text, **effects)  # type: ignore[arg-type]


def _table(kind: TableKind, name: str, entries: list[Entry]) -> EffectTable:
    return EffectTable(kind, name, RangeTable((e.range, (e,)) for e in entries))


CUT = _table(TableKind.CRITICAL, "Cut", [
    _e("1-40", "bleeds", hits=1, bleed=1), _e("41-70", "reels", hits=1, stun=1, attacker_bonus=5),
    _e("71-90", "off balance", no_parry=1, must_parry=1, penalty=-10), _e("91+", "mortal", death_in=1)])
SLIPS = _table(TableKind.FUMBLE, "Slips", [_e("1-50", "trips", hits=1, stun=1), _e("51+", "opens up", hits=2, attacker_bonus=5)])
TABLES = TableSet(ATTACK, {"Cut": CUT}, SLIPS)
WEAPON = Weapon("Knife", "Tiny", None, 3, "Cut", None, "Slips", 0, roll=RollKind.D100)


def fighter(name: str, side: str, hits: int, parry: int = 0, cmb: int = 30, armed: bool = True) -> Fighter:
    return Fighter(name, side, hits, 0, "NA", parry=parry, attacks=(Armament("Knife", cmb),) if armed else ())


def table_attack(state: Fight, attacker: str, target: str) -> TableAttack:
    a = state.find(attacker)
    assert a is not None
    return TableAttack(WEAPON, cmb=a.fighter.attacks[0].cmb, armor="NA", modifiers=cmb_modifiers(state, attacker),
                       defense=defense_of(state, target))


def exact_blows(state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
    return _exact(table_attack(state, attacker, target))


@cache
def _exact(attack: TableAttack) -> dict[Blow, Fraction]:
    return blow_distribution(attack, TABLES)


@cache
def _dice(attack: TableAttack) -> dict[Blow, Fraction]:
    return enumerated(attack, TABLES)


def the_long_way(start: Fight, rounds: int) -> list[tuple[Fraction, list[Fight], int | None]]:
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
        for blow, q in _dice(table_attack(state, order[i], target)).items():
            after = apply(state, Attack(order[i], target, blow))
            if after.over:
                paths.append((p * q, [*ends, after], k))
            else:
                play(after, p * q, k, i + 1, ends)

    play(start, Fraction(1), 0, 0, [])
    return paths


def _at(ends: list[Fight], j: int) -> Fight:
    return ends[j] if j < len(ends) else ends[-1]


@pytest.mark.parametrize("fighters, rounds", [
    ((fighter("Hero", "A", 6, parry=5), fighter("Orc", "B", 5)), 2),  # a duel
    ((fighter("Hero", "A", 7, cmb=45), fighter("Dummy", "B", 6, armed=False)), 3),  # one-sided
    ((fighter("Hero", "A", 4), fighter("Orc", "B", 3, parry=10), fighter("Rat", "B", 2, cmb=10, armed=False)), 2),
])
def test_the_odds_of_a_fight_are_every_path_played_out(fighters, rounds):  # type: ignore[no-untyped-def]
    start = replay(Fight("tiny"), [Join(f) for f in fighters])
    odds = fight_odds(start, exact_blows, rounds)
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
    start = replay(Fight("tiny"), [Join(fighter("Hero", "A", 6)), Join(fighter("Orc", "B", 5)), EndRound(), EndRound()])
    odds = fight_odds(start, exact_blows, 2)
    assert [r.round for r in odds.rounds] == [3, 4]


def test_past_its_bound_a_fight_is_refused_naming_its_states():  # type: ignore[no-untyped-def]
    start = replay(Fight("tiny"), [Join(fighter("Hero", "A", 30)), Join(fighter("Orc", "B", 30))])
    with pytest.raises(TooManyStates, match=r"more than 50 states \(\d+ by round \d\)"):
        fight_odds(start, exact_blows, 10, limit=50)
