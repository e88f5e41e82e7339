"""tables_app: table-driven tabletop combat — import, query, resolve, odds."""

__version__ = "0.1.0"
