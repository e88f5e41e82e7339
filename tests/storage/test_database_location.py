"""Where the database is, and when one may be created (issue #12, item 5).

Only the default location is created on first use, and ``init_database``
on request; a location named by --db or $TABLES_DB must exist.
"""

import re
import sqlite3

import pytest
from helpers import db_dump

from tables_app.services.database_setup import init_database, open_database
from tables_app.errors import DatabaseError, UsageMistake
from tables_app.storage.connection import SCHEMA_HEAD, connect
from tables_app.storage.location import locate_database

pytestmark = pytest.mark.sqlite_only  # the SQLite file itself (`pytest --postgres` leaves it out)


def test_a_named_location_is_named_and_the_default_is_not(tmp_path, monkeypatch, no_user_database):
    assert locate_database(str(tmp_path / "a.db")).named
    monkeypatch.setenv("TABLES_DB", str(tmp_path / "b.db"))
    assert locate_database(None).path == tmp_path / "b.db" and locate_database(None).named
    assert locate_database(str(tmp_path / "a.db")).path == tmp_path / "a.db"  # --db wins over $TABLES_DB
    monkeypatch.delenv("TABLES_DB")
    default = locate_database(None)
    assert default.path == no_user_database and not default.named


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "--db is empty; give a database file path or sqlite:///PATH"),
        ("  ", "--db is empty; give a database file path or sqlite:///PATH"),
        (":memory:", ":memory: is not a database file"),
        ("sqlite://", "sqlite:// is not a database file"),
        ("sqlite:///:memory:", "sqlite:///:memory: is not a database file"),
        ("mysql://u:secret@host/db", "mysql://u:***@host/db: mysql databases are not supported"),
        ("postgresql://u@host", "postgresql://u@host: name the database"),
    ],
)
def test_locations_that_cannot_hold_a_database_are_refused(value, message):
    with pytest.raises((DatabaseError, UsageMistake), match="^" + re.escape(message)):  # an empty --db: UsageMistake
        locate_database(value)


def test_an_empty_environment_variable_is_refused_not_ignored(monkeypatch):
    monkeypatch.setenv("TABLES_DB", "")
    with pytest.raises(DatabaseError, match=r"^\$TABLES_DB is empty"):
        locate_database(None)


def test_a_missing_named_database_is_an_error_and_nothing_is_created(tmp_path):
    target = tmp_path / "no" / "such" / "dir" / "tables.db"
    with pytest.raises(DatabaseError) as raised:
        open_database(str(target))
    assert str(raised.value) == f"no database at {target} (create one with: tables db init {target})"
    assert list(tmp_path.iterdir()) == []  # not even the parent directory


def test_a_missing_database_from_the_environment_is_an_error(tmp_path, monkeypatch):
    target = tmp_path / "typo.db"
    monkeypatch.setenv("TABLES_DB", str(target))
    with pytest.raises(DatabaseError, match="^no database at "):
        open_database()
    assert not target.exists()


def test_a_path_with_spaces_gets_a_hint_that_can_be_pasted(tmp_path):
    target = tmp_path / "my tables.db"
    with pytest.raises(DatabaseError) as raised:
        open_database(str(target))
    assert str(raised.value).endswith(f"(create one with: tables db init '{target}')")


def test_an_empty_named_file_is_not_taken_for_a_database(tmp_path):
    target = tmp_path / "touched.db"
    target.touch()
    with pytest.raises(DatabaseError) as raised:
        open_database(str(target))
    assert str(raised.value) == f"{target} is an empty file, not a database (create one with: tables db init {target})"
    assert target.stat().st_size == 0


def test_a_sqlite_file_without_tables_is_not_filled_when_named(tmp_path):
    target = tmp_path / "blank.db"
    with sqlite3.connect(target) as connection:
        connection.execute("PRAGMA user_version = 3")  # a real SQLite file, no tables
    with pytest.raises(DatabaseError, match="is an empty SQLite database, not a tables_app one"):
        open_database(str(target))
    with sqlite3.connect(target) as connection:
        assert connection.execute("SELECT count(*) FROM sqlite_master").fetchone() == (0,)


