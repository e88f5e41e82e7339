"""The write transactions: an import's and a removal's, each all or nothing.

An import checks before it writes (locking.py says why): its workbooks are
read and checked against a read snapshot, which blocks no one, and the
write lock is taken only to write them. A removal is small and takes the
lock at once. Either way the caller's work gets a connection inside the
transaction and never says BEGIN, COMMIT or ROLLBACK itself; what SQLite
raises comes out as the errors of errors.py, naming the file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from tables_app.errors import DatabaseError

# locking as a module: tests and bench/ stand in for its functions
from tables_app.storage import locking
from tables_app.storage.connection import (
    begin_read,
    busy_message,
    connect,
    defer_foreign_keys,
    fault_or_bug,
    integrity_failure,
    write_transaction,
)
from tables_app.storage.faults import any_broken_reference
from tables_app.storage.location import Target

Checked = TypeVar("Checked")


def check_then_write(path: Target, check: Callable[[sqlite3.Connection], Checked],
                     write: Callable[[sqlite3.Connection, Checked | None], bool], *, breaking: str,
                     on_wait: Callable[[float], None] | None = None, dry_run: bool = False) -> bool:
    """An import's one transaction; whether it was committed.

    ``check(connection)`` reads and checks against a read snapshot, without
    the write lock. Then, holding it (waited for in turn: ``on_wait(seconds)``
    is told while another process writes), ``write(connection, checked)``
    writes and says whether to commit; ``checked`` is None when another
    process committed in between (check again). Foreign keys are checked at
    the commit. A ``dry_run`` writes on a private copy of the database, never
    checked first (``write(connection, None)``) and never committed.

    A rule broken at the commit is a DatabaseError ``breaking: error``
    (connection.integrity_failure); another failure of the file, a
    DatabaseFault; anything else is a bug and keeps its traceback.
    """
    try:
        if dry_run:
            with locking.private_copy(path) as copy:
                copy.execute("BEGIN")
                write(copy, None)
            return False
        connection = connect(path)
        try:
            begin_read(connection)  # a read snapshot: blocks no one
            version = locking.data_version(connection)
            checked: Checked | None = check(connection)
            connection.execute("ROLLBACK")
            locking.begin_immediate(connection, on_wait)
            if locking.data_version(connection) != version:  # another process wrote meanwhile: check again
                checked = None
            defer_foreign_keys(connection)
            if not write(connection, checked):
                return False
            locking.bump_generation(connection)  # readers' compiled tables are stale from this commit on
            connection.execute("COMMIT")
            return True
        finally:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            connection.close()
    except sqlite3.IntegrityError as exc:
        raise integrity_failure(path, exc, breaking) from None
    except sqlite3.DatabaseError as exc:  # a fault of the file (full, damaged) names it; anything else is a bug
        raise fault_or_bug(path, exc) from None


@contextmanager
def writing(path: Target, *, commit: bool, breaking: str, kept: sqlite3.Connection | None = None) -> Iterator[sqlite3.Connection]:
    """One write transaction on a connection of its own, the write lock taken
    at once (connection.write_transaction): committed when the block ends if
    ``commit`` (else rolled back: a dry run), rolled back by any error.

    A rule broken at the commit is a DatabaseError ``breaking: error``; any
    other failure SQLite reports, a DatabaseError saying it plainly
    (connection.busy_message).
    """
    try:
        with write_transaction(path, kept) as connection:
            yield connection
            if commit:
                connection.execute("COMMIT")
    except sqlite3.IntegrityError as exc:
        raise DatabaseError(f"{breaking}: {exc}") from None
    except sqlite3.OperationalError as exc:
        raise DatabaseError(busy_message(exc)) from None


def refuse_broken_references(connection: sqlite3.Connection, saying: str) -> None:
    """Before a commit: an IntegrityError ``saying`` if any row refers to a
    row that does not exist (check_then_write says whose fault it is)."""
    if any_broken_reference(connection):
        raise sqlite3.IntegrityError(saying)
