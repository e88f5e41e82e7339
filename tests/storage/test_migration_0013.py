"""0013 (docs/schema.md): a fight's folded name key and its log's version;
ids never given twice. Existing fights whose names fold alike are kept, the
later renamed; the upgrade never fails on them."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from typing import Any

from tables_app.services import fights
from tables_app.services.database_setup import open_database
from tables_app.storage import engine as db

HERO = ("--as", "Hero", "--hits", "50", "--armor", "MA", "--weapon", "Dagger", "--cmb", "40")


def test_fights_whose_names_fold_alike_are_kept_the_later_renamed(run, db_path):  # type: ignore[no-untyped-def]
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    db.run_alembic(engine, "downgrade", "0012")
    with closing(sqlite3.connect(db_path)) as connection:  # 0012's NOCASE is ASCII only: both were allowed
        for name in ("Ärger", "ärger", "A\u0308rger", "Calm"):  # the third, Ä decomposed: NOCASE compares bytes
            connection.execute("INSERT INTO fight (name, ruleset, created_at) VALUES (?, NULL, '2026-12-01T00:00:00+00:00')",
                               (name,))
        connection.execute("INSERT INTO fight_event (fight_id, seq, kind, data, at) VALUES (2, 1, 'join', ?, '')",
                           (json.dumps({"kind": "join", "combatant": {"name": "Hero", "side": "A", "hits": 50,
                                                                      "defense": 0, "armor": "MA"}}),))
        connection.commit()
    db.migrate(engine)
    engine.dispose()
    listed = json.loads(run("fight", "list", "--json").stdout)["fights"]
    assert sorted((f["name"], f["events"]) for f in listed) == sorted([
        ("Calm", 0), ("A\u0308rger (3)", 0), ("Ärger", 0), ("ärger (2)", 1)])
    assert run("fight", "show", "ÄRGER (2)").output.startswith("Error: fight 'ärger (2)': ")  # found by its new name
    with closing(sqlite3.connect(db_path)) as connection:
        sql = connection.execute("SELECT sql FROM sqlite_master WHERE name = 'fight'").fetchone()[0]
        assert "AUTOINCREMENT" in sql
        assert 'name VARCHAR COLLATE "NOCASE" NOT NULL' in sql  # kept through the copy (fight list's order)
        assert connection.execute("SELECT DISTINCT version FROM fight").fetchall() == [(0,)]


def test_down_and_up_keep_every_fight_and_its_log(run, db_path):  # type: ignore[no-untyped-def]
    assert run("fight", "new", "Kept").exit_code == 0
    assert run("fight", "join", "Kept", *HERO).exit_code == 0
    assert run("fight", "edit", "Kept", "Hero", "--stun", "1").exit_code == 0
    before = run("fight", "log", "Kept", "--json").stdout
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    db.run_alembic(engine, "downgrade", "0012")
    with closing(sqlite3.connect(db_path)) as connection:
        columns = [row[1] for row in connection.execute("SELECT * FROM pragma_table_info('fight')")]
        assert "version" not in columns and "name_key" not in columns
    db.migrate(engine)
    engine.dispose()
    assert run("fight", "log", "Kept", "--json").stdout == before
    assert run("fight", "undo", "Kept", "--after", "2").exit_code == 0


def test_on_postgresql_an_id_is_not_given_again_after_an_upgrade(pg_url: str) -> None:
    """env.py sets each id sequence past the highest id after the migrations, and never back: the id of a
    removed fight is not the next fight's, though the removed one was the highest."""
    database = open_database(pg_url)
    try:
        fights.new(database, "A")
        fights.new(database, "B")
        with database.snapshot() as connection:
            highest = connection.execute("SELECT max(id) FROM fight").fetchone()[0]
        fights.remove(database, "B")
        engine: Any = database.engine
        db.run_alembic(engine, "downgrade", "0012")
        db.migrate(engine)
        fights.new(database, "C")
        with database.snapshot() as connection:
            made = connection.execute("SELECT id FROM fight WHERE name = 'C'").fetchone()[0]
        assert made > highest
        assert fights.show(database, "a").fight.name == "A"
    finally:
        database.dispose()
