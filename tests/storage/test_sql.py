"""The schema is described once: every SQL statement of storage/ is checked
against the models (prepared on a database at the newest schema, which
fails on a table or column the schema lacks; every INSERT names every
column but the id), names go into SQL only from the schema's own tables
(storage/sql.py), no SQL is written with an f-string, and SQL lives in
storage/ only (docs/schema.md; the models-vs-migrations test is
test_migrations.py)."""

from __future__ import annotations

import ast
import importlib
import re
import sqlite3
from pathlib import Path

import pytest

import tables_app
from tables_app.storage import models, sql

pytestmark = pytest.mark.sqlite_only  # the SQLite file itself (`pytest --postgres` leaves it out)

PACKAGE = Path(tables_app.__file__).parent
STORAGE = PACKAGE / "storage"
# A statement, told by its first word (the code writes SQL in capitals).
STATEMENT = re.compile(r"\s*(SELECT|INSERT INTO|UPDATE \w+ SET|DELETE FROM|PRAGMA|BEGIN|COMMIT|ROLLBACK|WITH)\b")
TRANSACTION_CONTROL = re.compile(r"\s*(BEGIN|COMMIT|ROLLBACK)\b")
# Statements one database's catalogue answers and the other's does not: each
# is run only on its own (storage/dialect.py asks which; the rest run on both).
SERVER_ONLY = re.compile(r"information_schema|\bpg_|current_schema\(\)|json_array_elements_text")
SQLITE_ONLY = re.compile(r"sqlite_master|PRAGMA|pragma_|typeof\(|json_each\(\?1\)|json_valid\(")

# f-strings allowed to make SQL, each for a reason: (module, function) → why.
FORMATTED = {
    ("tables_app.storage.connection", "set_busy_timeout"): "a pragma takes no parameter; the one value is a number, int()",
}
# Modules outside storage/ that still hold SQL, each for a reason: module → why.
SQL_OUTSIDE: dict[str, str] = {}


# Shipped inside the installed package but not its code: the Alembic scripts
# (history, left as written) and the bundled workbooks.
SHIPPED = ("migrations", "table_sources")


def modules(folder: Path) -> dict[str, ast.Module]:
    return {".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts): ast.parse(path.read_text(encoding="utf-8"))
            for path in sorted(folder.rglob("*.py")) if path.relative_to(PACKAGE).parts[0] not in SHIPPED}


def literal_sql(tree: ast.Module, templates: bool = False) -> list[str]:
    """Every string constant of a module that is an SQL statement (implicit
    concatenations are one constant; the pieces of an f-string are not);
    templates (with ``{``) only if asked."""
    pieces = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in pieces
            and STATEMENT.match(node.value) and (templates or "{" not in node.value)]


def storage_statements() -> list[str]:
    """Every statement of storage/: its literal ones, and those made from templates (sql.FILLED)."""
    for module in modules(STORAGE):
        importlib.import_module(module)
    statements = [text for tree in modules(STORAGE).values() for text in literal_sql(tree)] + sql.FILLED
    return sorted({text for text in statements if not TRANSACTION_CONTROL.match(text)})


def parameters(statement: str) -> tuple[object, ...] | dict[str, object]:
    """Blank values for a statement's parameters (?, ?N or :name)."""
    named = re.findall(r":(\w+)", statement)
    if named:
        return dict.fromkeys(named)
    numbered = [int(n) for n in re.findall(r"\?(\d+)", statement)]
    return (None,) * (max(numbered) if numbered else statement.count("?"))


def unprepared(connection: sqlite3.Connection, statements: list[str]) -> dict[str, str]:
    """The statements SQLite cannot prepare on ``connection`` (EXPLAIN compiles, runs nothing), with why."""
    failed = {}
    for statement in statements:
        try:
            connection.execute("EXPLAIN " + statement, parameters(statement)).fetchall()
        except sqlite3.Error as exc:
            failed[statement] = str(exc)
    return failed


@pytest.fixture
def at_head(db_path: Path):  # type: ignore[no-untyped-def]
    """A database migrated to the newest schema (the bundled one)."""
    connection = sqlite3.connect(db_path)
    yield connection
    connection.close()


