"""Names kept on one line: a name's spaces as JOIN, a space no line breaks
at (layout.py prints it as a space, and breaks a name at its spaces only
when it alone is wider than the room it has). Light: no rich, so that a
command that prints --json loads nothing to lay text out."""

from __future__ import annotations

from collections.abc import Iterable

JOIN = "\ue000"  # private use: in no name; neither str.split, textwrap nor rich breaks at it


def unbroken(name: str) -> str:
    """A name kept on one line where the width allows (its spaces as JOIN)."""
    return name.replace(" ", JOIN)


def unbroken_list(names: Iterable[str], separator: str = ", ") -> str:
    """Names joined by ``separator``, each kept on one line where it fits."""
    return separator.join(unbroken(name) for name in names)


def spaced(text: str) -> str:
    """``text`` as printed: each JOIN a space."""
    return text.replace(JOIN, " ")
