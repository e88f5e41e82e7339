"""The condition a branch of a printed entry is on, as books word it: `with
helm`, `w/o leg greaves`, `If foe has no helm`, `If he doesn't have greaves`,
`Without a visor`, `If not`, and as Against the Darkmaster words them, `If
the target is armored`, `If the target was wearing a helm`, `If the target's
neck is protected by rigid armor` (docs/workbook-format.md, "Branches inside
a cell"). A condition is one feature, or its negation; anything else (`If foe
is prone`, `If metal armor and no shield`) is not read."""

from __future__ import annotations

from dataclasses import dataclass

ARTICLES = frozenset({"a", "an", "the", "his", "her", "its", "their"})  # dropped before a feature
SUBJECTS = frozenset({"foe", "target", "opponent", "enemy", "victim", "defender", "he", "she", "it", "they"})
HAS = ("has", "have", "wears", "is wearing", "carries", "has on", "was wearing", "wore", "had", "is carrying",
       "is wielding", "wields", "is holding", "holds")
HAS_NOT = ("has no", "have no", "does not have", "doesn't have", "do not have", "don't have", "does not wear",
           "doesn't wear", "is not wearing", "isn't wearing", "wears no", "lacks", "is without", "was not wearing",
           "wasn't wearing", "had no", "did not have", "didn't have", "did not wear", "didn't wear")
# `If the target is armored`: the words of a target's gear that `is` (or `was`) reads as a feature,
# `un-` (`unarmored`) or `not` before one as its negation. Any other state (`is prone`, `is stunned`,
# `is surprised`) is no feature a target is given: it is not read, so never silently taken as absent.
EQUIPPED = frozenset({"armored", "armoured", "helmed", "helmeted", "visored", "shielded", "mailed", "gauntleted",
                      "greaved", "cloaked", "hooded"})
# `If the target's neck is protected by rigid armor`, `If the neck is exposed`: a part of the target
# in one of these states is a feature, named as written, part first (`neck protected by rigid armor`,
# `neck exposed`); a part of anything else (`If the shield is struck`) is no condition.
BODY_PARTS = frozenset({"head", "skull", "face", "eye", "eyes", "neck", "throat", "chest", "torso", "abdomen", "belly",
                        "stomach", "back", "side", "arm", "arms", "forearm", "hand", "hands", "shoulder", "shoulders",
                        "leg", "legs", "thigh", "knee", "shin", "calf", "foot", "feet", "groin", "hip"})
PART_STATES = frozenset({"protected", "covered", "armored", "armoured", "shielded", "guarded", "exposed", "bare"})
_BE = (["is"], ["are"], ["was"], ["were"])
_QUALIFIERS = (("some", "sort", "of"), ("some", "kind", "of"), ("any",))  # `some sort of head protection` is on `head protection`
# Words no feature holds: a phrase with one of them is a sentence (`foe is prone`), two features
# (`metal armor and no shield`) or a condition on something else (`using a crossbow`).
_NOT_A_FEATURE = frozenset({
    *ARTICLES, *SUBJECTS, "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "does", "do",
    "did", "doesn't", "don't", "isn't", "not", "no", "none", "nor", "and", "but", "if", "then", "you",
    "your", "him", "them", "using", "uses", "used", "wearing", "this", "that", "any", "all", "only", "attacker",
})
FEATURE_WORDS = 6  # `chest armor`, `armor over abdomen`, `furs or heavy head clothing`, `metal armor on the legs`
_PLACES = frozenset({"in", "on", "around", "over", "at", "across", "covering"})  # `armor on the legs`: an article after one is kept
PART_FEATURE_WORDS = 6  # a part and its state: `neck protected by rigid armor`
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
    if word == "otherwise" or (word == "if" and words in (["not"], ["none"])):  # `If none:` after `With helm: …`
        return OTHERWISE if word == "if" or not words else None
    if word in POSITIVE_WORDS or word in NEGATIVE_WORDS:
        return _condition(words, word in NEGATIVE_WORDS)
    if word != "if":
        return None
    if words[:1] in (["the"], ["his"], ["her"], ["its"], ["their"]) and words[1:2] and (
            words[1] in SUBJECTS or _possessor(words[1]) or (words[1] in BODY_PARTS and words[2:3] in _BE)):
        words = words[1:]
    if words[:1] and (owner := _possessor(words[0])):  # `the target's …`
        if words[1:2] in (["wearing"], ["carrying"]):  # `the target's wearing` is `the target is wearing`
            words = [owner, "is", *words[1:]]
        elif words[1:2] and any(verb.split()[0] == words[1] for verb in (*HAS, *HAS_NOT)):
            words = [owner, *words[1:]]  # `If foe's has no metal armor`: an obvious typo for `foe has`
        elif len(words) == 2 and _unprefixed(words[1], EQUIPPED) is not None:
            return _equipped(["is", words[1]])  # `If the target's unarmored`: `is` contracted
        else:
            return _part_state(words[1:])  # `the target's neck is protected by …`
    if words[:1] and words[0] in BODY_PARTS and words[1:2] in _BE:  # `If the neck is exposed`: the target's
        return _part_state(words)
    if words[:1] and words[0] in SUBJECTS:  # `If foe has X`, `If he doesn't have X`, `If the target is armored`
        for verbs, negated in ((HAS_NOT, True), (HAS, False)):
            for verb in verbs:
                if words[1:1 + verb.count(" ") + 1] == verb.split():
                    return _condition(words[2 + verb.count(" "):], negated)
        return _equipped(words[1:])
    if words[:1] in (["no"], ["not"]):  # `If no helm`, `If not shield`, `If not wearing leg protection`
        rest = words[1:]
        return _condition(rest[1:] if rest[:1] in (["wearing"], ["carrying"], ["wielding"], ["holding"]) else rest, True)
    if words[:1] in (["wearing"], ["carrying"], ["wielding"], ["holding"]):  # `If wearing heavy armor`: the target's
        return _condition(words[1:], False)
    return _condition(words, False)


