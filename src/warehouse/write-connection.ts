import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/** Opens the warehouse for writing, runs `work`, and closes it so another process (dbt) may open it next. */
export async function withWriteConnection<T>(
  file: string, signal: AbortSignal, work: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  mkdirSync(path.dirname(file), { recursive: true });
  const instance = await DuckDBInstance.create(file);
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
