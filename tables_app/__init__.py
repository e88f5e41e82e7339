"""tables_app: table-driven tabletop combat — import, query, resolve, odds.

The Python API (docs/library.md): ``tables_app.Tables(path)`` opens a
database of tables; its methods are the operations of the `tables`
command, returning typed results. Every failure is a ``TablesError``.
Loaded on first use, so that `tables` starts with this module alone.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["NotFound", "ParamError", "Tables", "TablesError", "__version__", "example_workbook"]


def __getattr__(name: str) -> Any:
    if name == "Tables":
        from tables_app.library import Tables

        return Tables
    if name in ("TablesError", "NotFound"):
        from tables_app import errors

        return getattr(errors, name)
    if name == "example_workbook":  # the path of a shipped example workbook (`tables example NAME`)
        from tables_app.services.database_setup import example_workbook

        return example_workbook
    if name == "ParamError":
        from tables_app.operations.params import ParamError

        return ParamError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
