"""`python -m tables_app` and the `tables` console script.

Ctrl-C while the command's modules are still loading (its first ~0.1 s) is
the same one line and exit code 130 as Ctrl-C during the command itself
(cli/root.py), never Python's traceback: only this module and tables_app/__init__
are loaded before the handler is in place.
"""

from __future__ import annotations

import os
import sys
import time

INTERRUPTED = 130  # 128 + SIGINT, as shells report it
STARTED = time.monotonic()  # when the command began, as near as Python lets us see: an answer's time budget counts from it


def main() -> None:
    # numpy's OpenBLAS starts a pool of threads, one per core, when numpy is imported: CPU and time at every start of
    # a command that simulates. tables does no linear algebra (its arrays are integers and counts), so the pool
    # would never work; it is kept to one thread unless the user says otherwise. The CLI's own process only: the
    # library leaves its caller's environment alone.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    try:
        from tables_app.cli import common
        from tables_app.cli.root import main as command
    except KeyboardInterrupt:
        sys.stderr.write("Error: interrupted (Ctrl-C)\n")
        raise SystemExit(INTERRUPTED) from None
    common.STARTED = STARTED  # handed down (the CLI never imports this module: run by -m, it is __main__, not this)
    command()


if __name__ == "__main__":
    main()
