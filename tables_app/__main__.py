"""`python -m tables_app` and the `tables` console script.

Ctrl-C while the command's modules are still loading (its first ~0.1 s) is
the same one line and exit code 130 as Ctrl-C during the command itself
(cli/root.py), never Python's traceback: only this module and tables_app/__init__
are loaded before the handler is in place.
"""

from __future__ import annotations

import sys
import time

INTERRUPTED = 130  # 128 + SIGINT, as shells report it
STARTED = time.monotonic()  # when the command began, as near as Python lets us see: an answer's time budget counts from it


def main() -> None:
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
