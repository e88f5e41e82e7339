"""Many attacks of a formula system at once, with numpy (``tables simulate``).

A system's ``sample(params, rng, n)`` draws ``n`` attacks from a numpy
Generator and returns each one's outcome (an index into the system's
``outcomes``) and damage, as two int64 arrays. It applies the very rule
functions that ``resolve`` and ``odds`` use, each called once per distinct
value (``by_value``), so the rules keep one home and a simulation counts
what ``resolve`` would, only faster (tests/domain/systems/test_sampling.py
compares both with the exact odds).

numpy is imported inside the functions, so nothing else pays for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # the systems import this module; the simulation's own modules only when it runs
    from tables_app.domain.simulate import Progress, Tally

CHUNK = 100_000  # attacks per step: bounded memory, and a progress tick (and a chance for Ctrl-C) each
DENSE = 1024  # value ranges up to this long are read through a look-up array, longer ones through np.unique


def by_value(rule: Callable[[int], Any], values: Any) -> Any:
    """``rule(v)`` for each entry ``v`` of an int array, the rule called once per
    distinct value: an array of its results (a tuple result adds a last axis)."""
    import numpy as np

    values = np.asarray(values, dtype=np.int64)
    if values.size == 0:
        probe = np.asarray(rule(0))
        return np.zeros((0, *probe.shape), dtype=np.int64)
    low, high = int(values.min()), int(values.max())
    if high - low < DENSE:
        keys, index = range(low, high + 1), values - low
    else:
        unique, index = np.unique(values, return_inverse=True)
        keys = unique.tolist()
    return np.array([rule(key) for key in keys], dtype=np.int64)[index]


def by_face(rule: Callable[[int], Any], sides: int) -> Any:
    """``rule(face)`` for every face 1..sides, as an array indexed by face − 1."""
    import numpy as np

    return np.array([rule(face) for face in range(1, sides + 1)], dtype=np.int64)


def codes(outcomes: tuple[str, ...]) -> dict[str, int]:
    """Outcome word → its index in the system's ``outcomes``."""
    return {word: i for i, word in enumerate(outcomes)}


def _sum_of_squares(damage: Any) -> int:
    """Σ damage², exactly (int64 where it cannot overflow, else per distinct value)."""
    import numpy as np

    if damage.size == 0:
        return 0
    largest = int(np.abs(damage).max())
    if largest * largest * damage.size < 1 << 62:
        return int(np.dot(damage, damage))
    values, counts = np.unique(damage, return_counts=True)
    return sum(v * v * n for v, n in zip(values.tolist(), counts.tolist()))


def simulate(sample: Callable[[Any, Any, int], tuple[Any, Any]], params: Any, outcomes: tuple[str, ...], count: int,
             seed: int, progress: Progress | None = None) -> Tally:
    """``count`` attacks drawn by ``sample`` in chunks, seeded, counted."""
    import numpy as np

    from tables_app.domain.simulate import Tally

    rng = np.random.default_rng(seed)
    counts = np.zeros(len(outcomes), dtype=np.int64)
    tally = Tally()
    done = 0
    while done < count:
        n = min(CHUNK, count - done)
        outcome, damage = sample(params, rng, n)
        counts += np.bincount(outcome, minlength=len(outcomes))
        tally.add_damage(int(damage.sum()), _sum_of_squares(damage))
        done += n
        if progress:
            progress(n)
    tally.outcomes = dict(zip(outcomes, counts.tolist()))
    tally.count = count
    return tally
