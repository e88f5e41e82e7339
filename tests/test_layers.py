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
    forbidden = ("tables_app.storage", "tables_app.services.importing", "tables_app.cli", "sqlalchemy", "alembic")
    if layer == "import_model":
        forbidden += ("tables_app.sheets", "openpyxl")
    assert offending(layer, lambda name: within(name, *forbidden)) == {}


# ------------------------------------------------------------ no circles
# The installed package also holds the Alembic scripts and the bundled
# workbooks (shipped data, pyproject.toml's force-include), which are no layer.
SHIPPED = ("migrations", "table_sources")
MODULES = {module_name(f): f for f in PACKAGE.rglob("*.py") if f.relative_to(PACKAGE).parts[0] not in SHIPPED}


def module_graph() -> dict[str, set[str]]:
    """Module → the tables_app modules it imports (``from m import Name`` is an edge to m)."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        targets = set()
        for name in imported(path.read_text(encoding="utf-8"), module, path.name == "__init__.py"):
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module and name != "tables_app":  # the root holds only the version
                targets.add(name)
        graph[module] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_circle_finder_finds_circles():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_back_through_others():
    """Lazy imports count: a circle hidden inside a function is still a circle."""
    assert circles(module_graph()) == []


# The documented order, bottom first (README, "Layout"): a module may import
# its own layer and the layers below it, never one beside or above it.
# `tables serve`, a command, starts the HTTP face: the CLI is above it, and
# the HTTP face never imports the CLI.
ORDER = {
    "domain": 0,
    "errors": 1,  # the library's errors name near names with domain/names.py
    "files": 2,  # what is at a path (a regular file, a FIFO, ...), for whoever reads or writes one; its refusals are errors
    "import_model": 3,
    "storage": 4, "sheets": 4,
    "services": 5,
    "operations": 6,
    "library": 7,
    "http": 8,
    "cli": 9,
}
FACADES = ("tables_app", "tables_app.__main__")  # the package's lazy names (docs/library.md); the console script


def layer_of(module: str) -> str:
    return module.split(".")[1]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import that does not point down the order (nor within its layer)."""
    wrong = []
    for module, targets in sorted(graph.items()):
        if module in FACADES:
            continue
        for target in sorted(targets):
            below, above = layer_of(target), layer_of(module)
            if below != above and ORDER[below] >= ORDER[above]:
                wrong.append(f"{module} -> {target}")
    return wrong


def test_every_module_is_in_a_layer():
    assert {layer_of(m) for m in MODULES if m not in FACADES} == set(ORDER)


def test_every_import_points_down_the_layers():
    """Direction, not a list of modules: a new module is checked by its package."""
    assert upward_imports(module_graph()) == []


def test_the_direction_check_sees_an_upward_import():
    graph = {"tables_app.domain.x": {"tables_app.services.y"}, "tables_app.storage.a": {"tables_app.sheets.b"},
             "tables_app.http.app": {"tables_app.cli.root"}, "tables_app.cli.root": {"tables_app.http.app"},
             "tables_app.services.y": {"tables_app.domain.x", "tables_app.services.z"}}
    assert upward_imports(graph) == ["tables_app.domain.x -> tables_app.services.y",
                                     "tables_app.http.app -> tables_app.cli.root",
                                     "tables_app.storage.a -> tables_app.sheets.b"]


def test_the_http_face_reaches_no_storage_and_the_cli_no_web_framework():
    """A route calls an operation (tables_app/operations), never the
    database or the spreadsheets itself; the commands hold no HTTP code
    (`tables serve` hands the HTTP face to uvicorn)."""
    assert offending("http", lambda name: within(name, "tables_app.storage", "tables_app.sheets", "sqlite3")) == {}
    assert offending("cli", lambda name: within(name, "fastapi", "starlette", "pydantic")) == {}
