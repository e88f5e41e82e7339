"""Alembic: one head, upgrade from empty, the stairway, models == migrations;
0002 and 0003 keep every row, every rule and the user's own views, triggers, indexes."""

import re
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
import sqlalchemy
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory

from helpers import without_creature_attacks

from tables_app.errors import DatabaseError
from tables_app.storage import engine as db, models
from tables_app.storage.connection import BUSY_TIMEOUT_MS, SCHEMA_HEAD, has_tables, schema_version

pytestmark = pytest.mark.sqlite_only  # the SQLite file itself (`pytest --postgres` leaves it out)


@pytest.fixture
def empty_engine(tmp_path):
    engine = db.create_db_engine(f"sqlite:///{tmp_path / 'empty.db'}")
    yield engine
    engine.dispose()


def revision_of(engine: sqlalchemy.Engine) -> str | None:
    """The schema version the database records, read as the program reads it."""
    with engine.connect() as connection:
        return schema_version(connection.connection.driver_connection)


def holds_no_tables(engine: sqlalchemy.Engine) -> bool:
    with engine.connect() as connection:
        return not has_tables(connection.connection.driver_connection)


def scripts() -> ScriptDirectory:
    return ScriptDirectory.from_config(db.alembic_config())


def test_one_head_and_the_code_knows_it():
    assert scripts().get_heads() == [SCHEMA_HEAD]


def test_upgrade_from_empty(empty_engine):
    assert revision_of(empty_engine) is None
    db.migrate(empty_engine)
    assert revision_of(empty_engine) == SCHEMA_HEAD


def test_stairway_every_revision_up_down_up(empty_engine):
    revisions = list(reversed(list(scripts().walk_revisions())))
    for revision in revisions:
        db.migrate(empty_engine, revision.revision)
        db.run_alembic(empty_engine, "downgrade", revision.down_revision or "base")
        db.migrate(empty_engine, revision.revision)
    assert revision_of(empty_engine) == SCHEMA_HEAD


def test_downgrade_to_base_leaves_nothing(empty_engine, tmp_path):
    db.migrate(empty_engine)
    db.run_alembic(empty_engine, "downgrade", "base")
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
    assert revision_of(empty_engine) is None
    assert holds_no_tables(empty_engine)


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
    assert revision_of(empty_engine) is None and holds_no_tables(empty_engine)


def test_0002_keeps_every_row_and_every_rule(db_path):
    """0002 rebuilds three tables to spell their CHECKs as ORs: down to 0001
    and back up, the bundled tables survive whole and bad values still fail."""
    without_creature_attacks(db_path)
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
    db.run_alembic(engine, "downgrade", "0001")
    assert state()[0] == counts and " IN (" in state()[1] and all(refused(sql) for sql in bad) and duplicates_refused()
    db.migrate(engine)
    assert state()[0] == counts and " IN (" not in state()[1] and all(refused(sql) for sql in bad) and duplicates_refused()
    engine.dispose()


def test_0002_keeps_the_users_own_views_triggers_and_indexes_exactly(db_path):
    without_creature_attacks(db_path)
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    db.run_alembic(engine, "downgrade", "0001")
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
    assert revision_of(engine) == SCHEMA_HEAD
    engine.dispose()


def schema_of(engine) -> dict:  # type: ignore[no-untyped-def]
    with engine.connect() as connection:
        rows = connection.exec_driver_sql("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL").all()
    return {(kind, name): sql for kind, name, sql in rows}


# --- 0003: rulesets -------------------------------------------------------

NAMED_TABLES = ("severity_scale", "critical_table", "fumble_table", "attack_table", "weapon", "creature")

