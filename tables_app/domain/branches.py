"""The branches printed inside one critical or fumble cell
(`With helm: +3H – 2∑. Without helm: +6H – 3∑∏.`, `If foe has helm, he is
in a coma. If not, he dies in 1 round.`): which text, and so which effects,
each kind of target gets (docs/workbook-format.md, "Branches inside a
cell"). How a condition is worded is read by domain/conditions.py."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, replace

from tables_app.domain.bounds import TEXT_CHARACTERS
from tables_app.domain.conditions import NEGATIVE_WORDS, POSITIVE_WORDS, Condition, negates, read_condition
from tables_app.domain.effects import Effects, has_effects, parse_effects
from tables_app.domain.legend import DEFAULT_LEGEND, Legend
from tables_app.domain.names import shown

_WORD = r"[^\W\d_]++(?:['\u2019][^\W\d_]++)?"  # letters, perhaps with an apostrophe (`doesn't`)
# An opener: a word, a phrase of up to eight words, then `:` (a marker) or `,` (a condition in prose);
# or, after `If`, the subject of the sentence's main clause (`If foe has no helm you kill him instantly`).
_OPENER = re.compile(
    rf"(?<![\w/])(?P<word>(?i:without|with|w/o|w/|if|no|otherwise))"
    rf"(?:(?<=/)[ \t]*|[ \t]+|(?=[ \t]*[:,]))(?P<phrase>{_WORD}(?:(?:[ \t]+|-){_WORD}){{0,7}})?"
    rf"(?:[ \t]*(?P<mark>[:,])|(?<=\w)(?=[ \t]+(?i:you|he|she|they)\b))"
)
_OPENING_WORD = re.compile(r"(?<![\w/])(?i:with|w/|if|no|otherwise)")  # where an opener or a conditional starts
# `With helm +2H.`: a marker that lost its colon (a sentence it opens may not carry effects unread)
_COLONLESS = re.compile(rf"(?<![\w/])(?i:without|with|w/o|w/)[ \t]*{_WORD}(?:[ \t]+{_WORD}){{0,3}}[ \t]+(?=[+\d(])")
_CONDITIONAL = re.compile(r"(?<![\w/])(?i:if|otherwise)\b")  # a sentence that may word a condition
_SENTENCE_END = re.compile(r"(?<=[.!?])(?:\s+|$)|\s*\n\s*")


@dataclass(frozen=True)
class Branch:
    """One branch of a cell: its condition (a feature, `"not "` + a feature,
    or None when the cell has no branches), its text and effects."""

    condition: str | None
    text: str
    effects: Effects
    warning: str | None = None  # a reading to check (the import warns on the cell)
    unread: tuple[str, ...] = ()  # printed pieces not read (its effects' and conditions no branch reads): flagged


@dataclass(frozen=True)
class _Opener:
    start: int
    label: str  # as printed, for messages: `With helm`, `If foe has no helm`
    word: str  # lower case: `with`, `w/o`, `if`, …
    marker: bool  # a colon (`With helm:`), not a comma (`If foe has helm,`)
    condition: Condition | None  # None: no condition on one feature
    opens_sentence: bool


def parse_branches(text: str, legend: Legend = DEFAULT_LEGEND) -> tuple[Branch, ...]:
    """The branches printed in one cell; each branch's text is its parts
    as printed, joined by a space, whitespace folded; its effects are read
    from that text.

    Markers (`with X:`, `w/o X:`, `if foe has no X:`, `no X:`, …) decide
    where there are any; else conditions in prose (`If foe has X, …`,
    `Without a X, …`). The first opens the text or a sentence; a second
    opens where it opens a sentence, or anywhere when it is the negation of
    the first (`If not,`, `w/o X:` after `with X:`). A marker's branch runs
    to the next opener (or, alone, is its sentence, the rest for everyone
    else); a condition in prose governs its sentence, the rest is for every
    target. More than two, two that are not a feature and its negation, or
    a condition no branch reads in a sentence with effects, are an error."""
    if len(text) > TEXT_CHARACTERS:  # docs/workbook-format.md, "Limits"
        raise ValueError(f"the entry holds {len(text):,} characters, more than an entry's {TEXT_CHARACTERS:,} (it starts {text[:40]!r})")
    if not _OPENING_WORD.search(text):  # most entries: no word a condition starts with, one branch
        return (_branch(None, text, legend),)
    openers = [_opener(text, m) for m in _OPENER.finditer(text)]
    chosen = _chosen(openers, markers=True) or _chosen(openers, markers=False)
    chosen = _with_its_bare_feature(text, chosen)
    _refuse_conditions_no_branch_reads(text, openers, chosen, legend)
    if not chosen:
        return (_branch(None, text, legend),)
    if len(chosen) > 2:
        raise ValueError(f"{len(chosen)} branches in one cell ({_quoted(chosen)}): at most a feature and its negation")
    first = chosen[0].condition
    assert first is not None and first.feature is not None
    if len(chosen) == 1:
        branches = tuple(_branch(str(c), part, legend) for c, part in _lone(text, chosen[0]))
        return _warn_lone(text, chosen[0], branches, legend)
    second = chosen[1].condition
    assert second is not None  # _chosen keeps only openers with a condition
    feature = negates(first, second)
    if feature is None:
        raise ValueError(f"branches {_quoted(chosen)} are not a feature and its negation")
    conditions = [Condition(feature, first.negated), Condition(feature, not first.negated)]
    return tuple(_branch(str(c), part, legend) for c, part in zip(conditions, _pair(text, *chosen)))


def _opener(text: str, match: re.Match[str]) -> _Opener:
    word = match.group("word").lower()
    mark = match.group("mark")
    marker = mark == ":"
    # `No X` only as a marker: in prose, `No parry, …` is no condition; a condition
    # ended by its clause's subject (no comma) only after `If`
    read = marker or (word != "no" and (mark is not None or word in ("if", "without", "w/o")))
    condition = read_condition(word, match.group("phrase") or "") if read else None
    label = match.group()[:-1] if mark else match.group()
    return _Opener(match.start(), label.strip(), word, marker, condition, _opens_sentence(text, match.start()))


def _chosen(openers: list[_Opener], markers: bool) -> list[_Opener]:
    """The openers that open branches: markers only, or conditions in prose
    only (with `If not` and negations of the first in either form)."""
    chosen: list[_Opener] = []
    first: Condition | None = None  # chosen[0]'s
    worded = {str(o.condition) for o in openers if o.condition is not None}  # a `With X,` needs its negation
    for opener in openers:
        condition = opener.condition
        if condition is None:
            continue
        if first is None:
            if condition.feature is not None and opener.opens_sentence and opener.marker == markers and (
                    markers or opener.word not in POSITIVE_WORDS or f"not {condition.feature}" in worded):
                chosen.append(opener)
                first = condition
        elif negates(first, condition) or (
                opener.opens_sentence and opener.marker == markers and condition.feature is not None):
            chosen.append(opener)
    return chosen


def _opens_sentence(text: str, start: int) -> bool:
    """Whether an opener at ``start`` opens the text or a sentence: only the
    spaces before it are looked at (never the whole text before each one)."""
    end = start
    while end and text[end - 1].isspace():
        end -= 1
    return not end or text[end - 1] in ".!?;" or "\n" in text[end:start]


def _sentence(text: str, start: int) -> tuple[int, int]:
    """Where the sentence that goes on at ``start`` ends, and where the next begins."""
    end = _SENTENCE_END.search(text, start)
    return (end.start(), end.end()) if end else (len(text), len(text))


def _lone(text: str, opener: _Opener) -> list[tuple[Condition, str]]:
    """A single opener's branch, and the other for everyone else: a marker's
    sentence, the text after it the other's; a condition in prose's sentence,
    the text after it everyone's."""
    condition = opener.condition
    assert condition is not None
    end, rest = _sentence(text, opener.start)
    before, own, after = text[: opener.start], text[opener.start : end], text[rest:]
    other = Condition(condition.feature, not condition.negated)
    if opener.marker:
        return [(condition, _joined(before, own)), (other, _joined(before, after))]
    return [(condition, _joined(before, own, after)), (other, _joined(before, after))]


