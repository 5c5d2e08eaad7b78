import type { DuckDBConnection } from '@duckdb/node-api';
import { LAKE_ALIAS, lakeMetadataSchema, type LakeLocation } from './lake-location.ts';

/** The job a snapshot belongs to, as Quarry labelled it when committing (see commit-label.ts). */
export interface SnapshotJob {
  readonly id: number;
  readonly kind: string;
  readonly target: string;
}

/** One snapshot of the lake: when, whose, and which tables it changed (by name). */
export interface LakeSnapshot {
  readonly id: number;
  readonly time: string;
  readonly author: string | null;
  readonly message: string | null;
  /** Null for a snapshot Quarry did not label (dbt's, the lake's own schemas). */
  readonly job: SnapshotJob | null;
  /** `schema.table`, every table the snapshot created, inserted into, deleted from, altered or dropped. */
  readonly tablesChanged: readonly string[];
}

// Keys of `changes` whose values are table ids; `tables_created` names its tables already.
const TABLE_ID_CHANGES = ['tables_inserted_into', 'tables_deleted_from', 'tables_altered', 'tables_dropped', 'inlined_insert', 'inlined_delete'];

/** The latest `limit` snapshots of the lake, newest first. */
export async function listSnapshots(connection: DuckDBConnection, location: LakeLocation, limit: number): Promise<LakeSnapshot[]> {
  const snapshots = await connection.runAndReadAll(`
    SELECT snapshot_id::BIGINT AS id, strftime(snapshot_time AT TIME ZONE 'UTC', '%Y-%m-%dT%H:%M:%S.%gZ') AS time,
      author, commit_message, commit_extra_info, to_json(changes)::VARCHAR AS changes
    FROM ducklake_snapshots('${LAKE_ALIAS}') ORDER BY snapshot_id DESC LIMIT $limit`, { limit });
  const names = await tableNames(connection, location);
  return snapshots.getRowObjects().map((row) => ({
    id: Number(row.id),
    time: String(row.time),
    author: row.author === null ? null : String(row.author),
    message: row.commit_message === null ? null : String(row.commit_message),
    job: jobOf(row.commit_extra_info === null ? null : String(row.commit_extra_info)),
    tablesChanged: tablesChangedBy(JSON.parse(String(row.changes)) as Record<string, string[]>, names),
  }));
}

/** The latest snapshot's id (a lake always has one once made). */
export async function latestSnapshotId(connection: DuckDBConnection): Promise<number> {
  const reader = await connection.runAndReadAll(`SELECT max(snapshot_id)::BIGINT AS id FROM ducklake_snapshots('${LAKE_ALIAS}')`);
  return Number(reader.getRowObjects()[0]?.id ?? 0);
}

/** Every table id the catalog has known, as `schema.table` (its latest name). */
async function tableNames(connection: DuckDBConnection, location: LakeLocation): Promise<Map<string, string>> {
  const metadata = lakeMetadataSchema(location);
  const reader = await connection.runAndReadAll(`
    SELECT t.table_id::VARCHAR AS id, s.schema_name || '.' || t.table_name AS name
    FROM ${metadata}.ducklake_table t JOIN ${metadata}.ducklake_schema s USING (schema_id)
    ORDER BY t.begin_snapshot`);
  return new Map(reader.getRowObjects().map((row) => [String(row.id), String(row.name)]));
}

function tablesChangedBy(changes: Record<string, string[]>, names: ReadonlyMap<string, string>): string[] {
  const changed = new Set(changes.tables_created ?? []);
  for (const key of TABLE_ID_CHANGES) {
    for (const id of changes[key] ?? []) changed.add(names.get(id) ?? `table ${id}`);
  }
  return [...changed].sort();
}

function jobOf(extraInfo: string | null): SnapshotJob | null {
  if (extraInfo === null) return null;
  try {
    const info = JSON.parse(extraInfo) as { job?: unknown; kind?: unknown; source?: unknown };
    if (typeof info.job !== 'number' || typeof info.kind !== 'string' || typeof info.source !== 'string') return null;
    return { id: info.job, kind: info.kind, target: info.source };
  } catch {
    return null;
  }
}
