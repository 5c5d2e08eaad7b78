import type { DuckDBConnection } from '@duckdb/node-api';
import { LAKE_ALIAS } from './lake-location.ts';
import type { LakeWrite } from './lake-writer.ts';
import { quoteIdentifier, quoteLiteral } from './sql.ts';

/** The snapshots labelled with a job's id (see commit-label.ts), oldest first; empty once expired or never committed. */
export async function snapshotsOfJob(connection: DuckDBConnection, jobId: number): Promise<number[]> {
  const reader = await connection.runAndReadAll(`
    SELECT snapshot_id::BIGINT AS id FROM ducklake_snapshots('${LAKE_ALIAS}')
    WHERE author = 'quarry' AND try_cast(json_extract(commit_extra_info, '$.job') AS BIGINT) = $job ORDER BY snapshot_id`, { job: jobId });
  return reader.getRowObjects().map((row) => Number(row.id));
}

/** Whether the lake still keeps `snapshot` (expire_snapshots removes old ones). */
export async function snapshotExists(connection: DuckDBConnection, snapshot: number): Promise<boolean> {
  const reader = await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ducklake_snapshots('${LAKE_ALIAS}') WHERE snapshot_id = $snapshot`, { snapshot });
  return Number(reader.getRowObjects()[0]?.n ?? 0) > 0;
}

/**
 * Puts every table of `schema` back as it was at `snapshot`, rows and columns, in the caller's transaction
 * (one new snapshot: the history after `snapshot` is kept, and time travel by name still reads it); a table
 * made since is dropped. Each table is made again from its old version: within one transaction DuckLake's
 * time travel sees the transaction's own deletes, so emptying the table and inserting its old rows
 * would insert none.
 * Returns the tables it put back.
 */
export async function restoreSchemaAt(write: Pick<LakeWrite, 'connection' | 'metadata'>, schema: string, snapshot: number): Promise<string[]> {
  const { connection } = write;
  const then = await tablesAt(write, schema, snapshot);
  const now = await tablesAt(write, schema, null);
  const qualified = (table: string): string => `${quoteIdentifier(schema)}.${quoteIdentifier(table)}`;
  const asOf = `AT (VERSION => ${String(snapshot)})`;
  for (const table of now) {
    if (!then.has(table)) await connection.run(`DROP TABLE ${qualified(table)}`);
  }
  if (then.size > 0) await connection.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
  for (const table of then) {
    await connection.run(`CREATE OR REPLACE TABLE ${qualified(table)} AS SELECT * FROM ${qualified(table)} ${asOf}`);
  }
  return [...then].sort();
}

/** The names of `schema`'s tables at `snapshot` (null: now), from the lake's own catalog. */
async function tablesAt({ connection, metadata }: Pick<LakeWrite, 'connection' | 'metadata'>, schema: string, snapshot: number | null): Promise<Set<string>> {
  const at = snapshot === null ? `(SELECT max(snapshot_id) FROM ${metadata}.ducklake_snapshot)` : String(snapshot);
  const reader = await connection.runAndReadAll(`
    SELECT t.table_name AS name
    FROM ${metadata}.ducklake_table t JOIN ${metadata}.ducklake_schema s USING (schema_id)
    WHERE s.schema_name = ${quoteLiteral(schema)}
      AND t.begin_snapshot <= ${at} AND (t.end_snapshot IS NULL OR t.end_snapshot > ${at})
      AND s.begin_snapshot <= ${at} AND (s.end_snapshot IS NULL OR s.end_snapshot > ${at})`);
  return new Set(reader.getRowObjects().map((row) => String(row.name)));
}
