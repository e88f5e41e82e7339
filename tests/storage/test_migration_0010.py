"""0010 (docs/schema.md): the fight log's events of kind `adjust` and `leave`;
the rebuilt table keeps every event and a user's own view on it; a downgrade
is refused while such an event is kept."""

from __future__ import annotations

import re
import sqlite3
from contextlib import closing

import pytest

from tables_app.errors import DatabaseError
from tables_app.storage import engine as db

FIGHT = ("--as", "Hero", "--hits", "50", "--armor", "MA", "--weapon", "Dagger", "--cmb", "40")


def dumped(path) -> list[str]:  # type: ignore[no-untyped-def]
    with closing(sqlite3.connect(path)) as connection:
        return list(connection.iterdump())


def test_down_and_up_keep_every_event_and_a_view_on_them(run, db_path):  # type: ignore[no-untyped-def]
    run("fight", "new", "Kept")
    run("fight", "join", "Kept", *FIGHT)
    run("fight", "edit", "Kept", "Hero", "--stun", "1")
    with closing(sqlite3.connect(db_path)) as connection:
        connection.execute("CREATE VIEW my_events AS SELECT seq, kind FROM fight_event")
        connection.commit()
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    db.run_alembic(engine, "downgrade", "0009")
    with closing(sqlite3.connect(db_path)) as connection:
        assert connection.execute("SELECT * FROM my_events").fetchall() == [(1, "join"), (2, "edit")]
        with pytest.raises(sqlite3.IntegrityError):  # 0009 takes no adjust
            connection.execute("INSERT INTO fight_event (fight_id, seq, kind, data, at) VALUES (1, 3, 'adjust', '{}', '')")
    db.migrate(engine)
    engine.dispose()
    assert run("fight", "adjust", "Kept", "Hero", "--stun", "-1").exit_code == 0
    assert run("fight", "leave", "Kept", "Hero").exit_code == 0
    with closing(sqlite3.connect(db_path)) as connection:
        assert connection.execute("SELECT * FROM my_events").fetchall() == [(1, "join"), (2, "edit"), (3, "adjust"),
                                                                              (4, "leave")]


@pytest.mark.sqlite_only  # compares the file's dump
def test_a_downgrade_is_refused_while_an_adjustment_is_kept(run, db_path):  # type: ignore[no-untyped-def]
    run("fight", "new", "Kept")
    run("fight", "join", "Kept", *FIGHT)
    assert run("fight", "damage", "Kept", "Hero", "5").exit_code == 0
    before = dumped(db_path)
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    message = ("cannot downgrade below 0010: the fights' logs hold 1 event of kind adjust or leave; undo them or "
               "remove those fights first (nothing changed)")
    with pytest.raises(DatabaseError, match="^" + re.escape(message) + "$"):
        db.run_alembic(engine, "downgrade", "0009")
    engine.dispose()
    assert dumped(db_path) == before
