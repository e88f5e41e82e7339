"""A book's key to the symbols of its critical entries: its **legend**.

Books print the same effects with different symbols: RM2-style tables write
`2∏` for must parry, RMFRP writes `π` for must parry and `∏` for no parry.
A ruleset sheet (or an effect sheet's own `Legend` key) gives the book's key;
without one, the default legend is read (docs/workbook-format.md, "Legends").

A legend is written one symbol a row (`Symbol | Means` on a ruleset sheet),
or in one cell, `;`-separated: `∑ stun; ∑∏ stun no parry; ∏ no parry`.

A symbol may also be a **word or phrase** the book prints (`Damage`, `Bleed`,
`Stunned`, `to all actions`): its count comes before it, glued or spaced
(`+2 Damage`, `2Damage`, `-5 to all actions`); a word that means rounds
(stun, no parry, must parry) standing bare counts 1, or what the legend
gives (`Stunned = stun, bare 2`). In one cell a phrase is written
`to all actions = penalty`.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from tables_app.domain.names import shown

MAX_SYMBOLS = 20  # a book's key holds a handful; more is a pasted table
MAX_SYMBOL_CHARACTERS = 8
MAX_WORD_CHARACTERS = 40  # `to all other actions`: a phrase is longer than a sign
MAX_BARE = 100  # rounds a bare word may count


class Meaning(StrEnum):
    """The fixed vocabulary a legend's symbols may mean."""

    HITS = "hits"
    STUN = "stun"
    NO_PARRY = "no parry"
    STUN_NO_PARRY = "stun no parry"  # adds to both stun and no parry
    MUST_PARRY = "must parry"
    BLEED = "bleed"
    PENALTY = "penalty"  # words only: `-5 to all actions` with the phrase `to all actions`
    # the rest of a critical (docs/fights.md, "The rest of a critical"): rounds, or a thing that lasts
    PRONE = "prone"
    BLINDED = "blinded"
    KNOCKED_OUT = "knocked out"  # its rounds; bare: until the GM wakes it
    DROPS_WEAPON = "drops weapon"
    BREAKS_WEAPON = "breaks weapon"
    USELESS_ARM = "useless arm"
    USELESS_LEG = "useless leg"


# Meanings counted in rounds: a word with one of these may stand bare (`Stunned`: 1 round).
ROUND_MEANINGS = frozenset({Meaning.STUN, Meaning.NO_PARRY, Meaning.STUN_NO_PARRY, Meaning.MUST_PARRY, Meaning.PRONE,
                            Meaning.BLINDED, Meaning.KNOCKED_OUT})
# Meanings that are a thing done, not counted: a count printed before them is read and changes nothing.
THING_MEANINGS = frozenset({Meaning.DROPS_WEAPON, Meaning.BREAKS_WEAPON, Meaning.USELESS_ARM, Meaning.USELESS_LEG})


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


def is_word(symbol: str) -> bool:
    """`Damage`, `to all actions`: two or more letters (spaces and apostrophes
    between words allowed), none of them a book's sign; a count may be spaced
    from it (`+2 Damage`). A single letter (`H`) stays a lettered symbol,
    glued to its count."""
    letters = [c for c in symbol if c not in " '\u2019"]
    return len(letters) >= 2 and all(c.isalpha() and c not in KNOWN_SIGNS for c in letters)


def canonical_symbol(symbol: str) -> str:
    return "".join(LOOKALIKES.get(character, character) for character in symbol)


@dataclass(frozen=True)
class Legend:
    """``symbols``: (symbol, meaning) as the book's key gives them, in its
    order; empty for the default legend (the key of docs/workbook-format.md,
    "Effects in printed notation", with its ASCII spellings)."""

    symbols: tuple[tuple[str, Meaning], ...] = ()
    bare: tuple[tuple[str, int], ...] = ()  # the words whose bare count the book gives (`Stunned = stun, bare 2`)

    @property
    def is_default(self) -> bool:
        return not self.symbols

    def bare_count(self, symbol: str, meaning: Meaning) -> int:
        """What a word standing bare counts: as given, else 1 round for a
        meaning in rounds and nothing (0: not read bare) for the others."""
        given = dict(self.bare).get(symbol)
        if given is not None:
            return given
        return 1 if is_word(symbol) and (meaning in ROUND_MEANINGS or meaning in THING_MEANINGS) else 0

    def written(self) -> str:
        """The legend in one cell (`∑ stun; ∏ no parry; to all actions =
        penalty`), as stored and exported; "" for the default legend."""
        given = dict(self.bare)
        parts = []
        for symbol, meaning in self.symbols:
            if " " in symbol or symbol in given:
                bare = f", bare {given[symbol]}" if symbol in given else ""
                parts.append(f"{symbol} = {meaning.value}{bare}")
            else:
                parts.append(f"{symbol} {meaning.value}")
        return "; ".join(parts)

    def signs(self) -> str:
        """Every character of the legend's signs (symbols that are neither Latin letters nor words)."""
        return "".join(sorted({c for symbol, _ in self.symbols if not is_lettered(symbol) and not is_word(symbol)
                               for c in symbol}))


