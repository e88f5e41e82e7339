"""The branches printed inside one critical or fumble cell
(`With helm: +3H – 2∑. Without helm: +6H – 3∑∏.`, `If foe has helm, he is
in a coma. If not, he dies in 1 round.`): which text, and so which effects,
each kind of target gets (docs/workbook-format.md, "Branches inside a
cell"). How a condition is worded is read by domain/conditions.py.

A condition that no branch reads (`If foe is prone, +5H.`) never refuses
the entry: the sentence it opens is an unread piece, kept in the text,
flagged (``Branch.unread``), and its effects go to no target."""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass, replace

from tables_app.domain.bounds import TEXT_CHARACTERS
from tables_app.domain.conditions import (
    NEGATIVE_WORDS,
    OTHERWISE,
    POSITIVE_WORDS,
    Condition,
    negates,
    negates_loosely,
    read_condition,
    same_feature,
)
from tables_app.domain.effects import SENTENCES, Effects, has_effects, parse_effects
from tables_app.domain.legend import DEFAULT_LEGEND, Legend
from tables_app.domain.names import shown
from tables_app.domain.tables import ConditionReading

_WORD = r"[^\W\d_]++(?:['\u2019][^\W\d_]++)?"  # letters, perhaps with an apostrophe (`doesn't`, `target's`)
# An opener: a word, a phrase of up to twelve words (`If the target is wearing some sort of head
# protection`), then `:` (a marker) or `,` (a condition in prose); or, after `If`, the subject of the
# sentence's main clause (`If foe has no helm you kill him instantly`); or `Otherwise`, `If not`,
# `If none` standing bare (`Otherwise +3H`, `If not he dies`), read in _opener.
_OPENER = re.compile(
    rf"(?<![\w/])(?:(?P<word>(?i:without|with|w/o|w/|if|no|otherwise))"
    rf"(?:(?<=/)[ \t]*|[ \t]+|(?=[ \t]*[:,]))(?P<phrase>{_WORD}(?:(?:[ \t]+|-|/){_WORD}){{0,11}})?"
    rf"(?:[ \t]*(?P<mark>[:,])|(?<=\w)(?=[ \t]+(?i:you|he|she|they|it)\b))"
    rf"|(?P<bare>(?i:otherwise|if[ \t]+none|if[ \t]+not))(?![\w'\u2019-])(?![ \t]*[:,]))"
)
_OPENING_WORD = re.compile(r"(?<![\w/])(?i:with|w/|if|no|otherwise)")  # where an opener or a conditional starts
# `With helm +2H.`: a marker that lost its colon (a sentence it opens may not carry effects unread)
_COLONLESS = re.compile(rf"(?<![\w/])(?i:without|with|w/o|w/)[ \t]*{_WORD}(?:[ \t]+{_WORD}){{0,3}}[ \t]+(?=[+\d(])")
_CONDITIONAL = re.compile(r"(?<![\w/])(?i:if|otherwise)\b")  # a sentence that may word a condition
# `If the target is wearing metal armor, they're also Stunned`: effects added to those before, whatever the reading
_ALSO = re.compile(r"(?i)\b(?:also|as\s+well|in\s+addition|additionally)\b")
# `-40 activities instead`, `then only -10 penalty` (`only` before a count: `he is only Stunned` is prose)
_INSTEAD = re.compile(r"(?i)\binstead\b|\bonly\s+[+\-\u2013\u2212]?\s*\d")
_SENTENCE_END = re.compile(r"(?<=[.!?])(?:\s+|$)|\s*\n\s*")
# `as above but also +3 Damage`, `All of the above plus 1 Bleed`: a branch that repeats the one before it
_AS_ABOVE = re.compile(r"(?i)(?<!\w)(?:as|all[ \t]+of[ \t]+the)[ \t]+above\b")
MAX_BRANCHES = 6  # conditions on distinct features in one cell (and the branch for everyone else)


@dataclass(frozen=True)
class Branch:
    """One branch of a cell: its condition (a feature, `"not "` + a feature,
    or None: the cell has no branches, or this is the branch for every
    target no other branch's condition takes), its text and effects."""

    condition: str | None
    text: str
    effects: Effects
    warning: str | None = None  # a reading to check (the import warns on the cell)
    unread: tuple[str, ...] = ()  # printed pieces not read (conditions no branch reads, and its effects'): flagged


