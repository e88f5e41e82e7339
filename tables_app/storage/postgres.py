"""PostgreSQL through psycopg 3, behind the face of a sqlite3 connection.

storage/ is written once, against the sqlite3 connection: ``execute`` with
``?`` or ``:name`` parameters, ``cursor()`` with ``row_factory = sqlite3.Row``,
``in_transaction``, the sqlite3 exception classes, and BEGIN/COMMIT/ROLLBACK
said as statements. PgConnection gives a psycopg connection that face, so
every query and write exists once and runs on either database. What each
database does its own way (the write lock, the read snapshot, deferring
foreign keys, what changed since: dialect.py) is asked by name, never
written twice.

Statements are translated once each (cached): ``?`` → ``%s``, ``?N`` →
``%(pN)s``, ``:name`` → ``%(name)s``, a literal ``%`` doubled, and the one
SQLite function the shared SQL uses, an id list's
``SELECT value FROM json_each(?)``, into PostgreSQL's
``json_array_elements_text``: the same JSON parameter (sql.id_list) works on
both.

The seam's contract (each clause tested in tests/storage/test_postgres_seam.py):

- A statement means what it says on SQLite: a literal ``%`` is one percent
  sign, with parameters or without (psycopg reads ``%`` only in a statement
  sent with parameters: it is doubled there, and the statement sent as
  written otherwise).
- A caller sees sqlite3's exception classes, carrying PostgreSQL's SQLSTATE
  as ``sqlstate`` (faults.server_problem says what each means to the user):
  a unique, foreign-key or check violation is sqlite3.IntegrityError
  (PgIntegrityError; 23505 ...); a lock waited for past ``lock_timeout``
  (55P03), a deadlock or a serialization failure, and a connection lost or
  refused are sqlite3.OperationalError (PgOperationalError; after a loss
  ``broken`` is True: make another connection); a mistake in the SQL is
  sqlite3.ProgrammingError (PgProgrammingError: a bug, kept with its
  traceback); a value PostgreSQL cannot hold (a NUL in text, a number out of
  range) is sqlite3.DataError (PgDataError). Through a write transaction
  (transactions.writing, Database.writing) they reach the faces as
  errors.py's: a violation is a DatabaseError ``BREAKING: message``; a busy
  lock or a lost connection a DatabaseFault saying what to do (busy: try
  again; lost: nothing was changed, check the server); a mistake in the SQL
  stays the bug it is.
- A statement that fails inside a transaction leaves it aborted (INERROR):
  ``in_transaction`` is still True and ``rollback`` ends it; the write
  transaction rolls it back on every way out (connection.write_transaction),
  so a kept writer (a server's: Database.writing) writes again next time.
- The write lock is one advisory transaction lock of the key
  connection.ADVISORY_LOCK ('tabl'), taken by every writer
  (connection.take_write_lock) and by the migrations (migrations/env.py):
  changing the key would let old and new writers write at once.
- A database's tables are its current schema's base tables: a view is none
  (connection.has_tables, schema_version; dialect.table_names), as SQLite's
  sqlite_master tells views from tables.
- A NUL in a name finds nothing, as on SQLite (below, "NUL in text").
- Several statements sent as one, without parameters (``BEGIN ...; SELECT
  ...``), go in one round trip; the cursor is on the first one's rows and
  ``nextset()`` moves to the next one's (sqlite3 runs one statement a call:
  only PostgreSQL's callers send several, locking.begin_read_version).

This module imports psycopg, and only storage/connection.py imports it, and
only for a postgresql:// database: the SQLite commands never load psycopg.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any

import psycopg
from psycopg import pq
from psycopg.rows import tuple_row

DIALECT = "postgresql"


class PgError(sqlite3.DatabaseError):
    """What PostgreSQL reported, as the sqlite3 class storage/ catches; ``sqlstate`` says which (faults.py)."""

    sqlstate: str | None = None


class PgIntegrityError(sqlite3.IntegrityError, PgError):
    pass


class PgOperationalError(sqlite3.OperationalError, PgError):
    pass


class PgProgrammingError(sqlite3.ProgrammingError, PgError):
    pass


class PgDataError(sqlite3.DataError, PgError):
    """A value PostgreSQL cannot hold (a NUL in text, a number out of range): the caller's to have refused."""


def converted(error: psycopg.Error) -> PgError:
    """A psycopg error as the sqlite3 class of the same meaning, its SQLSTATE kept."""
    kind: type[PgError]
    if isinstance(error, psycopg.IntegrityError):
        kind = PgIntegrityError
    elif isinstance(error, psycopg.ProgrammingError):  # a mistake in the SQL: a bug (or a table changed by hand)
        kind = PgProgrammingError
    elif isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError)):
        kind = PgOperationalError
    elif isinstance(error, psycopg.DataError):
        kind = PgDataError
    else:
        kind = PgError
    message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    made = kind(message)
    made.sqlstate = getattr(error, "sqlstate", None)
    return made