def test_a_directory_is_not_a_database(tmp_path):
    with pytest.raises(DatabaseError, match=": a directory, not a database file"):
        open_database(str(tmp_path))


def test_reading_never_creates_a_file(tmp_path):
    with pytest.raises(sqlite3.OperationalError):
        connect(tmp_path / "missing.db")
    assert not (tmp_path / "missing.db").exists()


def test_the_engine_makes_no_directories(tmp_path):
    from tables_app.storage import engine as db

    db.create_db_engine(f"sqlite:///{tmp_path / 'no' / 'dir' / 'x.db'}").dispose()
    assert not (tmp_path / "no").exists()


def test_the_default_location_is_created_once_with_its_directories(no_user_database):
    assert not no_user_database.parent.exists()
    first = open_database()
    assert first.created and first.path == no_user_database
    assert first.reader().list_named("weapons")  # the bundled tables are in
    first.dispose()
    assert [p.name for p in no_user_database.parent.iterdir() if p.name.startswith(".tables-new")] == []
    again = open_database()
    assert not again.created
    again.dispose()


def test_init_makes_a_database_with_its_directories(tmp_path):
    target = tmp_path / "new" / "dir" / "tables.db"
    database = init_database(str(target))
    assert database.created and database.reader().list_named("weapons")
    database.dispose()
    reopened = open_database(str(target))
    assert not reopened.created
    reopened.dispose()


def test_init_empty_makes_a_database_without_the_bundled_tables(tmp_path):
    database = init_database(str(tmp_path / "empty.db"), bundled=False)
    assert database.created
    assert database.reader().list_named("weapons") == [] and database.reader().list_named("attack") == []
    database.dispose()
    with sqlite3.connect(tmp_path / "empty.db") as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone() == (SCHEMA_HEAD,)


def test_init_refuses_an_existing_database_and_changes_nothing(db_path):
    before = db_dump(db_path)
    with pytest.raises(DatabaseError) as raised:
        init_database(str(db_path))
    assert str(raised.value) == f"{db_path} already exists and is not empty; nothing changed (db init makes new databases only)"
    assert db_dump(db_path) == before


def test_init_refuses_a_file_that_is_not_a_database(tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("my notes\n" * 200)
    with pytest.raises(DatabaseError, match="already exists and is not empty"):
        init_database(str(target))
    assert target.read_text() == "my notes\n" * 200


def test_init_takes_an_empty_file_and_a_sqlite_file_without_tables(tmp_path):
    touched, blank = tmp_path / "touched.db", tmp_path / "blank.db"
    touched.touch()
    with sqlite3.connect(blank) as connection:
        connection.execute("PRAGMA user_version = 3")
    for target in (touched, blank):
        database = init_database(str(target))
        assert database.created and database.reader().list_named("weapons")
        database.dispose()


def test_a_path_with_url_characters_is_made_and_read_as_itself(tmp_path):
    target = tmp_path / "odd #1 50%" / "my tables.db"
    init_database(str(target)).dispose()  # Alembic's config once choked on the %-escaped URL
    database = open_database(str(target))
    assert database.path == target and database.reader().list_named("weapons")
    database.dispose()
    assert [p.name for p in target.parent.iterdir()] == ["my tables.db"]


def test_a_path_with_a_question_mark_is_itself_not_cut_short(tmp_path):
    target = tmp_path / "what?" / "tables?.db"  # once refused: SQLite's URI syntax read the rest as options
    init_database(str(target)).dispose()
    database = open_database(str(target))
    assert database.path == target and database.reader().list_named("weapons")
    database.dispose()
    assert [p.name for p in tmp_path.iterdir() if p.name != "user-data"] == ["what?"]
    assert [p.name for p in target.parent.iterdir()] == ["tables?.db"]