@dataclass(frozen=True)
class _Opener:
    start: int
    label: str  # as printed, for messages: `With helm`, `If foe has no helm`
    word: str  # lower case: `with`, `w/o`, `if`, …
    marker: bool  # a colon (`With helm:`), not a comma (`If foe has helm,`)
    condition: Condition | None  # None: no condition on one feature
    opens_sentence: bool


@dataclass(frozen=True)
class _Plan:
    """How a cell's branches are cut: the openers of the branches, in printed
    order, and each one's condition (None: the branch for everyone else,
    printed as `Otherwise:`); whether it is a lone opener (its other branch
    not printed); whether a branch for everyone else is added unprinted; the
    conditions read as no branch (their sentences are unread pieces)."""

    openers: tuple[_Opener, ...] = ()
    conditions: tuple[str | None, ...] = ()
    lone: str | None = None  # a lone opener's other branch: its condition
    everyone_else: bool = False  # several features: an unprinted branch (the text outside every branch) for the rest
    rejected: tuple[_Opener, ...] = ()
    warning: str | None = None


def parse_branches(text: str, legend: Legend = DEFAULT_LEGEND,
                   reading: ConditionReading = ConditionReading.ALSO) -> tuple[Branch, ...]:
    """The branches printed in one cell; each branch's text is its parts
    as printed, joined by a space, whitespace folded; its effects are read
    from that text, but for its unread pieces.

    Markers (`with X:`, `w/o X:`, `if foe has no X:`, `no X:`, …) decide
    where there are any; else conditions in prose (`If foe has X, …`,
    `Without a X, …`). The first opens the text or a sentence; a second
    opens where it opens a sentence, or anywhere when it is the negation of
    the first (`If not,`, `w/o X:` after `with X:`). A marker's branch runs
    to the next opener (or, alone, is its sentence, the rest for everyone
    else); a condition in prose governs its sentence, the rest is for every
    target. Markers on up to MAX_BRANCHES distinct features are as many
    branches, and one for every other target. A condition no branch reads,
    in a sentence with effects, makes that sentence an unread piece.

    ``reading``: ConditionReading.INSTEAD gives a branch opened by a
    condition in prose only the effects from its sentence on, not those
    printed before it (ALSO: those too)."""
    if len(text) > TEXT_CHARACTERS:  # docs/workbook-format.md, "Limits"
        raise ValueError(f"the entry holds {len(text):,} characters, more than an entry's {TEXT_CHARACTERS:,} (it starts {text[:40]!r})")
    if not _OPENING_WORD.search(text):  # most entries: no word a condition starts with, one branch
        return (_branch(None, text, legend),)
    openers = [_opener(text, m) for m in _OPENER.finditer(text)]
    chosen = _chosen(openers, markers=True) or _chosen(openers, markers=False)
    plan = _arranged(_with_its_bare_feature(text, chosen))
    unread = _unread_spans(text, openers, plan, legend)
    if not plan.openers:
        return (_read(text, [(0, len(text))], [], unread, None, legend),)
    return _branches(text, plan, unread, legend, reading)


def _opener(text: str, match: re.Match[str]) -> _Opener:
    opens = _opens_sentence(text, match.start())
    if (bare := match.group("bare")) is not None:  # `Otherwise +3H`, `If not he dies`: no comma, no colon
        word = bare.split()[0].lower()
        follows = text[match.end():].lstrip(" \t")[:1]
        # `If not armored +5H` is no `If not`; `Otherwise the foe falls` is one where it opens a sentence
        condition = OTHERWISE if not follows.isalpha() or (word == "otherwise" and opens) else None
        return _Opener(match.start(), bare, word, False, condition, opens)
    word = match.group("word").lower()
    mark = match.group("mark")
    marker = mark == ":"
    # `No X` only as a marker: in prose, `No parry, …` is no condition; a condition
    # ended by its clause's subject (no comma) only after `If`
    read = marker or (word != "no" and (mark is not None or word in ("if", "without", "w/o")))
    condition = read_condition(word, match.group("phrase") or "") if read else None
    if word == "otherwise" and match.group("phrase") and opens:
        condition = OTHERWISE  # `Otherwise the foe falls, +2H.` opening a sentence (mid-sentence it is prose)
    label = match.group()[:-1] if mark else match.group()
    return _Opener(match.start(), label.strip(), word, marker, condition, opens)


