"""The exact distribution of the blow an attack in a formula system deals in a
fight (domain/fights/blow_odds.formula_blow_distribution) equals, as
Fractions, the blows the tracker deals (services/fight_formulas.resolve_one:
the options filled in from the fight, the system's resolver, then
formulas.blow_of) over every sequence of dice, enumerated die by die, in each
of the four systems (docs/fights.md, "Formula systems" and "Odds of a fight"):
the target's DEF and parry, pte's hits left, the attacker's parry, penalty and
pending bonus on the system's bonus, a sunder that spares the holder, a heal
held to the hits taken.

Rise's explosions and d10-pool's critical chains never end: the exact odds cut
them where the mass still to come is below a cut (docs/formula-systems.md,
"Odds"; 1e-15 by default), the last die stopping. The enumeration cuts them
at the same die with a larger cut (so that it stays small): past it, a die
that would go on is a stand-in that stops the chain (0 for rise, whose sum it
leaves alone; a 1 for d10-pool, a miss that is not a critical)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tables_app.domain.dice import ForcedDice
from tables_app.domain.distributions import TAIL_CUT
from tables_app.domain.fights import formulas
from tables_app.domain.fights.blow_odds import formula_blow_distribution
from tables_app.domain.fights.state import Blow, Combatant, Counters, Fight, Fighter, Harm
from tables_app.domain.systems import d10_pool, get, rise, worlds_awakening
from tables_app.domain.systems.base import TooManyDamages
from tables_app.services.fight_formulas import resolve_one

Stop = Callable[[list[str], str], "int | None"]  # (purposes so far, this die's) → a stand-in die, or None


class Enumerated(ForcedDice):
    """The dice of a prefix, each weighed 1/sides; then the sides of the first
    die missing; past the cut, ``stop``'s stand-in (weighed 1) instead of a die."""

    def __init__(self, values: tuple[int, ...], stop: Stop | None):
        super().__init__(values=values)
        self.stop, self.weight, self.wanted = stop, Fraction(1), 0

    def _next(self, sides: int, purpose: str) -> int:
        stand_in = self.stop(self.purposes, purpose) if self.stop else None
        if stand_in is not None:
            return stand_in
        if self._position < len(self.values):
            self.weight /= sides
        elif not self.missing:
            self.wanted = sides
        return super()._next(sides, purpose)


def every_blow(fight: Fight, attacker: str, target: str, stop: Stop | None = None) -> dict[Blow, Fraction]:
    """The tracker's blow for every dice sequence of the attack, weighed."""
    a, t = fight.find(attacker), fight.find(target)
    assert a is not None and t is not None
    arm = a.fighter.attacks[0]
    found: dict[Blow, Fraction] = {}

    def explore(prefix: tuple[int, ...]) -> None:
        dice = Enumerated(prefix, stop)
        event, _ = resolve_one(fight, a, t, arm, (), dice)
        if dice.missing:
            for face in range(1, dice.wanted + 1):
                explore((*prefix, face))
            return
        found[event.blow] = found.get(event.blow, Fraction(0)) + dice.weight

    explore(())
    return found


def rise_stop(cut: Fraction) -> Stop:
    """Rise's explosions after the first die: each goes on with p = 1/10 (a 10); the
    chain's last die is the first whose chance of being reached times 1/10 is below the cut."""
    last = next(m for m in range(1, 100) if Fraction(1, rise.DIE) ** m < cut)

    def stop(purposes: list[str], purpose: str) -> int | None:
        return 0 if purpose == "explosion" and purposes.count("explosion") >= last else None

    return stop


def d10_stop(params: d10_pool.D10Pool, cut: Fraction) -> Stop:
    """A d10-pool chain goes on with p = P(critical); after m dice, it stops where p^m is below the cut."""
    bonus, defense = d10_pool.total_bonus(params), params.defense[1]
    p = Fraction(sum(d10_pool.judge(params, die, bonus, defense)[1] for die in range(1, 11)), 10)

    def stop(purposes: list[str], purpose: str) -> int | None:
        if not purpose.startswith("critical follow-up"):
            return None
        attack = purpose.rpartition(" ")[2]
        dice = sum(1 for said in purposes if said.rpartition(" ")[2] == attack)
        return 1 if p**dice < cut else None

    return stop