# ------------------------------------------------------------------ statements
_ID_LIST = "SELECT value FROM json_each(?)"
_ID_LIST_PG = "SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST(? AS json))"
# a string literal, a numbered or plain parameter, a named one, a percent sign
_TOKEN = re.compile(r"'(?:[^']|'')*'|\?(\d+)|\?|(?<![:\w]):([A-Za-z_]\w*)|%")


@lru_cache(maxsize=2048)
def translated(statement: str) -> tuple[str, str]:
    """``statement`` in psycopg's parameter style, and how its parameters are
    given: "plain" (a sequence), "numbered" (?N: a sequence read as p1, p2…) or "named" (a dict)."""
    statement = statement.replace(_ID_LIST, _ID_LIST_PG)
    styles: set[str] = set()

    def one(match: re.Match[str]) -> str:
        text = match.group(0)
        if text.startswith("'"):
            return text.replace("%", "%%")
        if text == "%":
            return "%%"
        if match.group(1) is not None:
            styles.add("numbered")
            return f"%(p{match.group(1)})s"
        if text == "?":
            styles.add("plain")
            return "%s"
        styles.add("named")
        return f"%({match.group(2)})s"

    made = _TOKEN.sub(one, statement)
    if len(styles) > 1:
        raise ValueError(f"a statement mixes parameter styles ({', '.join(sorted(styles))}): {statement}")
    return made, styles.pop() if styles else "plain"


# An executemany of at least COPY_FROM rows into plain columns (the import's
# child rows: repository.Writer._insert) goes in as one COPY instead: the
# same rows, the same constraints and deferred foreign keys (the attack
# cells' checked once for the whole COPY: cell_keys.py), without a
# statement executed per row (bench/README.md, "PostgreSQL").
COPY_FROM = 50
_COPYABLE = re.compile(r"(?:INSERT) INTO (\w+) \(([\w ,]+)\) VALUES \(\?(?:, \?)*\)")


@lru_cache(maxsize=256)
def copy_of(statement: str) -> str | None:
    """``COPY table (columns) FROM STDIN`` for an ``INSERT INTO table (columns)
    VALUES (?, ...)`` of one parameter a column and nothing else; else None."""
    found = _COPYABLE.fullmatch(statement.strip())
    if found is None:
        return None
    columns = [column.strip() for column in found.group(2).split(",")]
    if statement.count("?") != len(columns):
        return None
    return f"COPY {found.group(1)} ({', '.join(columns)}) FROM STDIN"


def unparameterised(statement: str) -> str:
    """``statement`` as sent without parameters: psycopg then reads no ``%``
    in it, so a literal one stays single (``SELECT '50%'``, ``7 % 3``)."""
    return statement.replace(_ID_LIST, _ID_LIST_PG)


def _parameters(style: str, params: Any) -> Any:
    if style == "numbered":
        return {f"p{i}": value for i, value in enumerate(params, start=1)}
    return params


# ------------------------------------------------------------------ NUL in text
# PostgreSQL's text cannot hold NUL (U+0000); SQLite's can, but no text
# tables_app writes holds one, nor any other control character (names and
# cells are refused with one: services/fight_names.valid_name, sheets/values.py),
# so on SQLite a look-up by a name with a NUL finds nothing. Here too: in a
# read, a text parameter holding a NUL is sent as NULL, which equals nothing
# (whatever the collation: ICU's ignores control characters, so no other
# character could stand in for it). No read of storage asks whether a
# parameter IS NULL or COALESCEs one (tests/storage/test_postgres_seam.py
# holds them to it). A write given one is refused (PgDataError): a bug of its
# caller, who checks names first.
NUL = "\x00"
_READ = re.compile(r"\s*(?:SELECT|WITH)\b", re.IGNORECASE)
_WRITES = re.compile(r"\b(?:INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM)\b", re.IGNORECASE)  # a WITH's writing part


def _holds_nul(params: Any) -> bool:
    values = params.values() if isinstance(params, dict) else params
    return any(isinstance(value, str) and NUL in value for value in values)


def _nul_free(statement: str, params: Any) -> Any:
    """``params`` of a read with each text holding a NUL as None; PgDataError for a write."""
    if not _READ.match(statement) or _WRITES.search(statement):
        made = PgDataError("PostgreSQL's text cannot hold a NUL character (U+0000)")
        made.sqlstate = "22021"  # character_not_in_repertoire, as the server says of one
        raise made

    def clean(value: Any) -> Any:
        return None if isinstance(value, str) and NUL in value else value

    if isinstance(params, dict):
        return {key: clean(value) for key, value in params.items()}
    return [clean(value) for value in params]


