import type { DuckDBConnection } from '@duckdb/node-api';
import { LAKE_ALIAS } from './lake-location.ts';
import { inCatalogTurn } from './catalog-opening.ts';
import type { LakeWrite } from './lake-writer.ts';

/**
 * How long a file the lake no longer needs stays on disk: a reader that started on an older snapshot may still
 * read it. On a SQLite catalog DuckLake ignores shorter intervals within the same day, so never less than two days.
 */
const FILE_GRACE_DAYS = 2;

/** What one maintenance pass did. */
export interface MaintenanceOutcome {
  readonly filesMerged: number;
  readonly filesCreated: number;
  readonly snapshotsExpired: number;
  readonly filesDeleted: number;
  readonly orphansDeleted: number;
}

/**
 * Keeps the lake small: merges adjacent small files (time travel still reads the old ones), expires snapshots
 * older than `retentionDays`, deletes files no snapshot needs once the grace has passed, and deletes files no
 * transaction committed (a writer killed mid-write). Runs as the lake's writer (LakeWriter), so no other
 * writer's files are in flight, where they would look orphaned; the merge is a snapshot of the write's label.
 */
export async function maintainLake(write: LakeWrite, retentionDays: number): Promise<MaintenanceOutcome> {
  const { connection } = write;
  const merged = await write.transaction(() => rows(connection, `CALL ducklake_merge_adjacent_files('${LAKE_ALIAS}')`));
  const expired = await inCatalogTurn(() => rows(connection, `CALL ducklake_expire_snapshots('${LAKE_ALIAS}', older_than => now() - INTERVAL (${String(retentionDays)}) DAY)`));
  const grace = `now() - INTERVAL (${String(FILE_GRACE_DAYS)}) DAY`;
  const deleted = await inCatalogTurn(() => rows(connection, `CALL ducklake_cleanup_old_files('${LAKE_ALIAS}', older_than => ${grace})`));
  const orphans = await inCatalogTurn(() => rows(connection, `CALL ducklake_delete_orphaned_files('${LAKE_ALIAS}', older_than => ${grace})`));
  return {
    filesMerged: merged.reduce((sum, row) => sum + Number(row.files_processed ?? 0), 0),
    filesCreated: merged.reduce((sum, row) => sum + Number(row.files_created ?? 0), 0),
    snapshotsExpired: expired.length,
    filesDeleted: deleted.length,
    orphansDeleted: orphans.length,
  };
}

async function rows(connection: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await connection.runAndReadAll(sql)).getRowObjects();
}
