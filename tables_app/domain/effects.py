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
from dataclasses import dataclass, fields, replace
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from tables_app.domain.bounds import EFFECT_LIMIT
from tables_app.domain.legend import (DEFAULT_LEGEND, KNOWN_SIGNS, LOOKALIKES, ROUND_MEANINGS, Legend, Meaning, is_lettered,
                                      is_word)

from tables_app.domain.names import shown
from tables_app.domain.patterns import deferred
from tables_app.domain.ranges import DASHES

_MINUS = "[" + re.escape(DASHES) + "]"
_COUNT = r"(?<![\w.])\+?\d+"  # a count: digits not glued to a word, perhaps a `+`
_ROUNDS = r"\s*(?:rounds?|rnds?)\b"  # `rounds`, `round`, `rnds`, `rnd`
# Death is printed as prose, its rounds in digits or a word: `dies in six rounds`.
_NUMBER_WORDS = {word: n for n, word in enumerate(
    "one two three four five six seven eight nine ten eleven twelve".split(), start=1)}
_ROUND_COUNT = r"(?:\d+|" + "|".join(_NUMBER_WORDS) + ")"
_NUMBER = deferred(r"\d+")
# The first words of the spellings in words: where one of these starts, a spelling may (the guard below)
# (a short word is a whole word: `no` leads `no parry`, not `number`; the others lead their forms, `dies`, `killed`)
_WORD_LEADS = ("die", "death", "drops", "expires", "stunned", "suffocates", r"she\b", "kill", "instant", r"it\b", r"for\b",
               "falls", r"foe\b", r"he\b", r"and\b", "must", "unable", "cannot", "can't", r"no\b", r"at\b", "bleed", "dying",
               "dead")
# `-20 to activity`, `-30 activity`, `−15 to all activity`, as Against the Darkmaster words it `-5 to all
# actions`, `-60 to all other actions`, `-10 activities` (a dash here is the penalty's sign); `at -20`
_ACTIVITY = (rf"(?i:{_MINUS}\s*\d+\s+(?:to\s+){{0,2}}(?:all\s+)?(?:other\s+)?(?:activity|activities|actions?)\b"
             rf"|(?<!special\s){_MINUS}\s*\d+\s+penalty\b(?!\s+(?:to|on)\b)|\bat\s+{_MINUS}\s*\d+\b(?!\s*%)(?!\s+(?:to|on)\b)(?!\s+(?-i:[A-Z]{{2,}})\b))")  # `-40 to to all actions`: a typo read
# A bare word is no effect after a negation: `not Stunned`, `isn't stunned`, `never stunned`, `Not dazed`,
# `neither stunned nor knocked down`, `avoids being knocked down`, `nearly drops weapon`, `no longer prone`
_NOT_NEGATED = "".join(rf"(?<!{word}\s)(?<!{word}\s\s)" for word in (
    "(?i:not)", "(?i:never)", "n't", "n\u2019t", "(?i:not)\\sbe", "(?i:no)", "(?i:nor)", "(?i:neither)",
    "(?i:without)", "(?i:without)\\sbeing", "(?i:avoid)", "(?i:avoids)", "(?i:avoiding)", "(?i:avoid)\\sbeing",
    "(?i:avoids)\\sbeing", "(?i:avoiding)\\sbeing", "(?i:nearly)", "(?i:almost)", "(?i:no)\\slonger"))
_PER_ROUND = r"(?i:(?:per\s+|/\s*|a\s+|each\s+|every\s+)(?:round|rnd)s?\b)"
# ... and no time said later in the sentence (`dies from blood loss in 12 hours`: not instant; a warning)
_NO_TIME_AFTER = (r"(?![^.;!?\n]*\b(?:\d+|" + "|".join(_NUMBER_WORDS) + r")\s+(?:more\s+)?"
                  r"(?:rounds?|rnds?|hours?|minutes?|days?|weeks?)\b)")
_FOR_ROUNDS = (rf"(?:(?:for\s+(?:the\s+)?(?:next\s+)?|the\s+next\s+){_ROUND_COUNT}\s*(?:rounds?|rnds?|minutes?|hours?|days?|weeks?)\b"
               r"|(?:for\s+|during\s+)?(?:the\s+)?next\s+(?:round|rnd)\b)")


def _timed_penalty(lasting: str) -> str:
    """A lasting penalty's spelling (``lasting``) followed by a time: `for 3 rounds`, `for the next 3 rounds`,
    `next round`, `until …` make it a penalty for a time."""
    return rf"(?:{lasting})(?=\s*,?\s*(?:\(?\s*{_FOR_ROUNDS}|until\b))(?:\s*,?\s*\(?\s*{_FOR_ROUNDS}\)?)?"

# `-20 for 3 rounds`, `-10 for the next 2 rnds`: a bare signed number with its rounds is a penalty for that time
_BARE_TIMED = (rf"(?<![\w.]){_MINUS}\s*\d+\s*,?\s*\(?\s*(?i:for\s+(?:the\s+)?(?:next\s+)?{_ROUND_COUNT}{_ROUNDS}"
               r"|(?:for\s+|during\s+)?(?:the\s+)?next\s+(?:round|rnd)\b)\)?")
