"""Compiled table sets kept between the requests of one process (the HTTP
API), never stale: reloaded when the database changes.

Reading a weapon's tables from SQLite and building them is most of a
resolve (and, under concurrency, every row fetched hands the GIL over and
waits to get it back). The HTTP API gives each of its connections (one per
thread) this one cache; the command line's one-shot commands never make or
import it.

Which database a request sees: SQLite's ``PRAGMA data_version``, read as
the first statement of each read transaction (Database.snapshot), changes
on a connection whenever another connection has committed since that
connection last read it. Its values are per connection and cannot be
compared between connections, so the cache keeps a *generation* instead:
the first transaction of a connection, and any transaction whose
connection's data_version moved, starts a new generation and empties the
cache. Those reads and the decision are made under one lock, so snapshots
are taken in the lock's order and each is at least as new as the one
before: two transactions of one generation therefore see the same
committed database (a commit between them would move the later one's
data_version). A table set is kept, and found, under the generation of the
transaction that read it only: a request never mixes tables of two imports,
and after another process's import the next request reads the new cells.
"""

from __future__ import annotations

import sqlite3
import threading
from typing import TYPE_CHECKING, Callable, Hashable

if TYPE_CHECKING:
    from tables_app.domain.table_rules import TableSet

LIMIT = 1024  # table sets kept (one per weapon and ruleset read); the oldest go first


class CompiledTables:
    """Table sets by what they were read for, valid for one generation of the database."""

    def __init__(self, limit: int = LIMIT):
        self.limit = limit
        self.generation = 0
        self.loads = 0  # table sets read from the database (the tests count them)
        self._lock = threading.Lock()
        self._seen: dict[int, tuple[sqlite3.Connection, int]] = {}  # id(connection): (it, its last data_version)
        self._sets: dict[Hashable, TableSet] = {}

    def pin(self, connection: sqlite3.Connection) -> int:
        """The generation of the read transaction just begun on ``connection``
        (BEGIN done, nothing read yet): reading data_version takes its snapshot."""
        with self._lock:
            version = connection.execute("PRAGMA data_version").fetchone()[0]
            seen = self._seen.get(id(connection))
            if seen is None or seen[0] is not connection or seen[1] != version:
                self._seen[id(connection)] = (connection, version)
                self.generation += 1
                self._sets.clear()
            return self.generation

    def forget(self, connection: sqlite3.Connection) -> None:
        """``connection`` is being closed."""
        with self._lock:
            seen = self._seen.get(id(connection))
            if seen is not None and seen[0] is connection:
                del self._seen[id(connection)]

    def table_set(self, generation: int, key: Hashable, load: Callable[[], TableSet]) -> TableSet:
        """The table set ``key`` stands for in ``generation``: kept, or ``load()``-ed
        (in the caller's read transaction) and kept if that generation is still the current one."""
        with self._lock:
            found = self._sets.get(key) if generation == self.generation else None
        if found is not None:
            return found
        loaded = load()
        with self._lock:
            self.loads += 1
            if generation == self.generation:
                if len(self._sets) >= self.limit:
                    del self._sets[next(iter(self._sets))]
                self._sets[key] = loaded
        return loaded
