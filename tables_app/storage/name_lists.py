"""Every name of one kind the database holds, read only: what shell
completion offers (completion.py). Reading never creates, migrates or
writes the file, and runs no check: a missing or unreadable file is the
caller's to shrug off (sqlite3.Error). A server's database is read through
its own connection (connection.connect), in a read-only transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

from tables_app.domain.names import fold
from tables_app.storage.location import Server, Target

# what is listed → the statement listing it: (ruleset or NULL, name) rows
LISTS = {
    "attack": "SELECT r.name, t.name FROM attack_table t JOIN ruleset r ON r.id = t.ruleset_id",
    "critical": ("SELECT r.name, t.name FROM critical_table t JOIN ruleset r ON r.id = t.ruleset_id UNION "
                 "SELECT r.name, t.code FROM critical_table t JOIN ruleset r ON r.id = t.ruleset_id WHERE t.code IS NOT NULL"),
    "fumble": "SELECT r.name, t.name FROM fumble_table t JOIN ruleset r ON r.id = t.ruleset_id",
    "weapons": "SELECT r.name, t.name FROM weapon t JOIN ruleset r ON r.id = t.ruleset_id",
    "creatures": "SELECT r.name, t.name FROM creature t JOIN ruleset r ON r.id = t.ruleset_id",
    "armor": "SELECT DISTINCT NULL, code FROM armor_column",
    "features": "SELECT DISTINCT NULL, feature FROM creature_feature",
    "rulesets": "SELECT NULL, name FROM ruleset",
    "workbooks": "SELECT NULL, file_name FROM workbook",
    "fights": "SELECT NULL, name FROM fight WHERE group_id = ?",
    "parties": "SELECT NULL, name FROM party WHERE group_id = ?",
}
GROUPED = ("fights", "parties")  # a group's own (0: the operator's), as `tables --group NAME` sees them
OPERATORS = 0


# The armor columns, in order, of the attack table a weapon or a table's name designates
COLUMNS_OF = {
    "weapons": ("SELECT r.name, w.name, c.code FROM weapon w JOIN ruleset r ON r.id = w.ruleset_id "
                "JOIN armor_column c ON c.attack_table_id = w.attack_table_id ORDER BY c.position"),
    "attack": ("SELECT r.name, t.name, c.code FROM attack_table t JOIN ruleset r ON r.id = t.ruleset_id "
               "JOIN armor_column c ON c.attack_table_id = t.id ORDER BY c.position"),
}


@contextmanager
def _reading(path: Target) -> Iterator[sqlite3.Connection]:
    """A read-only connection: a file opened ``mode=ro``, a server's database in a read-only transaction."""
    if isinstance(path, Server):
        from tables_app.storage.connection import connect

        connection = connect(path)
        try:
            connection.execute("BEGIN READ ONLY")
            yield connection
        finally:
            connection.close()
        return
    connection = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True)
    try:
        yield connection
    finally:
        connection.close()


def armor_columns(path: Target, what: str) -> list[tuple[str, str, str]]:
    """(ruleset, name, armor code) of every weapon's (``what="weapons"``) or
    attack table's (``"attack"``) armor columns, each table's in its order."""
    with _reading(path) as connection:
        return connection.execute(COLUMNS_OF[what]).fetchall()


def _group_id(connection: sqlite3.Connection, group: str | None) -> int | None:
    """The id of the group named ``group`` (the rule of names), the operator's
    for None; None when no group has that name."""
    from tables_app.storage.groups import find

    if group is None:
        return OPERATORS
    found = find(connection, fold(group))
    return None if found is None else found.id


def combatants(path: Target, fight: str, group: str | None = None) -> list[str]:
    """The names of the combatants that joined the fight named ``fight`` (any
    letter case) of ``group`` (None: the operator's), in the order they
    joined, from its log's join events; not those who left it since (its
    leave events)."""
    import json

    with _reading(path) as connection:
        group_id = _group_id(connection, group)
        rows = [] if group_id is None else connection.execute(COMBATANTS, (fold(fight), group_id)).fetchall()
    events = [json.loads(data) for (data,) in rows]
    left = {event["combatant"] for event in events if event["kind"] == "leave"}
    return [event["combatant"]["name"] for event in events
            if event["kind"] == "join" and event["combatant"]["name"] not in left]


COMBATANTS = ("SELECT e.data FROM fight_event e JOIN fight f ON f.id = e.fight_id "
              "WHERE f.name_key = ? AND f.group_id = ? AND (e.kind = 'join' OR e.kind = 'leave') "
              "ORDER BY e.seq")  # the rule of names (0013)


def every_name(path: Target, what: str, group: str | None = None) -> set[tuple[str | None, str]]:
    """(ruleset, or None for what has none, name) of every name of ``what``
    (a key of LISTS) in the database file at ``path``, opened read only;
    fights and parties are ``group``'s (None: the operator's)."""
    with _reading(path) as connection:
        if what not in GROUPED:
            return set(connection.execute(LISTS[what]).fetchall())
        group_id = _group_id(connection, group)
        return set() if group_id is None else set(connection.execute(LISTS[what], (group_id,)).fetchall())
