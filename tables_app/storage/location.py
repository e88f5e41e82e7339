"""Where the database file is: ``--db``, ``$TABLES_DB`` or the user data directory.

Also where the package's own resources are (migrations, bundled tables),
inside the installed package or, when run from a checkout, beside it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote_to_bytes

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
        default = default_database_path()
        return Location(sqlite_url(default), default, named=False)
    if not value.strip():  # on the command line a usage mistake (exit 2); in the environment bad data (1)
        error = UsageMistake if source == "--db" else DatabaseError
        raise error(f"{source} is empty; give a database file path or sqlite:///PATH")
    if "://" in value:
        if not value.startswith("sqlite:"):
            raise DatabaseError(f"{value.split('://')[0]} databases are not supported; give a SQLite file path or sqlite:/// URL")
        if "?" in value:  # options would be SQLite's, or the rest of a file name taken for them: another file
            raise DatabaseError(f"{value}: options after '?' in a database URL are not supported; "
                                "give the file path (a '?' in a file name is %3F in a URL)")
        path = sqlite_path(value)
    else:  # a file path is taken as it is: any character a file name may hold
        path = None if value == ":memory:" else Path(value)
    if path is None:
        raise DatabaseError(f"{value} is not a database file (an in-memory database would vanish after the command); "
                            "give a file path or sqlite:///PATH")
    path = _absolute(value, path, expand="://" not in value)
    return Location(sqlite_url(path), path, named=True)


def _absolute(value: str, path: Path, *, expand: bool) -> Path:
    """``path`` absolute, ``~`` expanded (file paths only) and links followed;
    a home directory that cannot be found or a loop of links is refused naming ``value``."""
    try:
        if expand:
            path = path.expanduser()
    except RuntimeError:  # ~nouser, or no home directory at all
        raise DatabaseError(f"{value}: cannot find the home directory of {value.split('/', 1)[0]} (no such user?); "
                            "give the full path") from None
    try:
        return path.resolve()
    except (RuntimeError, OSError) as exc:  # a loop of symbolic links (RuntimeError before Python 3.13)
        if isinstance(exc, OSError) and "loop" not in str(exc).lower():
            raise DatabaseError(f"{value}: {exc.strerror or exc}") from None
        raise DatabaseError(f"{value}: a loop of symbolic links, not a database file; "
                            "point the link at a database file or give another path") from None


def sqlite_url(path: Path) -> str:
    """The SQLite URL of a file: every character a URL would read otherwise
    (``%``, ``?``, ``#``, a space) percent-encoded, as sqlite_path decodes it.

    The file name's bytes are encoded, as the system gave them: a name whose
    bytes are not UTF-8 (``--db $'\\xff.db'``) is the same file again when decoded."""
    return "sqlite:///" + quote(os.fsencode(path), safe="/")


def sqlite_path(url: str) -> Path | None:
    """The file behind a SQLite URL (percent-escapes decoded, as SQLAlchemy
    decodes them), or None for memory and other databases."""
    prefix = "sqlite:///"
    if not url.startswith(prefix) or url == prefix or ":memory:" in url:
        return None
    return Path(os.fsdecode(unquote_to_bytes(url[len(prefix):].split("?", 1)[0])))
