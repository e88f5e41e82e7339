"""The options of an import, declared once: `tables import` takes them as
flags, POST /api/v1/import (http/upload.py) as query fields."""

from __future__ import annotations

from tables_app.operations.params import Param

IMPORT_FLAGS = (
    Param(field="dry_run", kind="flag", default=False, help="Check and report, write nothing."),
    Param(field="replace", kind="flag", default=False, help="Take over names that another workbook defined."),
    Param(field="strict", kind="flag", default=False, help="Warnings are errors too."),
)
