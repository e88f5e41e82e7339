"""A seed for a run the user did not seed. Its own module: an unseeded
simulation draws with numpy and so never loads the dice of resolve
(services/rolling.py, domain/dice.py) just to pick its seed."""

from __future__ import annotations

import os


def fresh_seed() -> int:
    """A random seed for a run the user did not seed (printed, so it can be replayed)."""
    return int.from_bytes(os.urandom(4), "big")
