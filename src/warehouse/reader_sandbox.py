"""The one way a process that runs other people's SQL (the dashboard tool) opens Quarry's warehouse.

A read-only DuckDB connection can still write files: DuckDB lets `COPY ... TO` reach the database file
and its WAL even with external access off, which destroyed the serving replica once. So a reader gets
an in-memory database of its own with the warehouse attached read-only as `warehouse`, then loses the
local file system altogether and has its configuration locked; and every statement it is handed must
be a query before it runs. When the warehouse becomes a lake, the ATTACH below is what changes.
"""

import duckdb

CATALOG = "warehouse"

# DESCRIBE, SUMMARIZE, FROM-first, VALUES and PRAGMA functions all parse as SELECT.
_READING_STATEMENTS = frozenset({duckdb.StatementType.SELECT, duckdb.StatementType.EXPLAIN})


class ReaderWriteRefused(PermissionError):
    """A reader was handed a statement that is not a query (COPY, EXPORT, ATTACH, SET, CREATE...)."""


def connect_sandboxed(database_file, memory_limit="1GB", threads=1):
    """A new connection that can read the warehouse and nothing else: no writes, no files, no settings."""
    connection = duckdb.connect(":memory:", config={"memory_limit": memory_limit, "threads": threads})
    try:
        escaped = database_file.replace("'", "''")
        connection.execute(f"ATTACH '{escaped}' AS {CATALOG} (READ_ONLY)")
        connection.execute(f"USE {CATALOG}")
        # The attached file stays readable through its open handle; nothing else on disk is reachable,
        # the warehouse's own path included, and no later statement can undo it.
        connection.execute("SET enable_external_access = false")
        connection.execute("SET disabled_filesystems = 'LocalFileSystem'")
        connection.execute("SET lock_configuration = true")
    except BaseException:
        connection.close()
        raise
    return connection


def assert_reads_only(sql):
    """Raises ReaderWriteRefused unless every statement of `sql`, as DuckDB itself parses it, is a query."""
    for statement in duckdb.extract_statements(sql):
        if statement.type not in _READING_STATEMENTS:
            kind = statement.type.name
            raise ReaderWriteRefused(f"{kind} statements are refused: the warehouse is read-only here")
