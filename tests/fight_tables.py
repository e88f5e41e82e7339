"""What the fights hold on either database: the rows of the fight, fight_event and party tables, each table's in id
order, as the fuzzers compare them before and after a refusal ("a refusal writes nothing", docs/security.md)."""

from __future__ import annotations

from pathlib import Path

FIGHT_TABLES = ("fight", "fight_event", "party")


def fight_rows(database: Path | str) -> list[tuple]:
    """Every row of the fight tables of ``database`` (a SQLite file, or a PostgreSQL URL), tagged with its table."""
    statements = [(table, f"SELECT * FROM {table} ORDER BY id") for table in FIGHT_TABLES]
    if str(database).startswith("postgresql://"):
        import psycopg

        with psycopg.connect(str(database)) as connection:
            return [(table, *row) for table, sql in statements for row in connection.execute(sql)]
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(database)) as connection:
        return [(table, *row) for table, sql in statements for row in connection.execute(sql)]
