"""Shell completion of names from the database (Click's completion protocol).

Enable it once per shell, e.g. ``eval "$(_TABLES_COMPLETE=bash_source tables)"``
(docs/cli.md lists zsh and fish). Completing never creates, migrates or
writes a database: a missing or unreadable database completes nothing.
"""

from __future__ import annotations

import sqlite3
from typing import Callable

import click
from click.shell_completion import CompletionItem

from tables_app.domain.kinds import KIND_OF_WORD
from tables_app.domain.names import fold

# Names in rulesets other than `default` are offered qualified (RM:Broadsword),
# so that what is completed is what a lookup finds.
_QUALIFIED = "CASE WHEN t.ruleset_id = 1 THEN t.{column} ELSE r.name || ':' || t.{column} END"
_NAMED = "SELECT " + _QUALIFIED + " FROM {table} t JOIN ruleset r ON r.id = t.ruleset_id"
# what is completed → the SQL that lists it
QUERIES = {
    "attack": _NAMED.format(column="name", table="attack_table"),
    "critical": _NAMED.format(column="name", table="critical_table") + " UNION "
                + _NAMED.format(column="code", table="critical_table") + " WHERE t.code IS NOT NULL",
    "fumble": _NAMED.format(column="name", table="fumble_table"),
    "weapons": _NAMED.format(column="name", table="weapon"),
    "creatures": _NAMED.format(column="name", table="creature"),
    "armor": "SELECT DISTINCT code FROM armor_column",
    "features": "SELECT DISTINCT feature FROM creature_feature",
    "rulesets": "SELECT name FROM ruleset",
}
MAX_ITEMS = 200


def names_in_database(ctx: click.Context, what: str) -> list[str]:
    from tables_app.storage.location import locate_database

    try:
        location = locate_database(ctx.find_root().params.get("db"))
        if not location.path.is_file():
            return []
        connection = sqlite3.connect(location.path.as_uri() + "?mode=ro", uri=True)
        try:
            return sorted({row[0] for row in connection.execute(QUERIES[what])}, key=fold)
        finally:
            connection.close()
    except Exception:  # completion must never fail loudly; it just offers nothing  # noqa: BLE001
        return []


def _matching(names: list[str], incomplete: str) -> list[CompletionItem]:
    start = fold(incomplete)
    return [CompletionItem(name) for name in names if fold(name).startswith(start)][:MAX_ITEMS]


def complete(what: str) -> Callable[[click.Context, click.Parameter, str], list[CompletionItem]]:
    """A ``shell_complete`` callback offering the database's names of ``what``."""
    def callback(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        return _matching(names_in_database(ctx, what), incomplete)
    return callback


def complete_shown(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """NAME of `tables show KIND NAME`, by the KIND already typed."""
    what = KIND_OF_WORD.get(str(ctx.params.get("kind") or "").lower())
    return _matching(names_in_database(ctx, what), incomplete) if what in QUERIES else []
