"""Migration 0011 (docs/schema.md): parties and a ruleset's death threshold;
downgrading refused, changing nothing, while either is used."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

import pytest

from tables_app.errors import DatabaseError
from tables_app.storage import engine as db

HERO = ("--as", "Hero", "--hits", "50", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")


def test_0011_downgrade_is_refused_while_a_party_exists_then_goes_down_and_up(run, db_path):  # type: ignore[no-untyped-def]
    for args in (("fight", "new", "F"), ("fight", "join", "F", *HERO), ("fight", "party", "save", "P", "--from", "F")):
        assert run(*args).exit_code == 0
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    with closing(sqlite3.connect(db_path)) as connection:
        before = list(connection.iterdump())
    message = ("cannot downgrade below 0011: the database holds 1 parties; remove the parties and the thresholds "
               "first (nothing changed)")
    with pytest.raises(DatabaseError, match="^" + re.escape(message) + "$"):
        db.run_alembic(engine, "downgrade", "0009")
    with closing(sqlite3.connect(db_path)) as connection:
        assert list(connection.iterdump()) == before
    assert run("fight", "party", "remove", "P").exit_code == 0
    db.run_alembic(engine, "downgrade", "0009")
    db.run_alembic(engine, "upgrade", "head")
    engine.dispose()
    assert run("fight", "party", "list").output == "No parties (save one: tables fight party save PARTY --from FIGHT).\n"
