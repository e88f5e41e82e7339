"""Names in storage: the reader finds every spelling of a name (domain/names.py),
the importer treats them as one name, and plain SQL still sees the stored one."""

import sqlite3

import pytest

from tables_app.services.database_setup import open_database
from tables_app.errors import NotFound

D = "\u0308"  # combining diaeresis

CRITICAL = [
    ["Kind", "critical"], ["Name", "Schnitt Ærø"], ["Code", "Ž"], [],
    ["Roll", "Text", "Hits"], ["1+", "Ein Kratzer.", 1],
]
ATTACK = [
    ["Kind", "attack"], ["Name", "Épée Ñ"], [],
    ["Result", "Ärmor"], ["41+", "9 Mod ž"], ["1-40", "-"],
]


def weapons(*names: str) -> list[list[object]]:
    return [["Kind", "weapons"], [], ["Name", "Attack table", "Max result", "Clumsy", "Critical"],
            *[[name, "ÉPÉE ñ", 60, 2, "schnitt ærø"] for name in names]]


@pytest.fixture
def imported(run, write_workbook):  # type: ignore[no-untyped-def]
    def do(file_name: str, *weapon_names: str, tables: bool = True):  # type: ignore[no-untyped-def]
        sheets = {"Schnitt": CRITICAL, "Epee": ATTACK} if tables else {}
        return run("import", str(write_workbook(file_name, {**sheets, "Weapons": weapons(*weapon_names)})))
    return do


@pytest.fixture
def reader(db_path, imported):  # type: ignore[no-untyped-def]
    assert imported("unicode.xlsx", "Zweihänder Ærø").exit_code == 0
    database = open_database(str(db_path))
    yield database.reader()
    database.dispose()


def test_the_reader_finds_every_spelling(reader):
    assert reader.name_of("weapons", "ZWEIHÄNDER ÆRØ") == reader.name_of("weapons", f"zweiha{D}nder ærø") == "Zweihänder Ærø"
    assert reader.name_of("attack", "e\u0301pe\u0301e ñ") == "Épée Ñ"
    assert reader.name_of("critical", "ž") == reader.name_of("critical", "SCHNITT ÆRØ") == "Schnitt Ærø"  # code, name
    assert reader.load_weapon("zweihänder ærø").attack_table == "Épée Ñ"
    assert reader.exists("critical", "schnitt ærø", "default") and not reader.exists("critical", "Schnitt Aero", "default")
    assert reader.provenance("attack", "ÉPÉE ñ", "DEFAULT") == (None, None)  # found: this table has no source or notes


def test_a_cell_names_a_critical_by_its_code_in_another_case(reader):
    from tables_app.domain.table_reads import result_row

    table = reader.load_attack_table("Épée Ñ")
    assert table.rows.values[result_row(table, 50)][table.column("ärmor")].critical == "Schnitt Ærø"  # type: ignore[index]


def test_unknown_names_raise_not_found_with_suggestions(reader):
    with pytest.raises(NotFound) as raised:
        reader.load_weapon("Zweihander Aero")
    assert raised.value.suggestions == ["Zweihänder Ærø"]
    with pytest.raises(NotFound) as raised:
        reader.name_of("critical", "Schnit Ærø")
    assert raised.value.suggestions == ["Schnitt Ærø"]


def test_plain_sql_still_sees_the_stored_spelling(reader, db_path):
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("SELECT name FROM weapon WHERE name LIKE 'Zwei%'").fetchall() == [("Zweihänder Ærø",)]


def test_one_workbook_cannot_define_a_name_twice_in_two_cases(imported):
    result = imported("twice.xlsx", "Zweihänder Ærø", "ZWEIHÄNDER ÆRØ")
    assert result.exit_code == 1 and "weapon 'ZWEIHÄNDER ÆRØ' is defined twice" in result.stderr


def test_another_workbook_cannot_take_a_name_in_another_case(imported):
    assert imported("first.xlsx", "Zweihänder Ærø").exit_code == 0
    result = imported("second.xlsx", "ZWEIHÄNDER ÆRØ", tables=False)
    assert result.exit_code == 1 and "weapon 'ZWEIHÄNDER ÆRØ' is already defined by workbook first.xlsx" in result.stderr


def test_a_re_import_that_changes_a_names_case_keeps_one_row(imported, db_path):
    assert imported("same.xlsx", "Zweihänder Ærø").exit_code == 0
    result = imported("same.xlsx", "ZWEIHÄNDER ÆRØ")
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("SELECT name FROM weapon WHERE name LIKE 'Zwei%'").fetchall() == [("ZWEIHÄNDER ÆRØ",)]


def test_a_name_taken_over_with_replace_in_another_case_keeps_one_row(run, imported, write_workbook, db_path):
    assert imported("first.xlsx", "Zweihänder Ærø").exit_code == 0
    path = write_workbook("second.xlsx", {"Weapons": weapons("ZWEIHÄNDER ÆRØ")})
    result = run("import", "--replace", str(path))
    assert result.exit_code == 0, result.output
    with sqlite3.connect(db_path) as connection:
        assert connection.execute("SELECT name FROM weapon WHERE name LIKE 'Zwei%'").fetchall() == [("ZWEIHÄNDER ÆRØ",)]