def duel(system: str, options: list[str], *, parry: int = 0, penalty: int = 0, bonus: int = 0, defense: int = 0,
         target_parry: int = 0, hits: int = 20, taken: int = 0, no_parry: int = 0) -> Fight:
    """Hero (attacking in ``system``) against Orc, with the fight's terms set as a state."""
    arm = formulas.armament(system, options)
    hero = Combatant(Fighter("Hero", "A", 30, 0, "", parry=parry, attacks=(arm,)), start=Counters(penalty=penalty),
                     now=Counters(penalty=penalty), bonus=bonus)
    orc = Combatant(Fighter("Orc", "B", hits, defense, "", parry=target_parry, attacks=(arm,)), taken=taken,
                    start=Counters(no_parry=no_parry), now=Counters(no_parry=no_parry))
    return Fight("Duel", combatants=(hero, orc))


def with_cut(system: str, cut: Fraction) -> Callable[[str, Any, Any], dict[int, Fraction]]:
    module = {"rise": rise, "d10-pool": d10_pool}[system]
    return lambda _system, _options, params: module.damages(params, None, cut)


CUT = Fraction(1, 1000)  # rise: 4 explosion dice at most (1/10^4 < 1/1000)
RISE = {
    # accuracy 2 − parry 1 − penalty 1 + bonus 3 = 3 against DEF 7 + parry 2 = 9: miss, glancing, hit and
    # criticals (the first die explodes on 9 or 10), 1 + n rolls of 1d2+1, doubled, halved when glancing
    "every outcome": (["accuracy=2", "damage=1d2+1", "crit-bonus=3", "multiplier=2", "explode-on=9"],
                      dict(parry=1, penalty=-1, bonus=3, defense=7, target_parry=2)),
    # a damage roll below 0 deals nothing; the target cannot parry (no parry), so its DEF is 9 alone
    "clamped at 0": (["accuracy=4", "damage=1d4-2"], dict(defense=9, target_parry=5, no_parry=1)),
    # no damage dice: nothing, whatever the outcome
    "no damage": (["accuracy=4"], dict(defense=9)),
}


@pytest.mark.parametrize("case", RISE)
def test_rise(case: str) -> None:
    options, terms = RISE[case]
    fight = duel("rise", options, **terms)
    arm = fight.combatants[0].fighter.attacks[0]
    exact = formula_blow_distribution(fight, "Hero", "Orc", arm, damages_of=with_cut("rise", CUT))
    assert sum(exact.values()) == 1
    assert exact == every_blow(fight, "Hero", "Orc", rise_stop(CUT))


WORLDS = {
    # 1 + 1 + 1 + equipment (0 − parry 2 + bonus 1) = 2 against DEF 10 + parry 2 = 12; CHA 2 widens the
    # critical range to 19-20 (both dice's maximum, 8) and the critical failure stays at 1
    "a hit rolls both dice": (["stat=1", "weapon-bonus=1", "level=1", "damage=1d4+1", "damage=1d3-2", "cha=2"],
                              dict(parry=2, bonus=1, defense=10, target_parry=2)),
    # a hit's total below 0 (1d2-3) deals nothing; a critical its maximum, still below 0: nothing
    "never below 0": (["stat=3", "damage=1d2-3"], dict(defense=12)),
    "support": (["stat=3", "support"], dict(defense=12)),
}


@pytest.mark.parametrize("case", WORLDS)
def test_worlds_awakening(case: str) -> None:
    options, terms = WORLDS[case]
    fight = duel("worlds-awakening", options, **terms)
    arm = fight.combatants[0].fighter.attacks[0]
    exact = formula_blow_distribution(fight, "Hero", "Orc", arm)
    assert sum(exact.values()) == 1
    assert exact == every_blow(fight, "Hero", "Orc")