def _warn_lone(text: str, opener: _Opener, branches: tuple[Branch, ...], legend: Legend) -> tuple[Branch, ...]:
    """A lone marker whose sentence has no effects while the text after it has
    some (`If no helm: skull crushed. +20 hits.`): those go to the other
    targets, as documented, but a book may mean them for the branch: said."""
    if not opener.marker:
        return branches
    end, rest = _sentence(text, opener.start)
    own, after = parse_effects(" ".join(text[opener.start:end].split()), legend), text[rest:]
    if has_effects(own) or not after.strip() or not has_effects(parse_effects(" ".join(after.split()), legend)):
        return branches
    other = branches[1].condition
    assert other is not None  # both of _lone's branches have a condition
    warning = (f"{shown(opener.label)} opens a branch of one sentence with no effects; the effects after it "
               f"({shown(' '.join(after.split()), 40)}) go to {shown(other)}: if they are the branch's, "
               "put them in its sentence")
    return (replace(branches[0], warning=warning), branches[1])


def _with_its_bare_feature(text: str, chosen: list[_Opener]) -> list[_Opener]:
    """`Helm: +2H. No helm: +5H.`: a lone negative marker's feature, printed
    bare as a marker before it (`Helm:` opening the text or a sentence), is
    the positive branch, not text for every target (a review's finding)."""
    if len(chosen) != 1 or not chosen[0].marker or chosen[0].condition is None or not chosen[0].condition.negated:
        return chosen
    feature = chosen[0].condition.feature
    if feature is None:
        return chosen
    words = r"[ \t]+".join(re.escape(word) for word in feature.split())
    for found in re.finditer(rf"(?i)(?<![\w/])(?P<label>{words})[ \t]*:", text[: chosen[0].start]):
        if _opens_sentence(text, found.start()):
            bare = _Opener(found.start(), found.group("label"), "with", True, Condition(feature, False), True)
            return [bare, chosen[0]]
    return chosen