DEFAULT_LEGEND = Legend()


def legend_from_rows(rows: list[tuple[str, str]]) -> Legend:
    """A legend from (symbol, meaning) pairs as written; ValueError names the
    first bad pair (the caller places it on its cell)."""
    if len(rows) > MAX_SYMBOLS:
        raise ValueError(f"a legend holds at most {MAX_SYMBOLS} symbols, not {len(rows):,}")
    symbols: list[tuple[str, Meaning]] = []
    bare: list[tuple[str, int]] = []
    seen: dict[str, str] = {}
    for written_symbol, written_meaning in rows:
        symbol = legend_symbol(written_symbol)
        meaning = meaning_of(written_meaning, symbol)
        key = canonical_symbol(symbol).casefold()
        if key in seen:
            raise ValueError(f"symbol {shown(symbol)} is in the legend twice (it already means {seen[key]})")
        seen[key] = meaning.value
        symbols.append((symbol, meaning))
        if (count := bare_of(written_meaning, symbol)) is not None:
            bare.append((symbol, count))
    if not symbols:
        raise ValueError("the legend has no symbols")
    return Legend(tuple(symbols), tuple(bare))


def parse_legend(text: str) -> Legend:
    """A legend written in one cell: `∑ stun; ∑∏ stun no parry; ∏ no parry`."""
    rows = []
    for part in text.split(";"):
        if not part.strip():
            continue
        if " = " in part:  # a phrase, or a word with its bare count: `to all actions = penalty`
            symbol, _, meaning = part.strip().partition(" = ")
        else:
            symbol, _, meaning = part.strip().partition(" ")
        rows.append((symbol, meaning))
    return legend_from_rows(rows)


def legend_symbol(written: str) -> str:
    """A symbol as a legend writes it, checked; ValueError says what is wrong."""
    symbol = unicodedata.normalize("NFC", " ".join(written.split()))
    if not symbol:
        raise ValueError("a legend row needs a symbol")
    if is_word(symbol):  # `Damage`, `to all actions`: the book's words
        if len(symbol) > MAX_WORD_CHARACTERS:
            raise ValueError(f"word {shown(symbol, 20)} is longer than {MAX_WORD_CHARACTERS} characters")
        return symbol
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
    """The meaning a legend row gives (its `, bare N` aside, read by bare_of)."""
    words = " ".join(written.partition(",")[0].replace("-", " ").replace("_", " ").lower().split())
    whose = f" of symbol {shown(symbol)}" if symbol else ""
    try:
        meaning = Meaning(words)
    except ValueError:
        raise ValueError(f"meaning {shown(written)}{whose} is not one of: {VOCABULARY}") from None
    if meaning is Meaning.PENALTY and symbol and not is_word(symbol):
        raise ValueError(f"meaning 'penalty'{whose}: only a word or phrase means a penalty (-5 to all actions: "
                         "to all actions = penalty); a bracket, (-20), is a penalty in every legend")
    return meaning


def bare_of(written: str, symbol: str) -> int | None:
    """The count a word standing bare reads, when its row gives one (`stun, bare 2`); None if not given."""
    _, comma, rest = written.partition(",")
    if not comma:
        return None
    words = rest.lower().split()
    if len(words) != 2 or words[0] != "bare" or not (words[1].isascii() and words[1].isdigit()) or len(words[1]) > 3:
        raise ValueError(f"meaning {shown(written)}: after the meaning, write only the count a bare word reads "
                         "(stun, bare 2)")
    if not is_word(symbol):
        raise ValueError(f"symbol {shown(symbol)}: only a word reads bare with a count of its own (a sign counts 1)")
    count = int(words[1])
    if count > MAX_BARE:
        raise ValueError(f"meaning {shown(written)}: a bare word counts at most {MAX_BARE}")
    return count
