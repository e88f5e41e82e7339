"""The formula systems, by id (docs/formula-systems.md). Adding one is a module
with a ``SYSTEM`` and a line in ``MODULES``."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from tables_app.domain.systems.base import System

# id → module; a module is imported only when its system is used.
MODULES = {
    "rise": "tables_app.domain.systems.rise",
    "worlds-awakening": "tables_app.domain.systems.worlds_awakening",
    "d10-pool": "tables_app.domain.systems.d10_pool",
    "pte": "tables_app.domain.systems.pte",
}


def get(system_id: str) -> System[Any]:
    # Each module of MODULES defines its System as SYSTEM.
    return cast("System[Any]", import_module(MODULES[system_id]).SYSTEM)

