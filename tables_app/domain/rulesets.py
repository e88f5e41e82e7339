"""Rulesets: namespaces for names and critical codes.

A ruleset (Rolemaster, VsD, a home game) holds its own severity scales,
attack, critical and fumble tables, weapons and creatures. Names and codes
are unique within a ruleset, and a workbook's references resolve inside
its own ruleset only: Rolemaster's `S` (Slash) can never bind to the
bundled `Cut`. Tables and workbooks that name no ruleset are in
``default``.

On the command line a name may be qualified, ``RULESET:NAME``. The part
before the first colon is a ruleset only when such a ruleset exists, so a
table called ``Arms Law: Slash`` still reads as a name.
"""

from __future__ import annotations

from typing import Iterable

from tables_app.domain.names import fold

DEFAULT_RULESET = "default"
SEPARATOR = ":"
LONGEST_NAME = 100  # characters in a ruleset's name


def qualified(ruleset: str, name: str) -> str:
    """``RULESET:NAME``: how a name is written to be unambiguous."""
    return f"{ruleset}{SEPARATOR}{name}"


def shown(ruleset: str, name: str) -> str:
    """A name as reports show it: plain in ``default``, qualified elsewhere."""
    return name if fold(ruleset) == DEFAULT_RULESET else qualified(ruleset, name)


def split_qualified(text: str, rulesets: Iterable[str]) -> tuple[str | None, str]:
    """(ruleset as stored, name) when ``text`` starts with a known ruleset
    and a colon; else (None, text)."""
    head, separator, rest = text.partition(SEPARATOR)
    if not separator or not rest.strip():
        return None, text
    key = fold(head)
    for ruleset in rulesets:
        if fold(ruleset) == key:
            return ruleset, rest.strip()
    return None, text


def ruleset_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a ruleset, or None."""
    if SEPARATOR in name:
        return f"a ruleset's name cannot contain {SEPARATOR!r} (it separates RULESET:NAME): {name!r}"
    if len(name) > LONGEST_NAME:
        return f"a ruleset's name has at most {LONGEST_NAME} characters, not {len(name)}"
    return None


def name_key(ruleset: str, name: str) -> tuple[str, str]:
    """The key of a name in its ruleset, by the one rule of names (both folded)."""
    return fold(ruleset), fold(name)


def in_ruleset(ruleset: str) -> str:
    """`` in ruleset 'RM'`` for messages; nothing for ``default`` (where
    every version-1 workbook is, and messages read as they always have)."""
    return "" if fold(ruleset) == DEFAULT_RULESET else f" in ruleset {ruleset!r}"
