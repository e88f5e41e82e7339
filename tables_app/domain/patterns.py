"""Regular expressions compiled when first used rather than when their module is imported.

The effect reader's patterns take milliseconds to compile, and most commands (a lookup, a sweep, a
simulation) import the module for its model and read no effect's text: they pay nothing. The pattern
is the same object ``re.compile`` would give, once used; only its compilation waits.
"""

from __future__ import annotations

import re
from typing import Any, cast


class _Deferred:
    __slots__ = ("_source", "_flags", "_compiled")

    def __init__(self, source: str, flags: int):
        self._source, self._flags = source, flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:  # only for what the instance lacks: every attribute of the pattern
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._source, self._flags)
        return getattr(compiled, name)


def deferred(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, compiled at its first use."""
    return cast("re.Pattern[str]", _Deferred(source, flags))
