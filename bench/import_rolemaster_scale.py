"""Benchmark: importing a Rolemaster-scale workbook against openpyxl alone
reading every cell of it in read-only mode, in the same run.

    python bench/import_rolemaster_scale.py

The workbook (made here, deterministic, values invented): 30 attack tables ×
150 rows × 20 armor columns, 10 critical tables of 150 rows, one weapons
sheet of 60 weapons.
"""

from __future__ import annotations

import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

import openpyxl

from tables_app.services.database_setup import init_database
from tables_app.services.importing import import_workbooks

CODES = ["A", "B", "C", "D", "E"]
TABLES, ROWS, ARMORS, CRITICALS = 30, 150, 20, 10


def make_workbook(path: Path) -> Path:
    # A normal workbook, so every sheet has its <dimension> as Excel writes it
    # (write-only workbooks have none, and read-only openpyxl then parses each
    # sheet twice, which would flatter the ratio).
    book = openpyxl.Workbook()
    book.remove(book.active)
    severities = book.create_sheet("Severities")
    for row in (["Kind", "severities"], ["Name", "RM"], [], ["Code", "Name", "Modifier"],
                *[[c, f"Degree {c}", m] for c, m in zip(CODES, (0, 10, 20, 30, 50))]):
        severities.append(row)
    for t in range(CRITICALS):
        sheet = book.create_sheet(f"Crit {t}")
        for row in (["Kind", "critical"], ["Name", f"Crit {t}"], ["Code", f"K{t}"], ["Severities", "RM"], [],
                    ["Roll", "Title", "Text", "Hits", "Bleed", "Stun", "Penalty", "Effects"]):
            sheet.append(row)
        for r in range(ROWS):
            sheet.append([str(r + 1), f"Blow {r}", f"An invented blow number {r} of table {t}.", r // 10, r // 40, r // 60,
                          -(r // 30) * 5, "prone" if r > 120 else None])
    for t in range(TABLES):
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
                    cells.append(f"{hits}{CODES[min(4, (result - 90 - a * 2) // 12)]}K{t % CRITICALS}")
                else:
                    cells.append(hits)
            sheet.append([str(result) if result > 1 else "01", *cells])
    weapons = book.create_sheet("Weapons")
    for row in (["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"]):
        weapons.append(row)
    for w in range(60):
        weapons.append([f"Weapon {w}", f"Attack {w % TABLES}", 150, 1 + w % 6, f"K{w % CRITICALS}"])
    book.save(path)
    return path


def read_every_cell(path: Path) -> int:
    book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    count = 0
    for sheet in book.worksheets:
        for row in sheet.iter_rows(values_only=True):
            count += sum(1 for v in row if v is not None)
    book.close()
    return count


def timed(work) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Wall seconds, and CPU seconds of this process and of the helper processes it waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu, start = time.process_time(), time.perf_counter()
    work()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    helpers = (after.ru_utime - children.ru_utime) + (after.ru_stime - children.ru_stime)
    return wall, time.process_time() - cpu + helpers


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    workbook = make_workbook(folder / "rolemaster-scale.xlsx")
    print(f"workbook: {workbook.stat().st_size:,} bytes, {read_every_cell(workbook):,} cells")
    runs: dict[str, list[tuple[float, float]]] = {"peer": [], "ours": [], "alone": []}
    for n in range(5):  # interleaved; the best of each, as this shared machine is noisy
        runs["peer"].append(timed(lambda: read_every_cell(workbook)))
        for label, processes in (("ours", None), ("alone", "1")):
            if processes:
                os.environ["TABLES_IMPORT_PROCESSES"] = processes
            database = init_database(str(folder / f"bench-{label}-{n}.db"))
            reports = []
            runs[label].append(timed(lambda: reports.append(import_workbooks(database.engine, [workbook]))))
            assert not reports[0].problems, reports[0].problems[:3]
            database.dispose()
            os.environ.pop("TABLES_IMPORT_PROCESSES", None)

    def best(label: str) -> float:
        return min(wall for wall, _ in runs[label])

    def median(label: str, at: int = 0) -> float:
        return statistics.median(run[at] for run in runs[label])

    peer = best("peer")
    print(f"openpyxl reading every cell: best {peer:.2f} s, median {median('peer'):.2f} s")
    for label, title in (("ours", "import"), ("alone", "import in one process (TABLES_IMPORT_PROCESSES=1)")):
        print(f"{title}: best {best(label):.2f} s, median {median(label):.2f} s, median CPU {median(label, 1):.2f} s; "
              f"ratio {best(label) / peer:.2f} best to best, {median(label) / median('peer'):.2f} median to median")
    print("aim: import <= 1.5 x openpyxl reading")


if __name__ == "__main__":
    main()
