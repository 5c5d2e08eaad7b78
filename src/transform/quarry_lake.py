"""A dbt-duckdb plugin: opens dbt's DuckDB as Quarry's lake writer must be, before the lake is attached.

The extensions are loaded by path from the folder bin/setup fills (dbt-duckdb's own `extensions:` would
copy them into ~/.duckdb), and models get the lake and nothing else of the host: the file system is
narrowed to the lake's data folder, external access is off and the configuration locked, so no model can
read_text or COPY TO another file, or switch that back. The profile's `settings:` cannot do this: dbt-duckdb
re-applies them on every cursor, which the lock refuses. configure_connection runs once, on the parent
connection, after dbt-duckdb's own set-up and before its `attach:`, the order reader_sandbox.py keeps too;
a PostgreSQL catalog is attached here first (postgres_scanner refuses once external access is off, and it
has no file a model could overwrite), which makes the profile's `ATTACH IF NOT EXISTS` a no-op.
"""

from dbt.adapters.duckdb.plugins import BasePlugin
from reader_sandbox import POSTGRES, attach_lake_statement, confine_to_lake_data, load_lake_extensions


class Plugin(BasePlugin):
    def initialize(self, plugin_config):
        self.extensions_dir = plugin_config["extensions_dir"]
        self.data_path = plugin_config["data_path"]
        self.catalog = plugin_config.get("catalog", "")
        self.metadata_schema = plugin_config.get("metadata_schema") or None

    def configure_connection(self, conn):
        load_lake_extensions(conn, self.extensions_dir, self.catalog)
        if self.catalog.startswith(POSTGRES):
            conn.execute(attach_lake_statement(self.catalog, self.data_path, self.metadata_schema, read_only=False))
        confine_to_lake_data(conn, self.data_path)
        conn.execute("SET lock_configuration = true")