def test_the_tables_names_may_come_from_are_the_schemas():
    assert sql.TABLES == set(models.metadata.tables)


def test_every_statement_of_storage_prepares_against_the_newest_schema(at_head):
    statements = storage_statements()
    assert len(statements) > 150  # the harvest sees them: literals and filled templates
    assert {"SELECT id, code FROM critical_table WHERE ruleset_id = ?",
            "DELETE FROM fumble_entry WHERE fumble_table_id = ?"} <= set(statements)
    assert unprepared(at_head, [s for s in statements if not SERVER_ONLY.search(s)]) == {}


def test_a_name_the_schema_does_not_have_fails_to_prepare(at_head):
    assert set(unprepared(at_head, ["SELECT nickname FROM weapon", "DELETE FROM armour_column WHERE id = ?",
                                    "SELECT id FROM weapon"])) == {"SELECT nickname FROM weapon",
                                                                  "DELETE FROM armour_column WHERE id = ?"}


def test_every_insert_names_every_column_but_the_id():
    """As the ORM wrote them, defaults included (storage/repository.py): a column
    the models add is written by every import, or this fails."""
    inserts = {}
    for statement in storage_statements():
        found = re.match(r"INSERT INTO (\w+) \(([^)]*)\)", statement)
        if found:
            inserts[statement] = (found[1], {column.strip() for column in found[2].split(",")})
    assert {table for table, _ in inserts.values()} >= {"workbook", "weapon", "critical_entry", "fumble_entry", "attack_cell"}
    missing = {statement: set(models.metadata.tables[table].columns.keys()) - columns - {"id"}
               for statement, (table, columns) in inserts.items()}
    assert {statement: gone for statement, gone in missing.items() if gone} == {}


def test_names_go_into_sql_from_the_schemas_tables_only():
    assert sql.fill("SELECT id FROM {table}", table="weapon") == "SELECT id FROM weapon"
    assert sql.fill("DELETE FROM {entries} WHERE {table}_id = ?", entries="critical_entry", table="critical_table") == (
        "DELETE FROM critical_entry WHERE critical_table_id = ?")
    for table in ("sqlite_master", "weapon; DROP TABLE weapon", "Weapon"):
        with pytest.raises(ValueError, match="is not a table of the schema"):
            sql.fill("SELECT * FROM {table}", table=table)
    with pytest.raises(ValueError, match="is not a column name"):
        sql.insert("weapon", ("name", "notes) VALUES (1, 2); --"))
    assert sql.update("ruleset", ("name",)) == "UPDATE ruleset SET name = :name WHERE id = :id"
    assert sql.quoted('odd "name"') == '"odd ""name"""'


def formatted_sql(tree: ast.Module) -> list[tuple[str, int]]:
    """(function, line) of every f-string that begins an SQL statement."""
    found = []

    def visit(node: ast.AST, function: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.JoinedStr) and child.values and isinstance(child.values[0], ast.Constant) \
                    and STATEMENT.match(str(child.values[0].value)):
                found.append((function, child.lineno))
            visit(child, name)

    visit(tree, "")
    return found


def test_no_sql_is_written_with_an_f_string():
    offenders = [(module, function, line) for module, tree in modules(PACKAGE).items()
                 for function, line in formatted_sql(tree) if (module, function) not in FORMATTED]
    assert offenders == []


def test_the_f_string_check_sees_one():
    code = 'def read(c, table):\n    return c.execute(f"SELECT * FROM {table}")\nX = f"Selected {1}"\n'
    assert formatted_sql(ast.parse(code)) == [("read", 2)]


def test_sql_lives_in_storage():
    """Services, sheets, the domain and the faces call storage/ functions and
    never write SQL, nor begin, commit or roll back a transaction."""
    outside = {module: literal_sql(tree, templates=True) + [f"f-string at line {line}" for _, line in formatted_sql(tree)]
               for module, tree in modules(PACKAGE).items() if not module.startswith("tables_app.storage")}
    assert {module: found for module, found in outside.items() if found and module not in SQL_OUTSIDE} == {}