def _possessor(word: str) -> str | None:
    """`target's` → `target` (a subject's possessive, or `is` contracted)."""
    return word[:-2] if word.endswith("'s") and word[:-2] in SUBJECTS else None


def _equipped(words: list[str]) -> Condition | None:
    """`is armored`, `was helmed`, `is unarmored`, `is not armored`, `isn't armored`."""
    negated = False
    if words[:1] in (["is"], ["was"]) and words[1:2] == ["not"]:
        words, negated = words[2:], True
    elif words[:1] in (["isn't"], ["wasn't"]):
        words, negated = words[1:], True
    elif words[:1] in (["is"], ["was"]):
        words = words[1:]
    else:
        return None
    if len(words) != 1:
        return None
    condition = _unprefixed(words[0], EQUIPPED)
    return None if condition is None else Condition(condition.feature, condition.negated != negated)


def _unprefixed(word: str, known: frozenset[str]) -> Condition | None:
    """``word`` if it is one of ``known``; `un` + one of them as its negation."""
    if word in known:
        return Condition(word, False)
    if word.startswith("un") and word[2:] in known:
        return Condition(word[2:], True)
    return None


def _part_state(words: list[str]) -> Condition | None:
    """`neck is protected by rigid armor` → `neck protected by rigid armor`;
    `neck is exposed`, `neck is unprotected` (`not neck protected`), `neck is
    not covered`; None for a part the target may not have, or another state."""
    if not words or words[0] not in BODY_PARTS or words[1:2] not in _BE:
        return None
    part, state, negated = words[0], words[2:], False
    if state[:1] == ["not"]:
        state, negated = state[1:], True
    first = _unprefixed(state[0], PART_STATES) if state else None
    if first is None or first.feature is None:
        return None
    rest = state[1:]
    # what protects it is gear (`by rigid armor`, `by a gorget`), not the target's own (`by his arm`)
    if len(rest) + 2 > PART_FEATURE_WORDS or any(w in _NOT_A_FEATURE and w not in ("a", "an", "the") for w in rest):
        return None
    if rest and (rest[0] not in ("by", "with") or len(rest) < 2 or rest[-1] in ARTICLES):
        return None  # only `by …` / `with …` say what protects it
    return Condition(" ".join([part, first.feature, *rest]), first.negated != negated)


def _condition(words: list[str], negated: bool) -> Condition | None:
    if words[:1] and words[0] in ARTICLES:
        words = words[1:]
    for qualifier in _QUALIFIERS:
        if tuple(words[:len(qualifier)]) == qualifier:
            words = words[len(qualifier):]
            break
    if len(words) == 1 and (equipped := _unprefixed(words[0], EQUIPPED)) is not None:  # `If unarmored:`
        return Condition(equipped.feature, equipped.negated != negated)
    if not 1 <= len(words) <= FEATURE_WORDS or any(
            w in _NOT_A_FEATURE and not (w in ARTICLES and i and words[i - 1] in _PLACES) and not (w == "and" and i)
            for i, w in enumerate(words)):
        return None  # (an article after a place is kept, `armor on the legs`; `and` joins what the target wears)
    return Condition(" ".join(words), negated)


def same_feature(first: str, second: str) -> str | None:
    """The name of the one feature both words name (`visored` and `visor`:
    `visor`), else None. Decision: a feature and the same feature with `-ed`
    are one, named without it."""
    a, b = sorted((first, second), key=len)
    return a if b in (a, f"{a}ed") else None


def negates(first: Condition, second: Condition) -> str | None:
    """The feature both conditions are on when ``second`` is the negation of
    ``first`` (`If not` negates any), else None (same_feature: `If visored` …
    `Without a visor` are on `visor`)."""
    if first.feature is None:
        return None
    if second.feature is None:  # `If not`, `Otherwise` after any condition, `If no helm` too
        return first.feature
    if second.negated == first.negated:
        return None
    return same_feature(first.feature, second.feature)


def negates_loosely(first: Condition, second: Condition) -> str | None:
    """``first``'s feature when ``second`` is its negation spelled shorter or
    longer (`full metal helm` … `no full helm`, `With chest armor` … `if no
    armor`): one's words are a sub-sequence of the other's, with the same last
    word (decision: a book's two spellings of one thing in one entry; the
    branches are named by the first). Only two conditions of a cell pair so."""
    if first.feature is None or second.feature is None or second.negated == first.negated:
        return None
    a, b = first.feature.split(), second.feature.split()
    shorter, longer = sorted((a, b), key=len)
    if shorter[-1] != longer[-1] or shorter == longer:
        return None
    words = iter(longer)
    return first.feature if all(word in words for word in shorter) else None
