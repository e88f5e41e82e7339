"""Benchmark: `tables import` of a Rolemaster-scale workbook against openpyxl
alone reading every cell of it in read-only mode, whole processes, in the
same run, on the workbook as Excel writes it and as scripts write it.

    python bench/import_rolemaster_scale.py
    python bench/import_rolemaster_scale.py --scale 16   # 480 attack tables: is it linear?
    python bench/import_rolemaster_scale.py --formats    # the same as .ods and .xls: same tables? how fast?
    python bench/import_rolemaster_scale.py --lock       # how long an import holds the write lock
    python bench/import_rolemaster_scale.py --postgres postgresql://postgres@127.0.0.1:55433/postgres
        # the same import into a fresh PostgreSQL database against a fresh SQLite file (issue 31)

The workbook (made here, deterministic, values invented): 30 attack tables ×
150 rows × 20 armor columns, 10 critical tables of 150 rows, one weapons
sheet of 60 weapons.
"""

from __future__ import annotations

import html
import re
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import openpyxl

CODES = ["A", "B", "C", "D", "E"]
TABLES, ROWS, ARMORS, CRITICALS = 30, 150, 20, 10


def make_workbook(path: Path, scale: int = 1) -> Path:
    # A normal workbook, so every sheet has its <dimension> as Excel writes it
    # (write-only workbooks have none, and read-only openpyxl then parses each
    # sheet twice, which would flatter the ratio).
    book = openpyxl.Workbook()
    book.remove(book.active)
    severities = book.create_sheet("Severities")
    for row in (["Kind", "severities"], ["Name", "RM"], [], ["Code", "Name", "Modifier"],
                *[[c, f"Degree {c}", m] for c, m in zip(CODES, (0, 10, 20, 30, 50))]):
        severities.append(row)
    criticals, tables = CRITICALS * scale, TABLES * scale
    for t in range(criticals):
        sheet = book.create_sheet(f"Crit {t}")
        for row in (["Kind", "critical"], ["Name", f"Crit {t}"], ["Code", f"K{t}"], ["Severities", "RM"], [],
                    ["Roll", "Title", "Text", "Hits", "Bleed", "Stun", "Penalty", "Effects"]):
            sheet.append(row)
        for r in range(ROWS):
            sheet.append([str(r + 1), f"Blow {r}", f"An invented blow number {r} of table {t}.", r // 10, r // 40, r // 60,
                          -(r // 30) * 5, "prone" if r > 120 else None])
    for t in range(tables):
        sheet = book.create_sheet(f"Attack {t}")
        for row in (["Kind", "attack"], ["Name", f"Attack {t}"], ["Severities", "RM"], [], ["Result", *[str(a) for a in range(1, ARMORS + 1)]]):
            sheet.append(row)
        for r in range(ROWS):
            result = 150 - r  # descending, as printed
            cells = []
            for a in range(ARMORS):
                hits = max(0, (result - 20 - a * 3) // 6)
                if result < 25 + a:
                    cells.append("—")
                elif result > 90 + a * 2:
                    cells.append(f"{hits}{CODES[min(4, (result - 90 - a * 2) // 12)]}K{t % criticals}")
                else:
                    cells.append(hits)
            sheet.append([str(result) if result > 1 else "01", *cells])
    weapons = book.create_sheet("Weapons")
    for row in (["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"]):
        weapons.append(row)
    for w in range(60 * scale):
        weapons.append([f"Weapon {w}", f"Attack {w % tables}", 150, 1 + w % 6, f"K{w % criticals}"])
    book.save(path)
    return path


PEER = """
import sys, openpyxl
book = openpyxl.load_workbook(sys.argv[1], read_only=True, data_only=True)
print(sum(sum(1 for v in row if v is not None) for sheet in book.worksheets for row in sheet.iter_rows(values_only=True)))
"""


def as_scripts_write(path: Path, out: Path) -> Path:
    """The same workbook as scripts write them: no <dimension>, every string
    inline (`t="inlineStr"`) instead of in the shared-strings table."""
    with zipfile.ZipFile(path) as source:
        # openpyxl 3.1 already writes strings inline; a shared-strings table, if any, is inlined here
        table = source.read("xl/sharedStrings.xml").decode() if "xl/sharedStrings.xml" in source.namelist() else ""
        shared = [html.unescape(re.sub(r"<[^>]+>", "", item)) for item in re.findall(r"<si>(.*?)</si>", table, re.S)]

        def inline(match: re.Match) -> bytes:
            text = html.escape(shared[int(match.group(2))], quote=False).encode()
            return match.group(1) + b' t="inlineStr"><is><t>' + text + b"</t></is></c>"

        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
            for item in source.infolist():
                data = source.read(item.filename)
                if item.filename.startswith("xl/worksheets/"):
                    data = re.sub(rb"<dimension[^>]*/>", b"", data)
                    data = re.sub(rb'(<c r="[A-Z]+\d+"(?: s="\d+")?) t="s"><v>(\d+)</v></c>', inline, data)
                target.writestr(item, data)
    return out


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds (user + system, with the process's own children) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


# The floor: an interpreter, calamine reading every sheet, and a bare executemany
# of the very rows the import wrote (saved from a first import) into the same
# schema, in one transaction. Nothing an import could do is cheaper.
FLOOR = """
import pickle, sqlite3, sys
from python_calamine import CalamineWorkbook
book = CalamineWorkbook.from_path(sys.argv[1])
for name in book.sheet_names:
    book.get_sheet_by_name(name).to_python(skip_empty_area=False)
tables = pickle.load(open(sys.argv[3], "rb"))
db = sqlite3.connect(sys.argv[2], isolation_level=None)
db.execute("PRAGMA foreign_keys = ON")
db.execute("BEGIN IMMEDIATE")
for table, columns, rows in tables:
    db.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", rows)
db.execute("COMMIT")
"""


def written_rows(database: Path, empty: Path, out: Path) -> Path:
    """Every row the import wrote, by table, parents before children (the
    order the tables were first written in: rowid order of sqlite_master is
    creation order, so follow the import's own order instead)."""
    import sqlite3

    before = {name for (name,) in sqlite3.connect(empty).execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    order = ["ruleset", "workbook", "severity_scale", "severity", "critical_table", "critical_entry", "critical_effect",
             "fumble_table", "fumble_entry", "fumble_effect", "attack_table", "armor_column", "attack_row", "attack_cell",
             "attack_cell_critical", "weapon", "creature", "creature_feature"]
    connection = sqlite3.connect(database)
    tables = []
    for table in order:
        if table not in before:
            continue
        columns = [row[1] for row in connection.execute(f"PRAGMA table_info({table})")]
        existing = {row for row in sqlite3.connect(empty).execute(f"SELECT * FROM {table}")}
        rows = [row for row in connection.execute(f"SELECT * FROM {table}") if row not in existing]
        tables.append((table, columns, rows))
    import pickle

    with out.open("wb") as handle:
        pickle.dump(tables, handle)
    return out


def compare(workbook: Path, folder: Path, runs: int = 7) -> None:
    empty = folder / "empty.db"
    if not empty.exists():
        subprocess.run([sys.executable, "-m", "tables_app", "--db", str(empty), "db", "init", "--empty"], check=True,
                       capture_output=True)
    target = folder / "import.db"
    shutil.copyfile(empty, target)
    subprocess.run([sys.executable, "-m", "tables_app", "--db", str(target), "import", str(workbook)], check=True,
                   capture_output=True)
    rows = written_rows(target, empty, folder / "rows.pickle")
    times: dict[str, list[tuple[float, float]]] = {"peer": [], "ours": [], "floor": []}
    for _ in range(runs):  # interleaved: the machine's drift hits all alike
        times["peer"].append(timed([sys.executable, "-c", PEER, str(workbook)]))
        shutil.copyfile(empty, target)
        times["ours"].append(timed([sys.executable, "-m", "tables_app", "--db", str(target), "import", str(workbook)]))
        shutil.copyfile(empty, target)
        times["floor"].append(timed([sys.executable, "-c", FLOOR, str(workbook), str(target), str(rows)]))
    for label, title in (("peer", "openpyxl reading every cell"), ("ours", "tables import"),
                         ("floor", "floor (calamine read + bare executemany of the same rows)")):
        walls = [w for w, _ in times[label]]
        print(f"  {title}: median {statistics.median(walls):.2f} s wall (best {min(walls):.2f}), "
              f"median CPU {statistics.median(c for _, c in times[label]):.2f} s")
    for other, title in (("peer", "openpyxl"), ("floor", "the floor")):
        ratios = sorted(o[0] / p[0] for o, p in zip(times["ours"], times[other]))
        print(f"  import / {title}, pair by pair: median {statistics.median(ratios):.2f} "
              f"(range {ratios[0]:.2f}-{ratios[-1]:.2f})")


def formats(folder: Path, runs: int = 5) -> None:
    """The workbook saved as .ods and .xls (by the tests' writers, as LibreOffice
    and Excel 97 lay them out): each imports to the very rows the .xlsx gives,
    and how long each import takes, interleaved."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from ods_files import xlsx_to_ods  # the test extra: xlwt for .xls
    from xls_files import xlsx_to_xls

    import sqlite3

    workbook = make_workbook(folder / "rolemaster-scale.xlsx")
    books = {"xlsx": workbook, "ods": xlsx_to_ods(workbook, folder / "rolemaster-scale.ods"),
             "xls": xlsx_to_xls(workbook, folder / "rolemaster-scale.xls")}
    empty = folder / "empty.db"
    subprocess.run([sys.executable, "-m", "tables_app", "--db", str(empty), "db", "init", "--empty"], check=True, capture_output=True)
    dumps = {}
    for kind, path in books.items():
        target = folder / f"{kind}.db"
        shutil.copyfile(empty, target)
        subprocess.run([sys.executable, "-m", "tables_app", "--db", str(target), "import", str(path)], check=True, capture_output=True)
        connection = sqlite3.connect(target)
        # every table's rows but the workbook's own (its file name, hash, size and import time differ by design)
        dumps[kind] = [line for line in connection.iterdump() if line.startswith("INSERT") and '"workbook"' not in line]
        connection.close()
        print(f"  {path.name}: {path.stat().st_size:,} bytes, {len(dumps[kind]):,} rows written")
    for kind in ("ods", "xls"):
        print(f"  {kind} rows identical to xlsx rows: {dumps[kind] == dumps['xlsx']}")
    times: dict[str, list[tuple[float, float]]] = {kind: [] for kind in books}
    for _ in range(runs):
        for kind, path in books.items():
            target = folder / f"{kind}.db"
            shutil.copyfile(empty, target)
            times[kind].append(timed([sys.executable, "-m", "tables_app", "--db", str(target), "import", str(path)]))
    for kind in books:
        walls = [w for w, _ in times[kind]]
        print(f"  tables import .{kind}: median {statistics.median(walls):.2f} s wall, "
              f"median CPU {statistics.median(c for _, c in times[kind]):.2f} s")


def lock_hold(folder: Path, runs: int = 7) -> None:
    """In-process: the whole import, and the part of it that holds the write
    lock (from BEGIN IMMEDIATE to the end of the commit)."""
    from tables_app.services.database_setup import init_database
    from tables_app.services.importing import import_workbooks
    from tables_app.storage import locking

    workbook = make_workbook(folder / "rolemaster-scale.xlsx")
    empty = folder / "empty.db"
    init_database(str(empty), bundled=False).dispose()
    took = locking.begin_immediate
    locked_at: list[float] = []

    def begin_immediate(*arguments, **options):  # type: ignore[no-untyped-def]
        took(*arguments, **options)
        locked_at.append(time.perf_counter())

    locking.begin_immediate = begin_immediate
    wholes, holds = [], []
    for _ in range(runs):
        target = folder / "lock.db"
        shutil.copyfile(empty, target)
        from tables_app.services.database_setup import open_database

        database = open_database(str(target))
        start = time.perf_counter()
        report = import_workbooks(database, [workbook])
        end = time.perf_counter()
        database.dispose()
        assert report.written
        wholes.append(end - start)
        holds.append(end - locked_at[-1])
    print(f"  {workbook.name}: import in-process median {statistics.median(wholes):.3f} s, "
          f"write lock held median {statistics.median(holds):.3f} s (range {min(holds):.3f}-{max(holds):.3f})")


# ---------------------------------------------------------------- PostgreSQL against SQLite (issue 31)
def server_processes(connection) -> tuple[int, list[int]] | None:  # type: ignore[no-untyped-def]
    """The postmaster's pid and its children (a local server only: /proc), or None."""
    backend = connection.execute("SELECT pg_backend_pid()").fetchone()[0]
    try:
        postmaster = int(Path(f"/proc/{backend}/stat").read_text().rpartition(")")[2].split()[1])
    except OSError:
        return None
    children = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rpartition(")")[2].split()[1]) == postmaster:
                    children.append(int(entry.name))
            except OSError:
                continue
    return postmaster, children


def server_cpu(connection) -> float | None:  # type: ignore[no-untyped-def]
    """CPU seconds of the whole local PostgreSQL server so far: its processes,
    and (the postmaster's cutime/cstime) the backends that have exited."""
    import os

    found = server_processes(connection)
    if found is None:
        return None
    postmaster, children = found
    total = 0
    for pid in (postmaster, *children):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
        if pid == postmaster:
            total += int(fields[13]) + int(fields[14])
    return total / os.sysconf("SC_CLK_TCK")


def database_url(server: str, name: str) -> str:
    """``server`` (postgresql://USER@HOST:PORT/DB?...) with its database replaced by ``name``."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(server)
    return urlunsplit(parts._replace(path=f"/{name}"))


def postgres_against_sqlite(workbooks: list[tuple[Path, str]], folder: Path, server: str, runs: int = 7) -> None:
    """Whole processes, `python -m tables_app --db ... import WORKBOOK`, into a
    fresh PostgreSQL database (CREATE DATABASE and `tables db init --empty`
    beforehand, not timed; dropped after) against a fresh copy of an empty
    SQLite file, interleaved (the order swapped every round), median wall
    and CPU (the import's process with its reader child; the PostgreSQL
    server's own CPU over the import beside it, when the server is local)."""
    import os

    import psycopg

    admin = psycopg.connect(server, autocommit=True)
    settings = {name: admin.execute(f"SHOW {name}").fetchone()[0]
                for name in ("server_version", "fsync", "synchronous_commit", "shared_buffers")}
    print("  PostgreSQL " + ", ".join(f"{k} {v}" for k, v in settings.items()))
    empty = folder / "empty.db"
    if not empty.exists():
        subprocess.run([sys.executable, "-m", "tables_app", "--db", str(empty), "db", "init", "--empty"], check=True,
                       capture_output=True)
    target = folder / "import.db"
    serial = [0]

    def fresh_postgres() -> tuple[str, str]:
        serial[0] += 1
        name = f"tables_bench_{os.getpid()}_{serial[0]}"
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.execute(f'CREATE DATABASE "{name}"')
        url = database_url(server, name)
        subprocess.run([sys.executable, "-m", "tables_app", "db", "init", url, "--empty"], check=True, capture_output=True)
        return name, url

    def one(kind: str, workbook: Path) -> tuple[float, float, float | None]:
        """One timed import: wall, CPU, and the server's CPU meanwhile (PostgreSQL, local)."""
        if kind == "sqlite":
            shutil.copyfile(empty, target)
            return (*timed([sys.executable, "-m", "tables_app", "--db", str(target), "import", str(workbook)]), None)
        name, url = fresh_postgres()
        before = server_cpu(admin)
        wall, cpu = timed([sys.executable, "-m", "tables_app", "--db", url, "import", str(workbook)])
        after = server_cpu(admin)
        admin.execute(f'DROP DATABASE "{name}"')
        return wall, cpu, None if before is None or after is None else after - before

    for workbook, how in workbooks:
        print(f"{workbook.name}: {workbook.stat().st_size:,} bytes, {how}; whole processes, interleaved, {runs} rounds")
        times: dict[str, list[tuple[float, float]]] = {"postgres": [], "sqlite": []}
        server_times: list[float] = []
        one("sqlite", workbook), one("postgres", workbook)  # a warm-up of each, not counted
        for round_ in range(runs):
            for kind in ("postgres", "sqlite") if round_ % 2 else ("sqlite", "postgres"):
                wall, cpu, on_server = one(kind, workbook)
                times[kind].append((wall, cpu))
                if on_server is not None:
                    server_times.append(on_server)
        for label, title in (("sqlite", "into a fresh SQLite file"), ("postgres", "into a fresh PostgreSQL database")):
            walls = [w for w, _ in times[label]]
            print(f"  tables import {title}: median {statistics.median(walls):.2f} s wall "
                  f"(range {min(walls):.2f}-{max(walls):.2f}), median CPU {statistics.median(c for _, c in times[label]):.2f} s")
        if server_times:
            print(f"  the PostgreSQL server's own CPU during the import: median {statistics.median(server_times):.2f} s "
                  f"(range {min(server_times):.2f}-{max(server_times):.2f})")
        walls = sorted(p[0] / s[0] for p, s in zip(times["postgres"], times["sqlite"]))
        cpus = sorted(p[1] / s[1] for p, s in zip(times["postgres"], times["sqlite"]))
        print(f"  PostgreSQL / SQLite, pair by pair: wall median {statistics.median(walls):.2f} "
              f"(range {walls[0]:.2f}-{walls[-1]:.2f}), the import's CPU median {statistics.median(cpus):.2f} "
              f"(range {cpus[0]:.2f}-{cpus[-1]:.2f})")
    admin.close()
    print("aim (issue 31): the import into PostgreSQL <= 2 x the import into SQLite")


def main() -> None:
    # bytecode caches on, as after a normal install (a workplace may set PYTHONDONTWRITEBYTECODE, and every
    # `tables import` run would then compile tables_app from its sources: ~0.2 s the floor never pays)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    folder = Path(tempfile.mkdtemp())
    if sys.argv[1:2] == ["--postgres"]:  # `--postgres URL [--runs N]`: a server whose user may create databases
        runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 7
        workbook = make_workbook(folder / "rolemaster-scale.xlsx")
        scripted = as_scripts_write(workbook, folder / "rolemaster-scale-scripted.xlsx")
        postgres_against_sqlite([(workbook, "with sheet dimensions, as Excel writes it"),
                                 (scripted, "without sheet dimensions, as scripts write it")], folder, sys.argv[2], runs)
        return
    if sys.argv[1:2] == ["--lock"]:
        lock_hold(folder)
        return
    if sys.argv[1:2] == ["--formats"]:
        formats(folder)
        return
    if sys.argv[1:2] == ["--scale"]:  # `--scale 16`: 16 times the tables, three rounds, one spelling
        scale = int(sys.argv[2])
        workbook = make_workbook(folder / f"rolemaster-scale-x{scale}.xlsx", scale)
        print(f"{workbook.name}: {workbook.stat().st_size:,} bytes, {scale} times the tables; whole processes, interleaved")
        compare(workbook, folder, runs=3)
        return
    workbook = make_workbook(folder / "rolemaster-scale.xlsx")
    scripted = as_scripts_write(workbook, folder / "rolemaster-scale-scripted.xlsx")
    for path, how in ((workbook, "with sheet dimensions, as Excel writes it"),
                      (scripted, "without sheet dimensions, as scripts write it")):
        print(f"{path.name}: {path.stat().st_size:,} bytes, {how}; whole processes, interleaved")
        compare(path, folder)
    print("aims: tables import <= 0.75 x openpyxl reading every cell (issue 16), and <= 1.5 x the floor (issue 44)")


if __name__ == "__main__":
    main()
