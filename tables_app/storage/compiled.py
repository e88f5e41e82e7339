"""Compiled tables kept between the requests of one process (the HTTP API),
never stale: reloaded when the database changes. What is kept: each
weapon's table set, each attack table looked up (`query attack`), each
attacker's rules on a table set (domain/table_rules.py, AttackRules: every
row the attacker can read, read once), and what a name means and the weapon
or creature it names (KeptReader, counted apart in ``look_ups``).

Reading a weapon's tables from SQLite and building them is most of a
resolve (and, under concurrency, every row fetched hands the GIL over and
waits to get it back); reading every row for an attacker is most of what
is left. The HTTP API gives each of its connections (one per thread) this
one cache; the command line's one-shot commands never make or import it.

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
from typing import TYPE_CHECKING, Any, Callable, Hashable, TypeVar

from tables_app.storage.locking import begin_read_version, data_version
from tables_app.storage.reader import Found, Reader

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from tables_app.domain.tables import Creature, Weapon

T = TypeVar("T")

# values kept (a table set per weapon and ruleset read, an attack table per
# table looked up, rules per attacker and table set); the oldest go first
LIMIT = 4096


class CompiledTables:
    """Compiled tables by what they were read for, valid for one generation of the database."""

    def __init__(self, limit: int = LIMIT):
        self.limit = limit
        self.generation = 0
        self.loads = 0  # values compiled (read from the database, or built from what was): the tests count them
        self.look_ups = 0  # names looked up and rows read for them (KeptReader), apart
        self._lock = threading.Lock()
        self._seen: dict[int, tuple[sqlite3.Connection, int]] = {}  # id(connection): (it, its last data_version)
        self._kept: dict[Hashable, Any] = {}

    def pin(self, connection: sqlite3.Connection, *, begin: bool = False) -> int:
        """The generation of the read transaction just begun on ``connection``
        (BEGIN done, nothing read yet; or begun here, if ``begin``: one round
        trip on PostgreSQL): reading data_version takes its snapshot."""
        with self._lock:
            version = begin_read_version(connection) if begin else data_version(connection)
            seen = self._seen.get(id(connection))
            if seen is None or seen[0] is not connection or seen[1] != version:
                self._seen[id(connection)] = (connection, version)
                self.generation += 1
                self._kept.clear()
            return self.generation

    def forget(self, connection: sqlite3.Connection) -> None:
        """``connection`` is being closed."""
        with self._lock:
            seen = self._seen.get(id(connection))
            if seen is not None and seen[0] is connection:
                del self._seen[id(connection)]

    def kept(self, generation: int, key: Hashable, load: Callable[[], T], *, look_up: bool = False) -> T:
        """What ``key`` stands for in ``generation``: kept, or ``load()``-ed
        (in the caller's read transaction) and kept if that generation is
        still the current one; counted in ``loads``, or ``look_ups`` if ``look_up``."""
        with self._lock:
            found = self._kept.get(key) if generation == self.generation else None
        if found is not None:
            return found  # what load() gave under this key
        loaded = load()
        with self._lock:
            if look_up:
                self.look_ups += 1
            else:
                self.loads += 1
            if generation == self.generation:
                if len(self._kept) >= self.limit:
                    del self._kept[next(iter(self._kept))]
                self._kept[key] = loaded
        return loaded


class KeptReader(Reader):
    """A Reader whose look-ups by name (which weapon, creature or table a
    name means, and the weapon or creature it is) are kept with the compiled
    tables of the generation they were read in: a served resolve whose tables
    are kept then reads nothing but the generation (bench/README.md,
    "PostgreSQL import and resolve (#44)"). Only answers are kept (a NotFound is asked again);
    every value kept is immutable."""

    def __init__(self, snapshot: Callable[[], AbstractContextManager[sqlite3.Connection]], compiled: CompiledTables,
                 generation: Callable[[], int | None]):
        super().__init__(snapshot)
        self._compiled = compiled
        self._generation = generation  # the generation of the snapshot being held (Database._generation)

    def _kept(self, key: Hashable, load: Callable[[], T]) -> T:
        assert self._snapshot is not None
        with self._snapshot():  # joins the caller's, or holds one around the look-up
            generation = self._generation()
            return load() if generation is None else self._compiled.kept(generation, key, load, look_up=True)

    def locate(self, kind: str, name: str, ruleset: str | None = None) -> Found:
        return self._kept(("locate", kind, name, ruleset), lambda: Reader.locate(self, kind, name, ruleset))

    def load_weapon(self, name: str | Found, ruleset: str | None = None) -> Weapon:
        return self._kept(("weapon", name, ruleset), lambda: Reader.load_weapon(self, name, ruleset))

    def load_creature(self, name: str | Found, ruleset: str | None = None) -> Creature:
        return self._kept(("creature", name, ruleset), lambda: Reader.load_creature(self, name, ruleset))