# What an import of one small workbook writes, in plain SQL against the 0002
# schema: its own severity scale, a critical table with a code (and one
# without, on the built-in scale), a fumble table, an attack table whose cells
# name a severity and a critical table, a weapon using them all, a creature.
POPULATED_0002 = [
    "INSERT INTO workbook (id, file_name, sha256, imported_at, size_bytes) VALUES (1, 'mine.xlsx', 'ab12', '2026-12-01T10:00:00+00:00', 4096)",
    "INSERT INTO severity_scale (id, name, workbook_id, sheet, source, notes) VALUES (2, 'Letters', 1, 'Letters', 'test', NULL)",
    "INSERT INTO severity (id, scale_id, position, code, name, modifier) VALUES (6, 2, 0, 'A', 'Alpha', 0), (7, 2, 1, 'B', 'Bravo', 5), (8, 2, 2, 'C', 'Charlie', 10)",
    "INSERT INTO critical_table (id, name, code, scale_id, workbook_id, sheet, source) VALUES (1, 'Slash', 'X', 2, 1, 'Slash', 'test'), (2, 'Bash', NULL, 1, 1, 'Bash', NULL)",
    "INSERT INTO critical_entry (id, critical_table_id, position, low, high, label, condition, title, text, hits, bleed, stun, penalty) VALUES "
    "(1, 1, 0, 1, 50, '01-50', NULL, 'Nick', 'A nick.', 1, 0, 0, 0), (2, 1, 1, 51, NULL, '51+', 'helm', 'Ring', 'The helm rings.', 2, 0, 1, -10), "
    "(3, 2, 0, 1, NULL, '01+', NULL, NULL, 'Thud.', 3, 0, 0, 0)",
    "INSERT INTO critical_effect (entry_id, position, tag) VALUES (2, 0, 'dazed'), (2, 1, 'prone')",
    "INSERT INTO fumble_table (id, name, workbook_id, sheet) VALUES (1, 'Oops', 1, 'Oops')",
    "INSERT INTO fumble_entry (id, fumble_table_id, position, low, high, label, text, hits, bleed, stun, penalty) VALUES (1, 1, 0, 1, NULL, '01+', 'You drop it.', 0, 0, 0, 0)",
    "INSERT INTO fumble_effect (entry_id, position, tag) VALUES (1, 0, 'drop weapon')",
    "INSERT INTO attack_table (id, name, scale_id, workbook_id, sheet) VALUES (1, 'Blades', 2, 1, 'Blades')",
    "INSERT INTO armor_column (id, attack_table_id, position, code) VALUES (1, 1, 0, 'AT1'), (2, 1, 1, 'AT2')",
    "INSERT INTO attack_row (id, attack_table_id, position, low, high, label) VALUES (1, 1, 0, 11, 80, '11-80'), (2, 1, 1, 81, NULL, '81+')",
    "INSERT INTO attack_cell (row_id, armor_column_id, text, outcome, hits, severity_id, critical_table_id) VALUES "
    "(1, 1, '3', 'hit', 3, NULL, NULL), (1, 2, '-', 'no_damage', 0, NULL, NULL), (2, 1, '9BX', 'critical', 9, 7, 1), (2, 2, '6Lig', 'critical', 6, 2, 2)",
    "INSERT INTO weapon (id, name, attack_table_id, max_result, clumsy, critical_table_id, secondary_critical_table_id, fumble_table_id, "
    "fumble_modifier, roll_kind, workbook_id, sheet) VALUES (1, 'Longsword', 1, 150, 3, 1, 2, 1, 10, 'oe', 1, 'Weapons')",
    "INSERT INTO creature (id, name, defense, armor, rank, hp, workbook_id, sheet) VALUES (1, 'Orc', 20, 'AT2', 'heroic', 45, 1, 'Creatures')",
    "INSERT INTO creature_feature (creature_id, feature) VALUES (1, 'helm'), (1, 'shield')",
]


@pytest.fixture
def populated_0002(tmp_path):
    """A database at revision 0002 holding one imported workbook (POPULATED_0002)."""
    path = tmp_path / "old.db"
    engine = db.create_db_engine(f"sqlite:///{path}")
    db.migrate(engine, "0002")
    with engine.begin() as connection:
        for sql in POPULATED_0002:
            connection.exec_driver_sql(sql)
    yield path, engine
    engine.dispose()