POOL_CUT = Fraction(1, 10)  # heavy, a critical on 9 or 10 (p = 1/5): 2 dice a chain at most (1/25 < 1/10)
POOL = {
    # 2 attack dice, bonus 2 − penalty 2 + bonus 2 = 2 against AD 6 + parry 2 = 8; each hit 1d2
    "two chains": (["bonus=2", "attacks=2", "damage=1d2", "toughness=2", "heavy"],
                   dict(penalty=-2, bonus=2, defense=6, target_parry=2)),
    # a sunder strikes the item: the holder takes nothing, whatever is rolled
    "sunder": (["bonus=2", "damage=1d3", "toughness=2", "heavy", "option=sunder"], dict(defense=8)),
    # a trip deals no damage (against GD, the same DEF)
    "trip": (["bonus=2", "damage=1d3", "toughness=2", "heavy", "option=trip"], dict(defense=8)),
}


@pytest.mark.parametrize("case", POOL)
def test_d10_pool(case: str) -> None:
    options, terms = POOL[case]
    fight = duel("d10-pool", options, **terms)
    arm = fight.combatants[0].fighter.attacks[0]
    options_now, params = formulas.attack_params(fight, "Hero", "Orc", arm)
    exact = formula_blow_distribution(fight, "Hero", "Orc", arm, damages_of=with_cut("d10-pool", POOL_CUT))
    assert sum(exact.values()) == 1
    assert exact == every_blow(fight, "Hero", "Orc", d10_stop(params, POOL_CUT))
    if case != "two chains":
        assert exact == {Blow(): 1}


PTE = {
    # accuracy 2 + bonus 1 against AC 2 + Evasion (DEF 5 + parry 1); 14 of 20 hits left: max HP 20, HP 14
    "hits left": (["accuracy=2", "ac=2", "stat=8", "damage-base=6", "def=3", "crit-range=18"],
                  dict(bonus=1, defense=5, target_parry=1, hits=20, taken=6)),
    # absorbed: it heals 8 (16 on a critical), at most the 3 hits taken
    "a heal held to the hits taken": (["accuracy=2", "ac=2", "stat=5", "damage-base=6", "def=3", "absorb"],
                                      dict(defense=5, hits=20, taken=3)),
}


@pytest.mark.parametrize("case", PTE)
def test_pte(case: str) -> None:
    options, terms = PTE[case]
    fight = duel("pte", options, **terms)
    arm = fight.combatants[0].fighter.attacks[0]
    exact = formula_blow_distribution(fight, "Hero", "Orc", arm)
    assert sum(exact.values()) == 1
    assert exact == every_blow(fight, "Hero", "Orc")
    if case.startswith("a heal"):
        assert min(blow.to_target.hits for blow in exact) == -3


def test_pte_reads_the_targets_hits_left() -> None:
    """pte's filled-in HP is the target's hits left: its options, and so its key, change with hits taken."""
    options = ["accuracy=2", "ac=2", "stat=8", "damage-base=6", "def=3"]
    fresh, hurt = duel("pte", options, hits=20), duel("pte", options, hits=20, taken=6)
    arm = fresh.combatants[0].fighter.attacks[0]
    assert dict(formulas.attack_params(fresh, "Hero", "Orc", arm)[0])["hp"] == 20
    assert dict(formulas.attack_params(hurt, "Hero", "Orc", arm)[0])["hp"] == 14


DEFAULT_CUT = [
    ("rise", ["accuracy=6", "damage=2d6+3"], 12),
    ("rise", ["accuracy=3", "damage=1d4-3", "multiplier=3", "crit-bonus=5"], 10),
    ("worlds-awakening", ["stat=2", "damage=1d8+2", "damage=1d6"], 14),
    ("d10-pool", ["bonus=3", "attacks=2", "damage=2d6+1", "toughness=4"], 8),
    ("d10-pool", ["bonus=3", "damage=2d6+1", "toughness=4", "option=sunder"], 8),
    ("pte", ["accuracy=2", "ac=4", "stat=13", "damage-base=8", "def=5", "pp"], 3),
]


