import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Runs `work` in one transaction: committed when it resolves, rolled back when it throws. DuckDB may
 * already have ended a transaction a failed statement broke (a full disk); the error that broke it is
 * what the caller gets, never the rollback's own.
 */
export async function inTransaction<T>(connection: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await connection.run('COMMIT');
    return result;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
