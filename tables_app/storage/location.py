"""Where the database file is: ``--db``, ``$TABLES_DB`` or the user data directory.

Also where the package's own resources are (migrations, bundled tables),
inside the installed package or, when run from a checkout, beside it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from tables_app.errors import DatabaseError, UsageMistake

ENV_VAR = "TABLES_DB"
PACKAGE_DIR = Path(__file__).resolve().parents[1]


def resource_dir(name: str) -> Path:
    """``migrations`` or ``table_sources``: inside the installed package, else the checkout."""
    for candidate in (PACKAGE_DIR / name, PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise DatabaseError(f"cannot find the {name} directory of tables_app (a broken install?)")


def default_database_path() -> Path:
    from platformdirs import user_data_dir

    return Path(user_data_dir("tables-app", appauthor=False)) / "tables.db"


@dataclass(frozen=True)
class Location:
    """Where the database is, and whether the user named it.

    ``named``: given by ``--db`` or ``$TABLES_DB``. Only the default location
    may be created on first use; a named one must exist (a typo is an error).
    """

    url: str
    path: Path
    named: bool


def locate_database(db: str | None = None) -> Location:
    """``--db`` (a URL or a path), else ``$TABLES_DB``, else the user data directory."""
    if db is not None:
        value, source = db, "--db"
    elif ENV_VAR in os.environ:
        value, source = os.environ[ENV_VAR], f"${ENV_VAR}"
    else:
        path = default_database_path()
        return Location(f"sqlite:///{path}", path, named=False)
    if not value.strip():  # on the command line a usage mistake (exit 2); in the environment bad data (1)
        error = UsageMistake if source == "--db" else DatabaseError
        raise error(f"{source} is empty; give a database file path or sqlite:///PATH")
    if "://" not in value and "?" in value:  # a URL would read the rest as options: another file
        raise DatabaseError(f"{value}: a database path cannot contain '?'; rename or move it")
    url = value if "://" in value else f"sqlite:///{Path(value).expanduser().resolve()}"
    if not url.startswith("sqlite:"):
        raise DatabaseError(f"{url.split('://')[0]} databases are not supported; give a SQLite file path or sqlite:/// URL")
    path = sqlite_path(url)
    if path is None:
        raise DatabaseError(f"{value} is not a database file (an in-memory database would vanish after the command); "
                            "give a file path or sqlite:///PATH")
    return Location(url, path, named=True)


def sqlite_path(url: str) -> Path | None:
    """The file behind a SQLite URL, or None for memory and other databases."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or url == prefix or ":memory:" in url:
        return None
    return Path(url[len(prefix):].split("?", 1)[0])