@pytest.mark.parametrize("system, options, defense", DEFAULT_CUT)
def test_with_the_default_cut_the_damage_is_the_odds_of_one_attack(system: str, options: list[str], defense: int) -> None:
    """``System.damages`` cuts as ``odds`` does (TAIL_CUT): its mean is `tables odds SYSTEM`'s expected damage."""
    fight = duel(system, options, defense=defense)
    arm = fight.combatants[0].fighter.attacks[0]
    _, params = formulas.attack_params(fight, "Hero", "Orc", arm)
    chosen = get(system)
    assert chosen.damages is not None and chosen.odds is not None
    damages = chosen.damages(params, None)
    assert sum(damages.values()) == 1
    assert sum(p * d for d, p in damages.items()) == chosen.odds(params).expected_damage
    if system in ("rise", "d10-pool"):
        assert damages == with_cut(system, TAIL_CUT)(system, (), params)


@pytest.mark.parametrize("system, options", [
    ("rise", ["accuracy=6", "damage=100d1000"]),
    ("worlds-awakening", ["stat=2", "damage=100d1000", "damage=100d1000"]),
    ("d10-pool", ["bonus=100", "attacks=6", "weapons=3", "heavy", "damage=4d6+6", "toughness=4"]),
])
def test_a_damage_distribution_past_its_bound_is_refused_before_the_work(system: str, options: list[str]) -> None:
    fight = duel(system, options, defense=-100)
    arm = fight.combatants[0].fighter.attacks[0]
    with pytest.raises(TooManyDamages) as raised:
        formula_blow_distribution(fight, "Hero", "Orc", arm, limit=5_000)
    assert raised.value.values > 5_000 and raised.value.limit == 5_000



SMALL_DICE = st.builds(lambda count, sides, flat: f"{count}d{sides}" + (f"{flat:+d}" if flat else ""),
                       st.integers(1, 3), st.integers(1, 6), st.integers(-6, 4))


@settings(max_examples=40, deadline=None)
@given(system=st.sampled_from(["rise", "worlds-awakening", "d10-pool"]), damage=SMALL_DICE, bonus=st.integers(-5, 15),
       defense=st.integers(-5, 20), extra=st.integers(0, 3), flag=st.booleans())
def test_any_small_attacks_damage_is_the_odds_of_one_attack(system: str, damage: str, bonus: int, defense: int,
                                                            extra: int, flag: bool) -> None:
    """Over many options: each system's damage distribution sums to 1 and its mean is `odds SYSTEM`'s expected damage."""
    options = {
        "rise": [f"accuracy={bonus}", f"damage={damage}", f"crit-bonus={extra}", f"multiplier={extra}"],
        "worlds-awakening": [f"stat={bonus}", f"damage={damage}", "damage=1d4", f"cha={2 * extra}"],
        "d10-pool": [f"bonus={bonus}", f"attacks={1 + extra}", f"damage={damage.split('-')[0]}", "toughness=3"],
    }[system] + (["heavy"] if flag and system == "d10-pool" else [])
    fight = duel(system, options, defense=defense)
    arm = fight.combatants[0].fighter.attacks[0]
    _, params = formulas.attack_params(fight, "Hero", "Orc", arm)
    chosen = get(system)
    assert chosen.damages is not None and chosen.odds is not None
    damages = chosen.damages(params, None)
    assert sum(damages.values()) == 1 and min(damages) >= 0
    assert sum(p * d for d, p in damages.items()) == chosen.odds(params).expected_damage


POOL_WEAPONS = (["bonus=4", "weapons=2", "damage=1d2", "toughness=2"], dict(defense=8))  # a die per weapon, −2 each


