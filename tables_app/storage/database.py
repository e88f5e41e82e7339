"""One database: a sqlite3 connection for reading, write transactions on
connections of their own (transactions.py), an ORM engine on demand.

The ORM engine (engine.py) is made only when the schema is built or
migrated, so lookups, imports and removals never import SQLAlchemy.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TypeVar

from tables_app.errors import DatabaseFault, TablesError
from tables_app.storage.connection import begin_read, connect, fault_or_bug, judged
from tables_app.storage.location import Server, Target
from tables_app.storage.reader import Reader

Checked = TypeVar("Checked")

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine

    from tables_app.domain.table_rules import Attack, AttackRules, TableSet
    from tables_app.domain.tables import AttackTable, Weapon
    from tables_app.storage.compiled import CompiledTables
    from tables_app.storage.reader import Found


class Database:
    """One database: a sqlite3 connection for reading, write transactions, an ORM engine on demand."""

    def __init__(self, url: str, path: Target):
        self.url = url
        self.path = path
        self.created = False  # made by this open (the CLI says so once, on stderr)
        self._connection: sqlite3.Connection | None = None
        self._writer: sqlite3.Connection | None = None  # a server's database: the writes' connection, kept (writing)
        self._engine: Engine | None = None
        self._held = False  # inside snapshot(): a nested one joins it
        self.compiled: CompiledTables | None = None  # the process's table sets (the HTTP API sets it; compiled.py)
        self._generation: int | None = None  # the database's generation in compiled, inside snapshot()
        # The group whose fights and parties are read and written (services/groups.py): 0 the operator's own;
        # `tables --group NAME` and a group's token over HTTP set it.
        self.group = 0

    @property
    def connection(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = connect(self.path)
        return self._connection

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Connection]:
        """One read transaction: every query inside sees the same tables.

        A fault of the file (damaged, locked, ...) is a DatabaseFault naming
        it; any other error is checked against the database (a missing
        column, text in a number column: connection.judged) and stays a bug,
        with its traceback, if the database is sound.

        A snapshot taken inside another joins it: the HTTP API (http/app.py) holds
        one around a whole request, so that the several reads of one answer
        all see the same tables, never half of another process's import.
        """
        if self._held:
            yield self.connection
            return
        try:
            connection = self.connection
            if self.compiled is None:
                begin_read(connection)
                generation = None
            else:  # BEGIN and the generation in one round trip on PostgreSQL
                generation = self.compiled.pin(connection, begin=True)
        except sqlite3.Error as exc:
            if self._connection is not None and self._connection.in_transaction:  # BEGIN done, data_version failed
                self._connection.rollback()
            fault = fault_or_bug(self.path, exc)
            if isinstance(fault, DatabaseFault):
                self._reopen()
            raise fault from None
        self._held, self._generation = True, generation
        at_fault = False
        try:
            yield connection
        except TablesError as exc:
            at_fault = isinstance(exc, DatabaseFault)
            raise
        except Exception as exc:
            error = judged(connection, self.path, exc)
            at_fault = isinstance(error, DatabaseFault)
            raise error from None
        finally:
            self._held, self._generation = False, None
            if connection.in_transaction:
                try:
                    connection.execute("COMMIT")
                except sqlite3.Error:  # a read transaction: nothing to keep; the error above, if any, is the one said
                    connection.rollback()
            if at_fault:
                self._reopen()

    def _reopen(self) -> None:
        """Close the reading connection after a fault of the file: the next
        snapshot opens it afresh. SQLite keeps the pages it read for as long
        as no other process commits; a file repaired by hand (the good copy
        put back) would otherwise still read as damaged from them."""
        if self._connection is None:
            return
        if self.compiled is not None:
            self.compiled.forget(self._connection)
        try:
            self._connection.close()
        except sqlite3.Error:
            pass
        self._connection = None

    def reader(self) -> Reader:
        """A Reader of this database; with compiled tables (the HTTP API), one
        that keeps its look-ups by name with them (compiled.KeptReader)."""
        if self.compiled is None:
            return Reader(self.snapshot)
        from tables_app.storage.compiled import KeptReader

        return KeptReader(self.snapshot, self.compiled, lambda: self._generation)

    def load_table_set(self, weapon: Weapon, ruleset: str) -> TableSet:
        """Reader.load_table_set; inside a snapshot of a database with
        compiled tables (the HTTP API), the process's copy when it is current."""
        if self.compiled is None or self._generation is None:
            return self.reader().load_table_set(weapon, ruleset)
        return self.compiled.kept(self._generation, _table_set_key(weapon, ruleset), lambda: self.reader().load_table_set(weapon, ruleset))

    def load_attack_table(self, found: Found) -> AttackTable:
        """Reader.load_attack_table; with compiled tables, the process's copy when it is current."""
        if self.compiled is None or self._generation is None:
            return self.reader().load_attack_table(found)
        return self.compiled.kept(self._generation, ("attack table", found.id), lambda: self.reader().load_attack_table(found))

    def attack_rules(self, attack: Attack, tables: TableSet, ruleset: str) -> AttackRules:
        """The rules of ``attack`` on ``tables`` (load_table_set's for its
        weapon in ``ruleset``); with compiled tables, those of an attack of the
        same shape, kept with the process's copy of the tables, for this attack."""
        from tables_app.domain.table_rules import AttackRules

        if self.compiled is None or self._generation is None:
            return AttackRules(attack, tables)
        key = ("rules", _table_set_key(attack.weapon, ruleset), attack.shape)
        kept = self.compiled.kept(self._generation, key, lambda: AttackRules(attack, tables))
        return kept.for_attack(attack) if kept.tables is tables else AttackRules(attack, tables)

    @contextmanager
    def writing(self, *, commit: bool, breaking: str) -> Iterator[sqlite3.Connection]:
        """One write transaction on a connection of its own, committed at the
        end of the block if ``commit`` (transactions.writing: a removal's, a fight's).

        On a server's database the writing connection is kept between writes
        (a fight's attack is a millisecond of work, a new PostgreSQL
        connection several); one that failed is closed and made anew next
        time. A SQLite file gets a connection per write, as cheap as a file open."""
        from tables_app.storage.transactions import writing

        if not isinstance(self.path, Server):
            with writing(self.path, commit=commit, breaking=breaking) as connection:
                yield connection
            return
        if self._writer is None:
            try:
                self._writer = connect(self.path)
            except sqlite3.Error as exc:
                raise fault_or_bug(self.path, exc) from None
        try:
            with writing(self.path, commit=commit, breaking=breaking, kept=self._writer) as connection:
                yield connection
        except BaseException:
            if self._writer is not None and not self._writer.in_transaction and getattr(self._writer, "broken", False):
                self._drop_writer()
            raise

    def _drop_writer(self) -> None:
        if self._writer is not None:
            try:
                self._writer.close()
            except sqlite3.Error:
                pass
            self._writer = None

    def check_then_write(self, check: Callable[[sqlite3.Connection], Checked],
                         write: Callable[[sqlite3.Connection, Checked | None], bool], *, breaking: str,
                         on_wait: Callable[[float], None] | None = None, dry_run: bool = False) -> bool:
        """An import's one transaction: checked against a read snapshot, then
        written under the write lock (transactions.check_then_write); whether it was committed."""
        from tables_app.storage.transactions import check_then_write

        return check_then_write(self.path, check, write, breaking=breaking, on_wait=on_wait, dry_run=dry_run)

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine, for building and migrating the schema (imported on first use)."""
        if self._engine is None:
            from tables_app.storage.engine import create_db_engine

            self._engine = create_db_engine(self.url)
        return self._engine

    def dispose(self) -> None:
        self._drop_writer()
        if self._connection is not None:
            if self.compiled is not None:
                self.compiled.forget(self._connection)
            self._connection.close()
            self._connection = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None


def _table_set_key(weapon: Weapon, ruleset: str) -> tuple:
    """What a weapon's table set is read from (Reader.load_table_set)."""
    return ("table set", ruleset, weapon.attack_table, weapon.critical, weapon.secondary_critical, weapon.fumble_table)
