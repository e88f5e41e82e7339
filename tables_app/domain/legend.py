"""A book's key to the symbols of its critical entries: its **legend**.

Books print the same effects with different symbols: RM2-style tables write
`2∏` for must parry, RMFRP writes `π` for must parry and `∏` for no parry.
A ruleset sheet (or an effect sheet's own `Legend` key) gives the book's key;
without one, the default legend is read (docs/workbook-format.md, "Legends").

A legend is written one symbol a row (`Symbol | Means` on a ruleset sheet),
or in one cell, `;`-separated: `∑ stun; ∑∏ stun no parry; ∏ no parry`.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from tables_app.domain.names import shown

MAX_SYMBOLS = 20  # a book's key holds a handful; more is a pasted table
MAX_SYMBOL_CHARACTERS = 8


class Meaning(StrEnum):
    """The fixed vocabulary a legend's symbols may mean."""

    HITS = "hits"
    STUN = "stun"
    NO_PARRY = "no parry"
    STUN_NO_PARRY = "stun no parry"  # adds to both stun and no parry
    MUST_PARRY = "must parry"
    BLEED = "bleed"


VOCABULARY = ", ".join(meaning.value for meaning in Meaning)

# Characters people paste for the printed signs: the Greek capital sigma for
# the n-ary summation ∑ and the Greek capital pi for the n-ary product ∏ (the
# lower-case π is a symbol of its own: RMFRP's must parry).
LOOKALIKES = {"\u03a3": "\u2211", "\u03a0": "\u220f"}

# The signs of the books' legends: a token holding one of these that the
# legend in use does not read is an error, never prose (docs/workbook-format.md,
# "Legends").
KNOWN_SIGNS = "\u2211\u220f\u03c0\u222b" + "".join(LOOKALIKES)  # ∑ ∏ π ∫, Σ Π


def is_lettered(symbol: str) -> bool:
    """`H`: a symbol of Latin letters, printed glued to its count (`+5H`);
    every other symbol is a sign (`∑`, `π`), which may also stand bare."""
    return symbol.isascii() and symbol.isalpha()


def canonical_symbol(symbol: str) -> str:
    return "".join(LOOKALIKES.get(character, character) for character in symbol)


@dataclass(frozen=True)
class Legend:
    """``symbols``: (symbol, meaning) as the book's key gives them, in its
    order; empty for the default legend (the key of docs/workbook-format.md,
    "Effects in printed notation", with its ASCII spellings)."""

    symbols: tuple[tuple[str, Meaning], ...] = ()

    @property
    def is_default(self) -> bool:
        return not self.symbols

    def written(self) -> str:
        """The legend in one cell (`∑ stun; ∏ no parry`), as stored and
        exported; "" for the default legend."""
        return "; ".join(f"{symbol} {meaning.value}" for symbol, meaning in self.symbols)

    def signs(self) -> str:
        """Every character of the legend's signs (symbols that are not Latin letters)."""
        return "".join(sorted({c for symbol, _ in self.symbols if not is_lettered(symbol) for c in symbol}))


DEFAULT_LEGEND = Legend()


def legend_from_rows(rows: list[tuple[str, str]]) -> Legend:
    """A legend from (symbol, meaning) pairs as written; ValueError names the
    first bad pair (the caller places it on its cell)."""
    if len(rows) > MAX_SYMBOLS:
        raise ValueError(f"a legend holds at most {MAX_SYMBOLS} symbols, not {len(rows):,}")
    symbols: list[tuple[str, Meaning]] = []
    seen: dict[str, str] = {}
    for written_symbol, written_meaning in rows:
        symbol = legend_symbol(written_symbol)
        meaning = meaning_of(written_meaning, symbol)
        key = canonical_symbol(symbol).casefold()
        if key in seen:
            raise ValueError(f"symbol {shown(symbol)} is in the legend twice (it already means {seen[key]})")
        seen[key] = meaning.value
        symbols.append((symbol, meaning))
    if not symbols:
        raise ValueError("the legend has no symbols")
    return Legend(tuple(symbols))


def parse_legend(text: str) -> Legend:
    """A legend written in one cell: `∑ stun; ∑∏ stun no parry; ∏ no parry`."""
    rows = []
    for part in text.split(";"):
        if not part.strip():
            continue
        symbol, _, meaning = part.strip().partition(" ")
        rows.append((symbol, meaning))
    return legend_from_rows(rows)


def legend_symbol(written: str) -> str:
    """A symbol as a legend writes it, checked; ValueError says what is wrong."""
    symbol = unicodedata.normalize("NFC", written.strip())
    if not symbol:
        raise ValueError("a legend row needs a symbol")
    if len(symbol) > MAX_SYMBOL_CHARACTERS:
        raise ValueError(f"symbol {shown(symbol, 20)} is longer than {MAX_SYMBOL_CHARACTERS} characters")
    bad = [c for c in symbol if c.isspace() or c.isdigit() or c in "()[]+-;:,./\u2013\u2014\u2212"]
    if bad:
        raise ValueError(f"symbol {shown(symbol)} may not hold {shown(bad[0])}: a symbol is printed after a count "
                         "and beside other effects")
    if any(c.isascii() and c.isalpha() for c in symbol) and not is_lettered(symbol):
        raise ValueError(f"symbol {shown(symbol)} mixes letters and signs: write letters only (H) or signs only (∑∏)")
    return symbol


def meaning_of(written: str, symbol: str = "") -> Meaning:
    words = " ".join(written.replace("-", " ").replace("_", " ").lower().split())
    try:
        return Meaning(words)
    except ValueError:
        whose = f" of symbol {shown(symbol)}" if symbol else ""
        raise ValueError(f"meaning {shown(written)}{whose} is not one of: {VOCABULARY}") from None
