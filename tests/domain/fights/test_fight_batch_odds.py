"""Whole fights played by the batch engine (play_fights) agree with the
exact odds of the same fights (odds.fight_odds: every share within 4 of its
standard errors, and a chi-square on the round of the end × the winner at
p = 1e-4), and with the fights played one at a time (simulate_fights: a
chi-square of homogeneity at p = 1e-4 and two-sample z of at most 4.5 on
each combatant's fate), at fixed seeds: the tiny tables of fight_states, a
hits-only duel, death thresholds, a formula system that reads the hits
taken (pte), a fight from mid-round, and the bundled duel."""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction
from random import Random

import pytest
from fight_states import TINY_FIGHTERS, tiny_blows, tiny_fight
from test_fight_simulate import categories_counted, categories_exact

from helpers import chi_square_agrees
from tables_app.domain.fights import Attack, Blow, Edit, Fight, Harm, apply, formulas
from tables_app.domain.fights.batch import play_fights
from tables_app.domain.fights.odds import Blows, ReadsTaken, fight_odds
from tables_app.domain.fights.simulate import Drawn, Tally, simulate_fights
from tables_app.domain.fights.state import Combatant, Fighter
from tables_app.services import fights
from tables_app.services.fight_odds import _Blows
from tables_app.services.lookups import list_items

P_1E4 = 3.72  # one-sided z of p = 1e-4


def hits_only(blows: Blows) -> Blows:
    """The same attacks dealing their hits only (every other effect left out)."""
    def dealt(state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
        found: dict[Blow, Fraction] = {}
        for blow, p in blows(state, attacker, target).items():
            plain = Blow(to_target=Harm(hits=blow.to_target.hits), to_attacker=Harm(hits=blow.to_attacker.hits))
            found[plain] = found.get(plain, Fraction(0)) + p
        return found

    return dealt


def with_death(fight: Fight, at: int) -> Fight:
    return replace(fight, combatants=tuple(replace(c, fighter=replace(c.fighter, death_at=at)) for c in fight.combatants))


def mid_round(fight: Fight) -> Fight:
    """Hero has struck (a bleeding, stunning blow), the Orc is under a penalty for 2 rounds: the round goes on."""
    orc = fight.combatants[1].name
    fight = apply(fight, Edit(orc, (("timed_penalties", ((-10, 2),)),)))
    return apply(fight, Attack("Hero", orc, Blow(to_target=Harm(hits=1, bleed=1, stun=1)), "Knife"))


PTE_HURTS = ["accuracy=2", "ac=2", "stat=5", "damage-base=4", "def=3"]
PTE_HEALS = [*PTE_HURTS, "absorb"]


def pte_fight() -> Fight:
    hurts, heals = formulas.armament("pte", PTE_HURTS), formulas.armament("pte", PTE_HEALS)
    return Fight("pte", combatants=(Combatant(Fighter("Hero", "A", 9, 3, "", attacks=(hurts,))),
                                    Combatant(Fighter("Elf", "A", 9, 3, "", attacks=(heals,))),
                                    Combatant(Fighter("Orc", "B", 12, 3, "", attacks=(hurts,)), taken=3)))


def cases() -> dict[str, tuple[Fight, Blows, ReadsTaken | None]]:
    pte = pte_fight()
    pte_blows = _Blows(None, pte)  # type: ignore[arg-type]  # no table attack: the database is never read
    return {
        **{name: (tiny_fight(fighters), tiny_blows, None) for name, fighters in TINY_FIGHTERS.items()},
        "hits only": (tiny_fight(TINY_FIGHTERS["duel"]), hits_only(tiny_blows), None),
        "death thresholds": (with_death(tiny_fight(TINY_FIGHTERS["two against one"]), -2), tiny_blows, None),
        "mid-round": (mid_round(tiny_fight(TINY_FIGHTERS["duel"])), tiny_blows, None),
        "pte": (pte, pte_blows, pte_blows.reads_taken),
    }


def shares(tally: Tally) -> dict[tuple[str, int], int]:
    found = {}
    for j in range(tally.rounds):
        found[("over", j)] = tally.over[j]
        found.update({(f"won {s}", j): v[j] for s, v in tally.won.items()})
        found.update({(f"down {n}", j): v[j] for n, v in tally.down.items()})
        found.update({(f"dead {n}", j): v[j] for n, v in tally.dead.items()})
    return found


@pytest.mark.parametrize("case", ["duel", "one-sided", "two against one", "hits only", "death thresholds", "mid-round", "pte"])
def test_the_batch_agrees_with_the_exact_odds(case):  # type: ignore[no-untyped-def]
    start, blows, reads = cases()[case]
    rounds, count = 4, 40_000
    exact = fight_odds(start, blows, rounds, reads_taken=reads)
    tally = play_fights(start, blows, rounds, seed=17, count=count, reads_taken=reads)
    expected = {}
    for j, r in enumerate(exact.rounds):
        expected[("over", j)] = r.over
        expected.update({(f"won {s}", j): p for s, p in r.sides.items()})
        expected.update({(f"down {n}", j): p for n, p in r.down.items()})
        expected.update({(f"dead {n}", j): p for n, p in r.dead.items()})
    counted = shares(tally)
    for key, p in expected.items():
        se = math.sqrt(float(p) * (1 - float(p)) / count)
        assert abs(counted[key] / count - float(p)) <= 4 * se + 1e-12, (key, counted[key] / count, float(p))
    if len(exact.rounds) == rounds:  # (the odds stop early when every fight has ended: so does the count)
        ok, statistic, critical = chi_square_agrees(categories_counted(tally, start.sides),
                                                    categories_exact(exact, start.sides), alpha_z=P_1E4)
        assert ok, (statistic, critical)
    mean, se = tally.mean_rounds()
    assert abs(mean - float(exact.expected_rounds)) <= 4 * se + 1e-12


def homogeneous(first: dict[object, int], second: dict[object, int]) -> tuple[bool, float, float]:
    """Pearson's chi-square of homogeneity of two samples' counts by category (those expected below 5 pooled),
    against the Wilson-Hilferty critical value at p = 1e-4."""
    n1, n2 = sum(first.values()), sum(second.values())
    cells, pooled = [], [0, 0]
    for key in set(first) | set(second):
        a, b = first.get(key, 0), second.get(key, 0)
        if (a + b) * min(n1, n2) / (n1 + n2) < 5:
            pooled[0] += a
            pooled[1] += b
        else:
            cells.append((a, b))
    if sum(pooled):
        cells.append((pooled[0], pooled[1]))
    statistic = 0.0
    for a, b in cells:
        total = a + b
        for observed, n in ((a, n1), (b, n2)):
            expected = total * n / (n1 + n2)
            statistic += (observed - expected) ** 2 / expected
    df = max(len(cells) - 1, 1)
    critical = df * (1 - 2 / (9 * df) + P_1E4 * (2 / (9 * df)) ** 0.5) ** 3
    return statistic <= critical, statistic, critical


def agrees_with_one_at_a_time(start: Fight, blows: Blows, rounds: int, batch: int, single: int, seed: int,
                              reads: ReadsTaken | None = None) -> None:
    by_batch = play_fights(start, blows, rounds, seed=seed, count=batch, reads_taken=reads)
    one_by_one = simulate_fights(start, Drawn(blows), rounds, single, Random(seed), reads_taken=reads)
    ok, statistic, critical = homogeneous(categories_counted(by_batch, start.sides),  # type: ignore[arg-type]
                                          categories_counted(one_by_one, start.sides))  # type: ignore[arg-type]
    assert ok, (statistic, critical)
    for kind in ("down", "dead"):
        for name in by_batch.down:
            a, b = getattr(by_batch, kind)[name][-1], getattr(one_by_one, kind)[name][-1]
            pooled = (a + b) / (batch + single)
            se = math.sqrt(pooled * (1 - pooled) * (1 / batch + 1 / single))
            assert abs(a / batch - b / single) <= 4.5 * se + 1e-12, (kind, name, a / batch, b / single)


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])  # (a second seed: seconds more)
def test_the_batch_agrees_with_fights_played_one_at_a_time(seed):  # type: ignore[no-untyped-def]
    start, blows, reads = cases()["pte"]
    agrees_with_one_at_a_time(start, blows, 6, 20_000, 5_000, seed, reads)
    start = with_death(tiny_fight(TINY_FIGHTERS["two against one"]), -1)
    agrees_with_one_at_a_time(start, tiny_blows, 6, 20_000, 5_000, seed)