# ------------------------------------------------------------------ rows
@lru_cache(maxsize=512)
def _row_class(names: tuple[str, ...]) -> type[tuple]:
    index = {name: i for i, name in enumerate(names)}

    class Row(tuple):
        """A row read by position or by column name, as sqlite3.Row."""

        __slots__ = ()

        def __getitem__(self, key: Any) -> Any:
            return tuple.__getitem__(self, index[key] if isinstance(key, str) else key)

        def keys(self) -> list[str]:
            return list(names)

    return Row


def _named_rows(cursor: Any) -> Any:
    description = cursor.description
    if description is None:
        return tuple_row(cursor)
    made = _row_class(tuple(column.name for column in description))
    return made


# ------------------------------------------------------------------ the connection
class PgCursor:
    """A cursor with sqlite3's face: execute returns it, rows are tuples, or
    sqlite3.Row-like when ``row_factory`` is set (to anything: sqlite3.Row)."""

    def __init__(self, connection: PgConnection):
        self._connection = connection
        self.row_factory: Any = None
        self._cursor: psycopg.Cursor[Any] | None = None

    def execute(self, statement: str, params: Any = ()) -> PgCursor:
        if params and _holds_nul(params):
            params = _nul_free(statement, params)
        factory = _named_rows if self.row_factory is not None else tuple_row
        try:
            cursor = self._connection.raw.cursor(row_factory=factory)
            if params:
                text, style = translated(statement)
                cursor.execute(text, _parameters(style, params))
            else:
                cursor.execute(unparameterised(statement))
        except psycopg.Error as exc:
            raise converted(exc) from None
        self._cursor = cursor
        return self

    def executemany(self, statement: str, rows: Iterable[Sequence[Any]]) -> PgCursor:
        text, style = translated(statement)
        rows = rows if isinstance(rows, list) else list(rows)
        rows = [_nul_free(statement, row) if _holds_nul(row) else row for row in rows]
        copy = copy_of(statement) if len(rows) >= COPY_FROM else None
        try:
            cursor = self._connection.raw.cursor()
            if copy is not None:
                with cursor.copy(copy) as rows_in:
                    for row in rows:
                        rows_in.write_row(row)
            else:
                cursor.executemany(text, [_parameters(style, row) for row in rows])
        except psycopg.Error as exc:
            raise converted(exc) from None
        self._cursor = cursor
        return self

    def _rows(self) -> psycopg.Cursor[Any]:
        assert self._cursor is not None, "nothing executed on this cursor"
        return self._cursor

    def nextset(self) -> bool | None:
        """The next statement's rows, of several sent as one (without parameters): whether there is one."""
        return self._rows().nextset()

    def fetchone(self) -> Any:
        try:
            return self._rows().fetchone() if self._rows().description is not None else None
        except psycopg.Error as exc:
            raise converted(exc) from None

    def fetchall(self) -> list[Any]:
        try:
            return self._rows().fetchall() if self._rows().description is not None else []
        except psycopg.Error as exc:
            raise converted(exc) from None

    def fetchmany(self, size: int = 1) -> list[Any]:
        try:
            return self._rows().fetchmany(size) if self._rows().description is not None else []
        except psycopg.Error as exc:
            raise converted(exc) from None

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())

    @property
    def rowcount(self) -> int:
        return self._rows().rowcount


class PgConnection:
    """A psycopg connection in autocommit mode, transactions said as
    statements (BEGIN, COMMIT, ROLLBACK), with sqlite3's face."""

    dialect = DIALECT

    def __init__(self, raw: psycopg.Connection[Any], shown: str):
        self.raw = raw
        self.shown = shown  # the database, for messages (no password)

    def cursor(self) -> PgCursor:
        return PgCursor(self)

    def execute(self, statement: str, params: Any = ()) -> PgCursor:
        return PgCursor(self).execute(statement, params)

    def executemany(self, statement: str, rows: Iterable[Sequence[Any]]) -> PgCursor:
        return PgCursor(self).executemany(statement, rows)

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open (a lost connection has none: the server rolled it back)."""
        return not self.raw.closed and self.raw.info.transaction_status in (
            pq.TransactionStatus.INTRANS, pq.TransactionStatus.INERROR, pq.TransactionStatus.ACTIVE)

    def rollback(self) -> None:
        if self.in_transaction and not self.raw.closed:
            try:
                self.raw.execute("ROLLBACK")
            except psycopg.Error as exc:
                raise converted(exc) from None

    @property
    def broken(self) -> bool:
        """Whether the connection is lost (closed, or the server ended it): make another."""
        return self.raw.closed or self.raw.broken

    def close(self) -> None:
        self.raw.close()


def connect(conninfo: str, shown: str, timeout_seconds: float) -> PgConnection:
    """A connection to the PostgreSQL database ``conninfo`` (a libpq URL)."""
    try:
        raw = psycopg.connect(conninfo, autocommit=True, connect_timeout=max(1, int(timeout_seconds)),
                              application_name="tables_app")
    except psycopg.Error as exc:
        raise converted(exc) from None
    return PgConnection(raw, shown)
