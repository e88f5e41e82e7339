"""The branches printed inside one critical or fumble cell
(`With helm: +3H – 2∑. Without helm: +6H – 3∑∏.`): which text, and so
which effects, each kind of target gets (docs/workbook-format.md,
"Branches inside a cell")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tables_app.domain.bounds import TEXT_CHARACTERS
from tables_app.domain.effects import Effects, parse_effects
from tables_app.domain.legend import DEFAULT_LEGEND, Legend
from tables_app.domain.names import shown

# `With helm:`, `without chest armor:`, `w/ shield:`, `w/o helm:`, `if helm:`,
# `if not leg armor:` — up to four words of letters, and the colon.
_MARKER = re.compile(
    r"(?i:(?P<word>without|with|w/o|w/|if\s+not|if))\s*(?<=\s|/)"
    r"(?P<feature>[^\W\d_]+(?:[ \-][^\W\d_]+){0,3})\s*:"
)
_NEGATIVE_WORDS = ("without", "w/o", "if not")
_SENTENCE_END = re.compile(r"(?<=[.!?])(?:\s+|$)|\s*\n\s*")


@dataclass(frozen=True)
class Branch:
    """One branch of a cell: its condition (a feature, `"not "` + a feature,
    or None when the cell has no branches), its text and effects."""

    condition: str | None
    text: str
    effects: Effects


def parse_branches(text: str, legend: Legend = DEFAULT_LEGEND) -> tuple[Branch, ...]:
    """The branches printed in one cell.

    A marker — `with X:`, `without X:`, `w/ X:`, `w/o X:`, `if X:`,
    `if not X:` (any case, the colon required) — opens a branch where it
    starts the text or a sentence (after `.`, `!`, `?`, `;` or a line
    break); `Struck with shield: …` in mid-sentence is prose. ``X`` is
    lower-cased as written; the conditions are ``"helm"`` and ``"not helm"``.

    - No marker: one branch, condition None, the whole text.
    - Two markers, a feature and its negation: each branch runs from its
      marker to the next marker (or the end).
    - One marker (`With shield: +2H. +6H – 2∑∏.`): the branch is the
      sentence the marker opens; the text after it is for everyone else,
      which is the negation (`"not shield"`, empty text and no effects when
      nothing follows), so exactly one branch applies to every target.
    - Text before the first marker (a title, effects for everyone) belongs
      to every branch: it starts each branch's text and its effects count
      in each.

    Each branch's text is its parts as printed, joined by a space; its
    effects are read from that text. More than two markers, or two that are
    not a feature and its negation, are an error.
    """
    if len(text) > TEXT_CHARACTERS:  # docs/workbook-format.md, "Limits"
        raise ValueError(f"the entry holds {len(text):,} characters, more than an entry's {TEXT_CHARACTERS:,} (it starts {text[:40]!r})")
    markers = [m for m in _MARKER.finditer(text) if _opens_sentence(text, m.start())]
    if not markers:
        return (_branch(None, text, legend),)
    shared = text[: markers[0].start()]
    return tuple(_branch(condition, _joined(shared, part), legend) for condition, part in _branch_parts(text, markers))


def _branch_parts(text: str, markers: list[re.Match[str]]) -> list[tuple[str, str]]:
    """(condition, the branch's own text) for the two branches the markers open."""
    if len(markers) > 2:
        raise ValueError(f"{len(markers)} branches in one cell ({_quoted(markers)}): at most a feature and its negation")
    first = _condition(markers[0])
    if len(markers) == 1:
        branch, everyone_else = _first_sentence(text[markers[0].start() :])
        return [(first, branch), (_negation(first), everyone_else)]
    if _condition(markers[1]) != _negation(first):
        raise ValueError(f"branches {_quoted(markers)} are not a feature and its negation")
    second = markers[1].start()
    return [(first, text[markers[0].start() : second]), (_negation(first), text[second:])]


def _opens_sentence(text: str, start: int) -> bool:
    """Whether a marker at ``start`` opens the text or a sentence: only the
    spaces before it are looked at (never the whole text before each marker)."""
    end = start
    while end and text[end - 1].isspace():
        end -= 1
    return not end or text[end - 1] in ".!?;" or "\n" in text[end:start]


def _condition(marker: re.Match[str]) -> str:
    feature = " ".join(marker.group("feature").lower().split())
    word = " ".join(marker.group("word").lower().split())
    return f"not {feature}" if word in _NEGATIVE_WORDS else feature


def _negation(condition: str) -> str:
    return condition.removeprefix("not ") if condition.startswith("not ") else f"not {condition}"


def _first_sentence(text: str) -> tuple[str, str]:
    end = _SENTENCE_END.search(text)
    if end is None:
        return text, ""
    return text[: end.start()], text[end.end() :]


def _joined(*parts: str) -> str:
    return " ".join(part.strip() for part in parts if part.strip())


def _branch(condition: str | None, text: str, legend: Legend) -> Branch:
    text = " ".join(text.split())  # a line break read, the text is folded as every cell's is
    return Branch(condition, text, parse_effects(text, legend))


def _quoted(markers: list[re.Match[str]], shown_markers: int = 3) -> str:
    quoted = ", ".join(shown(m.group().rstrip(":").strip()) for m in markers[:shown_markers])
    return quoted + (f" and {len(markers) - shown_markers} more" if len(markers) > shown_markers else "")
