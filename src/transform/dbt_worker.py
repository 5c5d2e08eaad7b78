"""Quarry's warm dbt worker: one dbtRunner kept loaded, serving JSON-line requests one at a time.

Protocol: each stdin line is {"id": n, "args": [...]}; for each, stdout carries progress lines
{"id": n, "type": "node", "event": "started"|"finished", "unique_id", "status"} and one final line
{"id": n, "type": "result", "success", "error", "results": [...]}. dbt's own output goes to stderr.
"""
import json
import os
import sys
import threading
from datetime import timezone

# dbt-duckdb keeps its DuckDB instance, the lake attached, open after invoke() returns, and the next invocation
# with the same profile uses it again: opening it (the extensions loaded and checked, the catalog attached) is a
# large part of a small build. It is closed once no request has come for this long, giving its memory back, and
# after a request that failed with an error (a data test that finds rows is not one), which may have been the
# instance's own. What a run leaves in the instance beyond the lake (a table in its `memory` database, a macro) is
# there for the next run within that time.
IDLE_CLOSE_SECONDS = float(os.environ.get("QUARRY_DBT_IDLE_CLOSE_SECONDS", "30"))


def close_warehouse():
    # Closing the adapter's environment (an internal attribute) closes its DuckDB instance.
    from dbt.adapters.duckdb.connections import DuckDBConnectionManager

    with DuckDBConnectionManager._LOCK:
        environment = DuckDBConnectionManager._ENV
        DuckDBConnectionManager._ENV = None
        if environment is not None:
            environment.close()


def utc_iso(moment):
    if moment is None:
        return None
    if moment.tzinfo is not None:  # dbt's timings are naive UTC in some versions, aware in others
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return moment.isoformat(timespec="milliseconds") + "Z"


def describe_test(node, result):
    """What dbt's result says of a data test: what it checks, how many rows failed it, and where they were stored."""
    metadata = getattr(node, "test_metadata", None)
    return {
        "column_name": getattr(node, "column_name", None),
        "test_type": metadata.name if metadata is not None else "singular",
        "severity": str(node.config.severity).lower(),
        "failures": result.failures,
        "compiled_code": getattr(node, "compiled_code", None),
        # Set when dbt stored the failing rows (--store-failures): the table holding them.
        "relation_name": getattr(node, "relation_name", None),
        # Where they go when stored (the test's schema and alias), whether stored this time or not.
        "failures_table": {"schema": node.schema, "name": node.alias},
    }


def describe(result):
    timing = {item.name: item for item in result.timing}
    execute = timing.get("execute")
    node = result.node
    return {
        "unique_id": node.unique_id,
        "name": node.name,
        "resource_type": str(node.resource_type),
        "status": str(result.status),
        "message": result.message,
        "execution_time": result.execution_time,
        "started_at": utc_iso(execute.started_at) if execute else None,
        "completed_at": utc_iso(execute.completed_at) if execute else None,
        "test": describe_test(node, result) if str(node.resource_type) == "test" else None,
    }


def main():
    protocol = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # dbt prints to stdout; keep it off the protocol

    from dbt.cli.main import dbtRunner

    current = {"id": None}

    def send(message):
        protocol.write(json.dumps(message, default=str) + "\n")

    def on_event(event):
        name = event.info.name
        if name not in ("NodeStart", "NodeFinished"):
            return
        node = event.data.node_info
        send({
            "id": current["id"],
            "type": "node",
            "event": "started" if name == "NodeStart" else "finished",
            "unique_id": node.unique_id,
            "status": node.node_status,
        })

    runner = dbtRunner(callbacks=[on_event])
    invoking = threading.Lock()
    idle_close = None

    def close_when_idle():
        # A request that began meanwhile keeps the instance.
        if invoking.acquire(blocking=False):
            try:
                close_warehouse()
            finally:
                invoking.release()

    send({"type": "ready"})
    for line in sys.stdin:
        if not line.strip():
            continue
        if idle_close is not None:
            idle_close.cancel()
        request = json.loads(line)
        current["id"] = request["id"]
        with invoking:
            try:
                outcome = runner.invoke(request["args"])
                results = getattr(outcome.result, "results", None) or []
                reply = {
                    "id": request["id"],
                    "type": "result",
                    "success": bool(outcome.success),
                    "error": str(outcome.exception) if outcome.exception is not None else None,
                    "results": [describe(result) for result in results if getattr(result, "node", None) is not None],
                }
            except Exception as error:  # a failed request must not end the worker
                reply = {"id": request["id"], "type": "result", "success": False, "error": str(error), "results": []}
            if ended_in_error(reply):
                close_warehouse()
        send(reply)
        idle_close = threading.Timer(IDLE_CLOSE_SECONDS, close_when_idle)
        idle_close.daemon = True
        idle_close.start()
    if idle_close is not None:
        idle_close.cancel()
    with invoking:
        close_warehouse()


def ended_in_error(reply):
    """Whether a request failed otherwise than by data tests failing or warning."""
    if reply["success"]:
        return False
    return reply["error"] is not None or not reply["results"] or any(result["status"] == "error" for result in reply["results"])


if __name__ == "__main__":  # dbt starts child processes that import this module; they must not serve
    main()
