import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { ConflictError, describeError } from '../errors.ts';
import type { HeldLock } from './catalog-writer-lock.ts';
import { inCatalogTurn } from './catalog-opening.ts';

/** Another process (a second `quarry start`, a `quarry sync` in a terminal) has the warehouse open for writing. */
export class WarehouseBusyError extends ConflictError {
  override readonly code = 'warehouse_busy';
  constructor(holder: string) {
    super(`The warehouse is open for writing in another process${holder}; do this from the running Quarry (its web UI or REST API), or stop it first`);
  }
}

/**
 * Takes the embedded lake's writers' lock between processes: a small DuckDB database opened for writing,
 * whose OS file lock DuckDB holds until it is closed (or its process dies) and names the holder's pid when refused.
 */
export async function takeWriterLockFile(file: string): Promise<HeldLock> {
  mkdirSync(path.dirname(file), { recursive: true });
  let holder: DuckDBInstance;
  try {
    holder = await DuckDBInstance.create(file);
  } catch (error) {
    const message = describeError(error);
    if (!message.includes('Could not set lock')) throw error;
    const pid = /PID (\d+)/.exec(message)?.[1];
    throw new WarehouseBusyError(pid === undefined ? '' : ` (process ${pid})`);
  }
  // One process writes the embedded lake at a time; its commits take the turns its catalog needs (catalog-opening.ts).
  return { commitInLine: inCatalogTurn, release: () => { holder.closeSync(); return Promise.resolve(); } };
}
