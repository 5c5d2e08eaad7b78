import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { ProjectPaths } from '../config/index.ts';
import { ConflictError, describeError } from '../errors.ts';
import { labelCommits, type CommitLabel } from './commit-label.ts';
import { openLakeForWriting } from './lake-connection.ts';
import type { LakeLocation } from './lake-location.ts';

/** Another process (a second `quarry start`, a `quarry sync` in a terminal) has the warehouse open for writing. */
export class WarehouseBusyError extends ConflictError {
  override readonly code = 'warehouse_busy';
  constructor(holder: string) {
    super(`The warehouse is open in another process${holder}; sync from the running Quarry (its Sync button or POST /api/sources/<name>/sync), or stop it first`);
  }
}

/** Where the writer of a lake holds its lock, and the lake itself. */
export interface WriteTarget {
  readonly lake: LakeLocation;
  /**
   * The embedded lake's lock between processes of one host; none for a PostgreSQL catalog, whose
   * writers hold its advisory lock for their whole job (the job lifecycle's WarehouseLock takes it).
   */
  readonly writerLockFile: string | undefined;
}

/** The project's lake (always named: a PostgreSQL-catalogued project must never write the embedded one) and writers' lock. */
export function writeTargetOf(paths: ProjectPaths, lake: LakeLocation): WriteTarget {
  return { lake, writerLockFile: lake.catalog.kind === 'sqlite' ? paths.writerLockFile : undefined };
}

/**
 * Takes the writers' lock between processes: a small DuckDB database opened for writing, whose OS file
 * lock DuckDB holds until it is closed and names the holder's pid when refused.
 */
async function takeWriterLock(file: string): Promise<DuckDBInstance> {
  mkdirSync(path.dirname(file), { recursive: true });
  try {
    return await DuckDBInstance.create(file);
  } catch (error) {
    const message = describeError(error);
    if (!message.includes('Could not set lock')) throw error;
    const pid = /PID (\d+)/.exec(message)?.[1];
    throw new WarehouseBusyError(pid === undefined ? '' : ` (process ${pid})`);
  }
}

/**
 * Opens the lake as its one writer, runs `work`, and closes it. What `work` commits is one snapshot per
 * transaction, labelled `label` (the job's) when given; readers keep reading the snapshot they started on meanwhile.
 */
export async function withWriteConnection<T>(
  target: WriteTarget, signal: AbortSignal, work: (connection: DuckDBConnection) => Promise<T>, label?: CommitLabel,
): Promise<T> {
  const writerLock = target.writerLockFile === undefined ? undefined : await takeWriterLock(target.writerLockFile);
  try {
    const lake = await openLakeForWriting(target.lake);
    if (label !== undefined) labelCommits(lake.connection, label);
    const interrupt = (): void => { lake.connection.interrupt(); };
    signal.addEventListener('abort', interrupt, { once: true });
    try {
      return await work(lake.connection);
    } finally {
      signal.removeEventListener('abort', interrupt);
      lake.close();
    }
  } finally {
    writerLock?.closeSync();
  }
}
