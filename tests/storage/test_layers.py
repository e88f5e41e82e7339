"""The layers import downward only: an AST scan of every import statement
(at any depth, inside functions and TYPE_CHECKING blocks too), and of module
names given as strings (importlib), in each layer's source files."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import tables_app

PACKAGE = Path(tables_app.__file__).parent
OUTSIDE_THE_DOMAIN = ("sqlalchemy", "alembic", "openpyxl", "click", "rich", "matplotlib")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported(source: str, module: str, is_package: bool = False) -> set[str]:
    """Every module ``source`` (the code of ``module``) imports."""
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the package, up level - 1
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}  # `from tables_app import sheets`
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith("tables_app."):
            found.add(node.value)  # importlib.import_module("tables_app....")
    return found


def imports_of(layer: str) -> dict[str, set[str]]:
    folder = PACKAGE / layer
    files = sorted(folder.rglob("*.py")) if folder.is_dir() else [PACKAGE / f"{layer}.py"]
    assert files and all(f.is_file() for f in files)
    return {module_name(f): imported(f.read_text(encoding="utf-8"), module_name(f), f.name == "__init__.py") for f in files}


def within(name: str, *prefixes: str) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def offending(layer: str, forbidden) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    found = {module: sorted(n for n in names if forbidden(n)) for module, names in imports_of(layer).items()}
    return {module: names for module, names in found.items() if names}


def test_the_scan_sees_every_kind_of_import():
    code = ("from tables_app.sheets.parse import Catalog\n"
            "def f():\n    from ..sheets import read\n    import tables_app.sheets.write\n"
            "from tables_app import sheets\nMODULES = {'x': 'tables_app.sheets.grid'}\n")
    names = imported(code, "tables_app.storage.repository")
    assert {"tables_app.sheets.parse", "tables_app.sheets", "tables_app.sheets.write",
            "tables_app.sheets.grid"} <= names
    assert {n for n in names if within(n, "tables_app.sheets")} == {
        "tables_app.sheets.parse", "tables_app.sheets.parse.Catalog", "tables_app.sheets", "tables_app.sheets.read",
        "tables_app.sheets.write", "tables_app.sheets.grid"}


def test_storage_imports_nothing_from_the_spreadsheet_layer():
    assert offending("storage", lambda name: within(name, "tables_app.sheets")) == {}


def test_the_domain_imports_nothing_outside_the_domain():
    def outside(name: str) -> bool:
        if within(name, "tables_app"):
            return not within(name, "tables_app.domain")
        return within(name, *OUTSIDE_THE_DOMAIN)

    assert offending("domain", outside) == {}


@pytest.mark.parametrize("layer", ["import_model", "sheets"])
def test_the_import_model_and_the_spreadsheets_know_no_storage(layer):
    """The model an import reads into is neither the spreadsheets' nor the
    storage's; the spreadsheet layer reads into it and never writes."""
    forbidden = ("tables_app.storage", "tables_app.importing", "tables_app.cli", "sqlalchemy", "alembic")
    if layer == "import_model":
        forbidden += ("tables_app.sheets", "openpyxl")
    assert offending(layer, lambda name: within(name, *forbidden)) == {}
