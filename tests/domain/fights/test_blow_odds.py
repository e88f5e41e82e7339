"""The exact distribution of one attack's blow (domain/fights/blow_odds.py)
equals, as Fractions, the blows the tracker deals (resolve_attack, then
blows.table_blow) over every sequence of dice, enumerated die by die on
small invented tables with effects: bleed, stun, must parry, no parry,
penalties, an attacker's bonus, a death countdown, instant death, a fumble
that strikes the attacker, a secondary critical."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from fight_states import enumerated

from tables_app.domain.cells import parse_attack_cell
from tables_app.domain.fights.blow_odds import blow_distribution
from tables_app.domain.odds import table_odds
from tables_app.domain.ranges import RangeTable, parse_range
from tables_app.domain.resolve import Attack, TableSet
from tables_app.domain.severity import DEFAULT_SCALE
from tables_app.domain.tables import AttackTable, EffectTable, Entry, RollKind, TableKind, Weapon

NAMES = {"cut": "Cut", "impact": "Impact"}
ROWS = [("01-40", "—", "—"), ("41-70", "3", "2"), ("71-100", "6 Sup", "4"), ("101-130", "9 Lig", "7 Sup Impact"),
        ("131+", "12 Mod", "10 Lig Impact")]


def _attack_table() -> AttackTable:
    rows = [(parse_range(r), tuple(parse_attack_cell(c, DEFAULT_SCALE, lambda t: NAMES.get(t.casefold())) for c in cells))
            for r, *cells in ROWS]
    return AttackTable("T", ("NA", "HA"), RangeTable(rows), automatic_miss=None)


def _table(kind: TableKind, name: str, entries: list[Entry]) -> EffectTable:
    grouped: dict = {}
    for entry in entries:
        grouped.setdefault(entry.range, []).append(entry)
    return EffectTable(kind, name, RangeTable((r, tuple(e)) for r, e in grouped.items()))


def _e(label: str, text: str, **effects: object) -> Entry:
    return Entry(parse_range(label), text, **effects)  # type: ignore[arg-type]


CUT = _table(TableKind.CRITICAL, "Cut", [
    _e("1-30", "nick", hits=1),
    _e("31-60", "gash", hits=2, bleed=1),
    _e("61-80", "rocked", hits=3, stun=1, no_parry=1, attacker_bonus=10),
    _e("81-95", "hamstrung", hits=4, must_parry=1, penalty=-10, condition="helm"),
    _e("81-95", "throat", hits=4, bleed=3, death_in=3, condition="not helm"),
    _e("96+", "beheaded", hits=5, death_in=0),
])
IMPACT = _table(TableKind.CRITICAL, "Impact", [_e("1-50", "thud", hits=2, stun=1), _e("51+", "crunch", hits=6, stun=2)])
FUMBLES = _table(TableKind.FUMBLE, "F", [_e("1-40", "slip", hits=0), _e("41-80", "twist", hits=3, stun=1),
                                          _e("81+", "own foot", hits=6, bleed=1, attacker_bonus=5)])
TABLES = TableSet(_attack_table(), {"Cut": CUT, "Impact": IMPACT}, FUMBLES)
WEAPON = Weapon("W", "T", None, 4, "Cut", None, "F", 0, roll=RollKind.D100)


@pytest.mark.parametrize("armor, cmb, features", [("NA", 40, frozenset()), ("NA", 60, frozenset({"helm"})),
                                                  ("HA", 70, frozenset())])
def test_the_blows_distribution_is_every_dice_sequence_weighed(armor, cmb, features):  # type: ignore[no-untyped-def]
    attack = Attack(WEAPON, cmb=cmb, armor=armor, features=features)
    exact = blow_distribution(attack, TABLES)
    assert sum(exact.values()) == 1
    assert exact == enumerated(attack, TABLES)


@pytest.mark.slow  # 100,000 dice sequences (~3 s)
def test_with_a_secondary_critical_both_criticals_add():  # type: ignore[no-untyped-def]
    # Only results of 131+ (a d100 roll of 91+ at CMB 40) read Mod, the secondary's lowest severity reaching Impact
    weapon = replace(WEAPON, secondary_critical="Impact")
    attack = Attack(weapon, cmb=40, armor="NA")
    exact = blow_distribution(attack, TABLES)
    assert exact == enumerated(attack, TABLES)
    both = [blow for blow in exact if blow.to_target.stun >= 1 and blow.to_target.bleed >= 1]
    assert both  # a gash with a thud: the effects of the two criticals add


def test_its_expected_damage_is_the_odds_of_one_attack():  # type: ignore[no-untyped-def]
    attack = Attack(WEAPON, cmb=55, armor="NA", features=frozenset({"helm"}))
    exact = blow_distribution(attack, TABLES)
    assert sum(p * blow.to_target.hits for blow, p in exact.items()) == table_odds(attack, TABLES).expected_damage
    fumble = sum(p for blow, p in exact.items() if blow.to_attacker or blow.target_bonus)
    assert fumble == Fraction(4, 100) * Fraction(60, 100)  # the Clumsy Range 1-4, then a twist or own foot


def test_an_open_ended_critical_die_is_weighed_over_its_tail():  # type: ignore[no-untyped-def]
    # `Roll kind | oeh`: a 96-100 opens the die again, so totals past 100 read rows a closed die never reaches.
    # Every cell is `0 Sup` (modifier 0); P(151+) = P(face f of 96-100, then a die of 151 - f or more)
    # = (46 + 47 + 48 + 49 + 50) / 100², whatever opens after it.
    rows = [(parse_range("01+"), (parse_attack_cell("0 Sup", DEFAULT_SCALE, lambda t: None),) * 2)]
    every = AttackTable("Every", ("NA", "HA"), RangeTable(rows), automatic_miss=None)
    huge = _table(TableKind.CRITICAL, "Huge", [_e("1-95", "small", hits=1), _e("96-150", "big", hits=5, stun=1),
                                                _e("151+", "huge", hits=9, death_in=2)])
    tables = TableSet(every, {"Huge": replace(huge, roll=RollKind.OEH)}, FUMBLES)
    attack = Attack(replace(WEAPON, attack_table="Every", critical="Huge"), cmb=0, armor="NA")
    exact = blow_distribution(attack, tables)
    assert sum(exact.values()) == 1
    hit = Fraction(96, 100)  # past the Clumsy Range 1-4
    assert sum(p for blow, p in exact.items() if blow.to_target.death_in == 2) == hit * Fraction(240, 100 ** 2)
    assert sum(p for blow, p in exact.items() if blow.to_target.stun == 1) == hit * Fraction(500 - 240, 100 ** 2)
    assert sum(p * blow.to_target.hits for blow, p in exact.items()) == table_odds(attack, tables).expected_damage


def test_a_readings_blows_remembered_across_distributions_are_the_same():  # type: ignore[no-untyped-def]
    """blow_distribution(memo=...): one fight's distributions share each reading's blows (the same readings recur
    as the CMB shifts); every distribution is what it is without the memo, whatever was asked before it, features
    and a secondary critical included."""
    memo: dict = {}
    asked = [(WEAPON, 40, "NA", frozenset()), (WEAPON, 60, "NA", frozenset({"helm"})), (WEAPON, 60, "NA", frozenset()),
             (replace(WEAPON, secondary_critical="Impact"), 55, "NA", frozenset()), (WEAPON, 70, "HA", frozenset()),
             (WEAPON, 40, "NA", frozenset({"helm"}))]
    for weapon, cmb, armor, features in asked:
        attack = Attack(weapon, cmb=cmb, armor=armor, features=features)
        assert blow_distribution(attack, TABLES, memo=memo) == blow_distribution(attack, TABLES)
    assert memo  # it was used
