"""Alembic: one head, upgrade from empty, the stairway, models == migrations."""

import sqlite3

import pytest
import sqlalchemy
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from tables_app.storage import engine as db, models
from tables_app.storage.connection import BUSY_TIMEOUT_MS, SCHEMA_HEAD


@pytest.fixture
def empty_engine(tmp_path):
    engine = db.create_db_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    yield engine
    engine.dispose()


def scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(db.alembic_config())


def test_one_head_and_the_code_knows_it():
    assert scripts().get_heads() == [SCHEMA_HEAD]


def test_upgrade_from_empty(empty_engine):
    assert db.current_revision(empty_engine) is None
    db.migrate(empty_engine)
    assert db.current_revision(empty_engine) == SCHEMA_HEAD


def test_stairway_every_revision_up_down_up(empty_engine):
    revisions = list(reversed(list(scripts().walk_revisions())))
    for revision in revisions:
        db.migrate(empty_engine, revision.revision)
        db.downgrade(empty_engine, revision.down_revision or "base")
        db.migrate(empty_engine, revision.revision)
    assert db.current_revision(empty_engine) == SCHEMA_HEAD


def test_downgrade_to_base_leaves_nothing(empty_engine, tmp_path):
    db.migrate(empty_engine)
    db.downgrade(empty_engine, "base")
    with sqlite3.connect(tmp_path / "empty.db") as connection:
        names = {r[0] for r in connection.execute("SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")}
    assert names == {"alembic_version"}


def test_models_and_migrations_give_the_same_schema(empty_engine):
    db.migrate(empty_engine)
    with empty_engine.connect() as connection:
        diff = compare_metadata(MigrationContext.configure(connection), models.metadata)
    assert diff == []


def test_connections_enforce_foreign_keys_with_wal_and_a_busy_timeout(empty_engine):
    with empty_engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == BUSY_TIMEOUT_MS


def test_the_default_severities_are_seeded(empty_engine):
    db.migrate(empty_engine)
    with empty_engine.connect() as connection:
        rows = connection.exec_driver_sql(
            "SELECT code, modifier FROM severity JOIN severity_scale s ON s.id = scale_id WHERE s.name = 'default' ORDER BY position"
        ).all()
    assert rows == [("Sup", 0), ("Lig", 10), ("Mod", 20), ("Gri", 30), ("Let", 50)]


def test_a_failing_migration_leaves_the_schema_unchanged(empty_engine, monkeypatch):
    """DDL runs in a real transaction (manual BEGIN), so a failure rolls it all back."""
    from alembic import op

    real_execute = op.execute

    def explode(sql, *args, **kwargs):
        if "CREATE VIEW" in str(sql):
            raise RuntimeError("boom")
        return real_execute(sql, *args, **kwargs)

    monkeypatch.setattr(op, "execute", explode)
    with pytest.raises(RuntimeError, match="boom"):
        db.migrate(empty_engine)
    assert db.current_revision(empty_engine) is None
    assert db.is_empty(empty_engine)


def test_broken_foreign_keys_after_a_migration_roll_it_back(empty_engine, monkeypatch):
    """Batch migrations run with foreign keys off; env.py checks them before the commit."""
    from alembic import op

    real_execute = op.execute
    dangled = []

    def dangle(sql, *args, **kwargs):
        result = real_execute(sql, *args, **kwargs)
        if "CREATE VIEW" in str(sql) and not dangled:
            dangled.append(sql)
            real_execute("INSERT INTO creature_feature (creature_id, feature) VALUES (999, 'ghost')")
        return result

    monkeypatch.setattr(op, "execute", dangle)
    with pytest.raises(RuntimeError, match="migration left broken foreign keys"):
        db.migrate(empty_engine)
    assert db.current_revision(empty_engine) is None and db.is_empty(empty_engine)