_TIMED_ROUNDS = deferred(rf"(?i:\b({_ROUND_COUNT})\s*(?:rounds?|rnds?)\b|\bnext\s+(?:round|rnd)\b)")


def timed_rounds(token: str) -> int | None:
    """The rounds a penalty for a time lasts (`for 3 rounds`, `next round`: 1); None for any other time
    (`until healed`, `for 2 hours`: it stays in the text, flagged)."""
    found = _TIMED_ROUNDS.search(token)
    if found is None or re.search(r"(?i)\b(?:minutes?|hours?|days?|weeks?|until)\b", token):
        return None
    if found.group(1) is None:
        return 1
    count = found.group(1).lower()
    return _NUMBER_WORDS[count] if count in _NUMBER_WORDS else int(count)


# The default legend: the key every ruleset without one reads (docs/workbook-format.md).
_DEFAULT_SYMBOLS: tuple[tuple[str, Meaning], ...] = (
    ("H", Meaning.HITS), ("\u2211\u220f", Meaning.STUN_NO_PARRY), ("\u2211", Meaning.STUN),
    ("\u220f", Meaning.MUST_PARRY), ("\u222b", Meaning.BLEED),
)
# Where a meaning's rounds go: (stun, no parry, must parry, bleed, hits).
_ADDS = {
    Meaning.HITS: ("hits",), Meaning.STUN: ("stun",), Meaning.NO_PARRY: ("no_parry",),
    Meaning.STUN_NO_PARRY: ("stun", "no_parry"), Meaning.MUST_PARRY: ("must_parry",), Meaning.BLEED: ("bleed",),
    Meaning.PENALTY: ("penalty",),
    Meaning.PRONE: ("prone",), Meaning.BLINDED: ("blinded",), Meaning.KNOCKED_OUT: ("knocked_out",),
    Meaning.DROPS_WEAPON: ("drops_weapon",), Meaning.BREAKS_WEAPON: ("breaks_weapon",),
    Meaning.USELESS_ARM: ("useless_arm",), Meaning.USELESS_LEG: ("useless_leg",),
}
# The rest of a critical (docs/workbook-format.md, "Effects in words"): the kinds read as conditions, not summed counts.
_FLAG_KINDS = ("drops_weapon", "breaks_weapon", "useless_arm", "useless_leg")
CONDITION_FIELDS = ("prone", "knocked_out", "blinded", *_FLAG_KINDS, "timed_penalties")
# rounds printed after a condition: `prone for 2 rounds`, `blind 2 rnds`, `knocked out: 3 rounds`
_ROUNDS_AFTER = (rf"(?:\s*(?:[:{re.escape(DASHES)}]\s*)?(?:for\s+)?(?:the\s+)?(?:next\s+)?{_ROUND_COUNT}{_ROUNDS}"
                 r"|\s+(?:for\s+|during\s+)?(?:the\s+)?next\s+(?:round|rnd)\b)")
# ... and what a bare condition is not followed by: a time (`knocked out for 2 hours` is flagged, not read)
_NO_TIME = r"(?![-\u2010\u2011])(?!\s*(?:[:" + re.escape(DASHES) + r"]\s*)?(?:for\b|during\b|this\b|up\s+to\b|\d|" + \
    "|".join(rf"{word}\b" for word in _NUMBER_WORDS) + "))"
_WHOSE = r"(?:(?:his|her|its|their|the|your|one|a|foe's|opponent's)\s+)?"
_ARM, _LEG = r"(?:arms?|hands?)", r"(?:legs?|foot|feet|knees?)"
_SIDE = r"(?:(?:left|right|shield|weapon|sword|other)\s+)?"


_FALLS_WORDS = ("knocked", "thrown", "fall", "falls", "fell", "go", "goes", "went", "slip", "slips", "drop", "drops")
_FALLS = "(?:" + "|".join(_FALLS_WORDS) + ")"


def _condition(kind: str, words: str, timed: bool = True) -> tuple[str, str]:
    """A condition printed in words (``words``, a pattern), not after a negation;
    its rounds after it when ``timed`` (else bare only); bare, it is not
    followed by a time (`knocked out for 2 hours` is no reading of it)."""
    rounds = f"(?:{_ROUNDS_AFTER}|{_NO_TIME})" if timed else _NO_TIME
    return kind, rf"(?=(?i:{words})){_NOT_NEGATED}(?i:{words}){rounds}"


