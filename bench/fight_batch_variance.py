"""Benchmark (an experiment): antithetic draws against plain ones in the
batch engine (domain/fights/batch.py), at equal time, on the bundled duel.

    pip install .
    python bench/fight_batch_variance.py [REPLICATES]
    python bench/fight_batch_variance.py --control [REPLICATES]

Plain: every blow drawn with its own uniform (as play_fights draws). Antithetic:
fights k and k + half of a chunk draw each blow with u and 1 - u (the same
attack of the same round), each distribution's blows ordered from the least
to the most harmful to the target, so that paired fights tend to go opposite
ways. Both play REPLICATES (default 30) independent chunks of 32,768 duel
fights (seeds 0, 1, ...), interleaved; the standard deviation of each
estimate across the replicates is its real standard error (the pairs make
the count's binomial SE wrong), and SE × sqrt(CPU seconds) compares the two
at equal time (lower is better): P(Hero's side wins by round 20), P(the
fight is over by round 3), the mean rounds.

``--control``: the exact odds of the same duel dealing hits only (every
other effect left out: odds.fight_odds, a few thousand states) as a control
variate. Each replicate plays the duel and its hits-only copy with the same
uniforms (each distribution's blows ordered by their hits, so that the same
uniform deals the same hits while the two fights' states agree); the
estimate is Y - beta (X - E[X]), beta from the replicates; its SE across the
replicates, and SE × sqrt(CPU seconds) against plain sampling's, with and
without the exact odds' time (the GM's question pays it once).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import numpy as np

from tables_app.domain.fights.batch import _Counts, _Dealer, _play_chunk
from tables_app.domain.fights.batch_state import from_fights
from tables_app.domain.fights.odds import fight_odds
from tables_app.domain.fights.state import Blow, Fight, Harm
from tables_app.services import fights
from tables_app.services.database_setup import init_database
from tables_app.services.fight_odds import _Blows

ROUNDS, FIGHTS = 20, 32_768


def harm_to_target(blow: Blow) -> float:
    t, a = blow.to_target, blow.to_attacker
    return (t.hits - a.hits + 3 * (t.bleed - a.bleed) + 8 * (t.stun - a.stun) + 10 * (t.must_parry + t.no_parry)
            - t.penalty + a.penalty + 100 * (t.death_in is not None) - 100 * (a.death_in is not None)
            + 15 * (t.prone + int(t.drops_weapon) + int(t.useless_arm)))


def ordered(blows: Callable[[Fight, str, str], dict[Blow, Fraction]]) -> Callable[[Fight, str, str], dict[Blow, Fraction]]:
    kept: dict[int, tuple[dict[Blow, Fraction], dict[Blow, Fraction]]] = {}

    def dealt(state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
        found = blows(state, attacker, target)
        known = kept.get(id(found))
        if known is None or known[0] is not found:
            known = kept[id(found)] = (found, dict(sorted(found.items(), key=lambda item: harm_to_target(item[0]))))
        return known[1]

    return dealt


def replicate(fight: Fight, blows: Callable[[Fight, str, str], dict[Blow, Fraction]], seed: int,
              antithetic: bool) -> tuple[float, tuple[float, float, float]]:
    start = time.process_time()
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(0,))))
    dealer, counts = _Dealer(blows, None), _Counts(fight, ROUNDS)
    half = FIGHTS // 2
    drawn = rng.random((half, ROUNDS, len(fight.combatants))) if antithetic else None

    def uniforms(j: int, i: int, ids: np.ndarray) -> np.ndarray:  # type: ignore[type-arg]
        if drawn is None:
            return rng.random(len(ids))
        u = drawn[ids % half, j, i]
        return np.where(ids < half, u, np.nextafter(1.0, 0.0) - u)

    _play_chunk(from_fights([fight]).repeated(FIGHTS), dealer, counts, ROUNDS, uniforms, None)
    counts.count = FIGHTS
    tally = counts.tally(fight)
    spent = time.process_time() - start
    side = fight.combatants[0].side
    return spent, (tally.won[side][-1] / FIGHTS, tally.over[2] / FIGHTS, tally.mean_rounds()[0])


def by_hits(blows: Callable[[Fight, str, str], dict[Blow, Fraction]]) -> Callable[[Fight, str, str], dict[Blow, Fraction]]:
    kept: dict[int, tuple[dict[Blow, Fraction], dict[Blow, Fraction]]] = {}

    def dealt(state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
        found = blows(state, attacker, target)
        known = kept.get(id(found))
        if known is None or known[0] is not found:
            known = kept[id(found)] = (found, dict(sorted(found.items(), key=lambda item: (
                item[0].to_target.hits - item[0].to_attacker.hits, item[0].to_target.hits))))
        return known[1]

    return dealt


def hits_only(blows: Callable[[Fight, str, str], dict[Blow, Fraction]]) -> Callable[[Fight, str, str], dict[Blow, Fraction]]:
    kept: dict[int, tuple[dict[Blow, Fraction], dict[Blow, Fraction]]] = {}

    def dealt(state: Fight, attacker: str, target: str) -> dict[Blow, Fraction]:
        found = blows(state, attacker, target)
        known = kept.get(id(found))
        if known is None or known[0] is not found:
            plain: dict[Blow, Fraction] = {}
            for blow, p in found.items():
                hits = Blow(to_target=Harm(hits=blow.to_target.hits), to_attacker=Harm(hits=blow.to_attacker.hits))
                plain[hits] = plain.get(hits, Fraction(0)) + p
            known = kept[id(found)] = (found, plain)
        return known[1]

    return dealt


def control(fight: Fight, blows: Callable[[Fight, str, str], dict[Blow, Fraction]], replicates: int) -> None:
    side = fight.combatants[0].side
    plain = hits_only(blows)
    start = time.process_time()
    exact = float(fight_odds(fight, plain, ROUNDS).rounds[-1].sides[side])
    exact_cpu = time.process_time() - start
    full, copy = by_hits(blows), by_hits(plain)
    ys, xs, cpus = [], [], []
    for r in range(replicates):
        drawn = np.random.default_rng(r).random((FIGHTS, ROUNDS, len(fight.combatants)))
        start = time.process_time()
        found = []
        for dealt in (full, copy):
            dealer, counts = _Dealer(dealt, None), _Counts(fight, ROUNDS)
            _play_chunk(from_fights([fight]).repeated(FIGHTS), dealer, counts, ROUNDS,
                        lambda j, i, ids: drawn[ids, j, i], None)  # noqa: B023  # (called within the loop)
            counts.count = FIGHTS
            found.append(counts.tally(fight).won[side][-1] / FIGHTS)
        cpus.append(time.process_time() - start)
        ys.append(found[0])
        xs.append(found[1])
    beta = statistics.covariance(ys, xs) / statistics.variance(xs)
    controlled = [y - beta * (x - exact) for y, x in zip(ys, xs)]
    both = statistics.median(cpus)
    se_plain, se_controlled = statistics.stdev(ys), statistics.stdev(controlled)
    print(f"hits-only exact odds: {exact_cpu:.2f} s CPU, P(win) {exact:.4f}; {replicates} replicates of {FIGHTS:,} fights, "
          f"both copies a median {both:.3f} s CPU")
    print(f"  correlation {statistics.correlation(ys, xs):.2f}, beta {beta:.2f}")
    print(f"  plain: SE {se_plain:.5f}, SE x sqrt(s) {se_plain * (both / 2) ** 0.5:.5f} (half the time of both copies)")
    print(f"  control variate: SE {se_controlled:.5f}, SE x sqrt(s) {se_controlled * both ** 0.5:.5f} without the exact "
          f"odds' time, {se_controlled * (both + exact_cpu) ** 0.5:.5f} with it")


def main(argv: list[str]) -> None:
    controlled = argv[:1] == ["--control"]
    argv = argv[1:] if controlled else argv
    replicates = int(argv[0]) if argv else 30
    database = init_database(str(Path(tempfile.mkdtemp()) / "bench.db"))
    fights.new(database, "Duel")
    fights.join(database, "Duel", fights.Joining(label="Hero", hits=50, defense=20, armor="MA", weapon="Longsword", cmb=60))
    fights.join(database, "Duel", fights.Joining(creature="Orc Warrior"))
    fight = fights.load(database, "Duel").fight
    if controlled:
        return control(fight, _Blows(database, fight), replicates)
    blows = ordered(_Blows(database, fight))
    replicate(fight, blows, 999, False)  # warm-up: the blows looked up once, for both
    runs: dict[bool, list[tuple[float, tuple[float, float, float]]]] = {False: [], True: []}
    for r in range(replicates):
        for antithetic in ((False, True) if r % 2 == 0 else (True, False)):
            runs[antithetic].append(replicate(fight, blows, r, antithetic))
    names = ("P(Hero's side won by round 20)", "P(over by round 3)", "mean rounds")
    scores = {}
    for antithetic, done in runs.items():
        cpu = statistics.median(s for s, _ in done)
        label = "antithetic" if antithetic else "plain"
        print(f"{label}: {FIGHTS:,} fights per replicate, median {cpu:.3f} s CPU, {replicates} replicates")
        for k, name in enumerate(names):
            values = [v[k] for _, v in done]
            se = statistics.stdev(values)
            scores[(antithetic, k)] = se * cpu ** 0.5
            print(f"  {name}: mean {statistics.mean(values):.4f}, SE (across replicates) {se:.5f}, "
                  f"SE x sqrt(s) {se * cpu ** 0.5:.5f}")
    for k, name in enumerate(names):
        print(f"{name}: antithetic / plain SE x sqrt(s) = {scores[(True, k)] / scores[(False, k)]:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
