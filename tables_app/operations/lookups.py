"""The look-ups, declared: list, show, and query attack | critical | fumble."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tables_app.domain import kinds
from tables_app.operations.operation import Operation
from tables_app.operations.params import Param

if TYPE_CHECKING:  # the answers load with the look-ups that make them
    from tables_app.services.lookups import CellAnswer, EntryAnswer

RULESET_FILTER = Param(field="ruleset", kind="text", not_blank=True, complete="rulesets",
                       help="Only this ruleset (a name may also be written RULESET:NAME).")


def list_items(database: Any, kind: str | None = None, ruleset: str | None = None) -> dict[str, Any]:
    from tables_app.services.lookups import list_items as listed

    return listed(database, kind.lower() if kind else None, ruleset=ruleset)


LIST = Operation(
    words=("list",), run=list_items,
    help="List tables, weapons, creatures or rulesets with where they came from.",
    params=(
        Param(field="kind", kind="choice", argument=True, choices=(*kinds.list_words(), "rulesets", "ruleset"),
              case_sensitive=False, help="What to list (everything if not given)."),
        RULESET_FILTER,
    ))


def show(database: Any, kind: str, name: str, ruleset: str | None = None, armor: tuple[str, ...] = ()) -> dict[str, Any]:
    from tables_app.services import lookups

    return lookups.show(database, kind.lower(), name, ruleset=ruleset, armor=armor)


SHOW = Operation(
    words=("show",), run=show,
    help="Show a whole table (as a grid), a weapon or a creature (NAME may be RULESET:NAME).",
    params=(
        Param(field="kind", kind="choice", argument=True, required=True, choices=tuple(kinds.show_words()),
              case_sensitive=False, help="What kind of thing to show."),
        Param(field="name", kind="text", argument=True, required=True, complete="shown",
              help="Its name (RULESET:NAME for one ruleset's)."),
        RULESET_FILTER,
        Param(field="armor", kind="text", multiple=True, metavar="CODES", complete="armor", not_blank=True,
              help="Only these armor columns of an attack table, in this order (repeatable, or A,B,C)."),
    ))


def query_attack(database: Any, table: str, result: int, armor: str, ruleset: str | None = None) -> CellAnswer:
    from tables_app.services import lookups

    return lookups.query_attack(database, table, result, armor, ruleset=ruleset)


QUERY_ATTACK = Operation(
    words=("query", "attack"), run=query_attack, dash_arguments=True,
    help="The cell of TABLE at RESULT in the ARMOR column.",
    params=(
        Param(field="table", kind="text", argument=True, required=True, complete="attack", help="The attack table."),
        Param(field="result", kind="int", argument=True, required=True, minimum=-1_000_000, maximum=1_000_000,
              help="The modified result (after DEF and the Max Result cap)."),
        Param(field="armor", kind="text", argument=True, required=True, complete="armor", help="The armor column."),
        RULESET_FILTER,
    ))

FEATURES = Param(field="has", key="features", kind="text", multiple=True, metavar="FEATURE", complete="features",
                 not_blank=True, help="A feature of the target (helm, ...).")


def query_critical(database: Any, table: str, roll: int, severity: str | None = None, features: tuple[str, ...] = (),
                   column: str | None = None, ruleset: str | None = None) -> EntryAnswer:
    from tables_app.services import lookups

    return lookups.query_critical(database, table, roll, severity=severity, features=features, ruleset=ruleset,
                                  column=column)


QUERY_CRITICAL = Operation(
    words=("query", "critical"), run=query_critical, dash_arguments=True,
    help="The entry of critical TABLE (name or code) for a natural d100 ROLL.",
    params=(
        Param(field="table", kind="text", argument=True, required=True, complete="critical",
              help="The critical table (name or code)."),
        Param(field="roll", kind="int", argument=True, required=True, help="The natural d100 roll."),
        Param(field="severity", kind="text", metavar="SEV", help="Add this severity's roll modifier."),
        FEATURES,
        Param(field="column", kind="text", not_blank=True,
              help="The printed column of a table read by attack kind (Normal, Magic, ...)."),
        RULESET_FILTER,
    ))


def query_fumble(database: Any, table: str, roll: int, modifier: int = 0, column: str | None = None,
                 ruleset: str | None = None) -> EntryAnswer:
    from tables_app.services import lookups

    return lookups.query_fumble(database, table, roll, modifier=modifier, ruleset=ruleset, column=column)


QUERY_FUMBLE = Operation(
    words=("query", "fumble"), run=query_fumble, dash_arguments=True,
    help="The entry of fumble TABLE for a natural d100 ROLL.",
    params=(
        Param(field="table", kind="text", argument=True, required=True, complete="fumble", help="The fumble table."),
        Param(field="roll", kind="int", argument=True, required=True, help="The natural d100 roll."),
        Param(field="modifier", kind="int", minimum=-1_000, maximum=1_000, default=0, show_default=True,
              help="The weapon's fumble modifier."),
        Param(field="column", kind="text", not_blank=True,
              help="The weapon category column of a printed fumble table (1HE, 2H, ...)."),
        RULESET_FILTER,
    ))
