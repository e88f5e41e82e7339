"""Benchmark (#44): the ways PostgreSQL can keep the ~90,000 attack cells of a
Rolemaster-scale import from pointing at nothing, measured apart.

    python bench/pg_cell_keys.py postgresql://postgres@127.0.0.1:55433/postgres [ROUNDS]

URL: a server whose user may create and drop databases. A fresh database is
made (`tables db init --empty`) and the Rolemaster-scale workbook of
import_rolemaster_scale.py imported into it (not timed); then each way writes
the same cells (read back from that import) into a table of the same shape,
by COPY as the import writes them, and commits, in one transaction, the table
emptied first (not timed); the ways interleaved, the order reversed every
round (default 7), median and range of the write + COMMIT:

1. row-by-row keys, deferred to the COMMIT (as before #44);
2. the same keys checked at once (dependency order: the rows exist first);
3. staging: the cells COPYed into a temporary table without keys, then
   INSERT ... SELECT into the keyed one (keys deferred);
4. no keys, one anti-join over the table before the COMMIT (the floor of a
   set-based check; it would leave the rows pointed at unlocked);
5. what tables_app does (storage/cell_keys.py): attack_cell itself, the keys
   replaced by statement-level triggers (each reference's distinct values
   locked and counted).

The database is dropped after.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg

sys.path.insert(0, str(Path(__file__).parent))
from import_rolemaster_scale import database_url, make_workbook  # noqa: E402

COLUMNS = "id, row_id, armor_column_id, text, outcome, hits, severity_id, critical_table_id"
KEYS = (("row_id", "attack_row"), ("armor_column_id", "armor_column"), ("severity_id", "severity"),
        ("critical_table_id", "critical_table"))
ANTI_JOIN = ("SELECT 1 FROM cell_bare c WHERE NOT EXISTS (SELECT 1 FROM attack_row r WHERE r.id = c.row_id) "
             "OR NOT EXISTS (SELECT 1 FROM armor_column a WHERE a.id = c.armor_column_id) "
             "OR (c.severity_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM severity s WHERE s.id = c.severity_id)) "
             "OR (c.critical_table_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM critical_table k WHERE k.id = c.critical_table_id)) "
             "LIMIT 1")
WAYS = {  # way: (table written, keys checked at once, staged, anti-join)
    "row-by-row keys, deferred to the COMMIT (before #44)": ("cell_keyed", False, False, False),
    "row-by-row keys, checked at once (dependency order)": ("cell_keyed", True, False, False),
    "staging table, then INSERT ... SELECT (keys deferred)": ("cell_keyed", False, True, False),
    "no keys, one anti-join before the COMMIT (floor)": ("cell_bare", False, False, True),
    "statement-level triggers (storage/cell_keys.py)": ("attack_cell", False, False, False),
}


def main() -> None:
    server = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    admin = psycopg.connect(server, autocommit=True)
    print("PostgreSQL " + ", ".join(f"{name} {admin.execute(f'SHOW {name}').fetchone()[0]}"
                                    for name in ("server_version", "fsync", "synchronous_commit")))
    name = f"tables_bench_keys_{os.getpid()}"
    admin.execute(f'CREATE DATABASE "{name}"')
    url = database_url(server, name)
    try:
        workbook = make_workbook(Path(tempfile.mkdtemp()) / "rolemaster-scale.xlsx")
        for args in (["db", "init", url, "--empty"], ["--db", url, "import", str(workbook)]):
            subprocess.run([sys.executable, "-m", "tables_app", *args], check=True, capture_output=True)
        with psycopg.connect(url, autocommit=True) as connection:
            measure(connection, rounds)
    finally:
        admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        admin.close()


def measure(c: psycopg.Connection, rounds: int) -> None:
    cells = c.execute(f"SELECT {COLUMNS} FROM attack_cell ORDER BY id").fetchall()
    print(f"{len(cells):,} cells, {sum(cell[6] is not None for cell in cells):,} with a severity and a critical table")
    for table in ("cell_keyed", "cell_bare"):
        c.execute(f"CREATE TABLE {table} (LIKE attack_cell INCLUDING ALL)")
    for column, parent in KEYS:
        c.execute(f"ALTER TABLE cell_keyed ADD FOREIGN KEY ({column}) REFERENCES {parent} (id) DEFERRABLE")

    def copy(table: str) -> None:
        with c.cursor() as cursor, cursor.copy(f"COPY {table} ({COLUMNS}) FROM STDIN") as rows_in:
            for cell in cells:
                rows_in.write_row(cell)

    def once(table: str, at_once: bool, staged: bool, anti_join: bool) -> tuple[float, float]:
        c.execute(f"DELETE FROM {table}")
        c.execute("BEGIN")
        c.execute("SET CONSTRAINTS ALL " + ("IMMEDIATE" if at_once else "DEFERRED"))
        started = time.perf_counter()
        if staged:
            c.execute("CREATE TEMPORARY TABLE staged (LIKE attack_cell) ON COMMIT DROP")
            copy("staged")
            c.execute(f"INSERT INTO {table} SELECT * FROM staged")
        else:
            copy(table)
        if anti_join:
            assert c.execute(ANTI_JOIN).fetchone() is None
        written = time.perf_counter()
        c.execute("COMMIT")
        return written - started, time.perf_counter() - written

    times: dict[str, list[tuple[float, float]]] = {way: [] for way in WAYS}
    for round_ in range(rounds):
        for way in list(WAYS) if round_ % 2 else list(WAYS)[::-1]:
            times[way].append(once(*WAYS[way]))
    print(f"median of {rounds} interleaved rounds (range of the total):")
    print("| way | write | COMMIT | write + COMMIT |")
    print("|---|---|---|---|")
    for way, taken in times.items():
        totals = [write + commit for write, commit in taken]
        print(f"| {way} | {statistics.median(w for w, _ in taken):.3f} s | {statistics.median(k for _, k in taken):.3f} s | "
              f"{statistics.median(totals):.3f} s ({min(totals):.3f}-{max(totals):.3f}) |")


if __name__ == "__main__":
    main()