def test_0002_keeps_every_row_and_every_rule(db_path):
    """0002 rebuilds three tables to spell their CHECKs as ORs: down to 0001
    and back up, the bundled tables survive whole and bad values still fail."""
    engine = db.create_db_engine(f"sqlite:///{db_path}")

    def state():  # type: ignore[no-untyped-def]
        with engine.connect() as connection:
            counts = [connection.exec_driver_sql(f"SELECT count(*) FROM {name}").scalar()
                      for name in ("attack_cell", "attack_cell_view", "weapon", "creature", "creature_feature")]
            schema = connection.exec_driver_sql("SELECT sql FROM sqlite_master WHERE name = 'attack_cell'").scalar()
        return counts, schema

    def refused(sql: str) -> bool:
        with engine.begin() as connection, pytest.raises(sqlalchemy.exc.IntegrityError, match="CHECK constraint failed"):
            connection.exec_driver_sql(sql)
        return True

    bad = ["UPDATE attack_cell SET outcome = 'maybe' WHERE id = (SELECT min(id) FROM attack_cell)",
           "UPDATE weapon SET roll_kind = 'd6' WHERE id = (SELECT min(id) FROM weapon)",
           "UPDATE creature SET rank = 'god' WHERE id = (SELECT min(id) FROM creature)"]
    def duplicates_refused() -> bool:  # names stay unique in any letter case (COLLATE NOCASE survives)
        for table in ("weapon", "creature"):
            with engine.connect() as connection:
                names = [row[1] for row in connection.exec_driver_sql(f"PRAGMA table_info({table})") if row[1] != "id"]
            copied = ", ".join("upper(name)" if name == "name" else name for name in names)
            with engine.begin() as connection, pytest.raises(sqlalchemy.exc.IntegrityError, match="UNIQUE"):
                connection.exec_driver_sql(f"INSERT INTO {table} ({', '.join(names)}) SELECT {copied} FROM {table} LIMIT 1")
        return True

    counts, schema = state()
    assert min(counts) > 0 and " IN (" not in schema and all(refused(sql) for sql in bad) and duplicates_refused()
    db.downgrade(engine, "0001")
    assert state()[0] == counts and " IN (" in state()[1] and all(refused(sql) for sql in bad) and duplicates_refused()
    db.migrate(engine)
    assert state()[0] == counts and " IN (" not in state()[1] and all(refused(sql) for sql in bad) and duplicates_refused()
    engine.dispose()


def test_0002_keeps_the_users_own_views_triggers_and_indexes_exactly(db_path):
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    db.downgrade(engine, "0001")
    own = [
        "CREATE VIEW my_weapons AS SELECT name, roll_kind FROM weapon WHERE name != ':odd'",
        'CREATE VIEW "long ""quoted"" weapons" AS SELECT name FROM my_weapons WHERE roll_kind = \'oe\'',
        "CREATE TABLE renamed (old TEXT)",
        "CREATE TRIGGER remember AFTER UPDATE OF name ON creature BEGIN INSERT INTO renamed VALUES (old.name); END",
        "CREATE TRIGGER tidy AFTER DELETE ON workbook BEGIN DELETE FROM weapon WHERE workbook_id = old.id; END",
        "CREATE INDEX by_armor ON creature (lower(armor))",
        "CREATE INDEX by_hits ON attack_cell (hits DESC, text COLLATE NOCASE)",
    ]
    with engine.begin() as connection:
        for sql in own:
            connection.exec_driver_sql(sql)
    before = schema_of(engine)
    db.migrate(engine)
    after = schema_of(engine)
    assert {k: v for k, v in after.items() if k[0] != "table"} == {k: v for k, v in before.items() if k[0] != "table"}
    with engine.begin() as connection:
        assert connection.exec_driver_sql('SELECT count(*) FROM "long ""quoted"" weapons"').scalar() > 0
        connection.exec_driver_sql("UPDATE creature SET name = name || '!' WHERE id = (SELECT min(id) FROM creature)")
        assert connection.exec_driver_sql("SELECT count(*) FROM renamed").scalar() == 1
    assert db.current_revision(engine) == SCHEMA_HEAD
    engine.dispose()


def schema_of(engine) -> dict:  # type: ignore[no-untyped-def]
    with engine.connect() as connection:
        rows = connection.exec_driver_sql("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").all()
    return {(kind, name): sql for kind, name, sql in rows}
