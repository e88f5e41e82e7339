"""Progress for long work, drawn by whoever calls the service.

A service decides when work is long enough to report; how it is shown
(a bar on a terminal, nothing in a pipe) is the caller's business, so the
services draw nothing themselves.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, contextmanager
from typing import Callable, Iterator

Progress = Callable[[int], None]  # called with how many more units are done
ProgressBar = Callable[[int, str], AbstractContextManager[Progress | None]]  # (total units, description)


@contextmanager
def reporting(bar: ProgressBar | None, total: int, long_enough: bool, description: str) -> Iterator[Progress | None]:
    """``bar``'s progress callback when the work is long enough, else None."""
    if bar is None or not long_enough:
        yield None
        return
    with bar(total, description) as progress:
        yield progress
