"""What is at a path the commands read or write, told before it is opened;
and how a file is written.

Only a regular file is read or written (or a new name, for a write): a
named pipe would block the command forever, a device or a socket is no
workbook. ``os.stat`` says what is there without opening it.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO, Callable

from tables_app.errors import TablesError

__all__ = ["check_write_target", "not_a_file", "os_problem", "save"]

_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def not_a_file(path: str | Path) -> str | None:
    """What is at ``path`` (links followed) when it is not a regular file:
    ``"a named pipe (FIFO)"``, ``"a directory"``, ...; None for a regular
    file or nothing there. Never opens it. An OSError of the path itself (a
    name over 255 bytes, a parent that is a file) is raised."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "not a regular file")


def check_write_target(path: str | Path, *, named: str, suffix: str) -> None:
    """A TablesError unless ``path`` is a new name or a regular file, told
    without opening it (a named pipe opened for writing would block);
    ``named`` is how the message names it, ``suffix`` the kind of file wanted."""
    try:
        what = not_a_file(path)
    except OSError as exc:  # a name over 255 bytes, a parent that is a file
        raise TablesError(f"cannot write {named}: {os_problem(exc)}") from None
    if what is not None:
        raise TablesError(f"{named} is {what}, not a file; give the name of a new or a regular {suffix} file")


def save(path: Path, write: Callable[[IO[bytes]], object], *, overwrite: bool) -> None:
    """Run ``write(handle)`` into ``path``; a write that fails (an error, a
    full disk) leaves no half-written file behind.

    A new name is created exclusively: FileExistsError if something appeared
    there meanwhile. With ``overwrite`` and something already there, the new
    file is written beside it and moved into place, so a failed write leaves
    the old file as it was, and a symbolic link there is replaced, never
    written through (it may point anywhere); the new file keeps the old
    one's permissions."""
    if not overwrite or not os.path.lexists(path):
        handle = open(path, "xb")
        try:
            with handle:  # closed (and flushed: a full disk may say so only here) before the file is judged written
                write(handle)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        return
    import tempfile  # here: the commands that write nothing start without it (tests/test_startup.py)

    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError:  # a link to nothing
        mode = 0o644
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tables-", suffix=".part")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            write(handle)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def os_problem(error: OSError) -> str:
    """The system's reason, as a sentence's end: ``File name too long``."""
    return error.strerror or str(error)
