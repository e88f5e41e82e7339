"""The condition a branch of a printed entry is on, as books word it: `with
helm`, `w/o leg greaves`, `If foe has no helm`, `If he doesn't have greaves`,
`Without a visor`, `If not` (docs/workbook-format.md, "Branches inside a
cell"). A condition is one feature, or its negation; anything else (`If foe
is prone`, `If metal armor and no shield`) is not read."""

from __future__ import annotations

from dataclasses import dataclass

ARTICLES = frozenset({"a", "an", "the", "his", "her", "its", "their"})  # dropped before a feature
SUBJECTS = frozenset({"foe", "target", "opponent", "enemy", "victim", "defender", "he", "she", "it", "they"})
HAS = ("has", "have", "wears", "is wearing", "carries", "has on")
HAS_NOT = ("has no", "have no", "does not have", "doesn't have", "do not have", "don't have", "does not wear",
           "doesn't wear", "is not wearing", "isn't wearing", "wears no", "lacks", "is without")
# Words no feature holds: a phrase with one of them is a sentence (`foe is prone`), two features
# (`metal armor and no shield`) or a condition on something else (`using a crossbow`).
_NOT_A_FEATURE = frozenset({
    *ARTICLES, *SUBJECTS, "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "does", "do",
    "did", "doesn't", "don't", "isn't", "not", "no", "none", "nor", "and", "but", "if", "then", "you",
    "your", "him", "them", "using", "uses", "used", "wearing", "this", "that", "any", "all", "only",
})
FEATURE_WORDS = 4  # `chest armor`, `metal chest armor`, `armor over abdomen`
NEGATIVE_WORDS = frozenset({"without", "w/o", "no"})
POSITIVE_WORDS = frozenset({"with", "w/"})


@dataclass(frozen=True)
class Condition:
    """A feature and whether the branch is for targets without it;
    ``feature`` None is `If not` / `Otherwise`: the other branch of the
    condition before it."""

    feature: str | None
    negated: bool

    def __str__(self) -> str:
        return f"not {self.feature}" if self.negated else str(self.feature)


OTHERWISE = Condition(None, True)


def read_condition(word: str, phrase: str) -> Condition | None:
    """The condition of an opener: ``word`` (`with`, `without`, `w/`, `w/o`,
    `no`, `if`, `otherwise`, any case) and the ``phrase`` up to its `:` or
    `,`; None when it is no condition on one feature."""
    word = word.lower()
    words = phrase.lower().replace("\u2019", "'").split()
    if word == "otherwise" or (word == "if" and words == ["not"]):
        return OTHERWISE if word == "if" or not words else None
    if word in POSITIVE_WORDS or word in NEGATIVE_WORDS:
        return _condition(words, word in NEGATIVE_WORDS)
    if word != "if":
        return None
    if words[:1] == ["the"] and words[1:2] and words[1] in SUBJECTS:
        words = words[1:]
    if words[:1] and words[0] in SUBJECTS:  # `If foe has X`, `If he doesn't have X`
        for verbs, negated in ((HAS_NOT, True), (HAS, False)):
            for verb in verbs:
                if words[1:1 + verb.count(" ") + 1] == verb.split():
                    return _condition(words[2 + verb.count(" "):], negated)
        return None
    if words[:1] in (["no"], ["not"]):  # `If no helm`, `If not shield`
        return _condition(words[1:], True)
    return _condition(words, False)


def _condition(words: list[str], negated: bool) -> Condition | None:
    if words[:1] and words[0] in ARTICLES:
        words = words[1:]
    if not 1 <= len(words) <= FEATURE_WORDS or any(w in _NOT_A_FEATURE for w in words):
        return None
    return Condition(" ".join(words), negated)


def negates(first: Condition, second: Condition) -> str | None:
    """The feature both conditions are on when ``second`` is the negation of
    ``first`` (`If not` negates any), else None. Decision: a feature and the
    same feature with `-ed` are one (`If visored` … `Without a visor`), and
    the branches name it without (`visor`)."""
    if first.feature is None:
        return None
    if second.feature is None:  # `If not`, `Otherwise` after any condition, `If no helm` too
        return first.feature
    if second.negated == first.negated:
        return None
    a, b = sorted((first.feature, second.feature), key=len)
    return a if b in (a, f"{a}ed") else None
