"""A seed's draws (docs/table-system.md, "simulate table"): the vectorised simulation counts exactly what attacks
resolved one by one count when they take numpy's dice in its documented order — per chunk, every first die, then
the opened rolls' chains going up, then those going down, then each critical's dice (the cell's first for every
attack that rolls one, then the further ones), an open-ended critical die's chain right after its own draw. The
reference below reads each attack with the rules' own steps (AttackRules.read_total, the `UM` faces, the critical
hits by die or by total), one attack at a time, so a change of the order, of what a die is read by or of the tally
fails here even where the totals would still agree in distribution."""

import numpy as np
import pytest
from small_tables import TABLES, attack

from tables_app.domain import simulate
from tables_app.domain.bounds import D100
from tables_app.domain.cells import Outcome
from tables_app.domain.table_rules import (AttackRules, FirstDie, chain_goes_on, critical_hits_by_die, critical_hits_by_total,
                                           first_die)
from tables_app.domain.tables import Rank, RollKind


class _Stream:
    """numpy's dice, handed out one array at a time as the simulation asks for them."""

    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)

    def dice(self, size: int) -> list[int]:
        return [int(d) for d in self.rng.integers(1, D100 + 1, size)]


def _chains(stream: _Stream, size: int) -> list[int]:
    """Open-ended chains of ``size`` rolls: each round of draws is one array for the rolls still going."""
    sums, going = [0] * size, list(range(size))
    while going:
        dice = stream.dice(len(going))
        for i, die in zip(going, dice):
            sums[i] += die
        going = [i for i, die in zip(going, dice) if chain_goes_on(die)]
    return sums


def reference(chosen, tables, count: int, seed: int, chunk: int) -> simulate.Tally:  # type: ignore[no-untyped-def]
    rules, weapon, features = AttackRules(chosen, tables), chosen.weapon, chosen.features
    stream = _Stream(seed)
    outcomes = dict.fromkeys(simulate.OUTCOMES, 0)
    severities = {level.code: 0 for level in tables.attack.scale.levels}
    total_damage = squares = 0
    for done in range(0, count, chunk):
        firsts = stream.dice(min(chunk, count - done))
        starts = [first_die(face, weapon.clumsy, weapon.roll) for face in firsts]
        totals = list(firsts)
        for start in (FirstDie.OPENS_HIGH, FirstDie.OPENS_LOW):
            opened = [i for i, s in enumerate(starts) if s is start]
            for i, chain in zip(opened, _chains(stream, len(opened))):
                totals[i] += start.sign * chain
        readings = []
        for face, start, total in zip(firsts, starts, totals):
            if start is FirstDie.FUMBLE:
                readings.append(None)
                continue
            unmodified = rules.unmodified_faces.get(face) if face > weapon.clumsy else None
            readings.append(unmodified or rules.read_total(total))
        damage = [0 if r is None else r.hits for r in readings]
        column = 0
        while rolling := [i for i, r in enumerate(readings) if r is not None and len(r.plans) > column]:
            dice = stream.dice(len(rolling))
            opens = [k for k, i in enumerate(rolling) if readings[i].plans[column].table.roll is RollKind.OEH and chain_goes_on(dice[k])]
            for k, chain in zip(opens, _chains(stream, len(opens))):
                dice[k] += chain
            for i, die in zip(rolling, dice):
                plan = readings[i].plans[column]
                by_total = critical_hits_by_total(plan, features) if plan.table.roll is RollKind.OEH else critical_hits_by_die(plan, features)
                damage[i] += by_total[min(die, len(by_total)) - 1]
            column += 1
        for reading, hits in zip(readings, damage):
            outcomes[Outcome.FUMBLE.value if reading is None else reading.outcome.value] += 1
            if reading is not None and reading.critical is not None:
                severities[reading.critical.severity.code] += 1
            total_damage += hits
            squares += hits * hits
    return simulate.Tally(count, outcomes, total_damage, squares, {"critical_severity": severities})


CASES = [
    {"cmb": 40},
    {"cmb": 90, "armor": "HA", "secondary_critical": "Impact", "features": frozenset({"helm"})},  # two criticals a cell
    {"cmb": 20, "defense": 30, "rank": Rank.EPIC, "clumsy": 6, "max_result": None},
    {"cmb": -20, "clumsy": 0},  # ineffective: the cell is shown, not counted
    {"cmb": 200, "roll": RollKind.OEH},
    {"cmb": 60, "roll": RollKind.OEL},
]


@pytest.mark.parametrize("changes", CASES)
def test_the_vectorised_simulation_counts_what_attacks_one_by_one_count_with_the_same_dice(changes, monkeypatch):
    chosen = attack(**changes)
    monkeypatch.setattr(simulate, "CHUNK", 700)  # several chunks, the last one short
    fast = simulate.simulate_table(chosen, TABLES, 2_500, seed=29)
    assert vars(fast) == vars(reference(chosen, TABLES, 2_500, seed=29, chunk=700))


@pytest.mark.slow  # seconds
def test_the_same_with_um_rows_f_cells_and_an_open_ended_critical_die(monkeypatch):
    from test_printed_attack_rules import SIMULATED
    from test_printed_attack_rules import attack as printed_attack
    from test_printed_critical_rules import attack_on

    monkeypatch.setattr(simulate, "CHUNK", 900)
    cases = [(printed_attack(**changes), tables) for tables, changes in SIMULATED]
    cases.append(attack_on("5 A Huge", critical="Huge", fumble_column="1HE", critical_column="Normal"))  # `Roll kind | oeh`
    for chosen, tables in cases:
        assert vars(simulate.simulate_table(chosen, tables, 2_000, seed=31)) == vars(reference(chosen, tables, 2_000, seed=31, chunk=900))
