"""The one way a process that runs other people's SQL (the dashboard tool) opens Quarry's warehouse.

The warehouse is a DuckLake lake: a catalog database plus Parquet files. A reader gets an in-memory
DuckDB of its own with the lake attached read-only as `warehouse` (its default database), the file system
narrowed to the lake's data folder, external access off and the configuration locked, as
sandboxed-reader.ts does for Node readers. The catalog's extension (sqlite_scanner, postgres_scanner) ignores the
external-access switch, so every statement a reader is handed must also pass assert_reads_only.
"""

import json
import os
import re
import threading
from pathlib import Path

import duckdb

LAKE = "warehouse"  # as LAKE_ALIAS in lake-location.ts
POSTGRES = "postgres:"  # how a PostgreSQL catalog's ATTACH path starts (catalogPath in lake-location.ts)

_ALLOWED = json.loads((Path(__file__).parent / "reader-allowed-functions.json").read_text())
_FUNCTIONS = frozenset(_ALLOWED["functions"]["allowed"])
_TABLE_FUNCTIONS = frozenset(_ALLOWED["table_functions"]["allowed"])
# Macros that refuse a value of more than 64 MB before DuckDB builds it outside its memory limit, as Node readers
# have them (reader-value-guards.sql says which, and why they are written so).
_VALUE_GUARDS = [
    statement
    for statement in (
        re.sub(r"^--.*$", "", chunk, flags=re.M).strip()
        for chunk in re.split(r";\s*$", (Path(__file__).parent / "reader-value-guards.sql").read_text(), flags=re.M)
    )
    if statement
]
_anchor = None
_anchor_lock = threading.Lock()
_parser = None
_parser_lock = threading.Lock()


class ReaderWriteRefused(PermissionError):
    """A reader was handed a statement that is not a query (COPY, ATTACH, SET, CREATE...) or calls a function not allowed."""


def _quote(value):
    return "'" + value.replace("'", "''") + "'"


def load_lake_extensions(connection, extensions_dir, catalog=""):
    """Loads the lake's extensions by path from the folder bin/setup fills (nothing is downloaded).

    The password of a PostgreSQL catalog, if any, reaches libpq as PGPASSWORD in the environment. A lake whose data
    is in a bucket gets httpfs and the bucket's secret, whose statement Quarry passes as QUARRY_LAKE_BUCKET_SECRET
    (lakeChildEnv in lake-location.ts): it holds the keys, so it is run and never printed.
    """
    bucket_secret = os.environ.get("QUARRY_LAKE_BUCKET_SECRET")
    names = ["ducklake", "postgres_scanner" if catalog.startswith(POSTGRES) else "sqlite_scanner"]
    if bucket_secret:
        names.append("httpfs")
    for name in names:
        connection.execute(f"LOAD {_quote(os.path.join(extensions_dir, name + '.duckdb_extension'))}")
    if bucket_secret:
        connection.execute(bucket_secret)


def confine_to_lake_data(connection, data_path):
    """Leaves the connection the lake's data folder and no other file: call it before attaching the catalog.

    allowed_directories must come before external access goes off; the SQLite catalog is attached after
    (its extension opens the file itself), as DuckDB lets COPY write the files of a database attached before.
    """
    connection.execute(f"SET allowed_directories = [{_quote(data_path)}]")
    connection.execute("SET enable_external_access = false")


def attach_lake_statement(catalog, data_path, metadata_schema=None, read_only=True):
    """ATTACH of the lake: `catalog` is an SQLite file (or `sqlite:<file>`) or `postgres:<libpq keywords>`."""
    path = catalog if catalog.startswith((POSTGRES, "sqlite:")) else "sqlite:" + catalog
    options = [f"DATA_PATH {_quote(data_path)}"]
    if metadata_schema:
        options.append(f"METADATA_SCHEMA {_quote(metadata_schema)}")
    if read_only:
        options.append("READ_ONLY")
    return f"ATTACH IF NOT EXISTS {_quote('ducklake:' + path)} AS {LAKE} ({', '.join(options)})"


