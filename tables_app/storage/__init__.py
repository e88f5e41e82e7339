"""Storage: the database, and every SQL statement and transaction on it.

models.py describes the schema (SQLModel; Alembic's migrations make it, on
SQLite and PostgreSQL, and a test keeps the two equal on both). The
hand-written SQL is written once against sqlite3's connection, which
postgres.py gives psycopg's too (dialect.py says which a connection is); it
reads the schema (reader.py: domain values out) and writes it (repository.py: an
import's rows; removal.py: a removal's), each statement fixed text or made
once from the schema's own table names (sql.py), and checked against the
models by a test. transactions.py holds the write transactions, locking.py
the write lock, connection.py and database.py the connections, location.py
where the file is, engine.py the SQLAlchemy engine and Alembic (only when
the schema is built or changed), check.py and faults.py what can be wrong
with a file, compiled.py a server's compiled tables, name_lists.py the
names shell completion offers.

It imports domain/, import_model.py and errors.py only, never sheets/,
services/ or a face (domain ← storage, sheets ← services).
"""
