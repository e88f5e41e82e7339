"""The operations of tables_app, each declared once: its parameters as
data (params.Param) and the function that answers it.

The two faces are built from these: the CLI's commands (tables_app/cli,
Click options made from the parameters) and the HTTP API's routes
(tables_app/http, request fields read by them). ``find`` names an
operation by its command words; the formula systems' are made on first use
(their options are declared by each system, domain/systems).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from tables_app.operations.operation import Operation
from tables_app.operations.params import Param, ParamError

__all__ = ["Operation", "Param", "ParamError", "find", "system_ids", "to_json"]


def to_json(result: Any) -> Any:
    """A result as the JSON contract has it (docs/cli.md): a typed result
    makes its own (``to_json``); the look-ups' answers are that JSON already."""
    return result.to_json() if hasattr(result, "to_json") else result


def system_ids() -> list[str]:
    """The formula systems, by id (the table system is ``table``)."""
    from tables_app.domain.systems import MODULES

    return sorted(MODULES)


@lru_cache(maxsize=None)  # an operation is made once per process: it is immutable, and the systems are few
def find(words: tuple[str, ...]) -> Operation:
    """The operation `tables WORDS...` runs; NotFound (with the near names)
    for a system of resolve, odds or simulate that is none."""
    from tables_app.errors import NotFound
    from tables_app.operations import attacks, fights, groups, lookups

    fixed = {op.words: op for op in (lookups.LIST, lookups.SHOW, lookups.QUERY_ATTACK, lookups.QUERY_CRITICAL,
                                     lookups.QUERY_FUMBLE, *attacks.ON_THE_TABLES.values(), *fights.OPERATIONS,
                                     *fights.PARTY_OPERATIONS, fights.ODDS, fights.SIMULATE,
                                     *groups.OPERATIONS)}
    if words in fixed:
        return fixed[words]
    if len(words) == 2 and words[0] in attacks.GROUPS:
        if words[1] in system_ids():
            from tables_app.domain.systems import get

            return attacks.formula_operation(words[0], get(words[1]))
        known = sorted(["table", *system_ids()])
        raise NotFound.unknown(f"no system named {words[1]!r}", words[1], known, f"systems: {', '.join(known)}")
    raise NotFound(f"no operation {' '.join(words)!r}")
