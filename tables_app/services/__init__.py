"""Use cases: each opens what it needs (a database, workbooks), calls the
domain, and returns plain data for the CLI to print. The import service
owns its transaction, so an import is all or nothing."""
