"""A critical entry's effects as printed inside its text, read with the
book's legend (``domain/legend.py``).

The spellings, field by field, are in docs/workbook-format.md ("Effects in
printed notation", "Legends", "Effects in words"); the tests pin each one.
In short:

- **Symbols**, as the legend gives them: `+5H` hits, `3∑` stun, `2∏` must
  parry (RMFRP: no parry), `π` must parry, `2∑∏` stunned and unable to
  parry, `3∫` bleed. A count before a symbol is its rounds (or hits); a bare
  sign is 1 (`+3H – ∑`). The longest symbol matches first (`∑∏` before `∑`).
- **Brackets** mean the same in every legend: `(-20)` a lasting penalty,
  `(+10)` a bonus to the attacker, `(π-10)` one round of must parry at −10
  to the parry (a must-parry symbol of the legend with a penalty).
- **Words** a keyboard types (`3 stun`, `2 must parry`, `3 bleed`, `+5
  hits`) and the words books print (`stunned for 2 rounds`, `2 hits per
  round`, `-20 to activity`, `dies in 6 rounds`, `instant death`).

Decisions:

- ``stun`` counts every round stunned and ``no_parry`` every round unable to
  parry: `3∑ – 2∑∏` is stun 5 and no_parry 2; RMFRP's `2∏` is no_parry 2
  alone. A ruleset without a legend reads `∏` as must parry and `2 no parry`
  as stunned and unable to parry, as it always has.
- Effects of one kind add up (`+5H … +2H` is 7 hits); a second death is an
  error (write branches for different targets).
- Separators (`–`, `-`, `—`, `,`, `;`, spaces) are not needed. As counts
  are never negative, a `-` before a count separates it (`+5H-2∑`), except
  in the words `-20 to activity`.
- No silent misread: a token that looks like an effect and that the
  legend does not read (a sign of any book's legend, `3∑x`, `+5Hx`,
  `(-20x)`, `π` where π means nothing) is an error naming the token.
- A penalty for a time (`-20 to activity for 3 rounds`, `… until healed`)
  is not a lasting one: it stays in the text, and ``timed`` says so, for a
  warning on the cell.
- ``text`` is the whole text as given, effects included.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from tables_app.domain.bounds import EFFECT_LIMIT
from tables_app.domain.legend import DEFAULT_LEGEND, KNOWN_SIGNS, LOOKALIKES, Legend, Meaning, is_lettered
from tables_app.domain.names import shown
from tables_app.domain.ranges import DASHES

_MINUS = "[" + re.escape(DASHES) + "]"
_COUNT = r"(?<![\w.])\+?\d+"  # a count: digits not glued to a word, perhaps a `+`
_ROUNDS = r"\s*(?:rounds?|rnds?)\b"  # `rounds`, `round`, `rnds`, `rnd`
# Death is printed as prose, its rounds in digits or a word: `dies in six rounds`.
_NUMBER_WORDS = {word: n for n, word in enumerate(
    "one two three four five six seven eight nine ten eleven twelve".split(), start=1)}
_ROUND_COUNT = r"(?:\d+|" + "|".join(_NUMBER_WORDS) + ")"
_NUMBER = re.compile(r"\d+")
# The first words of the spellings in words: where one of these starts, a spelling may (the guard below)
_WORD_LEADS = ("die", "death", "drops", "expires", "stunned", "suffocates", "she", "kill", "instant", "it", "for", "falls",
               "foe", "he", "and", "must", "unable", "cannot", "can't", "no")
# `-20 to activity`, `-30 activity`, `−15 to all activity` (a dash here is the penalty's sign)
_ACTIVITY = rf"{_MINUS}\s*\d+\s+(?:to\s+)?(?:all\s+)?activity\b"
# ... and no time said later in the sentence (`dies from blood loss in 12 hours`: not instant; a warning)
_NO_TIME_AFTER = (r"(?![^.;!?\n]*\b(?:\d+|" + "|".join(_NUMBER_WORDS) + r")\s+(?:more\s+)?"
                  r"(?:rounds?|rnds?|hours?|minutes?|days?|weeks?)\b)")
_FOR_ROUNDS = (rf"(?:for\s+(?:the\s+)?(?:next\s+)?{_ROUND_COUNT}\s*(?:rounds?|rnds?|minutes?|hours?|days?|weeks?)\b"
               r"|(?:for\s+|during\s+)?(?:the\s+)?next\s+(?:round|rnd)\b)")

# The default legend: the key every ruleset without one reads (docs/workbook-format.md).
_DEFAULT_SYMBOLS: tuple[tuple[str, Meaning], ...] = (
    ("H", Meaning.HITS), ("\u2211\u220f", Meaning.STUN_NO_PARRY), ("\u2211", Meaning.STUN),
    ("\u220f", Meaning.MUST_PARRY), ("\u222b", Meaning.BLEED),
)
# Where a meaning's rounds go: (stun, no parry, must parry, bleed, hits).
_ADDS = {
    Meaning.HITS: ("hits",), Meaning.STUN: ("stun",), Meaning.NO_PARRY: ("no_parry",),
    Meaning.STUN_NO_PARRY: ("stun", "no_parry"), Meaning.MUST_PARRY: ("must_parry",), Meaning.BLEED: ("bleed",),
}

# Words read in every legend: what a keyboard types and what books print.
_WORDS_EVERYWHERE: tuple[tuple[str, str], ...] = (
    # `-20 to activity` (a dash here is the penalty's sign); `for 3 rounds`, `for the next 3 rounds`,
    # `next round`, `until …` make it timed
    ("timed_penalty", rf"{_ACTIVITY}(?=\s*(?:\(?\s*{_FOR_ROUNDS}|until\b))(?:\s*\(?\s*{_FOR_ROUNDS}\)?)?"),
    ("penalty", _ACTIVITY),
    ("timed_penalty", rf"\(\s*{_MINUS}\s*\d+\s*\)(?=\s*(?:{_FOR_ROUNDS}|until\b))(?:\s*{_FOR_ROUNDS})?"),  # `(-20) for 3 rounds`
    # `Stunned for 6 rounds, then falls dead`: both the stun and the death
    ("stun+death_in", rf"(?i:\bstunned\s+(?:for\s+)?{_ROUND_COUNT}{_ROUNDS},?\s+(?:and\s+)?then\s+"
                      rf"(?:he\s+|she\s+|it\s+)?(?:dies|falls\s+dead|expires)\b(?!\s+(?:in|after)\s))"),  # its own delay read apart
    ("stun_no_parry", rf"(?i:\bstunned\s+and\s+unable\s+to\s+parry\s+(?:for\s+)?{_ROUND_COUNT}{_ROUNDS})"),
    # `stunned 1 round and unable to parry`: both, for the stun's rounds
    ("stun_no_parry", rf"(?i:\bstunned\s+(?:for\s+)?{_ROUND_COUNT}{_ROUNDS}\s+and\s+(?:is\s+)?unable\s+to\s+parry\b)"),
    # parries in words: `must parry 2 rounds`, `must parry next round`; `unable to parry for 2 rounds`
    ("must_parry", rf"(?i:\bmust\s+parry\s+(?:for\s+)?(?:the\s+)?(?:next\s+)?{_ROUND_COUNT}{_ROUNDS})"),
    ("must_parry", r"(?i:\bmust\s+parry\s+(?:for\s+|during\s+)?(?:the\s+)?next\s+(?:round|rnd)\b)"),
    ("no_parry", rf"(?i:\b(?:unable\s+to\s+parry|cannot\s+parry|can't\s+parry|no\s+parry)\s+(?:for\s+)?(?:the\s+)?"
                 rf"(?:next\s+)?{_ROUND_COUNT}{_ROUNDS})"),
    ("stun", rf"(?i:\bstunned\s+(?:for\s+)?{_ROUND_COUNT}{_ROUNDS})"),
    ("bleed", rf"(?i:{_COUNT}\s*(?:hits?\s*)?(?:per\s+|/\s*)(?:round|rnd)s?\b)"),
    ("hits", rf"(?i:{_COUNT}\s*hits?\b)"),
    ("penalty", rf"\(\s*{_MINUS}\s*\d+\s*\)"),
    ("attacker_bonus", r"\(\s*\+\s*\d+\s*\)"),
    # `dies in 9 inactive rounds`, `in 6 agonizing rounds`; not `after 6 more rounds` (more than what? a warning)
    ("death_in", rf"(?i:\b(?:dies|death|expires|suffocates)\s+(?:in|after)\s+{_ROUND_COUNT}\s+(?:(?!more\b)[a-z]+\s+)?"
                 rf"(?:rounds?|rnds?)\b)"),
    ("death_in", rf"(?i:\bfor\s+{_ROUND_COUNT}{_ROUNDS}\s+before\s+dying\b)"),
    # `Dies from internal bleeding and shock in 6 rounds`: the rounds later in the same sentence
    ("death_in", rf"(?i:\bdies\s+(?:of|from)\b[^.;!?\n]{{0,80}}?\b(?:in|after)\s+{_ROUND_COUNT}{_ROUNDS})"),
    ("death_in", rf"(?i:\bdies\b[^.;!?\n]{{0,60}}?\b{_ROUND_COUNT}{_ROUNDS}\s+later\b)"),  # `dies of shock 3 rounds later`
    ("death_in", rf"(?i:\b(?:falls|drops)\s+dead\s+(?:in|after)\s+{_ROUND_COUNT}{_ROUNDS})"),
    ("death_in", rf"(?i:\bfor\s+{_ROUND_COUNT}{_ROUNDS},?\s+(?:and\s+)?then\s+(?:he\s+|she\s+|it\s+)?dies\b)"),
    ("instant_death", r"(?i:\binstant\s+death\b|\b(?:dies|killed|kills?\s+(?:him|her|it|foe)|killing\s+(?:him|her|it|foe))\s+instantly\b"
                 r"|\b(?:dies|expires)(?:\s+in\s+a\s+heap)?\s*[,\u2014\u2013-]?\s*immediately\b"
                 # `Dies of a massive heart failure.`, `dies from broken neck`, `falls dead`: now, no rounds given
                 # (not `but then dies of nerve failure`: later, how much later unsaid: a warning instead)
                 rf"|(?<!then )\bdies\s+(?:of|from)\b{_NO_TIME_AFTER}"
                 rf"|\b(?:falls|drops)\s+dead\b{_NO_TIME_AFTER}"
                 # `He dies.`, `and dies.`; not `then he dies` (after what? a warning)
                 r"|(?<!then )\b(?:he|she|it|foe)\s+dies(?=\s*(?:[.!;]|$))|\band\s+dies?(?=\s*(?:[.!;]|$)))"),
)
# The ASCII spellings of the default legend, as they have always been read.
_DEFAULT_WORDS: tuple[tuple[str, str], ...] = (
    ("stun_no_parry", rf"(?i:{_COUNT}\s+no[ -]parry\b)"),
    ("stun", rf"(?i:{_COUNT}\s+stun(?:ned)?\b)"),
    ("must_parry", rf"(?i:{_COUNT}\s+(?:must\s+)?parry\b)"),
    ("bleed", rf"(?i:{_COUNT}\s+bleed\b)"),
)
# In a ruleset with a legend, the vocabulary's own words, each meaning what it says.
_VOCABULARY_WORDS: tuple[tuple[str, str], ...] = (
    ("stun_no_parry", rf"(?i:{_COUNT}\s+stun(?:ned)?\s+no[ -]parry\b)"),
    ("no_parry", rf"(?i:{_COUNT}\s+no[ -]parry\b)"),
    ("must_parry", rf"(?i:{_COUNT}\s+must\s+parry\b)"),
    ("stun", rf"(?i:{_COUNT}\s+stun(?:ned)?\b)"),
    ("bleed", rf"(?i:{_COUNT}\s+bleed\b)"),
    ("ambiguous_parry", rf"(?i:{_COUNT}\s+parry\b)"),
)


@dataclass(frozen=True)
class Effects:
    """An entry's effects. Counts are 0 or more: ``stun`` every round
    stunned, ``no_parry`` every round unable to parry, ``must_parry`` the
    rounds that must be spent parrying; ``parry_penalty`` (0 or less) the
    penalty to those parries (`(π-10)`); ``penalty`` 0 or less (`(-20)` is
    −20), lasting; ``attacker_bonus`` 0 or more; ``death_in`` the rounds
    until death (0: instant), None when the entry does not kill. ``timed``:
    the penalties for a time found in the text, kept as text only."""

    hits: int = 0
    stun: int = 0
    must_parry: int = 0
    no_parry: int = 0
    bleed: int = 0
    penalty: int = 0
    attacker_bonus: int = 0
    death_in: int | None = None
    parry_penalty: int = 0
    text: str = ""
    timed: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()  # printed pieces that look like effects and were not read (flagged, never applied)

    def __post_init__(self) -> None:
        for name in ("hits", "stun", "must_parry", "no_parry", "bleed", "attacker_bonus"):
            _check_bound(name, getattr(self, name), 0, EFFECT_LIMIT)
        for name in ("penalty", "parry_penalty"):
            _check_bound(name, getattr(self, name), -EFFECT_LIMIT, 0)
        if self.death_in is not None:
            _check_bound("death_in", self.death_in, 0, EFFECT_LIMIT)


_STRUCTURED_FIELDS = tuple(f.name for f in fields(Effects) if f.name not in ("text", "timed", "unread"))  # what has_effects looks at


def has_effects(effects: Effects, but: tuple[str, ...] = ()) -> bool:
    """Whether any structured effect is read (a death, even instant, counts), ``but`` those fields."""
    return any(getattr(effects, name) is not None if name == "death_in" else bool(getattr(effects, name))
               for name in _STRUCTURED_FIELDS if name not in but)


def _check_bound(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ValueError(f"{name} {value} is outside {low:,}..{high:,}")


@dataclass(frozen=True)
class _Reader:
    """A legend compiled: the spellings it reads, and what looks like an effect."""

    effect: re.Pattern[str]
    kinds: tuple[str, ...]  # the kind of each named group, by its index
    looks_like: re.Pattern[str]
    hint: str
    own_signs: str  # the signs the legend reads (with the pasted look-alikes)


@lru_cache(maxsize=4096)  # printed tables repeat their cells (`+2H`, `1∑`) hundreds of times
def parse_effects(text: str, legend: Legend = DEFAULT_LEGEND) -> Effects:
    """Read the effects printed in ``text`` with ``legend``; the text itself is kept whole."""
    reader = _reader(legend)
    totals: dict[str, int] = {}
    death: tuple[str, int] | None = None
    timed: list[str] = []
    prose: list[str] = []  # the text with its effects blanked out, built in the one pass
    last = 0
    for match in reader.effect.finditer(text):
        prose += (text[last:match.start()], " " * (match.end() - match.start()))  # positions kept for the message
        last = match.end()
        kind = reader.kinds[int((match.lastgroup or "g0")[1:])]
        token = match.group()
        if kind == "ambiguous_parry":
            raise ValueError(f"{shown(token)}: this ruleset's legend reads must parry and no parry apart: write "
                             f"{_number(token)} must parry or {_number(token)} no parry")
        if kind == "timed_penalty":
            timed.append(token)
            continue
        number = _number(token)
        if kind == "death_in":
            death = _one_death(death, token, number)
        elif kind == "instant_death":
            death = _one_death(death, token, 0)
        elif kind == "parry_with_penalty":  # `(π-10)`, `(2π-10)`: must parry at a penalty to the parry
            rounds, penalty = _numbers(token)
            _add(totals, "must_parry", rounds)
            _add(totals, "parry_penalty", -penalty)
        elif kind == "penalty":
            _add(totals, "penalty", -number)
        elif kind == "stun+death_in":
            _add(totals, "stun", number)
            death = _one_death(death, token, number)
        else:
            for field in kind.split("+"):
                _add(totals, field, number)
    prose.append(text[last:])
    _refuse_unread(reader, "".join(prose), text)
    # totals holds count fields only (_add's names); mypy cannot tell them from the tuple fields
    return Effects(**totals, death_in=death[1] if death else None, text=text, timed=tuple(timed))  # type: ignore[arg-type]


def _one_death(death: tuple[str, int] | None, token: str, number: int) -> tuple[str, int]:
    if death is not None:
        raise ValueError(f"two deaths in one entry: {shown(death[0])} and {shown(token)} (for different targets, "
                         "write branches: With helm: ... Without helm: ...)")
    return token, number


def _add(totals: dict[str, int], field: str, number: int) -> None:
    totals[field] = totals.get(field, 0) + number


@lru_cache(maxsize=64)
def _reader(legend: Legend, guarded: bool = True) -> _Reader:
    symbols = _DEFAULT_SYMBOLS if legend.is_default else legend.symbols
    signs = "".join(sorted(set(KNOWN_SIGNS + legend.signs())))
    sign_class = re.escape(signs)
    end = rf"(?![\w{sign_class}])"  # an effect ends there (`3∑x` is no effect)
    spellings: list[tuple[str, str]] = [("timed_penalty", _WORDS_EVERYWHERE[0][1])]
    must_parry = [symbol for symbol, meaning in symbols if meaning is Meaning.MUST_PARRY and not is_lettered(symbol)]
    for symbol in must_parry:  # `(π-10)`, before the bracket is read as a penalty
        spellings.append(("parry_with_penalty", rf"\(\s*(?:\+?\d+\s*)?{_symbol_pattern(symbol)}\s*{_MINUS}\s*\d+\s*\)"))
    for symbol, meaning in sorted(symbols, key=lambda pair: -len(pair[0])):  # the longest symbol first
        kind = "+".join(_ADDS[meaning])
        if is_lettered(symbol):  # a letter needs its count, glued: `+5H`, `5h`
            spellings.append((kind, rf"{_COUNT}(?i:{re.escape(symbol)}){end}"))
        else:  # a sign may stand bare (1) or after a count: `∑`, `3∑`, `3 ∑`
            spellings.append((kind, rf"(?:{_COUNT}\s*|(?<![\w{sign_class}])){_symbol_pattern(symbol)}{end}"))
    spellings += _DEFAULT_WORDS if legend.is_default else _VOCABULARY_WORDS
    spellings += _WORDS_EVERYWHERE[1:]
    kinds = tuple(kind.replace("stun_no_parry", "stun+no_parry") for kind, _ in spellings)
    # Every spelling starts with a count (`+`, a digit), `(`, a dash, a sign, or a word with one of
    # these letters: the guard skips every other position at once (3 times faster on prose).
    guard = rf"(?=[0-9+({re.escape(DASHES)}{sign_class}]|\b(?i:{'|'.join(_WORD_LEADS)}))" if guarded else ""
    effect = re.compile(guard + "(?:" + "|".join(f"(?P<g{i}>{pattern})" for i, (_, pattern) in enumerate(spellings)) + ")")
    # What still looks like an effect once the effects are read: a sign, a
    # signed number glued to letters, a bracketed signed number.
    # (and a sign left in a bracket around a read effect, `(-20H)`; a count spaced from its letter, `+5 H`)
    looks_like = re.compile(rf"[{sign_class}]|(?<![\w.])\+\d+[^\W\d]|\(\s*(?:\+|{_MINUS})(?:\s*(?:\+|{_MINUS}))*\s*\d"
                            rf"|\(\s*(?:\+|{_MINUS})\s*\)|(?<![\w.])\+\d+\s+(?-i:[A-Z])(?!\w)")
    own = "".join(c for symbol, _ in symbols if not is_lettered(symbol) for c in symbol)
    own += "".join(pasted for pasted, printed in LOOKALIKES.items() if printed in own)
    return _Reader(effect, kinds, looks_like, _hint(symbols), own)


def _symbol_pattern(symbol: str) -> str:
    """A sign as printed or pasted (Σ for ∑, Π for ∏), spaces allowed between its characters."""
    parts = []
    for character in symbol:
        alikes = [character] + [pasted for pasted, printed in LOOKALIKES.items() if printed == character]
        parts.append("[" + re.escape("".join(alikes)) + "]")
    return r"\s*".join(parts)


def _hint(symbols: tuple[tuple[str, Meaning], ...]) -> str:
    if symbols is _DEFAULT_SYMBOLS:
        return "write e.g. +5H, 3∑, 2∏, 2∑∏, 3∫, (-20), (+10), dies in 6 rounds"
    written = ", ".join(f"+5{symbol}" if is_lettered(symbol) else f"2{symbol}" for symbol, _ in symbols)
    return f"this ruleset's legend reads {written}, (-20), (+10), dies in 6 rounds"


def _number(token: str) -> int:
    """The count in an effect's token (digits, or a word: `dies in six rounds`); 1 for a bare sign."""
    found = _NUMBER.search(token)
    if found:
        return _bounded(token, found.group())
    words = [_NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", token.lower()) if w in _NUMBER_WORDS]
    return words[0] if words else 1


def _numbers(token: str) -> tuple[int, int]:
    """(rounds, penalty) of `(π-10)` (1 round) or `(2π-10)`."""
    found = [_bounded(token, digits) for digits in _NUMBER.findall(token)]
    return (found[0], found[1]) if len(found) == 2 else (1, found[0])


def _bounded(token: str, digits: str) -> int:
    if len(digits.lstrip("0")) > len(str(EFFECT_LIMIT)):  # before int() meets thousands of digits
        raise ValueError(f"{shown(token, 40)}: {len(digits.lstrip('0')):,} digits are more than {EFFECT_LIMIT:,}")
    number = int(digits)
    if number > EFFECT_LIMIT:
        raise ValueError(f"{shown(token, 40)}: {number:,} is more than {EFFECT_LIMIT:,}")
    return number


def _refuse_unread(reader: _Reader, prose: str, text: str) -> None:
    """``prose``: the text with its effects blanked out, position for position;
    the message quotes the text's own word where something is left."""
    if found := reader.looks_like.search(prose):
        token = next(t.group() for t in re.finditer(r"\S+", text) if t.start() <= found.start() < t.end())
        if found.group() in KNOWN_SIGNS and found.group() not in reader.own_signs:
            where = "" if token == found.group() else f"{shown(token)}: "
            raise ValueError(f"{where}{shown(found.group())} is a sign this ruleset's legend does not read (other books "
                             "print it): give the ruleset a legend (Symbol | Means) that says what it means")
        raise ValueError(f"{shown(token)} is not an effect: {reader.hint}")


def effect_words(e: Mapping[str, Any]) -> str:
    """An entry's effects in words, from its JSON (services/lookups.py, entry_json):
    `+7 hits, bleed 2/rnd, stun 1 rnd, no parry 1, must parry 1 at -10, penalty -5,
    attacker +10, dies in 6 rounds, drop weapon`. A death its tags already say
    (`death in 6`, `instant death`) is not said twice."""
    tags = list(e["effects"])
    death = format_death(e.get("death_in"))
    if death and any(" ".join(tag.lower().split()) in (f"death in {e['death_in']}", "instant death") for tag in tags):
        death = ""
    parry = e.get("parry_penalty")
    parts = [f"+{e['hits']} hits" if e["hits"] else "", f"bleed {e['bleed']}/rnd" if e["bleed"] else "",
             f"stun {e['stun']} rnd" if e["stun"] else "", f"no parry {e['no_parry']}" if e.get("no_parry") else "",
             f"must parry {e['must_parry']}{f' at {parry}' if parry else ''}" if e.get("must_parry") else "",
             f"penalty {e['penalty']}" if e["penalty"] else "",
             f"attacker +{e['attacker_bonus']}" if e.get("attacker_bonus") else "", death]
    return ", ".join(x for x in [*parts, *tags] if x)


def format_death(death_in: int | None) -> str:
    """`dies in 6 rounds`, `instant death` (0), or nothing (None)."""
    if death_in is None:
        return ""
    if death_in == 0:
        return "instant death"
    return f"dies in {death_in} round{'' if death_in == 1 else 's'}"
