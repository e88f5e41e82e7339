"""How SQL text is made: values never go into it, names only once.

Every statement of storage/ is fixed text, its values bound as parameters
(``?``, ``:name``; a list of ids as one JSON parameter, ``IN (SELECT value
FROM json_each(?))``). Where one statement serves several tables of the
same shape (the six named tables, the critical and fumble entries), it is
written once as a template and filled in here when its module is imported,
with table names from TABLES only: no name is put into SQL while a command
runs, and nothing anyone typed ever is. Names read from a database's own
catalogue (db check, broken references) are quoted (``quoted``).

tests/storage/test_sql.py checks TABLES against the models and prepares
every statement of storage/ against a database at the newest schema.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

# The schema's tables (models.py): the only names a template is filled with.
TABLES = frozenset({
    "ruleset", "workbook", "severity_scale", "severity", "attack_table", "armor_column", "attack_row", "attack_cell",
    "attack_cell_critical", "critical_table", "critical_entry", "critical_effect", "fumble_table", "fumble_entry",
    "fumble_effect", "weapon", "creature", "creature_feature", "creature_attack", "fight", "fight_event", "generation",
    "party", "fight_group",
})
_COLUMN = re.compile(r"[a-z][a-z0-9_]*")

FILLED: list[str] = []  # every statement made here (the tests prepare them all)

_INSERT = "INSERT INTO {table} ({columns}) VALUES ({values}) RETURNING id"
_UPDATE = "UPDATE {table} SET {assignments} WHERE id = :id"


def fill(template: str, **tables: str) -> str:
    """``template`` with its ``{placeholders}`` filled in by table names (a
    ``{table}_id`` placeholder makes the column that refers to the table)."""
    return _made(template.format(**{key: _table(name) for key, name in tables.items()}))


def per_table(template: str, tables: Iterable[str]) -> dict[str, str]:
    """One statement per table: ``template`` filled in with each as ``{table}``."""
    return {table: fill(template, table=table) for table in tables}


def insert(table: str, columns: tuple[str, ...]) -> str:
    """``INSERT INTO table (columns) VALUES (:column, ...) RETURNING id``: a
    row given as a dict; the statement gives its id (on SQLite and PostgreSQL alike, unlike lastrowid)."""
    return _made(_INSERT.format(table=_table(table), columns=", ".join(_columns(columns)),
                                values=", ".join(":" + column for column in columns)))


def update(table: str, columns: tuple[str, ...]) -> str:
    """``UPDATE table SET column = :column, ... WHERE id = :id``: a row given as a dict, with its id."""
    return _made(_UPDATE.format(table=_table(table), assignments=", ".join(c + " = :" + c for c in _columns(columns))))


def _table(name: str) -> str:
    if name not in TABLES:
        raise ValueError(f"{name!r} is not a table of the schema (sql.TABLES)")
    return name


def _columns(columns: tuple[str, ...]) -> tuple[str, ...]:
    for column in columns:
        if not _COLUMN.fullmatch(column):
            raise ValueError(f"{column!r} is not a column name")
    return columns


def _made(statement: str) -> str:
    FILLED.append(statement)
    return statement


def id_list(ids: Iterable[int]) -> str:
    """Ids as the one parameter of ``IN (SELECT value FROM json_each(?))``."""
    return json.dumps([int(i) for i in ids])


def quoted(name: str) -> str:
    """A name from a database's own catalogue, quoted as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'
