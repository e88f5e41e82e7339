"""A critical entry's effects as printed inside its text, and the branches
printed inside one cell (`With helm: +3H – 2∑. Without helm: +6H – 3∑∏.`).

Printed notation and the ASCII spellings a keyboard types (letter case of
the words does not matter; a count may carry a `+`, never a `-`):

======================  ==========================================  ==============
effect                  spellings                                   field
======================  ==========================================  ==============
extra hits              `+5H`, `5H`, `+5 hits`, `5 hits`, `+1 hit`  ``hits``
stunned N rounds        `3∑`, `3Σ`, `3 stun`, `3 stunned`           ``stun``
must parry N rounds     `2∏`, `2Π`, `2 parry`, `2 must parry`       ``must_parry``
stunned and unable to   `2∑∏` (any mix of ∑/Σ and ∏/Π),             ``no_parry``
parry N rounds          `2 no parry`, `2 no-parry`
bleeds N hits a round   `3∫`, `3 bleed`, `3 hits per round`         ``bleed``
penalty                 `(-20)` (any dash or minus sign)            ``penalty`` −20
attacker's bonus        `(+10)`: +10 to the attacker next round     ``attacker_bonus``
death                   `dies in 6 rounds`, `death in 1 round`,     ``death_in`` 6, 1
                        `dies after 6 rounds`, `expires (suffocates)
                        in six rounds`, `dies 6 rounds later`, `in shock
                        for 12 rounds, then dies`
                        `instant death`, `dies instantly`, `killed  ``death_in`` 0
                        instantly`, `killing him instantly`
======================  ==========================================  ==============

Decisions:

- `2∑∏` is **not** also counted as `stun`: ``stun`` holds the rounds stunned
  but able to parry, ``no_parry`` the rounds stunned and unable to parry, so
  `3∑ – 2∑∏` is stun 3, no_parry 2 and ``rounds_stunned`` 5. Every
  combination then prints back as it was read.
- Effects of one kind add up (`+5H … +2H` is 7 hits; `(-10) … (-20)` is a
  penalty of −30); a second death is an error.
- Separators between effects (`–`, `-`, `—`, `,`, `;`, spaces) are not
  needed to read them. As counts are never negative, a `-` before a
  count separates it (`+5H-2∑` is 5 hits and 2 rounds stunned).
- An effect-like token that is none of the above (`3∑x`, `∑`, `+5Hx`,
  `(-20x)`) is an error naming the token, never prose: an effect
  silently read as prose would be an effect lost.
- ``text`` is the whole text as given, effects included: it is what people
  read, and printed effects are part of it.

Branches inside one cell are read by ``domain/branches.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields

from tables_app.domain.bounds import EFFECT_LIMIT
from tables_app.domain.legend import DEFAULT_LEGEND, Legend
from tables_app.domain.names import shown
from tables_app.domain.ranges import DASHES

SEPARATOR = " \u2013 "  # ` – `, as printed between effects

_STUN = "\u2211\u03a3"  # ∑ and the Greek capital sigma people paste for it
_PARRY = "\u220f\u03a0"  # ∏ and the Greek capital pi
_BLEED = "\u222b"  # ∫
_SIGNS = _STUN + _PARRY + _BLEED
_MINUS = "[" + re.escape(DASHES) + "]"

_COUNT = r"(?<![\w.])\+?\d+"  # a count: digits not glued to a word, perhaps a `+`
_END = rf"(?![\w{_SIGNS}])"  # ... and the effect ends there (`3∑x` is no effect)
_ROUNDS = r"\s+rounds?\b"
# Death is printed as prose, its rounds in digits or a word: `dies in six rounds`.
_NUMBER_WORDS = {word: n for n, word in enumerate(
    "one two three four five six seven eight nine ten eleven twelve".split(), start=1)}
_ROUND_COUNT = r"(?:\d+|" + "|".join(_NUMBER_WORDS) + ")"

# Tried in this order at each position: `2∑∏` before `2∑`, `3 hits per round`
# before `3 hits`.
_SPELLINGS: tuple[tuple[str, str], ...] = (
    ("no_parry", rf"{_COUNT}\s*[{_STUN}]\s*[{_PARRY}]{_END}"),
    ("no_parry", rf"{_COUNT}\s+(?i:no[ -]parry){_END}"),
    ("stun", rf"{_COUNT}\s*[{_STUN}]{_END}"),
    ("stun", rf"{_COUNT}\s+(?i:stun(?:ned)?){_END}"),
    ("must_parry", rf"{_COUNT}\s*[{_PARRY}]{_END}"),
    ("must_parry", rf"{_COUNT}\s+(?i:(?:must\s+)?parry){_END}"),
    ("bleed", rf"{_COUNT}\s*{_BLEED}{_END}"),
    ("bleed", rf"{_COUNT}\s+(?i:bleed|hits?\s+per\s+round){_END}"),
    ("hits", rf"{_COUNT}(?i:h|\s*hits?){_END}"),
    ("penalty", rf"\(\s*{_MINUS}\s*\d+\s*\)"),
    ("attacker_bonus", r"\(\s*\+\s*\d+\s*\)"),
    ("death_in", rf"(?i:\b(?:dies|death|expires|suffocates)\s+(?:in|after)\s+{_ROUND_COUNT}{_ROUNDS})"),
    ("death_in", rf"(?i:\bdies\s+{_ROUND_COUNT}{_ROUNDS}\s+later\b)"),
    ("death_in", rf"(?i:\bfor\s+{_ROUND_COUNT}{_ROUNDS},?\s+(?:and\s+)?then\s+(?:he\s+|she\s+|it\s+)?dies\b)"),
    ("death_in", r"(?i:\binstant\s+death\b|\b(?:dies|killed|killing\s+(?:him|her|it|foe))\s+instantly\b)"),
)
_EFFECT = re.compile("|".join(f"(?P<{kind}_{i}>{pattern})" for i, (kind, pattern) in enumerate(_SPELLINGS)))
_NUMBER = re.compile(r"\d+")
# What looks like an effect once the effects are read: a sign, a signed
# number glued to letters, a bracketed signed number.
_EFFECT_LIKE = re.compile(rf"[{_SIGNS}]|(?<![\w.])\+\d+[^\W\d]|\(\s*(?:\+|{_MINUS})(?:\s*(?:\+|{_MINUS}))*\s*\d")
_HINT = "write e.g. +5H, 3∑, 2∏, 2∑∏, 3∫, (-20), (+10), dies in 6 rounds"


@dataclass(frozen=True)
class Effects:
    """An entry's effects. Counts are 0 or more; ``penalty`` is 0 or less
    (`(-20)` is −20); ``attacker_bonus`` 0 or more; ``death_in`` the rounds
    until death (0: instant), None when the entry does not kill."""

    hits: int = 0
    stun: int = 0
    must_parry: int = 0
    no_parry: int = 0
    bleed: int = 0
    penalty: int = 0
    attacker_bonus: int = 0
    death_in: int | None = None
    text: str = ""

    def __post_init__(self) -> None:
        for name in ("hits", "stun", "must_parry", "no_parry", "bleed", "attacker_bonus"):
            _check_bound(name, getattr(self, name), 0, EFFECT_LIMIT)
        _check_bound("penalty", self.penalty, -EFFECT_LIMIT, 0)
        if self.death_in is not None:
            _check_bound("death_in", self.death_in, 0, EFFECT_LIMIT)

    @property
    def rounds_stunned(self) -> int:
        """Every round stunned, whether able to parry (`3∑`) or not (`2∑∏`)."""
        return self.stun + self.no_parry


EFFECT_FIELDS = tuple(f.name for f in fields(Effects) if f.name != "text")  # the structured ones


def _check_bound(name: str, value: int, low: int, high: int) -> None:
    if not low <= value <= high:
        raise ValueError(f"{name} {value} is outside {low:,}..{high:,}")


def parse_effects(text: str, legend: Legend = DEFAULT_LEGEND) -> Effects:
    """Read the effects printed in ``text`` with ``legend``; the text itself is kept whole."""
    totals: dict[str, int] = {}
    death: tuple[str, int] | None = None
    for match in _EFFECT.finditer(text):
        kind = (match.lastgroup or "").rsplit("_", 1)[0]
        token = match.group()
        number = _number(token)
        if kind == "death_in":
            if death is not None:
                raise ValueError(f"two deaths in one entry: {shown(death[0])} and {shown(token)} (for different targets, "
                                 "write branches: With helm: ... Without helm: ...)")
            death = token, number
        else:
            totals[kind] = totals.get(kind, 0) + (-number if kind == "penalty" else number)
    _refuse_unreadable(_EFFECT.sub(" ", text))
    return Effects(**totals, death_in=death[1] if death else None, text=text)


def _number(token: str) -> int:
    """The count in an effect's token; 0 for `instant death`."""
    found = _NUMBER.search(token)
    if found and len(found.group().lstrip("0")) > len(str(EFFECT_LIMIT)):  # before int() meets thousands of digits
        raise ValueError(f"{shown(token, 40)}: {len(found.group().lstrip('0')):,} digits are more than {EFFECT_LIMIT:,}")
    words = [_NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", token.lower()) if w in _NUMBER_WORDS]
    number = int(found.group()) if found else words[0] if words else 0
    if number > EFFECT_LIMIT:
        raise ValueError(f"{shown(token, 40)}: {number:,} is more than {EFFECT_LIMIT:,}")
    return number


def _refuse_unreadable(prose: str) -> None:
    """``prose``: the text with its effects blanked out."""
    if found := _EFFECT_LIKE.search(prose):
        token = next(t.group() for t in re.finditer(r"\S+", prose) if t.start() <= found.start() < t.end())
        raise ValueError(f"{shown(token)} is not an effect: {_HINT}")


def format_effects(effects: Effects) -> str:
    """The canonical printed notation of the effects (without the prose),
    e.g. `+5H – 3∑ – 2∑∏ – 2∏ – 3∫ – (-20) – (+10) – dies in 6 rounds`;
    "" when there are none. ``parse_effects`` reads it back to the same
    numbers."""
    parts = [
        f"+{effects.hits}H" if effects.hits else "",
        f"{effects.stun}\u2211" if effects.stun else "",
        f"{effects.no_parry}\u2211\u220f" if effects.no_parry else "",
        f"{effects.must_parry}\u220f" if effects.must_parry else "",
        f"{effects.bleed}\u222b" if effects.bleed else "",
        f"({effects.penalty})" if effects.penalty else "",
        f"(+{effects.attacker_bonus})" if effects.attacker_bonus else "",
        format_death(effects.death_in),
    ]
    return SEPARATOR.join(part for part in parts if part)


def format_death(death_in: int | None) -> str:
    """`dies in 6 rounds`, `instant death` (0), or nothing (None)."""
    if death_in is None:
        return ""
    if death_in == 0:
        return "instant death"
    return f"dies in {death_in} round{'' if death_in == 1 else 's'}"