def rows_of(path: Path, *, leaving_out: str | None = None) -> dict[str, list[tuple]]:
    """Every row of every table and view, sorted, without the column ``leaving_out``."""
    with closing(sqlite3.connect(path)) as connection:
        names = [name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        dump = {}
        for name in names:
            columns = ", ".join(f'"{row[1]}"' for row in connection.execute(f'PRAGMA table_info("{name}")') if row[1] != leaving_out)
            dump[name] = connection.execute(f'SELECT {columns} FROM "{name}" ORDER BY {columns}').fetchall()
    return dump


def normalised_schema(path: Path) -> dict[tuple[str, str], object]:
    """sqlite_master's SQL, whitespace aside. A table is its header and columns in
    order and its constraints as a set: batch rebuilds write constraints in no
    fixed order (0002's own rebuilds differ from one run to the next). SQLite's
    own sqlite_sequence (AUTOINCREMENT's, from 0013 on) stays once made, and is not the schema's."""
    with closing(sqlite3.connect(path)) as connection:
        rows = connection.execute("SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL "
                                  "AND name <> 'sqlite_sequence'").fetchall()
    schema: dict[tuple[str, str], object] = {}
    for kind, name, sql in rows:
        if kind != "table":
            schema[(kind, name)] = " ".join(sql.split())
            continue
        lines = [" ".join(line.split()).rstrip(",") for line in sql.splitlines()]
        lines[0] = lines[0].replace(f'CREATE TABLE "{name}"', f"CREATE TABLE {name}")
        constraints = sorted(line for line in lines if line.startswith("CONSTRAINT "))
        schema[(kind, name)] = ([line for line in lines if not line.startswith("CONSTRAINT ")], constraints)
    return schema


def fresh_schema(tmp_path: Path, revision: str) -> dict[tuple[str, str], object]:
    path = tmp_path / f"fresh-{revision}.db"
    engine = db.create_db_engine(f"sqlite:///{path}")
    db.migrate(engine, revision)
    engine.dispose()
    return normalised_schema(path)


def execute(engine, sql: str) -> None:  # type: ignore[no-untyped-def]
    with engine.begin() as connection:
        connection.exec_driver_sql(sql)


def refused(engine, sql: str, failure: str) -> bool:  # type: ignore[no-untyped-def]
    with pytest.raises(sqlalchemy.exc.IntegrityError, match=re.escape(failure)):
        execute(engine, sql)
    return True


def test_0003_puts_every_row_of_a_populated_0002_database_in_the_default_ruleset(populated_0002, tmp_path):
    path, engine = populated_0002
    before = rows_of(path)
    db.migrate(engine, "0003")
    assert revision_of(engine) == "0003"
    after = rows_of(path, leaving_out="ruleset_id")
    assert after.pop("ruleset") == [(1, "default")]
    assert (before.pop("alembic_version"), after.pop("alembic_version")) == ([("0002",)], [("0003",)])
    assert after == before
    assert [len(before[table]) for table in NAMED_TABLES] == [2, 2, 1, 1, 1, 1]  # the built-in scale and the workbook's
    assert len(before["attack_cell"]) == 4 and before["attack_cell_view"][-1] == ("Blades", 81, None, "81+", "AT2", "6Lig", "critical", 6, "Lig", "Bash")
    with closing(sqlite3.connect(path)) as connection:
        for table in NAMED_TABLES:
            assert connection.execute(f"SELECT DISTINCT ruleset_id FROM {table}").fetchall() == [(1,)], table
            # no DEFAULT: a writer that forgets the ruleset fails rather than landing in `default`
            assert [row[4] for row in connection.execute(f"PRAGMA table_info({table})") if row[1] == "ruleset_id"] == [None]
    assert normalised_schema(path) == fresh_schema(tmp_path, "0003")


def copy_row_sql(engine, table: str, ruleset_id: int, *, name: str, code: str = "code") -> str:  # type: ignore[no-untyped-def]
    """SQL copying the first row of ``table`` into ``ruleset_id``, its name (and code) rewritten."""
    with engine.connect() as connection:
        columns = [row[1] for row in connection.exec_driver_sql(f"PRAGMA table_info({table})") if row[1] != "id"]
    values = {"ruleset_id": str(ruleset_id), "name": name, "code": code}
    copied = ", ".join(values.get(column, column) for column in columns)
    return f"INSERT INTO {table} ({', '.join(columns)}) SELECT {copied} FROM {table} ORDER BY id LIMIT 1"


@pytest.mark.parametrize("table", NAMED_TABLES)
def test_after_0003_names_are_unique_in_any_case_within_a_ruleset_only(populated_0002, table):
    path, engine = populated_0002
    db.migrate(engine, "0003")
    taken = f"UNIQUE constraint failed: {table}.ruleset_id, {table}.name"
    assert refused(engine, copy_row_sql(engine, table, 1, name="upper(name)", code="NULL"), taken)
    assert refused(engine, copy_row_sql(engine, table, 99, name="name || '!'"), "FOREIGN KEY constraint failed")
    assert refused(engine, copy_row_sql(engine, table, "NULL", name="name || '!'"), f"NOT NULL constraint failed: {table}.ruleset_id")
    execute(engine, "INSERT INTO ruleset (id, name) VALUES (2, 'RM')")
    assert refused(engine, "INSERT INTO ruleset (name) VALUES ('rm')", "UNIQUE constraint failed: ruleset.name")
    execute(engine, copy_row_sql(engine, table, 2, name="upper(name)"))
    with closing(sqlite3.connect(path)) as connection:
        first = connection.execute(f"SELECT name FROM {table} ORDER BY id LIMIT 1").fetchone()[0]
        homes = connection.execute(f"SELECT ruleset_id, name FROM {table} WHERE name = ? ORDER BY ruleset_id", (first,)).fetchall()
    assert homes == [(1, first), (2, first.upper())]


def test_after_0003_critical_codes_are_unique_in_any_case_within_a_ruleset_only(populated_0002):
    path, engine = populated_0002
    db.migrate(engine, "0003")
    slash = "INSERT INTO critical_table (ruleset_id, name, code, scale_id) VALUES ({}, 'Other', 'x', 2)"
    assert refused(engine, slash.format(1), "UNIQUE constraint failed: critical_table.ruleset_id, critical_table.code")
    execute(engine, "INSERT INTO ruleset (id, name) VALUES (2, 'RM')")
    execute(engine, slash.format(2))
    execute(engine, "INSERT INTO critical_table (ruleset_id, name, code, scale_id) VALUES (1, 'Codeless', NULL, 1)")  # NULL codes never clash
    with closing(sqlite3.connect(path)) as connection:
        rows = connection.execute("SELECT ruleset_id, name, code FROM critical_table ORDER BY id").fetchall()
    assert rows == [(1, "Slash", "X"), (1, "Bash", None), (2, "Other", "x"), (1, "Codeless", None)]


def test_0003_down_gives_the_0002_schema_and_up_gives_back_every_row(populated_0002, tmp_path):
    path, engine = populated_0002
    db.migrate(engine, "0003")
    assert_down_and_up_keep_everything(path, engine, tmp_path)


def test_0003_down_and_up_on_the_bundled_tables(db_path, tmp_path):
    """A database made by init_database (the bundled tables, thousands of rows)."""
    without_creature_attacks(db_path)
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    db.run_alembic(engine, "downgrade", "0003")
    with closing(sqlite3.connect(db_path)) as connection:
        assert connection.execute("SELECT count(*) > 500 FROM attack_cell").fetchone() == (1,)
        assert connection.execute("SELECT ruleset_id, code FROM critical_table WHERE name = 'Cut'").fetchall() == [(1, "S")]
    assert_down_and_up_keep_everything(db_path, engine, tmp_path)
    engine.dispose()


def assert_down_and_up_keep_everything(path: Path, engine, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    before = rows_of(path)
    db.run_alembic(engine, "downgrade", "0002")
    assert revision_of(engine) == "0002"
    assert normalised_schema(path) == fresh_schema(tmp_path, "0002")
    downgraded = rows_of(path)
    assert downgraded.pop("alembic_version") == [("0002",)]
    assert downgraded == {table: [row[:-1] for row in rows] if table in NAMED_TABLES else rows  # ruleset_id is the last column
                          for table, rows in before.items() if table not in ("ruleset", "alembic_version")}
    db.migrate(engine, "0003")
    assert rows_of(path) == before
    assert normalised_schema(path) == fresh_schema(tmp_path, "0003")


def test_0003_downgrade_is_refused_while_a_row_lives_in_another_ruleset(populated_0002):
    path, engine = populated_0002
    db.migrate(engine, "0003")
    execute(engine, "INSERT INTO ruleset (id, name) VALUES (2, 'RM')")
    execute(engine, copy_row_sql(engine, "weapon", 2, name="name"))
    execute(engine, copy_row_sql(engine, "creature", 2, name="name"))
    with closing(sqlite3.connect(path)) as connection:
        before = list(connection.iterdump())
    message = ("cannot downgrade below 0003: rows live outside the ruleset 'default' (1 weapon, 1 creature), and their "
               "names could collide in the older schema; remove those rulesets first (nothing changed)")
    with pytest.raises(DatabaseError, match="^" + re.escape(message) + "$"):
        db.run_alembic(engine, "downgrade", "0002")
    with closing(sqlite3.connect(path)) as connection:
        assert list(connection.iterdump()) == before
    assert revision_of(engine) == "0003"


def test_0003_keeps_the_users_own_views_triggers_and_indexes_exactly(populated_0002):
    path, engine = populated_0002
    own = [
        "CREATE VIEW my_weapons AS SELECT w.name, c.code FROM weapon w JOIN critical_table c ON c.id = w.critical_table_id WHERE w.name != ':odd'",
        'CREATE VIEW "long ""quoted"" weapons" AS SELECT name FROM my_weapons',
        "CREATE TABLE renamed (old TEXT)",
        "CREATE TRIGGER remember AFTER UPDATE OF name ON weapon BEGIN INSERT INTO renamed VALUES (old.name); END",
        "CREATE TRIGGER tidy AFTER DELETE ON workbook BEGIN DELETE FROM creature WHERE workbook_id = old.id; END",
        "CREATE INDEX by_clumsy ON weapon (clumsy DESC, lower(sheet))",
        "CREATE INDEX by_code ON critical_table (code COLLATE BINARY)",
        "CREATE UNIQUE INDEX one_name ON severity_scale (name)",
    ]
    for sql in own:
        execute(engine, sql)
    before = schema_of(engine)

    def not_tables(schema: dict) -> dict:
        return {key: sql for key, sql in schema.items() if key[0] != "table"}

    db.migrate(engine, "0003")
    assert not_tables(schema_of(engine)) == not_tables(before)
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute('SELECT * FROM "long ""quoted"" weapons"').fetchall() == [("Longsword",)]
    execute(engine, "UPDATE weapon SET name = 'Broadsword' WHERE id = 1")
    db.run_alembic(engine, "downgrade", "0002")
    assert not_tables(schema_of(engine)) == not_tables(before)
    with closing(sqlite3.connect(path)) as connection:
        assert connection.execute("SELECT * FROM my_weapons").fetchall() == [("Broadsword", "X")]
        assert connection.execute("SELECT old FROM renamed").fetchall() == [("Longsword",)]
    assert revision_of(engine) == "0002"


def test_the_plain_sql_writer_knows_the_default_ruleset_id():
    # storage/repository.py repeats it so that importing never loads models.py (and SQLAlchemy)
    from tables_app.storage import models, repository

    assert repository.DEFAULT_RULESET_ID == models.DEFAULT_RULESET_ID


def test_0006_downgrade_is_refused_while_an_attack_row_is_bounded_by_a_clumsy_range(run, write_workbook, db_path):
    """docs/workbook-format.md, "attack": 0005 has no column for `XX-30` or `UM 01-XX` rows."""
    sheet = [["Kind", "attack"], ["Name", "Bounded"], ["Automatic miss", "none"], [], ["Result", "1", "2"],
             ["31+", "4", "2"], ["XX-30", "—", "—"], ["UM 01-XX", "F", "F"]]
    assert run("import", str(write_workbook("clumsy.xlsx", {"Bounded": sheet}))).exit_code == 0
    without_creature_attacks(db_path)
    engine = db.create_db_engine(f"sqlite:///{db_path}")
    with closing(sqlite3.connect(db_path)) as connection:
        before = list(connection.iterdump())
    message = ("cannot downgrade below 0006: the tables use legends or printed weapons (2 attack rows bounded by a "
               "weapon's Clumsy Range); remove those workbooks first (nothing changed)")
    with pytest.raises(DatabaseError, match="^" + re.escape(message) + "$"):
        db.run_alembic(engine, "downgrade", "0005")
    with closing(sqlite3.connect(db_path)) as connection:
        assert list(connection.iterdump()) == before
    engine.dispose()
