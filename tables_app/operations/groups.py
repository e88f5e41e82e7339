"""The group operations, declared (docs/deploy.md, "Groups"; services/groups.py answers them). The operator's
commands: they have no HTTP route (a group's token cannot make or revoke groups)."""

from __future__ import annotations

from typing import Any

from tables_app.operations.operation import Operation
from tables_app.operations.params import Param

GROUP = Param(field="name", kind="text", argument=True, required=True, not_blank=True, help="The group's name.")


def _services() -> Any:
    from tables_app.services import groups

    return groups


def run_new(database: Any, name: str) -> Any:
    return _services().new(database, name)


def run_token(database: Any, name: str) -> Any:
    return _services().new_token(database, name)


def run_revoke(database: Any, name: str) -> Any:
    return _services().revoke(database, name)


def run_list(database: Any) -> Any:
    return _services().listing(database)


NEW = Operation(words=("group", "new"), run=run_new, params=(GROUP,),
                help="Make a group and its token (printed this once): a request with the token sees and writes only "
                     "the group's fights and parties, and may read the tables, resolve and work out odds.")
TOKEN = Operation(words=("group", "token"), run=run_token, params=(GROUP,),
                  help="A new token for the group (printed this once); its old token stops working at once.")
REVOKE = Operation(words=("group", "revoke"), run=run_revoke, params=(GROUP,),
                   help="Revoke the group's token: no request can act as the group until a new one is made "
                        "(group token). Its fights and parties stay.")
LIST = Operation(words=("group", "list"), run=run_list, params=(),
                 help="Every group: whether it has a token, its fights and parties.")
OPERATIONS = (NEW, TOKEN, REVOKE, LIST)
