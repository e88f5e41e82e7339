"""A progress bar on a terminal's stderr for work that takes a while
(simulations, long sweeps); nothing when stderr is not a terminal."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator

Progress = Callable[[int], None]  # called with how many more units are done


@contextmanager
def progress_bar(count: int, description: str) -> Iterator[Progress | None]:
    """A services.reporting.ProgressBar: the service says when work is long."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress as Bar

    with Bar(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=count)
        yield lambda n: bar.advance(task, n)
