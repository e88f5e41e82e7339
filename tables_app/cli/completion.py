"""Shell completion of names from the database (Click's completion protocol).

Enable it once per shell, e.g. ``eval "$(_TABLES_COMPLETE=bash_source tables)"``
(docs/cli.md lists zsh and fish). Completing never creates, migrates or
writes a database: a missing or unreadable database completes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable

import click
from click.shell_completion import BashComplete, CompletionItem, add_completion_class

from tables_app.domain.kinds import KIND_OF_WORD
from tables_app.domain.names import fold

if TYPE_CHECKING:
    from tables_app.storage.location import Target

MAX_ITEMS = 200
COMPLETED = ("attack", "critical", "fumble", "weapons", "creatures", "armor", "features", "rulesets", "workbooks", "fights",
             "parties")


# How a name goes in: inside a double quote the user opened, with \ $ ` "
# escaped; inside a single quote, each ' as '\''; else escaped by printf %q.
# (%% because Click fills the template with %.)
_QUOTED = r"""            local word=${COMP_WORDS[COMP_CWORD]}
            if [[ $word == \"* ]]; then
                value=${value//\\/\\\\}; value=${value//\$/\\\$}; value=${value//\`/\\\`}; value=${value//\"/\\\"}
            elif [[ $word == \'* ]]; then
                value=${value//\'/\'\\\'\'}
            else
                printf -v value '%%q' "$value"
            fi
            COMPREPLY+=("$value")
"""


class QuotingBashComplete(BashComplete):
    """Click's bash script, but each name inserted as one shell word: Click's
    puts ``Morning Star`` in unquoted, which the shell then reads as two
    arguments (and a ``*`` in a name as a glob). Escaped with ``printf %q``
    (``Morning\\ Star``, ``Smith\\'s\\ Hammer``), or as typed inside a quote the
    user opened. zsh's ``compadd`` and fish quote what they insert already."""

    source_template = BashComplete.source_template.replace(
        "IFS=',' read type value", "IFS=',' read -r type value",  # -r: a backslash in a name stays
    ).replace("            COMPREPLY+=($value)\n", _QUOTED)
    assert source_template != BashComplete.source_template, "Click's bash script changed: look again"


add_completion_class(QuotingBashComplete, "bash")


def _database_file(ctx: click.Context) -> Target | None:
    """The database the command line names (--db, $TABLES_DB, else the
    default), if there is one: completing never creates one (a server's
    database is asked as it is; one that is not there offers nothing)."""
    from tables_app.storage.location import locate_database

    path = locate_database(ctx.find_root().params.get("db")).path
    return path if not isinstance(path, Path) or path.is_file() else None


def names_in_database(ctx: click.Context, what: str) -> list[tuple[str, str]]:
    """(offered, bare name) of every name of ``what``, sorted as offered."""
    from tables_app.storage.name_lists import every_name

    try:
        path = _database_file(ctx)
        if path is None:
            return []
        rows = every_name(path, what, ctx.find_root().params.get("group"))
        homes: dict[str, set[str]] = {}  # folded name → the rulesets that have it
        for ruleset, name in rows:
            if ruleset is not None:
                homes.setdefault(fold(name), set()).add(fold(ruleset))
        offered = {(_offered(ruleset, name, len(homes.get(fold(name), ())) > 1), name) for ruleset, name in rows}
        return sorted(offered, key=lambda pair: fold(pair[0]))
    except Exception:  # completion must never fail loudly; it just offers nothing  # noqa: BLE001
        return []


def _offered(ruleset: str | None, name: str, in_several: bool) -> str:
    """How a name is offered: as a lookup finds it: plain in `default`,
    qualified elsewhere (RM:Broadsword), and qualified in `default` too when
    another ruleset has the name (a plain Orc Warrior would be ambiguous).
    They match by the bare name too, as a lookup finds a plain name in any
    ruleset: typing `broad` offers RM:Broadsword."""
    from tables_app.domain.rulesets import qualified, shown

    if ruleset is None:  # armor codes, features, rulesets: no ruleset of their own
        return name
    return qualified(ruleset, name) if in_several else shown(ruleset, name)


def _matching(names: list[tuple[str, str]], incomplete: str) -> list[CompletionItem]:
    start = fold(incomplete)
    return [CompletionItem(offered) for offered, bare in names
            if fold(offered).startswith(start) or fold(bare).startswith(start)][:MAX_ITEMS]


def complete(what: str) -> Callable[[click.Context, click.Parameter, str], list[CompletionItem]]:
    """A ``shell_complete`` callback offering the database's names of ``what``;
    armor codes are those of the attack table already named, if one is."""
    def callback(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        if what == "armor":
            codes = table_columns(ctx)
            if codes:
                return _matching([(code, code) for code in codes], incomplete)
        return _matching(names_in_database(ctx, what), incomplete)
    return callback


def table_columns(ctx: click.Context) -> list[str]:
    """The armor codes of the attack table the command line names so far:
    `--attack-table` (or `query attack TABLE`), else `--weapon`'s table;
    none when it names none, or a name no table has (every code is offered
    then, as before)."""
    from tables_app.domain.rulesets import split_qualified
    from tables_app.storage.name_lists import armor_columns

    named = [(what, ctx.params.get(field)) for what, field in (("attack", "attack_table"), ("attack", "table"),
                                                                ("weapons", "weapon"))]
    what, name = next(((what, value) for what, value in named if isinstance(value, str) and value.strip()), (None, None))
    if what is None or name is None:
        return []
    try:
        path = _database_file(ctx)
        if path is None:
            return []
        rows = armor_columns(path, what)
    except Exception:  # completion must never fail loudly  # noqa: BLE001
        return []
    ruleset, bare = split_qualified(name, {row[0] for row in rows})
    codes = [code for row_ruleset, row_name, code in rows
             if fold(row_name) == fold(bare) and (ruleset is None or fold(row_ruleset) == fold(ruleset))]
    return list(dict.fromkeys(codes))


def complete_combatants(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """ATTACKER, TARGET or COMBATANT of a fight command: those who joined the fight named before it."""
    from tables_app.storage.name_lists import combatants

    # the fight named before it: NAME of a fight command, `--from FIGHT` of `fight party save`
    fight = ctx.params.get("fight") if "fight" in ctx.params else ctx.params.get("name")
    try:
        path = _database_file(ctx)
        if path is None or not isinstance(fight, str):
            return []
        names = combatants(path, fight, ctx.find_root().params.get("group"))
    except Exception:  # completion must never fail loudly  # noqa: BLE001
        return []
    return _matching([(name, name) for name in names], incomplete)


def complete_shown(ctx: click.Context, _param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """NAME of `tables show KIND NAME`, by the KIND already typed."""
    what = KIND_OF_WORD.get(str(ctx.params.get("kind") or "").lower())
    return _matching(names_in_database(ctx, what), incomplete) if what in COMPLETED else []
