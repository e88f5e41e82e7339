"""The peer: the same attack's exact distribution computed with icepool.

Longsword (Edged, Max Result 150, Clumsy 1-3, Cut criticals) with CMB 60
against DEF 20 in MA, read from the bundled workbooks' tables as plain
Python data (exported by bench/odds_vs_icepool.py into a JSON file), so the
peer does the same work: open-ended d100 with fumbles, modifiers, cap, the
attack-table cell, and critical extra hits averaged over d100 + severity.

Run on its own (whole-process timing): python bench/icepool_attack.py FILE.json
"""

from __future__ import annotations

import json
import sys

import icepool

DEPTH = 12  # explosion depth: 0.05**12 ≈ 2.4e-16 of mass left, as tables_app's 1e-15 cut
FUMBLE = -(10**6)  # below any total a chain can reach (icepool outcomes must sort)


def attack_distribution(spec: dict):
    rows = spec["rows"]  # [[low, outcome, hits, crit_mean], ...] ascending, for the target's armor column
    shift, cap, clumsy = spec["shift"], spec["cap"], spec["clumsy"]
    chain = icepool.d100.explode([96, 97, 98, 99, 100], depth=DEPTH)

    def total(first: int):
        if first <= clumsy:
            return FUMBLE
        if first >= 96:
            return first + chain
        if first <= 5:
            return first - chain
        return first

    def read(t):
        if t == FUMBLE:
            return ("fumble", 0)
        result = min(t + shift, cap)
        if result <= 10:
            return ("miss", 0)
        row = rows[0]
        for candidate in rows:
            if candidate[0] <= result:
                row = candidate
        return (row[1], row[2] + row[3])

    roll = icepool.d100.map(total)
    outcome = roll.map(read)
    outcomes = {}
    damage = 0.0
    denominator = outcome.denominator()
    for (word, hits), quantity in outcome.items():
        p = quantity / denominator
        outcomes[word] = outcomes.get(word, 0.0) + p
        damage += p * hits
    return outcomes, damage


if __name__ == "__main__":
    spec = json.loads(open(sys.argv[1]).read())
    outcomes, damage = attack_distribution(spec)
    print(json.dumps({"outcomes": outcomes, "expected_damage": damage}))
