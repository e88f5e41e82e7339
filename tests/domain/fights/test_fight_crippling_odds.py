"""The exact odds of a fight whose criticals leave the rest of a critical
(docs/fights.md, "The rest of a critical"): prone, knocked out for rounds or
until woken, a weapon dropped or broken (by a critical, the target's; by a
fumble, the attacker's), a penalty for a round; equal, as Fractions, to
every path of the fight played out with every sequence of dice, on tiny
invented tables; and the simulation's walk steps as the rules do."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache
from random import Random

import pytest
from fight_states import ATTACK, enumerated, tiny_fight
from test_fight_odds import every_path
from float_agreement import float64_agrees  # noqa: F401  # every exact odds here checked in float64 too

from tables_app.domain.fights import Blow, Fight, Fighter, cmb_modifiers, defense_of
from tables_app.domain.fights.blow_odds import blow_distribution
from tables_app.domain.fights.rules import turn_weapon
from tables_app.domain.fights.simulate import Drawn, simulate_fights
from tables_app.domain.fights.state import Armament
from tables_app.domain.ranges import RangeTable, parse_range
from tables_app.domain.resolve import TableSet
from tables_app.domain.table_rules import Attack as TableAttack
from tables_app.domain.tables import EffectTable, Entry, RollKind, TableKind, Weapon


def _e(label: str, text: str, **effects: object) -> Entry:
    return Entry(parse_range(label), text, **effects)  # type: ignore[arg-type]


def _table(kind: TableKind, name: str, entries: list[Entry]) -> EffectTable:
    return EffectTable(kind, name, RangeTable((e.range, (e,)) for e in entries))


MAUL = _table(TableKind.CRITICAL, "Maul", [
    _e("1-30", "floored", hits=1, prone=1), _e("31-55", "dazed out", hits=1, knocked_out=1),
    _e("56-75", "disarmed", hits=1, drops_weapon=True), _e("76-90", "winded", timed_penalties=((-10, 1),)),
    _e("91+", "out cold", knocked_out=0)])
FUMBLES = _table(TableKind.FUMBLE, "Fumbles", [_e("1-50", "lets go", drops_weapon=True), _e("51+", "snaps it", breaks_weapon=True)])
TABLES = TableSet(ATTACK, {"Maul": MAUL}, FUMBLES)
WEAPONS = {name: Weapon(name, "Tiny", None, 5, "Maul", None, "Fumbles", 0, roll=RollKind.D100) for name in ("Knife", "Club")}


def armed(name: str, side: str, hits: int, parry: int = 0) -> Fighter:
    return Fighter(name, side, hits, 0, "NA", parry=parry, attacks=(Armament("Knife", 30), Armament("Club", 20)))


def _attack(state: Fight, attacker: str, target: str) -> TableAttack:
    a = state.find(attacker)
    assert a is not None
    arm = turn_weapon(a)
    assert arm is not None
    return TableAttack(WEAPONS[arm.weapon], cmb=arm.cmb, armor="NA", modifiers=cmb_modifiers(state, attacker),
                       defense=defense_of(state, target))


Blows = Callable[[Fight, str, str], dict[Blow, Fraction]]


def blows_on(tables: TableSet) -> tuple[Blows, Blows]:
    """The blows of the attack a state makes, on ``tables``: exactly (blow_odds), and over every sequence of its
    dice (the tracker's own resolution); each attack worked out once."""
    exact = cache(lambda attack: blow_distribution(attack, tables))
    dice = cache(lambda attack: enumerated(attack, tables))
    return (lambda s, a, t: exact(_attack(s, a, t)), lambda s, a, t: dice(_attack(s, a, t)))


exact_blows, dice_blows = blows_on(TABLES)


CASES = {
    "duel": (armed("Hero", "A", 4, parry=5), armed("Orc", "B", 3)),
    "two against one": (armed("Hero", "A", 3), armed("Orc", "B", 3), armed("Rat", "B", 2)),
}


@pytest.mark.parametrize("case, rounds", [("duel", 2), pytest.param("duel", 3, marks=pytest.mark.slow),  # (3 rounds: seconds)
                                         pytest.param("two against one", 2, marks=pytest.mark.slow)])
def test_the_odds_with_the_rest_of_a_critical_are_every_path_played_out(case, rounds):  # type: ignore[no-untyped-def]
    odds, paths = every_path(tiny_fight(CASES[case]), rounds, exact_blows, dice_blows)
    carried = [c for _, ends, _ in paths for state in ends for c in state.combatants]
    # every effect was in play: prone, knocked out (for a round and until woken), a weapon dropped and broken,
    # a penalty for a round; a fight won by knocking the other side out
    assert any(c.now.prone for c in carried) and any(c.now.timed_penalties for c in carried)
    assert any(c.now.knocked_out == 1 for c in carried) and any(c.now.knocked_out == 0 for c in carried)
    assert any(c.now.dropped for c in carried) and any(c.now.broken for c in carried)
    assert any(ended is not None and ends[-1].winner is not None and
               any(c.now.knocked_out is not None and c.side != ends[-1].winner for c in ends[-1].combatants)
               for _, ends, ended in paths)
    assert odds.rounds[-1].over > 0


def test_the_simulation_walks_the_same_fights():  # type: ignore[no-untyped-def]
    """Seeded, the walk on the conditions the odds hold agrees with the exact odds within its error."""
    start = tiny_fight(CASES["duel"])
    odds, _ = every_path(start, 2, exact_blows, dice_blows)
    tally = simulate_fights(start, Drawn(exact_blows), 2, 4000, Random(41))
    for j in range(2):
        p = float(odds.rounds[j].over)
        assert abs(tally.over[j] / tally.count - p) < 4 * (p * (1 - p) / tally.count) ** 0.5 + 1e-9
