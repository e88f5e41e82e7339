"""A book's key to the symbols of its critical entries: its **legend**.

Books print the same effects with different symbols: RM2-style tables write
`2∏` for must parry, RMFRP writes `π` for must parry and `∏` for no parry.
A ruleset sheet (or an effect sheet's own `Legend` key) gives the book's key;
without one, the default legend is read (docs/workbook-format.md, "Legends").
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Meaning(StrEnum):
    """The fixed vocabulary a legend's symbols may mean."""

    HITS = "hits"
    STUN = "stun"
    NO_PARRY = "no parry"
    STUN_NO_PARRY = "stun no parry"  # adds to both stun and no parry
    MUST_PARRY = "must parry"
    BLEED = "bleed"


@dataclass(frozen=True)
class Legend:
    """``symbols``: (symbol, meaning) as the book's key gives them; empty for
    the default legend, which reads the key documented in
    docs/workbook-format.md ("Effects in printed notation")."""

    symbols: tuple[tuple[str, Meaning], ...] = ()

    @property
    def is_default(self) -> bool:
        return not self.symbols


DEFAULT_LEGEND = Legend()
