"""Migration 0014 (docs/schema.md): groups; a fight's and a party's group (0, the operator's, for every one made
before); parties by the rule of names, those whose names fold alike renamed; downgrading refused, changing
nothing, while a group exists."""

from __future__ import annotations

import json
import re
import sqlite3
from contextlib import closing

import pytest

from tables_app.errors import DatabaseError
from tables_app.storage import engine as db

HERO = ("--as", "Hero", "--hits", "50", "--armor", "MA", "--weapon", "Longsword", "--cmb", "60")


def test_0014_keeps_fights_and_parties_as_the_operators_and_folds_party_names(run, db_path):  # type: ignore[no-untyped-def]
    for args in (("fight", "new", "F"), ("fight", "join", "F", *HERO), ("fight", "party", "save", "Ärger", "--from", "F")):
        assert run(*args).exit_code == 0
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    db.run_alembic(engine, "downgrade", "0013")
    with closing(sqlite3.connect(db_path)) as connection, connection:  # at 0013, NOCASE is ASCII only: two parties
        connection.execute("INSERT INTO party (name, members, saved_at) SELECT 'ärger', members, saved_at FROM party")
    db.run_alembic(engine, "upgrade", "head")
    engine.dispose()
    parties = [p["name"] for p in json.loads(run("fight", "party", "list", "--json").stdout)["parties"]]
    assert sorted(parties) == ["Ärger", "ärger (2)"]
    assert json.loads(run("fight", "show", "F", "--json").stdout)["seq"] == 1  # the operator's fight, as it was
    with closing(sqlite3.connect(db_path)) as connection:
        assert connection.execute("SELECT DISTINCT group_id FROM fight UNION SELECT DISTINCT group_id FROM party"
                                  ).fetchall() == [(0,)]
        sql = connection.execute("SELECT sql FROM sqlite_master WHERE name = 'fight'").fetchone()[0]
    assert "AUTOINCREMENT" in sql and 'COLLATE "NOCASE"' in sql  # the rebuilt table keeps both


def test_0014_downgrade_is_refused_while_a_group_exists_then_goes_down_and_up(run, db_path):  # type: ignore[no-untyped-def]
    assert run("group", "new", "Tuesday").exit_code == 0
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    with closing(sqlite3.connect(db_path)) as connection:
        before = list(connection.iterdump())
    message = "cannot downgrade below 0014: the database holds 1 group; 0013 has no groups (nothing changed)"
    with pytest.raises(DatabaseError, match="^" + re.escape(message) + "$"):
        db.run_alembic(engine, "downgrade", "0013")
    with closing(sqlite3.connect(db_path)) as connection:
        assert list(connection.iterdump()) == before
        connection.execute("DELETE FROM fight_group")
        connection.commit()
    db.run_alembic(engine, "downgrade", "0013")
    db.run_alembic(engine, "upgrade", "head")
    engine.dispose()
    assert run("group", "list").output == "No groups (make one: tables group new NAME).\n"


def test_db_check_names_a_fight_or_party_whose_group_is_none(run, db_path):  # type: ignore[no-untyped-def]
    for args in (("fight", "new", "F"), ("fight", "join", "F", *HERO), ("fight", "party", "save", "P", "--from", "F")):
        assert run(*args).exit_code == 0
    assert run("db", "check").exit_code == 0
    with closing(sqlite3.connect(db_path)) as connection, connection:
        connection.execute("UPDATE fight SET group_id = 7")
        connection.execute("UPDATE party SET group_id = 9")
    checked = run("db", "check", "--json")
    assert checked.exit_code == 1
    found = json.loads(checked.stdout)["problems"]
    assert "fight 'F': its group 7 is no group (tables group list)" in found
    assert "party 'P': its group 9 is no group (tables group list)" in found


def _url(db_path) -> str:  # type: ignore[no-untyped-def]
    return str(db_path) if "://" in str(db_path) else f"sqlite:///{db_path}"


def test_0014_down_and_up_keep_the_operators_fights_and_parties_on_either_database(run, db_path):  # type: ignore[no-untyped-def]
    for args in (("fight", "new", "F"), ("fight", "join", "F", *HERO), ("fight", "new", "G"),
                 ("fight", "party", "save", "P", "--from", "F"), ("fight", "remove", "G")):
        assert run(*args).exit_code == 0, args
    shown = json.loads(run("fight", "show", "F", "--json").stdout)
    engine = db.create_db_engine(_url(db_path))
    db.run_alembic(engine, "downgrade", "0013")
    db.run_alembic(engine, "upgrade", "head")
    engine.dispose()
    assert json.loads(run("fight", "show", "f", "--json").stdout) == shown
    assert [p["name"] for p in json.loads(run("fight", "party", "list", "--json").stdout)["parties"]] == ["P"]
    assert run("fight", "new", "F").exit_code == 1  # still one name a group
    assert run("group", "new", "T").exit_code == 0
    assert run("--group", "T", "fight", "new", "F").exit_code == 0  # but another group's own
    assert run("--group", "T", "fight", "party", "save", "p", "--from", "F").exit_code == 1  # (no combatants)
    assert run("--group", "T", "fight", "join", "F", *HERO).exit_code == 0
    assert run("--group", "T", "fight", "party", "save", "p", "--from", "F").exit_code == 0
    assert [f["name"] for f in json.loads(run("--group", "T", "fight", "list", "--json").stdout)["fights"]] == ["F"]


def test_0014_downgrade_is_refused_while_a_fight_or_party_is_a_groups_even_with_no_group_left(run, db_path):  # type: ignore[no-untyped-def]
    from sqlalchemy import text

    assert run("group", "new", "T").exit_code == 0
    for args in (("fight", "new", "F"), ("--group", "T", "fight", "new", "F")):
        assert run(*args).exit_code == 0, args
    engine = db.create_db_engine(_url(db_path))
    with engine.begin() as connection:  # a group removed by hand (the commands never remove one): its fight stays
        connection.execute(text("DELETE FROM fight_group"))
    message = ("cannot downgrade below 0014: 1 fight or party belongs to a group (0013 has no groups; "
               "tables db check names them) (nothing changed)")
    with pytest.raises(DatabaseError, match="^" + re.escape(message) + "$"):
        db.run_alembic(engine, "downgrade", "0013")
    engine.dispose()
    assert json.loads(run("fight", "list", "--json").stdout)["fights"][0]["name"] == "F"