def _chosen(openers: list[_Opener], markers: bool) -> list[_Opener]:
    """The openers that may open branches: markers only, or conditions in
    prose only (with `If not` and negations of the first in either form)."""
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
        elif negates(first, condition) or negates_loosely(first, condition) or (
                opener.opens_sentence and opener.marker == markers and condition.feature is not None):
            chosen.append(opener)  # (one that makes no branch is a condition no branch reads: unread)
    if markers and first is not None and len(chosen) == 1:
        # the negation of the first marker worded in prose before it (`If the target is unarmored, … If the
        # target is wearing armor: …`) is its other branch, as it is after it
        before = [o for o in openers if o.start < chosen[0].start and o.condition is not None and not o.marker
                  and o.opens_sentence and o.condition.feature is not None and negates(first, o.condition)]
        if before:
            chosen.insert(0, before[0])
    return chosen


def _arranged(chosen: list[_Opener]) -> _Plan:
    """The branches the chosen openers make (docs/workbook-format.md,
    "Branches inside a cell"): a lone one; a feature and its negation (the
    second worded exactly, else loosely, where the cell names no third
    feature); or markers on distinct features, one for everyone else; the
    other openers are conditions no branch reads."""
    if not chosen:
        return _Plan()
    first = chosen[0]
    assert first.condition is not None and first.condition.feature is not None  # _chosen's first has a feature
    distinct, otherwise, others = _distinct(chosen)
    if len(chosen) > 1:
        second = chosen[1]
        assert second.condition is not None
        feature, warning = negates(first.condition, second.condition), None
        if feature is None and len(distinct) <= 2 and (feature := negates_loosely(first.condition, second.condition)):
            warning = (f"{shown(second.label)} is read as the negation of {shown(first.label)}, one feature "
                       f"{shown(feature)}: if they are two features, write them as two markers (With X: … With Y: …)")
        if feature is not None:
            conditions = (str(Condition(feature, first.condition.negated)), str(Condition(feature, not first.condition.negated)))
            return _Plan((first, second), conditions, rejected=tuple(chosen[2:]), warning=warning)
        if len(distinct) > 1:
            openers = (*distinct, *((otherwise,) if otherwise else ()))
            conditions = (*(str(o.condition) for o in distinct), *((None,) if otherwise else ()))
            return _Plan(openers, conditions, everyone_else=otherwise is None, rejected=tuple(others))
    condition = first.condition
    other = Condition(condition.feature, not condition.negated)
    return _Plan((first,), (str(condition),), lone=str(other), rejected=tuple(chosen[1:]))


def _distinct(chosen: list[_Opener]) -> tuple[list[_Opener], _Opener | None, list[_Opener]]:
    """Markers opening sentences on distinct features, in printed order (up to
    MAX_BRANCHES); the `Otherwise:` after them; the others. A condition in
    prose governs its own sentence and is no alternative to another feature's."""
    kept, otherwise, others = [chosen[0]], None, []
    if not chosen[0].marker:
        return kept, None, list(chosen[1:])
    features = [chosen[0].condition.feature if chosen[0].condition else None]
    for opener in chosen[1:]:
        feature = opener.condition.feature if opener.condition else None
        if otherwise is None and feature is None and len(kept) > 1:
            otherwise = opener  # the printed branch for everyone else; the branches end with it
        elif (otherwise is None and feature is not None and opener.marker and opener.opens_sentence
              and len(kept) < MAX_BRANCHES and all(f is None or same_feature(feature, f) is None for f in features)):
            kept.append(opener)
            features.append(feature)
        else:
            others.append(opener)
    return kept, otherwise, others


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


Span = tuple[int, int]


