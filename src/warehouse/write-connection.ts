import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { ConflictError, describeError } from '../errors.ts';

/** Another process (a second `quarry start`, a `quarry sync` in a terminal) has the warehouse open for writing. */
export class WarehouseBusyError extends ConflictError {
  override readonly code = 'warehouse_busy';
  constructor(holder: string) {
    super(`The warehouse is open in another process${holder}; sync from the running Quarry (its Sync button or POST /api/sources/<name>/sync), or stop it first`);
  }
}

async function openForWriting(file: string): Promise<DuckDBInstance> {
  try {
    return await DuckDBInstance.create(file);
  } catch (error) {
    const message = describeError(error);
    if (!message.includes('Could not set lock')) throw error;
    const pid = /PID (\d+)/.exec(message)?.[1];
    throw new WarehouseBusyError(pid === undefined ? '' : ` (process ${pid})`);
  }
}

/** Opens the warehouse for writing, runs `work`, and closes it so another process (dbt) may open it next. */
export async function withWriteConnection<T>(
  file: string, signal: AbortSignal, work: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  mkdirSync(path.dirname(file), { recursive: true });
  const instance = await openForWriting(file);
  try {
    const connection = await instance.connect();
    const interrupt = (): void => { connection.interrupt(); };
    signal.addEventListener('abort', interrupt, { once: true });
    try {
      return await work(connection);
    } finally {
      signal.removeEventListener('abort', interrupt);
      connection.closeSync();
    }
  } finally {
    instance.closeSync(); // dbt, in its own process, can open the file for writing only after this
  }
}
