"""Where the database is: ``--db``, ``$TABLES_DB`` or the user data directory.

A SQLite file (a path or sqlite:///PATH) or a PostgreSQL server's database
(postgresql://USER@HOST/NAME: Server, shown without its password).

Also where the package's own resources are (migrations, bundled tables),
inside the installed package or, when run from a checkout, beside it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, quote, unquote_to_bytes, urlencode, urlsplit, urlunsplit

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


SERVER_SCHEMES = ("postgresql", "postgres", "postgresql+psycopg")


@dataclass(frozen=True)
class Server:
    """A PostgreSQL database, by its URL (libpq's form: postgresql://USER:PASSWORD@HOST:PORT/NAME?OPTIONS).

    ``str()`` is the URL without its password, for every message; ``url`` the
    URL to connect with (psycopg's), ``sqlalchemy_url`` the engine's."""

    url: str

    def __str__(self) -> str:
        return shown_url(self.url)

    @property
    def sqlalchemy_url(self) -> str:
        return "postgresql+psycopg://" + self.url.split("://", 1)[1]


def shown_url(url: str) -> str:
    """A server URL with its password (in the user part or an option) left out."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            user, host = netloc.rsplit("@", 1)
            netloc = (user.split(":", 1)[0] + ":***" if ":" in user else user) + "@" + host
        query = urlencode([(key, "***" if key == "password" else value) for key, value in parse_qsl(parts.query)], safe="*")
        return urlunsplit((parts.scheme, netloc, parts.path, query, ""))
    except ValueError:
        return "postgresql://(a URL that cannot be read)"


Target = Path | Server  # what a database is opened from


@dataclass(frozen=True)
class Location:
    """Where the database is, and whether the user named it.

    ``named``: given by ``--db`` or ``$TABLES_DB``. Only the default location
    may be created on first use; a named one must exist (a typo is an error).
    """

    url: str
    path: Target
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
        scheme = value.split("://", 1)[0].lower()
        if scheme in SERVER_SCHEMES:
            server = Server("postgresql://" + value.split("://", 1)[1])
            if not urlsplit(server.url).path.strip("/"):
                raise DatabaseError(f"{server}: name the database (postgresql://USER@HOST/NAME)")
            return Location(server.url, server, named=True)
        if not value.startswith("sqlite:"):
            raise DatabaseError(f"{shown_url(value)}: {scheme} databases are not supported; give a SQLite file path, sqlite:///PATH "
                                "or postgresql://USER@HOST/NAME")
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
