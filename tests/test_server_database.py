"""The database of `tables serve` (services/server_database.py): opened and
checked once at start, one Database per thread sharing one cache of
compiled tables, each answer one read transaction, the health check's
schema version (docs/api.md, "health")."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from helpers import without_creature_attacks

from tables_app.errors import DatabaseError, DatabaseFault
from tables_app.services.server_database import PerThreadDatabases, read_transaction, schema
from tables_app.storage.connection import SCHEMA_HEAD


@pytest.mark.sqlite_only  # the file's path, SQLite's data_version
def test_each_thread_has_its_own_database_and_all_share_the_compiled_tables(db_path):
    databases = PerThreadDatabases(db_path)
    mine = databases.get()
    assert databases.get() is mine  # kept for the thread's next request
    other: list = []
    thread = threading.Thread(target=lambda: other.append(databases.get()))
    thread.start()
    thread.join()
    assert other[0] is not mine and other[0].path == mine.path == db_path
    assert other[0].compiled is mine.compiled is databases.compiled
    mine.dispose()
    other[0].dispose()


def test_a_bad_location_fails_when_the_server_starts(tmp_path):
    with pytest.raises(DatabaseError, match="no database at"):
        PerThreadDatabases(tmp_path / "missing.db")


def test_an_old_database_is_migrated_when_the_server_starts(db_path):
    from tables_app.storage import engine as db

    without_creature_attacks(db_path)
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    db.run_alembic(engine, "downgrade", "0005")
    engine.dispose()
    PerThreadDatabases(db_path)
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("SELECT version_num FROM alembic_version").fetchone() == (SCHEMA_HEAD,)


@pytest.mark.sqlite_only  # the file's path, SQLite's data_version
def test_the_health_check_reads_the_schema_version(db_path):
    database = PerThreadDatabases(db_path).get()
    assert schema(database) == SCHEMA_HEAD
    database.dispose()
    db_path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(DatabaseFault, match="not a database"):
        schema(database)
    database.dispose()


def test_an_answer_reads_in_one_transaction(db_path):
    """A write another process commits during an answer is not seen by its later reads."""
    database = PerThreadDatabases(db_path).get()
    writer = sqlite3.connect(db_path, isolation_level=None)
    try:
        with read_transaction(database) as connection:
            before = connection.execute("SELECT count(*) FROM creature").fetchone()[0]
            writer.execute("DELETE FROM creature_feature")
            writer.execute("DELETE FROM creature")
            assert database.reader().list_named("creatures")  # a read inside the answer joins its transaction
            assert connection.execute("SELECT count(*) FROM creature").fetchone()[0] == before > 0
        with read_transaction(database) as connection:
            assert connection.execute("SELECT count(*) FROM creature").fetchone()[0] == 0
    finally:
        writer.close()
        database.dispose()


def test_a_repaired_database_is_read_again_on_the_next_request(db_path, tmp_path):
    """Pages damaged and another process's commit (so that the server reads
    the damage), then the good file copied back: the server's connection had
    kept the damaged pages, and said "damaged" until another commit. A
    database judged at fault is opened afresh on the next request."""
    import shutil

    good = tmp_path / "good.db"
    shutil.copyfile(db_path, good)
    databases = PerThreadDatabases(db_path)
    database = databases.get()
    assert schema(database) == SCHEMA_HEAD
    size = db_path.stat().st_size
    with open(db_path, "r+b") as damaged:
        damaged.seek(4096)
        damaged.write(b"\xff" * (size - 4096))
    other = sqlite3.connect(db_path, isolation_level=None)
    other.execute("PRAGMA user_version = 7")  # a commit of another process: page 1 only
    other.close()
    with pytest.raises(DatabaseFault, match="damaged"):
        schema(database)
    shutil.copyfile(good, db_path)  # repaired: the good file copied back
    assert schema(databases.get()) == SCHEMA_HEAD
    with read_transaction(databases.get()) as connection:
        assert connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
    databases.get().dispose()