def _unread_spans(text: str, openers: list[_Opener], plan: _Plan, legend: Legend) -> list[Span]:
    """The sentences opened by a condition that is no branch (`If foe is prone,
    +5H.`, `Without a visor, he dies instantly.` beside `With helm: …`), up to
    their end or the next branch, that carry effects: unread pieces (their
    effects would otherwise go to every target, whatever the book says). Such
    a sentence without effects (`If he survives, he limps.`) is prose."""
    used = {o.start for o in plan.openers}
    rejected = {o.start for o in plan.rejected}  # conditions chosen, then left out: mid-sentence too
    starts = sorted({m.start() for m in _CONDITIONAL.finditer(text)} | {m.start() for m in _COLONLESS.finditer(text)} | {
        o.start for o in openers if (o.word in NEGATIVE_WORDS and o.condition is not None) or (o.marker and o.condition is None)}
        | rejected)
    ends = sorted({m.start() for m in _SENTENCE_END.finditer(text)} | used)  # a branch ends the sentence
    spans: list[Span] = []
    checked = -1  # the end of the last sentence looked at
    for start in starts:
        if start in used or (start not in rejected and not _opens_sentence(text, start)):
            continue
        end = ends[index] if (index := bisect_left(ends, start)) < len(ends) else len(text)
        if end == checked or end <= start:
            continue  # within the text just looked at (`If a; if b; …` is one sentence): bounded work
        checked = end
        effects = parse_effects(" ".join(text[start:end].split()), legend)
        if has_effects(effects) or effects.unread:  # (a penalty for a time is text only)
            spans.append((start, end))
    return spans


def _branches(text: str, plan: _Plan, unread: list[Span], legend: Legend,
              reading: ConditionReading) -> tuple[Branch, ...]:
    """Each branch of the plan: its parts of the text, its own part (what a
    branch after it repeating it, `as above`, takes), its effects."""
    parts: list[list[Span]]
    owns: list[list[Span]]
    opened: list[_Opener | None]  # the opener of each branch (None: not printed)
    if plan.lone is not None:
        opener = plan.openers[0]
        end, rest = _sentence(text, opener.start)
        before, own, after = (0, opener.start), (opener.start, end), (rest, len(text))
        # a marker's sentence is its branch, the rest the other's; a condition in prose governs its sentence only
        parts = [[before, own], [before, after]] if opener.marker else [[before, own, after], [before, after]]
        owns = [[own], [after] if opener.marker else []]
        conditions = [*plan.conditions, plan.lone]
        opened = [opener, None]
    else:
        own_parts = _owns(text, plan.openers)
        shared = _outside(own_parts, len(text))
        parts = [sorted([*shared, own]) for own in own_parts]
        owns = [[own] for own in own_parts]
        conditions = list(plan.conditions)
        opened = [*plan.openers]
        if plan.everyone_else:
            parts.append(shared)
            owns.append([])
            conditions.append(None)
            opened.append(None)
    branches = []
    for i, (condition, mine) in enumerate(zip(conditions, parts)):
        by = opened[i]
        cut = list(unread)
        # its own effects in place of those printed before it (a lone marker's too: `+12 Damage. If no leg
        # armor: +15 Damage.`; a feature and its negation as markers share what is before them), unless its own
        # words say they add to them (`they are also Stunned`)
        # (its own words decide where they say it: `also`, or `instead` / `only` under either reading)
        words = " ".join(text[start:end] for start, end in owns[i])
        said = _INSTEAD.search(words) is not None if _INSTEAD.search(words) or _ALSO.search(words) else None
        instead = reading is ConditionReading.INSTEAD if said is None else said
        if instead and by is not None and (not by.marker or plan.lone is not None):
            cut.append((0, by.start))
        repeated = _repeated(text, owns, i)
        branches.append(_read(text, mine, repeated, unread, condition, legend, cut))
    branches = _warn_instead(text, plan, branches, unread, legend, reading)
    if plan.lone is not None:
        return _warn_lone(text, plan.openers[0], tuple(branches), legend)
    if plan.warning:
        branches = [replace(b, warning=b.warning or plan.warning) for b in branches]
    return tuple(branches)


def _owns(text: str, openers: tuple[_Opener, ...]) -> list[Span]:
    """Each opener's own part: a marker's runs to the next opener (the last
    one's to the end), a condition in prose's to the end of its sentence."""
    owns = []
    for i, opener in enumerate(openers):
        following = openers[i + 1].start if i + 1 < len(openers) else len(text)
        owns.append((opener.start, following if opener.marker else min(_sentence(text, opener.start)[0], following)))
    return owns


