"""Benchmark: `tables simulate` of the formula systems, vectorised against
`resolve` run attack by attack (what simulate did before).

    python bench/formula_simulate.py

Times, in-process, a million attacks of a common attack of each system
through its numpy ``sample`` (domain/systems/vectorised.py) and 100,000
through the resolver loop (domain/simulate.simulate_formula, scaled ×10),
then the costliest simulation the bounds allow (rise: 31 damage rolls of
100d1000 an attack).
"""

from __future__ import annotations

import time

from tables_app.domain.simulate import simulate_formula
from tables_app.domain.systems import get
from tables_app.domain.systems.vectorised import simulate

COMMON = [
    ("rise", dict(accuracy=6, defense=12, damage="2d6+3")),
    ("worlds-awakening", dict(stat=2, defense=12, damage=("1d8+2",), cha=3)),
    ("d10-pool", dict(bonus=3, ad=7, toughness=3, damage="2d6", attacks=3)),
    ("pte", dict(accuracy=2, ac=2, evasion=3, stat=20, db=8, defense=10, max_hp=50, hp=40)),
]
WORST = ("rise", dict(accuracy=100, defense=-100, crit_bonus=100, multiplier=100, damage="100d1000+1000"))


def params(system, values):  # type: ignore[no-untyped-def]
    full = {option.key: option.default for option in system.options}
    full.update(values)
    return system.build(full)


def seconds(run) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def main() -> None:
    print(f"{'system':18} {'vectorised, 1e6':>16} {'resolver loop, 1e6 (from 1e5)':>31}")
    for system_id, values in COMMON:
        system = get(system_id)
        p = params(system, values)
        fast = seconds(lambda system=system, p=p: simulate(system.sample, p, system.outcomes, 1_000_000, 1))
        slow = 10 * seconds(lambda system=system, p=p: simulate_formula(system.resolve, p, system.outcomes, 100_000, 1))
        print(f"{system_id:18} {fast:14.2f} s {slow:29.1f} s", flush=True)
    system_id, values = WORST
    system = get(system_id)
    p = params(system, values)
    worst = 10 * seconds(lambda: simulate(system.sample, p, system.outcomes, 100_000, 1))
    print(f"worst case ({system_id}, 31 rolls of 100d1000 an attack): {worst:.1f} s per 1e6 (from 1e5)")


if __name__ == "__main__":
    main()
