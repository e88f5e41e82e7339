"""One rule for names: when two spellings are the same name, and what a
misspelt name was probably meant to be.

Names of tables, weapons, creatures, severities, armor columns and features
match in any letter case and any Unicode compatibility form: ``ÆRØ`` is
``ærø``, ``Straße`` is ``STRASSE``, the ``ﬁ`` ligature is ``fi``, a
decomposed ``é`` is the composed one. The importer, the SQL lookups
(storage/reader.py registers ``fold`` as an SQLite function) and the domain
all compare ``fold(a) == fold(b)``.
"""

from __future__ import annotations

import unicodedata
from typing import Iterable

SUGGESTIONS = 3  # near names offered for an unknown one
CLOSENESS = 0.6  # difflib ratio a near name must reach
SHORT_NAME = 5  # a name this long or shorter may be one edit off, a longer one two,
TINY_NAME = 2  # ... and one this short none (any letter is one edit from `F`)
MARGIN = 0.1  # ... and how far it may trail the closest (Longsword, not also Longbow)


def fold(name: str) -> str:
    """The key every spelling of one name shares: NFKC, Unicode casefold,
    NFKC again (casefolding can leave a string that NFKC would change, e.g.
    a decomposed ``ǰ``), and runs of whitespace as one space, as the importer
    stores them."""
    if name.isascii():  # the common case: NFKC leaves ASCII as it is
        return " ".join(name.lower().split())
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(text.split())


def is_utf8(text: str) -> bool:
    """Whether ``text`` is UTF-8 text: a name given as bytes that are not (Python's lone surrogates, from the
    command line) can be neither stored nor found."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def same_name(a: str | None, b: str | None) -> bool:
    return fold(a or "") == fold(b or "")


def suggest(name: str, known: Iterable[str], limit: int = SUGGESTIONS) -> list[str]:
    """Up to ``limit`` known names close to ``name`` (as the known spell
    them), compared folded: names that start with ``name`` first (``long``
    is the start of ``Longsword`` more than it is close to ``Sling``), then
    the names a typo or two away (a letter wrong, missing, added, or two
    swapped: ``Egded`` is ``Edged`` with one swap), then the closest by
    difflib's ratio, then names that contain ``name``."""
    by_key: dict[str, str] = {}
    for spelling in known:
        by_key.setdefault(fold(spelling), spelling)
    key = fold(name)
    if not key:
        return []
    import difflib  # only for a name not found: a lookup that finds it never loads these

    from rapidfuzz.distance import OSA  # edit distance where a transposition is one edit

    allowed = 0 if len(key) <= TINY_NAME else 1 if len(key) <= SHORT_NAME else 2
    edits = sorted((OSA.distance(key, candidate, score_cutoff=allowed), candidate) for candidate in by_key)
    typos = [candidate for distance, candidate in edits if distance <= allowed and candidate != key]

    matcher = difflib.SequenceMatcher(b=key)
    scored = []
    for candidate in by_key:
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() >= CLOSENESS and matcher.quick_ratio() >= CLOSENESS:
            scored.append((matcher.ratio(), candidate))
    best = max((ratio for ratio, _ in scored), default=0.0)
    close = [k for ratio, k in sorted(scored, key=lambda s: (-s[0], s[1])) if ratio >= max(CLOSENESS, best - MARGIN)]
    starting = [k for k in sorted(by_key) if k.startswith(key) and k != key]
    containing = [k for k in sorted(by_key) if key in k]
    return [by_key[k] for k in dict.fromkeys(starting + typos + close + containing)][:limit]


SHOWN = 100  # characters of a text an error message quotes; a longer one is shortened


def shown(text: str, keep: int = SHOWN) -> str:
    """``text`` quoted for a message: whole when short, else its start and
    how many characters follow (a pasted 1 MB cell is never echoed back)."""
    if len(text) <= keep:
        return repr(text)
    return f"{text[:keep]!r}… ({len(text) - keep:,} more characters)"


def did_you_mean(suggestions: list[str]) -> str:
    """`` — did you mean 'A', 'B' or 'C'?`` (empty without suggestions)."""
    if not suggestions:
        return ""
    quoted = [repr(s) for s in suggestions]
    choices = quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"
    return f" — did you mean {choices}?"