_CONDITION_WORDS: tuple[tuple[str, str], ...] = (
    _condition("knocked_out", r"\bknocked\s+(?:out|unconscious|senseless)\b|\b(?:falls\s+)?unconscious\b"),
    _condition("prone", rf"\b{_FALLS}\s+(?:down|prone|to\s+the\s+(?:ground|floor))\b"
                        # bare `prone`, not the end of a falling the negation was looked at on (`not knocked prone`)
                        + r"|" + "".join(rf"(?<!\b{verb}\s)" for verb in _FALLS_WORDS) + r"\bprone\b"),
    _condition("blinded", r"\bblinded\b"),
    ("blinded", rf"(?=(?i:\bblind\b)){_NOT_NEGATED}(?i:\bblind\b){_ROUNDS_AFTER}"),  # `blind 2 rnds`: with its rounds only
    _condition("breaks_weapon", rf"\bweapons?\s+(?:is\s+|are\s+)?(?:broken|breaks|shatters|shattered|snaps|snapped)\b"
                                rf"|\b(?:breaks?|shatters?|snaps?)\s+{_WHOSE}weapons?\b|\bbroken\s+weapons?\b", timed=False),
    _condition("drops_weapon", rf"\b(?:drops?|dropping|loses?|losing)\s+{_WHOSE}weapons?\b"
                               r"|\bweapons?\s+(?:is\s+|are\s+)?(?:dropped|lost|knocked\s+(?:away|loose|free))\b"
                               r"|\bdisarmed\b", timed=False),
    _condition("useless_arm", rf"\b{_ARM}\s+(?:is\s+|are\s+)?useless\b|\buseless\s+{_SIDE}{_ARM}\b", timed=False),
    _condition("useless_leg", rf"\b{_LEG}\s+(?:is\s+|are\s+)?useless\b|\buseless\s+{_SIDE}{_LEG}\b", timed=False),
)
# Read in a pass of their own over the prose the other spellings leave (a legend's own word for one is read
# there first), and only where one of these words stands: most entries say none, and pay nothing for them.
_CONDITION_HINTS = ("prone", "knock", "unconscious", "blind", "weapon", "disarm", "useless", "thrown", "fell", "fall", "goes",
                    "slip", "drop")
_CONDITIONS = deferred(r"(?=\b(?i:knock|prone|unconscious|blind|weapon|disarm|useless|thrown|fel|fall|goes|slip|drop|break"
                         r"|broken|shatter|snap|los|arm|hand|leg|foot|feet|knee))(?:"
                         + "|".join(f"(?P<g{i}>{pattern})" for i, (_, pattern) in enumerate(_CONDITION_WORDS)) + ")")