def connect_sandboxed(catalog, data_path, extensions_dir, memory_limit="1GB", threads=1, metadata_schema=None):
    """A new connection that can read the lake and nothing else: no writes, no files outside its data, no settings.

    A PostgreSQL catalog is attached before the sandbox closes (postgres_scanner refuses to attach after);
    it has no file a COPY could overwrite. The SQLite catalog is attached after, as confine_to_lake_data says.
    """
    connection = duckdb.connect(":memory:", config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    try:
        load_lake_extensions(connection, extensions_dir, catalog)
        connection.execute(f"SET threads = {int(threads)}")
        connection.execute(f"SET memory_limit = {_quote(memory_limit)}")
        attach = attach_lake_statement(catalog, data_path, metadata_schema)
        if catalog.startswith(POSTGRES):
            connection.execute(attach)
        confine_to_lake_data(connection, data_path)
        if not catalog.startswith(POSTGRES):
            connection.execute(attach)
        connection.execute(f"USE {LAKE}")
        connection.execute("SET lock_configuration = true")
    except BaseException:
        connection.close()
        raise
    return connection


def sandboxed_cursor(catalog, data_path, extensions_dir, metadata_schema=None):
    """A cursor on this process's one sandboxed connection, opened at first use, with the value-size guards.

    Loading the extensions and attaching take a quarter of a second; a cursor takes none, and each query
    still sees the lake's latest snapshot. The cursors share the anchor's memory limit and threads; each is a
    connection of its own, so it gets its own guards (temp macros belong to one connection).
    """
    global _anchor
    with _anchor_lock:
        if _anchor is None:
            _anchor = connect_sandboxed(catalog, data_path, extensions_dir, metadata_schema=metadata_schema)
        cursor = _anchor.cursor()
    cursor.execute(f"USE {LAKE}")
    for guard in _VALUE_GUARDS:
        cursor.execute(guard)
    return cursor


def assert_reads_only(sql):
    """Raises ReaderWriteRefused unless every statement of `sql`, as DuckDB itself parses it, is a query calling only allowed functions.

    The functions allowed are those reader-allowed-functions.json lists, as reader-sql.ts checks them.

    json_serialize_sql only parses (nothing is bound or read) and serialises SELECT statements alone.
    """
    global _parser
    with _parser_lock:
        if _parser is None:
            _parser = duckdb.connect(":memory:")
        tree = json.loads(_parser.execute("SELECT json_serialize_sql(?::VARCHAR)", [sql]).fetchone()[0])
    if tree.get("error"):
        message = tree.get("error_message", "")
        if message.startswith("Only SELECT statements"):
            raise ReaderWriteRefused("statements other than queries are refused: the warehouse is read-only here")
        raise ReaderWriteRefused(message)
    reach = _refused_reach(tree)
    if reach is not None:
        raise ReaderWriteRefused(f"{reach} is refused: the warehouse is read-only here")


def _refused_reach(node):
    """What in the parse tree reaches past the warehouse (a function not allowed, a file named as a table), or None."""
    if isinstance(node, list):
        for child in node:
            found = _refused_reach(child)
            if found is not None:
                return found
        return None
    if not isinstance(node, dict):
        return None
    table_function = node.get("function")
    if node.get("type") == "TABLE_FUNCTION" and isinstance(table_function, dict) and isinstance(table_function.get("function_name"), str):
        refused = _refused_call(table_function, _TABLE_FUNCTIONS)
        return refused if refused is not None else _refused_reach(table_function.get("children"))
    if isinstance(node.get("function_name"), str):
        refused = _refused_call(node, _FUNCTIONS)
        if refused is not None:
            return refused
    # `FROM 'file.csv'` is a table whose name DuckDB turns into a file scan (as reader-sql.ts checks).
    table = node.get("table_name")
    if node.get("type") == "BASE_TABLE" and isinstance(table, str) and any(mark in table for mark in "./\\:"):
        return f"reading the file {table!r}"
    return _refused_reach(list(node.values()))


def _refused_call(call, allowed):
    """Why calling `call` is refused, or None: a name not allowed, or one through the system catalog (as reader-sql.ts says).

    The value guards (reader-value-guards.sql) stand in front of DuckDB's functions of the same name; a call naming
    the system catalog (system.main.repeat) or the schema DuckDB reads as it (system.repeat) skips them.
    """
    name = call["function_name"]
    if name.lower() not in allowed:
        return f"the function {name}"
    parts = [part for part in (call.get("catalog"), call.get("schema")) if isinstance(part, str) and part]
    if any(part.lower() == "system" for part in parts):
        return f"the function {'.'.join(parts)}.{name}"
    return None
