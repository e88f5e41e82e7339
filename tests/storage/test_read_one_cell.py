"""`tables query attack` reads one cell without loading the whole table
(storage/reader.py, read_attack_cell): it must read exactly the cell the
whole table reads, for every result and armor, printed layouts included."""

from __future__ import annotations

from tables_app.services.database_setup import example_workbook, open_database


def test_one_cell_is_the_cell_the_whole_table_reads(db_path, run):
    assert run("import", str(example_workbook("printed"))).exit_code == 0  # UM rows, F cells, several criticals
    database = open_database(str(db_path))
    reader = database.reader()
    compared = 0
    for ruleset in ("default", "Printed"):
        for name in [item["name"] for item in reader.list_named("attack", ruleset)]:
            found = reader.locate("attack", name, ruleset)
            table = reader.load_attack_table(found)
            top = table.rows.ranges[-1].high or table.rows.ranges[-1].low
            for armor in table.armors:
                for result in range(-5, top + 30):
                    one = reader.read_attack_cell(found, result, armor.lower())  # any spelling of the armor
                    whole = table.read(result, table.column(armor))
                    assert (one.row, one.cell) == (whole if whole else (None, None)), (name, armor, result)
                    compared += 1
    assert compared > 5_000


def test_an_unknown_armor_reads_no_cell(db_path):
    reader = open_database(str(db_path)).reader()
    read = reader.read_attack_cell(reader.locate("attack", "Edged", None), 100, "XX")
    assert (read.table, read.column, read.row, read.cell) == ("Edged", None, None, None)
    assert read.armors == ("NA", "LA", "MA", "HA")
