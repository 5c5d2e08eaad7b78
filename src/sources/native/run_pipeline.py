"""Runs one dlt source for a Quarry native_pipeline sync and exports its tables as Parquet files.

Reads one JSON request on stdin (so arguments and resolved secrets never show in the process list):
  {"module", "function", "kwargs", "pipeline_name", "dataset_name", "work_dir", "pipelines_dir"}
The module is imported from the project's pipelines folder only: a name Python or an installed package already
answers to (os, subprocess, json, dlt...) is refused, and so is a file that leads outside the folder.
dlt loads into a scratch DuckDB file inside work_dir, never into the warehouse: Quarry loads the exported
files itself, in one transaction under its warehouse lock. Progress goes to stderr; the last line of
stdout is the JSON manifest {"tables": [{"name", "file", "rows"}]}.
"""

import importlib
import importlib.util
import json
import os
import sys


def main() -> None:
    request = json.load(sys.stdin)
    # This script's own folder is Quarry's code, not the project's: nothing is imported from it.
    sys.path = [entry for entry in sys.path if os.path.realpath(entry or ".") != os.path.dirname(os.path.realpath(__file__))]
    module = import_pipeline_module(request["module"], request["pipelines_dir"])

    import dlt
    import duckdb

    work_dir = request["work_dir"]
    scratch = os.path.join(work_dir, "pipeline.duckdb")
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


def import_pipeline_module(name: str, pipelines_dir: str):
    """Imports `name` (`erp` or `erp.orders`) from the pipelines folder, or fails before running any of its code."""
    top_level = name.split(".")[0]
    taken = (top_level in sys.modules or top_level in sys.stdlib_module_names or top_level in sys.builtin_module_names
             or importlib.util.find_spec(top_level) is not None)
    if taken:
        fail(f"The module {name} is refused: {top_level} is a module of Python or an installed package, not of the project's pipelines folder; rename it")
    root = os.path.realpath(pipelines_dir)
    package_init = os.path.join(root, top_level, "__init__.py")
    origin = package_init if os.path.isfile(package_init) else os.path.join(root, f"{top_level}.py")
    if not os.path.isfile(origin):
        fail(f"Cannot import the module {name}: the pipelines folder has no {top_level}.py or {top_level}/__init__.py")
    require_inside(origin, root, name)
    is_package = origin == package_init
    spec = importlib.util.spec_from_file_location(
        top_level, origin, submodule_search_locations=[os.path.join(root, top_level)] if is_package else None,
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[top_level] = module
    # Last on the path, so the module may import its helpers beside it but never stands in for Python's own modules.
    sys.path.append(root)
    try:
        spec.loader.exec_module(module)
        parts = name.split(".")
        for depth in range(2, len(parts) + 1):
            submodule = ".".join(parts[:depth])
            submodule_spec = importlib.util.find_spec(submodule)
            if submodule_spec is None or submodule_spec.origin is None:
                fail(f"Cannot import the module {name}: No module named '{submodule}'")
            require_inside(submodule_spec.origin, root, name)
            module = importlib.import_module(submodule)
    except ImportError as error:
        fail(f"Cannot import the module {name}: {error}")
    return module


def require_inside(file: str, root: str, name: str) -> None:
    real = os.path.realpath(file)
    if os.path.commonpath([real, root]) != root:
        fail(f"The module {name} is refused: its file leads outside the pipelines folder")


def quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def fail(message: str) -> None:
    print(json.dumps({"error": message}), flush=True)
    sys.exit(2)


if __name__ == "__main__":
    main()
