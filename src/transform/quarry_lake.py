"""A dbt-duckdb plugin: opens dbt's DuckDB as Quarry's lake writer must be, before the lake is attached.

The extensions are loaded by path from the folder bin/setup fills (dbt-duckdb's own `extensions:` would
copy them into ~/.duckdb), and models get the lake and nothing else of the host: the file system is
narrowed to the lake's data folder, external access is off and the configuration locked, so no model can
read_text or COPY TO another file, or switch that back. The profile's `settings:` cannot do this: dbt-duckdb
re-applies them on every cursor, which the lock refuses. configure_connection runs once, on the parent
connection, after dbt-duckdb's own set-up and before its `attach:` (the SQLite catalog's extension opens the
file itself, and a database attached after external access went off is not writable through COPY).
"""

import os

from dbt.adapters.duckdb.plugins import BasePlugin

EXTENSIONS = ("ducklake", "sqlite_scanner")


def _quote(value):
    return "'" + value.replace("'", "''") + "'"


class Plugin(BasePlugin):
    def initialize(self, plugin_config):
        self.extensions_dir = plugin_config["extensions_dir"]
        self.data_path = plugin_config["data_path"]

    def configure_connection(self, conn):
        for name in EXTENSIONS:
            conn.execute(f"LOAD {_quote(os.path.join(self.extensions_dir, name + '.duckdb_extension'))}")
        conn.execute(f"SET allowed_directories = [{_quote(self.data_path)}]")
        conn.execute("SET enable_external_access = false")
        conn.execute("SET lock_configuration = true")
