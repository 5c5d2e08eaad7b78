import type { DuckDBConnection } from '@duckdb/node-api';
import { lakeMetadataSchema, type LakeLocation } from './lake-location.ts';

/** A table or view as the lake's catalog has it now, whichever host or job wrote it. */
export interface LakeTable {
  readonly schema: string;
  readonly name: string;
  readonly kind: 'table' | 'view';
  /** Rows of a table now (its live files' rows less their deletes); 0 for a view, which stores none. */
  readonly rowCount: number;
  /** When the snapshot that last created, loaded, deleted from or replaced it was committed (ISO 8601, UTC). */
  readonly changedAt: string;
}

/**
 * Every live table and view of the lake (or the one named `only`), read from its catalog tables rather than
 * by counting rows, so listing costs the same whatever the tables hold. Data inlining is off in Quarry's
 * lakes (lake-connection.ts), so every row is in a data file.
 */
export async function listLakeTables(connection: DuckDBConnection, location: LakeLocation, only?: { schema: string; name: string }): Promise<LakeTable[]> {
  const metadata = lakeMetadataSchema(location);
  const named = only === undefined ? '' : 'AND s.schema_name = $schema AND name = $name';
  const reader = await connection.runAndReadAll(`
    WITH live AS (
      SELECT * FROM (
        SELECT s.schema_name, t.table_name AS name, 'table' AS kind, t.table_id, t.begin_snapshot
        FROM ${metadata}.ducklake_table t JOIN ${metadata}.ducklake_schema s ON s.schema_id = t.schema_id AND s.end_snapshot IS NULL
        WHERE t.end_snapshot IS NULL
        UNION ALL
        SELECT s.schema_name, v.view_name, 'view', NULL, v.begin_snapshot
        FROM ${metadata}.ducklake_view v JOIN ${metadata}.ducklake_schema s ON s.schema_id = v.schema_id AND s.end_snapshot IS NULL
        WHERE v.end_snapshot IS NULL
      ) s WHERE true ${named}
    ),
    files AS (
      SELECT table_id, sum(record_count) FILTER (WHERE end_snapshot IS NULL) AS live_rows, max(greatest(begin_snapshot, coalesce(end_snapshot, 0))) AS changed
      FROM ${metadata}.ducklake_data_file WHERE table_id IN (SELECT table_id FROM live) GROUP BY table_id
    ),
    deletes AS (
      SELECT table_id, sum(delete_count) FILTER (WHERE end_snapshot IS NULL) AS live_rows, max(greatest(begin_snapshot, coalesce(end_snapshot, 0))) AS changed
      FROM ${metadata}.ducklake_delete_file WHERE table_id IN (SELECT table_id FROM live) GROUP BY table_id
    )
    SELECT l.schema_name AS schema, l.name, l.kind, (coalesce(f.live_rows, 0) - coalesce(d.live_rows, 0))::BIGINT AS row_count,
      strftime(snapshot.snapshot_time::TIMESTAMPTZ AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS changed_at
    FROM live l LEFT JOIN files f USING (table_id) LEFT JOIN deletes d USING (table_id)
    JOIN ${metadata}.ducklake_snapshot snapshot ON snapshot.snapshot_id = greatest(l.begin_snapshot, coalesce(f.changed, 0), coalesce(d.changed, 0))
    ORDER BY 1, 2`, only);
  return reader.getRowObjects().map((row) => ({
    schema: String(row.schema), name: String(row.name), kind: row.kind === 'view' ? 'view' : 'table', rowCount: Number(row.row_count), changedAt: String(row.changed_at),
  }));
}