def test_d10_pool_rolls_a_chain_per_weapon() -> None:
    """Each weapon beyond the first gives one more attack die (docs/formula-systems.md, "d10-pool"): its chain
    is weighed as the tracker rolls it (POOL_CUT: a critical on 10 alone, p = 1/10, 2 dice a chain at most)."""
    options, terms = POOL_WEAPONS
    fight = duel("d10-pool", options, **terms)
    arm = fight.combatants[0].fighter.attacks[0]
    _, params = formulas.attack_params(fight, "Hero", "Orc", arm)
    assert params.dice_count == 2
    exact = formula_blow_distribution(fight, "Hero", "Orc", arm, damages_of=with_cut("d10-pool", POOL_CUT))
    assert exact == every_blow(fight, "Hero", "Orc", d10_stop(params, POOL_CUT))


AS_IT_IS = [("rise", *RISE["every outcome"]), ("worlds-awakening", *WORLDS["a hit rolls both dice"]),
            ("d10-pool", *POOL["two chains"]), ("pte", *PTE["hits left"])]


@pytest.mark.parametrize("system, options, terms", AS_IT_IS)
def test_an_attack_that_neither_sunders_nor_heals_deals_the_systems_damage_as_it_is(
        system: str, options: list[str], terms: dict[str, int]) -> None:
    """"The system's damage goes to the target's hits" (domain/fights/formulas.py; docs/fights.md, "Formula
    systems": only a sunder and a heal are dealt otherwise): the blows are the system's own damage distribution,
    checked apart from the tracker's ``dealt``, which the brute force above shares with the odds."""
    fight = duel(system, options, **terms)
    arm = fight.combatants[0].fighter.attacks[0]
    _, params = formulas.attack_params(fight, "Hero", "Orc", arm)
    chosen = get(system)
    assert chosen.damages is not None
    damages = chosen.damages(params, None)
    assert len(damages) > 1  # something to deal
    assert formula_blow_distribution(fight, "Hero", "Orc", arm) == {Blow(to_target=Harm(hits=d)): p
                                                                    for d, p in damages.items()}


EACH_TOTAL_A_DAMAGE = {
    # accuracy 0 against DEF 1: never a miss nor a glancing blow; 0 to 4 criticals (CUT: 4 explosions at most),
    # so 1 to 5 rolls of 1d3, whose spans overlap: every total from 1 to 15 a damage of its own
    "rise": (["accuracy=0", "damage=1d3"], dict(defense=1)),
    # a hit's totals 1 to 4 (the critical's 4 among them), a miss's 0
    "worlds-awakening": (["stat=0", "damage=1d4"], dict(defense=12)),
    # 0 to 4 hits of 1d2 (two chains, POOL_CUT): every sum from 0 to 8
    "d10-pool": POOL["two chains"],
}


@pytest.mark.parametrize("system", EACH_TOTAL_A_DAMAGE)
def test_the_count_an_attack_is_refused_with_is_its_number_of_damages_when_each_total_is_one(system: str) -> None:
    """"An attack that can deal more than 5,000 different damages is refused, before the work, naming how many"
    (docs/fights.md, "Odds of a fight"): the count is worked out from the dice's bounds alone, so it may be more
    than the damages dealt where totals meet (clamped at 0, scaled); where each total is a damage of its own,
    it is their number, counted by the brute force, and a limit of that many is not refused."""
    options, terms = EACH_TOTAL_A_DAMAGE[system]
    fight = duel(system, options, **terms)
    arm = fight.combatants[0].fighter.attacks[0]
    _, params = formulas.attack_params(fight, "Hero", "Orc", arm)
    stop = rise_stop(CUT) if system == "rise" else d10_stop(params, POOL_CUT) if system == "d10-pool" else None
    count = len(every_blow(fight, "Hero", "Orc", stop))

    def damages(limit: int) -> dict[int, Fraction]:
        if system == "rise":
            return rise.damages(params, limit, CUT)
        if system == "d10-pool":
            return d10_pool.damages(params, limit, POOL_CUT)
        return worlds_awakening.damages(params, limit)

    assert len(damages(count)) == count
    with pytest.raises(TooManyDamages) as raised:
        damages(count - 1)
    assert (raised.value.values, raised.value.limit) == (count, count - 1)