# Words read in every legend: what a keyboard types and what books print.
_WORDS_EVERYWHERE: tuple[tuple[str, str], ...] = (
    # `-20 to activity` (a dash here is the penalty's sign); `for 3 rounds`, `for the next 3 rounds`,
    # `next round`, `until …` make it timed
    ("timed_penalty", _timed_penalty(_ACTIVITY)),
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
    ("stun", rf"(?i:\bstunned\s*(?:[:{re.escape(DASHES)}]\s*)?(?:for\s+)?{_ROUND_COUNT}{_ROUNDS})"),
    # a bare `Stunned` (Against the Darkmaster prints no count): 1 round; not `stunned for 2 hours`, `stunned this
    # round and next`, `stunned 1 hour`, `not stunned` (flagged, or prose)
    ("stun", r"(?=(?i:stunned))" + _NOT_NEGATED + r"(?i:\bstunned\b(?![-\u2010\u2011])(?!\s*(?:for\b|this\b|until\b|up\s+to\b|\d|\(|[:–—-]\s*\d|and\s+unable\b|"
             + "|".join(rf"{word}\b" for word in _NUMBER_WORDS) + ")))"),
    ("bleed", rf"(?i:{_COUNT}\s*(?:(?:hits?|damage)\s*)?(?:per\s+|/\s*|each\s+|every\s+)(?:round|rnd)s?\b)"),
    # `Bleeds for 3` (not `bleeds for 3 rounds`: a time, flagged)
    ("bleed", r"(?i:\bbleeds?\s+for\s+\d+\b(?!\s*(?:more\s+)?(?:rounds?|rnds?|minutes?|hours?|days?|weeks?)\b))"),
    ("hits", rf"(?i:{_COUNT}\s*(?:hits?|damage)\b)"),  # `+2 Damage`, as Against the Darkmaster prints it
    ("penalty", rf"\(\s*{_MINUS}\s*\d+\s*\)"),
    ("attacker_bonus", r"\(\s*\+\s*\d+\s*\)"),
    # `dies in 9 inactive rounds`, `in 6 agonizing rounds`; not `after 6 more rounds` (more than what? a warning)
    # `Dying in 6 rounds`, `dead in 3 Rounds`, `dies in 4 horrible, screaming Rounds` (up to three words between)
    ("death_in", rf"(?i:\b(?:dies|death|expires|suffocates|dying|dead)\s+(?:in|after)\s+{_ROUND_COUNT}\s+"
                 rf"(?:(?!more\b)[a-z]+,?\s+){{0,3}}(?:rounds?|rnds?)\b)"),
    # `failing means death from shock in 3 Rounds`: the rounds later in the same sentence
    ("death_in", rf"(?i:\bdeath\b[^.;!?\n]{{0,60}}?\bin\s+{_ROUND_COUNT}{_ROUNDS})"),
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
    ("bleed", rf"(?i:{_COUNT}\s+bleeds?\b)"),
)
# In a ruleset with a legend, the vocabulary's own words, each meaning what it says.
_VOCABULARY_WORDS: tuple[tuple[str, str], ...] = (
    ("stun_no_parry", rf"(?i:{_COUNT}\s+stun(?:ned)?\s+no[ -]parry\b)"),
    ("no_parry", rf"(?i:{_COUNT}\s+no[ -]parry\b)"),
    ("must_parry", rf"(?i:{_COUNT}\s+must\s+parry\b)"),
    ("stun", rf"(?i:{_COUNT}\s+stun(?:ned)?\b)"),
    ("bleed", rf"(?i:{_COUNT}\s+bleeds?\b)"),
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
    # the rest of a critical (docs/fights.md, "The rest of a critical"): rounds prone, knocked out (0: until
    # woken; None: not), rounds blinded, a weapon dropped or broken, a useless arm or leg, penalties for N rounds
    prone: int = 0
    knocked_out: int | None = None
    blinded: int = 0
    drops_weapon: bool = False
    breaks_weapon: bool = False
    useless_arm: bool = False
    useless_leg: bool = False
    timed_penalties: tuple[tuple[int, int], ...] = ()  # (penalty, rounds): `-20 for 3 rounds` is (-20, 3)
    text: str = ""
    timed: tuple[str, ...] = ()
    unread: tuple[str, ...] = ()  # printed pieces that look like effects and were not read (flagged, never applied)

    def __post_init__(self) -> None:
        for name in ("hits", "stun", "must_parry", "no_parry", "bleed", "attacker_bonus"):
            _check_bound(name, getattr(self, name), 0, EFFECT_LIMIT)
        if self.prone or self.blinded or self.knocked_out or self.timed_penalties:  # (most entries hold none)
            self._check_conditions()
        for name in ("penalty", "parry_penalty"):
            _check_bound(name, getattr(self, name), -EFFECT_LIMIT, 0)
        if self.death_in is not None:
            _check_bound("death_in", self.death_in, 0, EFFECT_LIMIT)

    def _check_conditions(self) -> None:
        for name in ("prone", "blinded"):
            _check_bound(name, getattr(self, name), 0, EFFECT_LIMIT)
        if self.knocked_out is not None:
            _check_bound("knocked_out", self.knocked_out, 0, EFFECT_LIMIT)
        for penalty, rounds in self.timed_penalties:
            _check_bound("a timed penalty", penalty, -EFFECT_LIMIT, -1)
            _check_bound("a timed penalty's rounds", rounds, 1, EFFECT_LIMIT)


_STRUCTURED_FIELDS = tuple(f.name for f in fields(Effects) if f.name not in ("text", "timed", "unread"))  # what has_effects looks at


def has_effects(effects: Effects, but: tuple[str, ...] = ()) -> bool:
    """Whether any structured effect is read (a death, even instant, counts), ``but`` those fields."""
    return any(getattr(effects, name) is not None if name in ("death_in", "knocked_out") else bool(getattr(effects, name))
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
    suspects: re.Pattern[str]  # what looks like an effect and is not read: flagged (_unread_pieces)


# Effects counted per die or per thing (`1d5 broken ribs, -5 penalty for each broken rib`): a count the
# table cannot know; the sentence is flagged whole, its effects never applied
_PER_EACH = deferred(r"(?i)\bfor\s+(?:each|every)\b|(?<![\w.])\d*d\d+(?!\w)")
SENTENCES = deferred(r"[^.;!?\n]+")  # an entry's sentences (and clauses after `;`), as printed


@lru_cache(maxsize=4096)  # printed tables repeat their cells (`+2H`, `1∑`) hundreds of times
def parse_effects(text: str, legend: Legend = DEFAULT_LEGEND) -> Effects:
    """Read the effects printed in ``text`` with ``legend``; the text itself is kept whole."""
    if not _PER_EACH.search(text):
        return _read(text, legend)
    pieces: list[str] = []
    masked = text
    for sentence in SENTENCES.finditer(text):
        if _PER_EACH.search(sentence.group()) and has_effects(_read(sentence.group(), legend)):
            pieces.append(" ".join(sentence.group().split()))
            masked = masked[:sentence.start()] + " " * (sentence.end() - sentence.start()) + masked[sentence.end():]
    effects = _read(masked, legend)
    return replace(effects, text=text, unread=tuple(dict.fromkeys([*pieces, *effects.unread])))


def _read(text: str, legend: Legend) -> Effects:
    reader = _reader(legend)
    totals: dict[str, int] = {}
    death: tuple[str, int] | None = None
    timed: list[str] = []
    timed_read: list[tuple[int, int]] = []  # (penalty, rounds) of each penalty for a number of rounds
    flags: dict[str, bool] = {}
    out: int | None = None  # knocked out: rounds, 0 until woken
    prose: list[str] = []  # the text with its effects blanked out, built in the one pass
    last = 0
    for match in reader.effect.finditer(text):
        prose += (text[last:match.start()], " " * (match.end() - match.start()))  # positions kept for the message
        last = match.end()
        kind = reader.kinds[int((match.lastgroup or "g0")[1:])]
        kind, _, fixed = kind.partition("=")  # a bare word's own count: `stun=1`
        token = match.group()
        if kind == "ambiguous_parry":
            raise ValueError(f"{shown(token)}: this ruleset's legend reads must parry and no parry apart: write "
                             f"{_number(token)} must parry or {_number(token)} no parry")
        if kind == "timed_penalty":
            rounds = timed_rounds(token)
            if rounds is None:  # a time that is no rounds: text, flagged
                timed.append(token)
            elif penalty := _bounded(token, _NUMBER.findall(token)[0]):
                timed_read.append((-penalty, _bounded(token, str(rounds))))
            continue
        if kind in _FLAG_KINDS:
            flags[kind] = True
            continue
        if kind == "knocked_out":  # no count: until the GM wakes it (0); counts add up, and `until` wins
            rounds_out = int(fixed) if fixed else _count(token)
            out = 0 if 0 in (out, rounds_out) else (out or 0) + rounds_out
            continue
        number = int(fixed) if fixed else _number(token)
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
    rest = "".join(prose)
    lowered = rest.lower()
    conditions_unread: list[str] = []
    if any(hint in lowered for hint in _CONDITION_HINTS):  # (a substring test is many times cheaper than a regex)
        rest, out = _read_conditions(rest, flags, totals, out)
        rest, conditions_unread = _flagged(_CONDITION_UNREAD, rest, text)
    blanked, pieces = _unread_pieces(reader, rest, text)
    pieces += conditions_unread
    _refuse_unread(reader, blanked, text)
    return Effects(**totals, **flags, death_in=death[1] if death else None, knocked_out=out,  # type: ignore[arg-type]
                   timed_penalties=tuple(timed_read), text=text, timed=tuple(timed),
                   unread=tuple(dict.fromkeys([*timed, *pieces])))


def _read_conditions(prose: str, flags: dict[str, bool], totals: dict[str, int],
                     out: int | None) -> tuple[str, int | None]:
    """The rest of a critical printed in words (_CONDITION_WORDS) in ``prose``: added to ``flags`` and
    ``totals``; the knocked out rounds as ``out`` with them; the prose with them blanked (positions kept)."""
    found = list(_CONDITIONS.finditer(prose))
    for match in found:
        kind, token = _CONDITION_WORDS[int((match.lastgroup or "g0")[1:])][0], match.group()
        if kind in _FLAG_KINDS:
            flags[kind] = True
        elif kind == "knocked_out":
            rounds_out = _count(token)
            out = 0 if 0 in (out, rounds_out) else (out or 0) + rounds_out
        else:
            _add(totals, kind, _number(token))
    for match in reversed(found):
        prose = prose[:match.start()] + " " * (match.end() - match.start()) + prose[match.end():]
    return prose, out


def _count(token: str) -> int:
    """The rounds counted in a condition's token (digits, or a word); 0 when it gives none."""
    found = _NUMBER.search(token)
    if found:
        return _bounded(token, found.group())
    words = [_NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", token.lower()) if w in _NUMBER_WORDS]
    return words[0] if words else 0


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
    words = sorted(((symbol, meaning) for symbol, meaning in symbols if is_word(symbol)), key=lambda pair: -len(pair[0]))
    penalties = [_word_pattern(word) for word, meaning in words if meaning is Meaning.PENALTY]
    lasting = "|".join([_ACTIVITY, *(rf"{_MINUS}\s*\d+\s*{word}" for word in penalties)])
    spellings: list[tuple[str, str]] = [("timed_penalty", _timed_penalty(lasting)), ("timed_penalty", _BARE_TIMED)]
    must_parry = [symbol for symbol, meaning in symbols if meaning is Meaning.MUST_PARRY and not is_lettered(symbol)
                  and not is_word(symbol)]
    for symbol in must_parry:  # `(π-10)`, before the bracket is read as a penalty
        spellings.append(("parry_with_penalty", rf"\(\s*(?:\+?\d+\s*)?{_symbol_pattern(symbol)}\s*{_MINUS}\s*\d+\s*\)"))
    # The book's words first (a legend says what its words mean, before any built-in spelling):
    # a count before, glued or spaced (`+2 Damage`, `-5 to all actions`), or bare when it counts so
    for word, meaning in words:
        kind, pattern, counted = "+".join(_ADDS[meaning]), _word_pattern(word), _word_pattern(word, counted=True)
        not_per_round = rf"(?!\s*{_PER_ROUND})"  # `3 Damage per Round` is bleeding, whatever Damage means
        if meaning is Meaning.PENALTY:
            spellings.append((kind, rf"{_MINUS}\s*\d+\s*{counted}"))
        else:
            if meaning is Meaning.HITS:  # `3 Wound per round`: hits a round, bleeding
                spellings.append(("bleed", rf"{_COUNT}\s*{counted}\s*{_PER_ROUND}"))
            spellings.append((kind, rf"{_COUNT}\s*{counted}{not_per_round}"))
        if meaning in ROUND_MEANINGS:  # `Dazed for 3 rounds`, `Dazed 2 rnds`: its rounds after it
            spellings.append((kind, rf"{pattern}\s+(?i:for\s+)?(?i:the\s+)?(?i:next\s+)?(?i:{_ROUND_COUNT}{_ROUNDS})"))
        bare = legend.bare_count(word, meaning)
        if meaning is Meaning.KNOCKED_OUT and word not in dict(legend.bare):
            bare = 0  # knocked out, no time said: until the GM wakes it
        if bare or meaning is Meaning.KNOCKED_OUT:  # not before a time it does not read (`Dazed 1 hour`: flagged)
            spellings.append((f"{kind}={bare}", rf"(?={pattern}){_NOT_NEGATED}(?<![\w+]){pattern}(?![-\u2010\u2011])"
                                                rf"(?!\s*(?i:for\b|this\b|until\b|up\s+to\b|\d|\())"
                                                f"{not_per_round}"))
    for symbol, meaning in sorted(symbols, key=lambda pair: -len(pair[0])):  # the longest symbol first
        kind = "+".join(_ADDS[meaning])
        if is_word(symbol):
            continue  # read above
        if is_lettered(symbol):  # a letter needs its count, glued: `+5H`, `5h`
            spellings.append((kind, rf"{_COUNT}(?i:{re.escape(symbol)}){end}"))
        else:  # a sign may stand bare (1) or after a count: `∑`, `3∑`, `3 ∑`
            spellings.append((kind, rf"(?:{_COUNT}\s*|(?<![\w{sign_class}])){_symbol_pattern(symbol)}{end}"))
    spellings += _DEFAULT_WORDS if legend.is_default else _VOCABULARY_WORDS
    spellings += _WORDS_EVERYWHERE[1:]
    kinds = tuple(kind.replace("stun_no_parry", "stun+no_parry") for kind, _ in spellings)
    # Every spelling starts with a count (`+`, a digit), `(`, a dash, a sign, or a word with one of
    # these letters: the guard skips every other position at once (3 times faster on prose).
    leads = [*_WORD_LEADS, *(re.escape(word.split()[0]) for word, _ in words)]
    guard = rf"(?=[0-9+({re.escape(DASHES)}{sign_class}]|\b(?i:{'|'.join(leads)}))" if guarded else ""
    effect = re.compile(guard + "(?:" + "|".join(f"(?P<g{i}>{pattern})" for i, (_, pattern) in enumerate(spellings)) + ")")
    # What still looks like an effect once the effects are read: a sign, a
    # signed number glued to letters, a bracketed signed number.
    # (and a sign left in a bracket around a read effect, `(-20H)`; a count spaced from its letter, `+5 H`)
    looks_like = re.compile(rf"[{sign_class}]|(?<![\w.])\+\d+[^\W\d]|\(\s*(?:\+|{_MINUS})(?:\s*(?:\+|{_MINUS}))*\s*\d"
                            rf"|\(\s*(?:\+|{_MINUS})\s*\)|(?<![\w.])\+\d+\s+(?-i:[A-Z])(?!\w)")
    own = "".join(c for symbol, _ in symbols if not is_lettered(symbol) and not is_word(symbol) for c in symbol)
    own += "".join(pasted for pasted, printed in LOOKALIKES.items() if printed in own)
    # a count after one of the legend's words, which read their count before (`Gash 2`, `Gash: 2`)
    counted_after = "".join(rf"|{_word_pattern(word)}\s*:?\s*\d+\b" for word, _ in words)
    suspects = re.compile(_SUSPECTS.pattern + counted_after, re.IGNORECASE) if counted_after else _SUSPECTS
    return _Reader(effect, kinds, looks_like, _hint(symbols), own, suspects)


def _word_pattern(word: str, counted: bool = False) -> str:
    """A legend's word or phrase, any letter case, any spaces between its words, whole words only
    (``counted``: after its count, which may be glued to it, `2Wound`)."""
    return ("" if counted else r"(?<!\w)") + "(?i:" + r"\s+".join(re.escape(part) for part in word.split()) + r")(?!\w)"


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
    written = ", ".join(f"-5 {symbol}" if meaning is Meaning.PENALTY else f"+5 {symbol}" if is_word(symbol)
                        else f"+5{symbol}" if is_lettered(symbol) else f"2{symbol}" for symbol, meaning in symbols)
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


_LETTERS = r"[^\W\d_]{2,}(?:['\u2019-][^\W\d_]+)*"  # a word of two letters or more (`H` alone is a symbol)
_WORD = r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?"
_TIME_UNITS = r"(?:minutes?|mins?|hours?|hrs?|days?|weeks?|months?)\b"
_EFFECT_WORDS = (r"(?:stun(?:s|ned)?|bleed(?:s|ing)?|dies|dying|dead|death|parry|parries|actions?|activity|activities"
                 r"|penalty|damage|hits?)")
# the rest of a critical for a time that is no rounds, `knocked out for 2 hours`, `prone for 1d5 rounds`: flagged
# (looked for where the rest of a critical is, _read_conditions)
_CONDITION_UNREAD = deferred(
    r"(?i)\b(?:prone|knocked\s+(?:out|down|unconscious)|unconscious|blind(?:ed)?|useless)\b[^.;!?\n]{0,20}?\b(?:\d+|"
    + "|".join(_NUMBER_WORDS) + rf")\s*(?:more\s+)?(?:{_TIME_UNITS}|d\d+)")
# What still looks like an effect once the effects are read, and is not read: flagged (Effects.unread),
# never dropped without a word (docs/workbook-format.md, "What is not read")
_SUSPECTS = deferred(
    # each spelling starts with a bracket, a sign, a digit or an effect's word: the guard skips every other position
    rf"(?=[\d(+{re.escape(DASHES)}]|\b{_EFFECT_WORDS})(?:"
    rf"\(\s*(?:\+|{_MINUS})\s*\d+\s*{_LETTERS}[^()\n]{{0,40}}\)"  # `(-10 BEA)`: an attribute's penalty
    rf"|(?<![\w.]){_MINUS}\d+\s+to\s+{_WORD}(?:\s+{_WORD}){{0,3}}"  # `-10 to Perception checks`
    rf"|(?<![\w.])\+\d+\s+to\s+{_WORD}(?:\s+{_WORD}){{0,3}}"  # `+10 to the next attack`
    rf"|(?<![\w.])[+]?\d+\s+{_LETTERS}(?:\s+{_WORD})?\s+{_PER_ROUND}"  # `1 Fatigue per round`
    rf"|(?<![\w.])\+\d+\s+{_LETTERS}"  # `+10 OB` (glued, `+5Hx`, is a symbol mistyped: an error)
    rf"|(?<![\w.]){_MINUS}\d+\s+{_LETTERS}"  # `-10 BEA`
    # a time that is no rounds: `Stunned 1 hour`, `Dying in 10 minutes`, `bleeds for 2 hours`
    rf"|\b{_EFFECT_WORDS}\b[^.;!?\n]{{0,40}}?\b(?:\d+|{'|'.join(_NUMBER_WORDS)})\s+(?:more\s+)?{_TIME_UNITS}"
    rf"|\b(?:stun(?:s|ned)?|bleeds?|bleeding)\b[^.;!?\n]{{0,20}}?\b(?:\d+|{'|'.join(_NUMBER_WORDS)})\s+(?:more\s+)?"
    r"(?:rounds?|rnds?)\b)",
    re.IGNORECASE)


def _unread_pieces(reader: _Reader, prose: str, text: str) -> tuple[str, list[str]]:
    """The pieces of ``prose`` (the text with its effects blanked) that look
    like effects and were not read, as ``text`` prints them; the prose with
    those blanked too (what is flagged is not also refused)."""
    return _flagged(reader.suspects, prose, text)


def _flagged(suspects: re.Pattern[str], prose: str, text: str) -> tuple[str, list[str]]:
    """The pieces of ``prose`` that ``suspects`` finds, as ``text`` prints them; the prose with them blanked."""
    pieces: list[str] = []
    blanked = prose
    for found in suspects.finditer(prose):
        pieces.append(" ".join(text[found.start():found.end()].split()))
        blanked = blanked[:found.start()] + " " * (found.end() - found.start()) + blanked[found.end():]
    return blanked, pieces


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


def conditions_of(effects: Any) -> dict[str, Any]:
    """The rest of a critical that ``effects`` (an Effects, or an Entry) holds, by field (CONDITION_FIELDS)."""
    return {name: getattr(effects, name) for name in CONDITION_FIELDS}


def condition_said(name: str, value: Any) -> bool:
    """Whether condition field ``name`` holds something: a knocked out of 0 does (until woken); 0, False, () do not."""
    return value is not None if name == "knocked_out" else bool(value)


def tag_conditions(tags: Iterable[str], read: Mapping[str, Any], legend: Legend = DEFAULT_LEGEND) -> dict[str, Any]:
    """The rest of a critical that an entry holds: what its text ``read`` (CONDITION_FIELDS), and, for a field the
    text leaves empty, what its Effects tags say in the same words (`prone`, `drop weapon`, `knocked out 3`)."""
    merged = dict(read)
    for tag in tags:
        try:
            found = conditions_of(parse_effects(_tag_rounds(tag), legend))
        except ValueError:  # a tag that is no effect (`knocked back`) stays a tag
            continue
        for name, value in found.items():
            if condition_said(name, value) and not condition_said(name, merged[name]):
                merged[name] = value
    return merged


def effect_words(entry: Mapping[str, Any] | Any) -> str:
    """An entry's effects in words, from its JSON (services/lookups.py, entry_json)
    or the entry itself (domain/tables.py, Entry): `+7 hits, bleed 2/rnd, stun 1 rnd,
    no parry 1, must parry 1 at -10, penalty -5, attacker +10, dies in 6 rounds,
    drop weapon`. A death its tags already say (`death in 6`, `instant death`) is
    not said twice. The one wording of an entry's effects: resolve's account, a
    fight's, show, query, an import's changes, Foundry and the page (the JSON's
    `effect_words`) all say them so."""
    if isinstance(entry, Mapping):
        return _words(entry)
    try:
        return _entry_words(entry)
    except TypeError:  # an entry made with a list in it (unhashable): said without the cache
        return _words({f.name: getattr(entry, f.name) for f in fields(entry)})


@lru_cache(maxsize=4096)  # an Entry is frozen: a served resolve says its critical's effects twice (steps, JSON)
def _entry_words(entry: Any) -> str:
    return _words({f.name: getattr(entry, f.name) for f in fields(entry)})


def _words(e: Mapping[str, Any]) -> str:
    tags = [tag for tag in e["effects"] if not _tag_said(tag, e)]
    death = format_death(e.get("death_in"))
    if death and any(" ".join(tag.lower().split()) in (f"death in {e['death_in']}", "instant death") for tag in tags):
        death = ""
    parry = e.get("parry_penalty")
    parts = [f"+{e['hits']} hits" if e["hits"] else "", f"bleed {e['bleed']}/rnd" if e["bleed"] else "",
             f"stun {e['stun']} rnd" if e["stun"] else "", f"no parry {e['no_parry']}" if e.get("no_parry") else "",
             f"must parry {e['must_parry']}{f' at {parry}' if parry else ''}" if e.get("must_parry") else "",
             f"penalty {e['penalty']}" if e["penalty"] else "",
             f"attacker +{e['attacker_bonus']}" if e.get("attacker_bonus") else "", death, *condition_words(e)]
    said = ", ".join(x for x in [*parts, *tags] if x)
    if e.get("unread"):  # what the GM decides: never applied (docs/workbook-format.md, "What is not read")
        said += ("; " if said else "") + unread_words(e["unread"])
    return said


def condition_words(e: Mapping[str, Any]) -> list[str]:
    """The rest of a critical in words, from an entry's JSON (keys absent: nothing): `prone 1 rnd`, `knocked out`
    (until woken), `knocked out 3 rnd`, `blinded 2 rnd`, `drops weapon`, `weapon breaks`, `useless arm`,
    `useless leg`, `penalty -20 for 3 rnd`."""
    out = e.get("knocked_out")
    return [w for w in (
        f"prone {e['prone']} rnd" if e.get("prone") else "",
        "" if out is None else "knocked out" if out == 0 else f"knocked out {out} rnd",
        f"blinded {e['blinded']} rnd" if e.get("blinded") else "",
        "weapon breaks" if e.get("breaks_weapon") else "drops weapon" if e.get("drops_weapon") else "",
        "useless arm" if e.get("useless_arm") else "", "useless leg" if e.get("useless_leg") else "",
        *(f"penalty {p} for {r} rnd" for p, r in map(_pair, e.get("timed_penalties") or ())),
    ) if w]


def _pair(timed: Any) -> tuple[int, int]:
    """A penalty for N rounds as (penalty, rounds): from the JSON's `{"penalty", "rounds"}` or an Entry's pair."""
    return (timed["penalty"], timed["rounds"]) if isinstance(timed, Mapping) else timed


def _tag_rounds(tag: str) -> str:
    """A tag counts as the workbook's tags do, its number bare after its words (`blinded 2`, as `death in 3`):
    rounds."""
    return f"{tag} rounds" if re.fullmatch(r"\s*[^\W\d][^\d]*\s\d+\s*", tag) else tag


def _tag_said(tag: str, e: Mapping[str, Any]) -> bool:
    """Whether an Effects tag (`prone`, `drop weapon`) says only what the entry's fields hold, said by them."""
    try:
        found = conditions_of(parse_effects(_tag_rounds(tag)))
    except ValueError:
        return False
    said = [name for name, value in found.items() if condition_said(name, value)]
    return bool(said) and all(condition_said(name, e.get(name)) for name in said)


def unread_words(unread: Iterable[str]) -> str:
    """`not read: '-10 BEA', 'If the attacker maintains the hold, +5 Damage', decide at the table`."""
    return "not read: " + ", ".join(shown(piece, 80) for piece in unread) + ", decide at the table"


def format_death(death_in: int | None) -> str:
    """`dies in 6 rounds`, `instant death` (0), or nothing (None)."""
    if death_in is None:
        return ""
    if death_in == 0:
        return "instant death"
    return f"dies in {death_in} round{'' if death_in == 1 else 's'}"


# Prose that says the target dies, is stunned or parries: printed books word these in more ways than the
# reader takes; an entry that says so and read none has an effect the GM must decide (sheets/quality.py warns).
DEATH_WORDS = deferred(r"(?i)\b(?:die|dies|died|dead|dying|kill(?:s|ed|ing)?|expires?|slain|lifeless)\b")
STUN_WORDS = deferred(r"(?i)\bstun(?:s|ned)?\b")
PARRY_WORDS = deferred(r"(?i)\b(?:must|cannot|can't|unable\s+to|no)\s+parry\b")


def words_not_read(text: str, unread: tuple[str, ...], *, died: bool, stunned: bool, parried: bool,
                   tags: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The sentences of an entry's ``text`` that word a death, a stun or a
    parry that none of its fields (nor an Effects tag) holds, and that no
    piece of ``unread`` already holds: `Foe stunned this round and next`,
    `Entire body turned to dust; he dies`."""
    said = {
        DEATH_WORDS: died or any("death" in tag.lower() or DEATH_WORDS.search(tag) for tag in tags),
        STUN_WORDS: stunned or any(STUN_WORDS.search(tag) for tag in tags),
        PARRY_WORDS: parried,
    }
    found: list[str] = []
    for words, read in said.items():
        if read or not words.search(text):
            continue
        for sentence in SENTENCES.findall(text):
            piece = " ".join(sentence.split())
            if words.search(piece) and piece not in found and not any(piece in u or u in piece for u in unread):
                found.append(piece)
    return tuple(found)


def unread_warning(piece: str) -> str:
    """The warning on a cell for a printed piece not read (docs/workbook-format.md, "What is not read")."""
    return f"{shown(piece, 60)} is not read: it stays in the text, flagged for the GM to decide at the table"
