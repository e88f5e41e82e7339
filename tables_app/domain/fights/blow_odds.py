"""The exact distribution of the blow one attack deals in a fight: every
blow ``blows.table_blow`` can make of a resolution, with its probability,
computed from the readings the odds of one attack weigh (domain/odds.py);
for an attack in a formula system, every blow ``formulas.blow_of`` makes of
its damage, from the system's exact damage distribution (``System.damages``).
Never sampled. What the exact odds of a fight step with."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from itertools import product
from typing import Any

from tables_app.domain.cells import Outcome
from tables_app.domain.fights.blows import critical_blow, fumble_blow
from tables_app.domain.fights.formulas import attack_params, damage_blow
from tables_app.domain.fights.state import Armament, Blow, Fight
from tables_app.domain.odds import critical_choices, fumble_choices, weighed_readings
from tables_app.domain.systems import get
from tables_app.domain.table_rules import Attack, AttackRules, Reading, TableSet
from tables_app.domain.tables import Choice, Entry

NOTHING = Blow()
# (system, the attack's options, its parameters) → the exact distribution of its damage
DamagesOf = Callable[[str, tuple[tuple[str, Any], ...], Any], Mapping[int, Fraction]]


# A reading's blows, kept across the blow distributions of one fight (``memo``): the same readings recur in
# every distribution of a weapon against an armor, only their weights shifting with the CMB and DEF.
ReadingMemo = dict[tuple[Any, ...], tuple[list[tuple[Blow, Fraction]], tuple[Any, ...]]]


def blow_distribution(attack: Attack, tables: TableSet, rules: AttackRules | None = None,
                      memo: ReadingMemo | None = None) -> dict[Blow, Fraction]:
    """Each blow the attack can deal, with its exact probability (they sum to 1); ``memo`` keeps each reading's
    blows for the next distribution asked with it (the same tables)."""
    rules = AttackRules.given_or_built(attack, tables, rules)
    roll, readings = weighed_readings(attack, rules)
    found: dict[Blow, Fraction] = {}
    fumbles = roll.fumble
    for reading, weight in readings:
        p = Fraction(weight, roll.denominator)
        if reading.outcome is Outcome.FUMBLE:  # an `F` cell fumbles as the Clumsy Range does
            fumbles += p
            continue
        for blow, q in _remembered(reading, attack.features, memo):
            found[blow] = found.get(blow, Fraction(0)) + p * q
    if fumbles:
        for blow, q in _fumble_blows(attack, tables):
            found[blow] = found.get(blow, Fraction(0)) + fumbles * q
    return found


def _remembered(reading: Reading, features: frozenset[str], memo: ReadingMemo | None) -> list[tuple[Blow, Fraction]]:
    """The reading's blows, from ``memo`` when it has them: a reading's blows are its hits and its criticals'
    entries (each plan's table known by its identity, kept beside it so that it is not reused)."""
    if memo is None:
        return _reading_blows(reading, features)
    plans = reading.plans
    key = (reading.hits, features, *((id(p.table), p.severity, p.rolled, p.reduction, p.column) for p in plans))
    found = memo.get(key)
    if found is None:
        found = memo[key] = (_reading_blows(reading, features), tuple(p.table for p in plans))
    return found[0]


def _reading_blows(reading: Reading, features: frozenset[str]) -> list[tuple[Blow, Fraction]]:
    plans = reading.plans
    if not plans:
        return [(critical_blow(reading.hits, ()), Fraction(1))]
    merged: dict[Blow, Fraction] = {}
    for picks in product(*(_entries(critical_choices(plan, features)) for plan in plans)):
        entries: list[Entry] = [entry for _, entry in picks]
        q = Fraction(1)
        for weight, _ in picks:
            q *= weight
        blow = critical_blow(reading.hits + sum(e.hits for e in entries), entries)
        merged[blow] = merged.get(blow, Fraction(0)) + q
    return list(merged.items())


def _entries(choices: list[tuple[Fraction, Choice]]) -> list[tuple[Fraction, Entry]]:
    """The choices as (probability, entry), the same entry's merged (it deals the same blow)."""
    merged: dict[Entry, Fraction] = {}
    for weight, choice in choices:
        merged[choice.entry] = merged.get(choice.entry, Fraction(0)) + weight
    return [(weight, entry) for entry, weight in merged.items()]


def _fumble_blows(attack: Attack, tables: TableSet) -> list[tuple[Blow, Fraction]]:
    table = tables.fumble
    if table is None:
        return [(NOTHING, Fraction(1))]  # a weapon without a fumble table: the fumble does nothing
    merged: dict[Blow, Fraction] = {}
    for weight, entry in _entries(fumble_choices(table, attack.weapon)):
        blow = fumble_blow(entry)
        merged[blow] = merged.get(blow, Fraction(0)) + weight
    return list(merged.items())


def formula_blows(system_id: str, options: Iterable[tuple[str, Any]], damages: Mapping[int, Fraction],
                  taken: int) -> dict[Blow, Fraction]:
    """Each blow of an attack in a formula system, with its exact probability:
    each damage of ``damages`` (the system's distribution for the attack's
    options) dealt to a target that has taken ``taken`` as the tracker deals it
    (``formulas.dealt``, then ``blows.formula_blow``). A system's damage
    distribution carries no conditions: none of the four gives one the fight
    tracks (docs/fights.md, "Formula systems")."""
    listed = tuple(options)
    found: dict[Blow, Fraction] = {}
    for damage, p in damages.items():
        blow = damage_blow(system_id, listed, damage, taken)
        found[blow] = found.get(blow, Fraction(0)) + p
    return found


def formula_blow_distribution(fight: Fight, attacker: str, target: str, arm: Armament, limit: int | None = None,
                              damages_of: DamagesOf | None = None) -> dict[Blow, Fraction]:
    """Each blow ``attacker``'s attack ``arm`` (in a formula system) deals
    ``target`` in the fight as it stands, with its exact probability: the
    options the tracker fills in (``formulas.attack_params``: the target's
    DEF and parry, its hits for pte, the CMB modifiers on the system's bonus),
    the system's exact damage distribution (``damages_of(system, options,
    params)``, by default ``System.damages``: TooManyDamages past ``limit``
    values), each damage turned into a blow as the tracker does."""
    options, params = attack_params(fight, attacker, target, arm)
    t = fight.find(target)
    assert t is not None
    found = (damages_of or _damages(limit))(arm.system, options, params)
    return formula_blows(arm.system, options, found, t.taken)


def _damages(limit: int | None) -> DamagesOf:
    def damages_of(system_id: str, options: tuple[tuple[str, Any], ...], params: Any) -> Mapping[int, Fraction]:
        damages = get(system_id).damages
        assert damages is not None  # every formula system has its exact damage distribution
        return damages(params, limit)

    return damages_of