def _pair(text: str, first: _Opener, second: _Opener) -> tuple[str, str]:
    """The two branches' texts: what is outside both openers' own parts is
    every target's. A marker's own part runs to the next opener (the second
    marker's to the end), a condition in prose's to the end of its sentence."""
    first_end = second.start if first.marker else min(_sentence(text, first.start)[0], second.start)
    second_end = len(text) if second.marker else _sentence(text, second.start)[0]
    before, own = text[: first.start], text[first.start : first_end]
    between, other, after = text[first_end : second.start], text[second.start : second_end], text[second_end:]
    return _joined(before, own, between, after), _joined(before, between, other, after)


def _refuse_conditions_no_branch_reads(text: str, openers: list[_Opener], chosen: list[_Opener],
                                       legend: Legend) -> None:
    """A sentence opened by a condition that is no branch (`If foe is prone,
    +5H.`, `Without a visor, he dies instantly.` beside `With helm: …`) must
    carry no effects, up to its end or the next branch: they would go to
    every target, whatever the book says."""
    used = {o.start for o in chosen}
    worded = {o.start: o for o in openers}
    starts = sorted({m.start() for m in _CONDITIONAL.finditer(text)} | {m.start() for m in _COLONLESS.finditer(text)} | {
        o.start for o in openers if (o.word in NEGATIVE_WORDS and o.condition is not None) or (o.marker and o.condition is None)})
    ends = sorted({m.start() for m in _SENTENCE_END.finditer(text)} | used)  # a branch ends the sentence
    checked = -1  # the end of the last sentence looked at
    for start in starts:
        if start in used or not _opens_sentence(text, start):
            continue
        end = ends[index] if (index := bisect_left(ends, start)) < len(ends) else len(text)
        if end == checked:
            continue  # within the text just looked at (`If a; if b; …` is one sentence): bounded work
        checked = end
        _refuse_effects(text[start:end], worded.get(start), chosen, legend)


def _refuse_effects(sentence: str, opener: _Opener | None, chosen: list[_Opener], legend: Legend) -> None:
    effects = parse_effects(sentence, legend)
    if not has_effects(effects):
        return  # (a penalty for a time is text only)
    label = opener.label if opener else _up_to_comma(sentence)
    if opener is None or opener.condition is None:
        why = "it is no condition on one feature: write e.g. If foe has helm, … If not, … or With helm: … Without helm: …"
    elif opener.condition.feature is None:
        why = "it follows no condition"
    else:
        why = f"it is not one of the branches {_quoted(chosen)}" if chosen else "it is not a branch"
    raise ValueError(f"cannot read the condition {shown(label, 60)} ({why}), and the effects after it would go to "
                     "every target")


def _up_to_comma(sentence: str) -> str:
    words = re.match(r"[^,:;]*", sentence)
    return (words.group() if words else sentence).strip()


def _joined(*parts: str) -> str:
    return " ".join(part.strip() for part in parts if part.strip())


def _branch(condition: str | None, text: str, legend: Legend) -> Branch:
    text = " ".join(text.split())  # a line break read, the text is folded as every cell's is
    effects = parse_effects(text, legend)
    return Branch(condition, text, effects, unread=effects.unread)


def _quoted(openers: list[_Opener], shown_openers: int = 3) -> str:
    quoted = ", ".join(shown(o.label) for o in openers[:shown_openers])
    return quoted + (f" and {len(openers) - shown_openers} more" if len(openers) > shown_openers else "")


_MID_SENTENCE_CONDITION = re.compile(r"(?i)(?<=\S)\s+(?:if|otherwise)\b|\b(?:unless|else)\b")
_SENTENCES = re.compile(r"[^.!?;\n]+")


def condition_in_mid_sentence(text: str, legend: Legend = DEFAULT_LEGEND) -> str | None:
    """`Dies in 3 rounds if no helm.`, `If helm, +2H, else +5H.`, `+5H unless foe has helm.`: a
    condition a branch does not open, in a sentence with effects, which go to every target: said."""
    if not _MID_SENTENCE_CONDITION.search(text):
        return None
    for sentence in _SENTENCES.findall(text):
        if (found := _MID_SENTENCE_CONDITION.search(sentence)) is None:
            continue
        try:
            effects = parse_effects(sentence.strip(), legend)
        except ValueError:
            continue
        if has_effects(effects):
            word = found.group().strip()
            return (f"{sentence.strip()[:60]!r} reads effects under a condition ({word!r}) that opens no branch: they go "
                    f"to every target; write the condition first (If no helm: …, With helm: … Without helm: …)")
    return None
