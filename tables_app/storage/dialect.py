"""Which database a connection is on, and the little each one names its own way.

storage/ is written once against sqlite3's face (postgres.py gives
PostgreSQL's connections the same one); what differs between the two is
asked here by name: whether a connection is a server's (on_server), and the
tables the database holds (table_names).
"""

from __future__ import annotations

import sqlite3


def on_server(connection: sqlite3.Connection) -> bool:
    """Whether ``connection`` is PostgreSQL's (postgres.PgConnection), not SQLite's."""
    return getattr(connection, "dialect", "sqlite") == "postgresql"


def table_names(connection: sqlite3.Connection) -> set[str]:
    """Every table of the database (SQLite's own sqlite_* left out)."""
    if on_server(connection):
        rows = connection.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                                  "AND table_type = 'BASE TABLE'")
    else:
        rows = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    return {name for (name,) in rows}
