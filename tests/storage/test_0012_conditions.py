"""Migration 0012 (docs/schema.md): an entry's rest of a critical in `conditions`; down to 0011 the column goes
(what it held is read again from the text and the Effects tags), up again it is back, empty until a re-import."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

from tables_app.storage import engine as db


def columns(db_path, table: str) -> list[str]:  # type: ignore[no-untyped-def]
    with closing(sqlite3.connect(db_path)) as connection:
        return [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]


def test_0012_keeps_the_rest_of_a_critical_and_goes_down_and_up(run, db_path):  # type: ignore[no-untyped-def]
    with closing(sqlite3.connect(db_path)) as connection:
        held = [json.loads(text) for (text,) in connection.execute(
            "SELECT conditions FROM critical_entry WHERE conditions IS NOT NULL")]
    assert held and {"prone": 1} in held  # the bundled tables' `prone` tags, read
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    db.run_alembic(engine, "downgrade", "0011")
    assert "conditions" not in columns(db_path, "critical_entry") + columns(db_path, "fumble_entry")
    db.run_alembic(engine, "upgrade", "head")
    engine.dispose()
    assert "conditions" in columns(db_path, "critical_entry") and "conditions" in columns(db_path, "fumble_entry")
    shown = json.loads(run("show", "critical", "Cut", "--json").stdout)
    assert all(entry["prone"] == 0 for entry in shown["entries"])  # none until the workbook is imported again