@pytest.mark.parametrize("seed", [pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)])  # (seconds each;
# the default run's case of the rule is test_the_batch_agrees_with_fights_played_one_at_a_time[1], tiny fights)
def test_the_bundled_duel_agrees_with_fights_played_one_at_a_time(opened, seed):  # type: ignore[no-untyped-def]
    fights.new(opened, "Duel")
    fights.join(opened, "Duel", fights.Joining(label="Hero", hits=50, defense=20, armor="MA", weapon="Longsword", cmb=60))
    fights.join(opened, "Duel", fights.Joining(creature="Orc Warrior"))
    start = fights.load(opened, "Duel").fight
    blows = _Blows(opened, start)
    agrees_with_one_at_a_time(start, blows, 12, 30_000, 3_000, seed)
    orc = start.combatants[1].name
    struck = apply(start, Attack("Hero", orc, next(b for b in blows(start, "Hero", orc) if b.to_target.drops_weapon),
                                 "Longsword"))
    agrees_with_one_at_a_time(struck, blows, 12, 30_000, 3_000, seed)  # mid-round: the Orc has dropped its scimitar


@pytest.mark.slow  # every creature of the bestiary (~6 s)
def test_every_creature_of_the_bundled_bestiary_is_played_by_the_batch(opened):  # type: ignore[no-untyped-def]
    """Everything in the bundled tables is supported: each creature, two of it on each side of a melee."""
    creatures = [c["name"] for c in list_items(opened, "creature")["creatures"]]
    assert len(creatures) > 5
    for k, creature in enumerate(creatures):
        name = f"Melee {k}"
        fights.new(opened, name)
        for joining in (fights.Joining(label="Hero", hits=50, defense=20, armor="MA", weapon="Longsword", cmb=60),
                        fights.Joining(creature=creature, side="A"), fights.Joining(creature=creature, side="B"),
                        fights.Joining(creature="Orc Warrior", side="B")):
            fights.join(opened, name, joining)
        start = fights.load(opened, name).fight
        blows = _Blows(opened, start)
        tally = play_fights(start, blows, 20, seed=k, count=2_000, reads_taken=blows.reads_taken)
        assert tally.over[-1] + tally.unfinished == tally.count == 2_000
        assert sum(won[-1] for won in tally.won.values()) <= tally.over[-1]
        assert all(d[-1] <= tally.count for d in (*tally.down.values(), *tally.dead.values()))
