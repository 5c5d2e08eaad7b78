"""Runs one dlt source for a Quarry native_pipeline sync and exports its tables as Parquet files.

Reads one JSON request on stdin (so arguments and resolved secrets never show in the process list):
  {"module", "function", "kwargs", "pipeline_name", "dataset_name", "work_dir", "module_paths"}
dlt loads into a scratch DuckDB file inside work_dir, never into the warehouse: Quarry loads the exported
files itself, in one transaction under its warehouse lock. Progress goes to stderr; the last line of
stdout is the JSON manifest {"tables": [{"name", "file", "rows"}]}.
"""

import importlib
import json
import os
import sys


def main() -> None:
    request = json.load(sys.stdin)
    for module_path in request["module_paths"]:
        if module_path not in sys.path:
            sys.path.insert(0, module_path)

    import dlt
    import duckdb

    work_dir = request["work_dir"]
    scratch = os.path.join(work_dir, "pipeline.duckdb")
    try:
        module = importlib.import_module(request["module"])
    except ImportError as error:
        fail(f"Cannot import the module {request['module']}: {error}")
    factory = getattr(module, request["function"], None)
    if not callable(factory):
        fail(f"The module {request['module']} has no function {request['function']}")
    source = factory(**request["kwargs"])

    pipeline = dlt.pipeline(
        pipeline_name=request["pipeline_name"],
        destination=dlt.destinations.duckdb(scratch),
        dataset_name=request["dataset_name"],
        pipelines_dir=os.path.join(work_dir, "pipelines"),
    )
    info = pipeline.run(source)
    print(f"dlt: {info}", file=sys.stderr, flush=True)

    tables = []
    connection = duckdb.connect(scratch, read_only=True)
    try:
        for index, table in enumerate(pipeline.default_schema.data_table_names()):
            exists = connection.execute(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = ? AND table_name = ?",
                [request["dataset_name"], table],
            ).fetchone()[0]
            if not exists:
                continue  # declared by the schema, but the source yielded no rows for it
            file = os.path.join(work_dir, f"table-{index}.parquet")
            relation = f"{quote_identifier(request['dataset_name'])}.{quote_identifier(table)}"
            quoted_file = file.replace("'", "''")
            connection.execute(f"COPY (SELECT * FROM {relation}) TO '{quoted_file}' (FORMAT parquet)")
            rows = connection.execute(f"SELECT count(*) FROM {relation}").fetchone()[0]
            tables.append({"name": table, "file": file, "rows": rows})
    finally:
        connection.close()
    print(json.dumps({"tables": tables}), flush=True)


def quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def fail(message: str) -> None:
    print(json.dumps({"error": message}), flush=True)
    sys.exit(2)


if __name__ == "__main__":
    main()