def _outside(owns: list[Span], length: int) -> list[Span]:
    """What is outside every own part: every target's."""
    shared, last = [], 0
    for start, end in owns:
        shared.append((last, start))
        last = end
    return [*shared, (last, length)]


def _repeated(text: str, owns: list[list[Span]], index: int) -> list[Span]:
    """The own parts of the branches before ``index`` that it repeats: `as
    above` (`All of the above plus 1 Bleed`) in its own part takes the one
    before it, and what that one repeats."""
    taken: list[Span] = []
    while index > 0 and any(_AS_ABOVE.search(text, start, end) for start, end in owns[index]):
        index -= 1
        taken += owns[index]
    return taken


def _read(text: str, parts: list[Span], repeated: list[Span], unread: list[Span], condition: str | None,
          legend: Legend, cut: list[Span] | None = None) -> Branch:
    """A branch of ``parts`` of the text: its effects are read from them (and
    the ``repeated`` parts) without the ``cut`` ones (its unread pieces, and
    what `Conditions | instead` leaves out); the unread pieces in its parts
    are its ``unread``."""
    shown_text = _joined(*(text[start:end] for start, end in parts))
    cut = unread if cut is None else cut
    read = _joined(*(text[s:e] for start, end in parts for s, e in _without(start, end, cut)),
                   *(text[s:e] for start, end in repeated for s, e in _without(start, end, unread)))
    effects = parse_effects(read, legend)
    pieces = tuple(" ".join(text[s:e].split()) for s, e in unread if any(start <= s < end for start, end in parts))
    return Branch(condition, shown_text, effects, unread=tuple(dict.fromkeys((*pieces, *effects.unread))))


def _without(start: int, end: int, cut: list[Span]) -> list[Span]:
    """The stretch ``start``-``end`` with the ``cut`` spans taken out."""
    kept, at = [], start
    for s, e in sorted(cut):
        if e <= at or s >= end:
            continue
        if s > at:
            kept.append((at, s))
        at = max(at, e)
    if at < end:
        kept.append((at, end))
    return kept


def _warn_instead(text: str, plan: _Plan, branches: list[Branch], unread: list[Span], legend: Legend,
                  reading: ConditionReading) -> list[Branch]:
    """Under `Conditions | instead`, a cell whose every branch is a condition
    in prose (`+3H. If helm, 1∑. If not, 2∑.`) leaves the effects printed
    before them to no target: as declared, but said."""
    if reading is not ConditionReading.INSTEAD or plan.lone is not None or plan.everyone_else or any(
            o.marker for o in plan.openers):
        return branches
    first = plan.openers[0].start
    before = _joined(*(text[s:e] for s, e in _without(0, first, unread)))
    if not has_effects(parse_effects(before, legend)):
        return branches
    warning = (f"every branch is a condition in prose, read with Conditions 'instead': the effects before them "
               f"({shown(before, 40)}) go to no target")
    return [replace(b, warning=b.warning or warning) for b in branches]


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
    assert other is not None  # both of a lone opener's branches have a condition
    warning = (f"{shown(opener.label)} opens a branch of one sentence with no effects; the effects after it "
               f"({shown(' '.join(after.split()), 40)}) go to {shown(other)}: if they are the branch's, "
               "put them in its sentence")
    return (replace(branches[0], warning=warning), branches[1])


def _joined(*parts: str) -> str:
    """The parts, each stripped, joined by a space; whitespace folded as every cell's is."""
    return " ".join(" ".join(part.split()) for part in parts if part.strip())


def _branch(condition: str | None, text: str, legend: Legend) -> Branch:
    text = " ".join(text.split())  # a line break read, the text is folded as every cell's is
    effects = parse_effects(text, legend)
    return Branch(condition, text, effects, unread=effects.unread)


_MID_SENTENCE_CONDITION = re.compile(r"(?i)(?<=\S)\s+(?:if|otherwise)\b|\b(?:unless|else)\b")


def condition_in_mid_sentence(text: str, legend: Legend = DEFAULT_LEGEND) -> str | None:
    """`Dies in 3 rounds if no helm.`, `If helm, +2H, else +5H.`, `+5H unless foe has helm.`: a
    condition a branch does not open, in a sentence with effects, which go to every target: said."""
    if not _MID_SENTENCE_CONDITION.search(text):
        return None
    for sentence in SENTENCES.findall(text):
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
