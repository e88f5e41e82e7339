"""The names shell completion offers, read from the database file without
opening it as the commands do: read-only, never created, never migrated;
a missing file names nothing (cli/completion.py)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

# Names are offered as a lookup finds them: plain in `default`, qualified
# elsewhere (RM:Broadsword), and qualified in `default` too when another
# ruleset has the name (cli/completion.py decides how each is offered).
_NAMED = "SELECT r.name, t.{column} FROM {table} t JOIN ruleset r ON r.id = t.ruleset_id"
# what is completed → the SQL that lists it: (ruleset or NULL, name) rows
QUERIES = {
    "attack": _NAMED.format(column="name", table="attack_table"),
    "critical": _NAMED.format(column="name", table="critical_table") + " UNION "
                + _NAMED.format(column="code", table="critical_table") + " WHERE t.code IS NOT NULL",
    "fumble": _NAMED.format(column="name", table="fumble_table"),
    "weapons": _NAMED.format(column="name", table="weapon"),
    "creatures": _NAMED.format(column="name", table="creature"),
    "armor": "SELECT DISTINCT NULL, code FROM armor_column",
    "features": "SELECT DISTINCT NULL, feature FROM creature_feature",
    "rulesets": "SELECT NULL, name FROM ruleset",
    "workbooks": "SELECT NULL, file_name FROM workbook",
}


def names_of(path: Path, what: str) -> set[tuple[str | None, str]]:
    """``(ruleset or None, name)`` of every name of ``what`` in the database
    file at ``path`` (nothing when there is no file)."""
    if not path.is_file():
        return set()
    connection = sqlite3.connect(path.as_uri() + "?mode=ro", uri=True)
    try:
        return set(connection.execute(QUERIES[what]).fetchall())
    finally:
        connection.close()
