"""A resolved attack as the blow it deals in a fight (domain/fights/blows.py;
docs/fights.md, "An attack of A on B"), from hand-built resolutions: each
test quotes the rule it pins."""

from __future__ import annotations

from tables_app.domain.cells import Outcome
from tables_app.domain.dice import OpenEndedRoll
from tables_app.domain.fights import Harm
from tables_app.domain.fights.blows import formula_blow, table_blow
from tables_app.domain.ranges import Range
from tables_app.domain.resolve import AttackResult, CriticalRoll, FumbleRoll
from tables_app.domain.tables import Entry

ROLL = OpenEndedRoll(50, (), 50, 0)


def entry(**effects: int | None) -> Entry:
    return Entry(Range(1, 100), "text", **effects)  # type: ignore[arg-type]


def critical(e: Entry) -> CriticalRoll:
    return CriticalRoll("Cut", "A", "A", 0, 50, 50, e, None)


def test_every_critical_counts_the_further_and_secondary_ones_too():
    # "the effects of each critical, the further and secondary criticals too: bleed, stun, no parry,
    # must parry and penalty add"; "dies in N ... the least"; "a (+N) adds to A's bonus"
    first = entry(hits=5, bleed=1, stun=1, penalty=-5, attacker_bonus=5, death_in=6)
    further = entry(hits=3, bleed=2, stun=2, no_parry=1, must_parry=1, penalty=-10, attacker_bonus=10, death_in=3)
    secondary = entry(hits=2, bleed=3, no_parry=2, must_parry=2, penalty=-20, attacker_bonus=20, death_in=9)
    result = AttackResult(Outcome.CRITICAL, 10 + 5 + 3 + 2, ROLL, 60, critical=critical(first),
                          more_criticals=(critical(further),), secondary_critical=critical(secondary))
    blow = table_blow(result)
    assert blow.to_target == Harm(hits=20, bleed=6, stun=3, no_parry=3, must_parry=3, penalty=-35, death_in=3)
    assert (blow.attacker_bonus, blow.to_attacker, blow.target_bonus) == (35, Harm(), 0)


def test_the_damage_is_the_cell_and_every_criticals_hits():
    # "the damage (the cell's hits and every critical's) to its hits taken"
    result = AttackResult(Outcome.CRITICAL, 17, ROLL, 60, critical=critical(entry(hits=7)))
    assert table_blow(result).to_target.hits == 17


def test_a_fumble_strikes_the_attacker_and_its_bonus_goes_to_the_foe():
    # "A fumble's entry is applied to A: its hits and effects are A's. Decision: a fumble entry's (+N)
    # goes to B, the foe who profits from it."
    fumble = FumbleRoll("Melee Fumbles", 95, 95, entry(hits=4, stun=1, penalty=-5, attacker_bonus=10))
    blow = table_blow(AttackResult(Outcome.FUMBLE, 0, ROLL, 60, fumble=fumble))
    assert blow.to_attacker == Harm(hits=4, stun=1, penalty=-5)
    assert (blow.to_target, blow.attacker_bonus, blow.target_bonus) == (Harm(), 0, 10)


def test_a_formula_systems_damage_and_conditions():
    # "A formula system's attack applies its damage (and the conditions it defines, where its rules give them)"
    assert formula_blow(9, {"conditions": {"stun": 1, "bleed": 2}}).to_target == Harm(hits=9, stun=1, bleed=2)
    assert formula_blow(4, {}).to_target == Harm(hits=4)


def test_a_formula_systems_conditions_carry_each_of_the_six_the_fight_tracks():
    # every condition a formula system's rules may give, death's countdown too (a mutant dropping death_in lived)
    given = {"bleed": 1, "stun": 2, "no_parry": 3, "must_parry": 4, "penalty": -5, "death_in": 6}
    assert formula_blow(7, {"conditions": given}).to_target == Harm(hits=7, **given)
