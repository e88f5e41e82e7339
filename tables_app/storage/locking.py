"""The write lock: taken late, waited for in turn, and never taken by a check.

An import reads, interprets and checks its workbooks against a read snapshot
(which in WAL mode blocks no one), then takes the write lock with BEGIN
IMMEDIATE only to write. ``PRAGMA data_version`` on the same connection says
whether another process committed in between; if it did, the checks are
done again under the lock. A second import waits its turn (``on_wait`` is
told how long it has waited, so the command can say so) and fails only past
LOCK_WAIT_SECONDS. A dry run (`tables lint`, `import --dry-run`) works on a
private in-memory copy of the database and never takes the lock at all.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from tables_app.errors import DatabaseError
from tables_app.storage.connection import BUSY_TIMEOUT_MS, READ_SNAPSHOT_ON_SERVER, begin_read, connect, set_busy_timeout, take_write_lock
from tables_app.storage.dialect import on_server
from tables_app.storage.location import Server, Target

LOCK_NOT_AVAILABLE = "55P03"  # PostgreSQL's SQLSTATE for a lock wait past lock_timeout

LOCK_WAIT_SECONDS = 120  # how long an import waits for another one's write (docs/security.md)
SLICE_MS = 250  # the busy timeout of one try: how often a waiting import says so


_GENERATION = "SELECT number FROM generation WHERE id = 1"


def data_version(connection: sqlite3.Connection) -> int:
    """Changes when another connection commits (compare on the same
    connection). On PostgreSQL, the generation number every import and
    removal bumps (models.Generation), the same for every connection."""
    if on_server(connection):
        return connection.execute(_GENERATION).fetchone()[0]
    return connection.execute("PRAGMA data_version").fetchone()[0]


def begin_read_version(connection: sqlite3.Connection) -> int:
    """begin_read, then data_version: a read transaction and the version it
    sees. On PostgreSQL the two go as one message, one round trip (a served
    resolve whose tables are kept sends only this and its COMMIT: compiled.py)."""
    if not on_server(connection):
        begin_read(connection)
        return data_version(connection)
    cursor: Any = connection.execute(f"{READ_SNAPSHOT_ON_SERVER}; {_GENERATION}")
    cursor.nextset()  # past BEGIN's (empty) result to the SELECT's, which took the snapshot
    return cursor.fetchone()[0]


def bump_generation(connection: sqlite3.Connection) -> None:
    """A change to the tables: the generation number moves (in the writer's transaction)."""
    connection.execute("UPDATE generation SET number = number + 1 WHERE id = 1")


def begin_immediate(connection: sqlite3.Connection, on_wait: Callable[[float], None] | None = None,
                    limit: float | None = None) -> None:
    """BEGIN IMMEDIATE: the write lock, waiting up to ``limit`` seconds
    (LOCK_WAIT_SECONDS) while another process holds it; ``on_wait(seconds
    waited)`` after each try."""
    limit = LOCK_WAIT_SECONDS if limit is None else limit
    started = time.monotonic()
    set_busy_timeout(connection, SLICE_MS)
    try:
        while True:
            try:
                take_write_lock(connection)
                return
            except sqlite3.OperationalError as exc:
                if getattr(exc, "sqlstate", None) == LOCK_NOT_AVAILABLE:
                    connection.execute("ROLLBACK")  # PostgreSQL ends the transaction a lock wait timed out in
                elif "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                waited = time.monotonic() - started
                if waited >= limit:
                    raise DatabaseError(f"the database is locked by another process (waited {limit:g} s for its write "
                                        "to end); nothing was changed, try again") from None
                if on_wait is not None:
                    on_wait(waited)
    finally:
        set_busy_timeout(connection, BUSY_TIMEOUT_MS)


@contextmanager
def private_copy(path: Target) -> Iterator[sqlite3.Connection]:
    """The database copied into memory (one consistent read of the file),
    for work that must see the import's effect but never write the file.

    On PostgreSQL, a connection of its own whose transaction is always rolled
    back: the server keeps what it writes from everyone else, and forgets it."""
    if isinstance(path, Server):
        connection = connect(path)
        try:
            yield connection
        finally:
            try:
                connection.rollback()
            finally:
                connection.close()
        return
    source = connect(path)
    copy = sqlite3.connect(":memory:", isolation_level=None)
    try:
        source.backup(copy)
        source.close()
        copy.execute("PRAGMA foreign_keys = ON")
        yield copy
    finally:
        source.close()
        copy.close()
