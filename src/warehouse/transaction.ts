import type { DuckDBConnection } from '@duckdb/node-api';
import { inCatalogTurn, openCatalogInTurn } from './catalog-opening.ts';
import { applyCommitLabel, type CommitLabel } from './commit-label.ts';

/** A statement failed inside the transaction and `work` went on: committing would silently commit nothing. */
export class AbortedTransactionError extends Error {
  constructor(cause: unknown) {
    super('A statement of the transaction failed, so nothing of it was committed', { cause });
  }
}

/**
 * Runs `work` in one transaction (one snapshot of the lake), labelled `label` when given: committed when it
 * resolves, rolled back when it throws. A statement that failed inside it aborts the transaction, and DuckLake's
 * COMMIT of an aborted transaction commits nothing without an error: so the transaction is checked alive before
 * COMMIT. DuckDB may already have ended a transaction a failed statement broke (a full disk); the error that broke
 * it is what the caller gets, never the rollback's own. The implementation of LakeWrite.transaction.
 */
export async function inTransaction<T>(connection: DuckDBConnection, label: CommitLabel | undefined, work: () => Promise<T>): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    await openCatalogInTurn(connection);
    const result = await work();
    try {
      await connection.run('SELECT 1');
    } catch (error) {
      throw new AbortedTransactionError(error);
    }
    if (label !== undefined) await applyCommitLabel(connection, label);
    await inCatalogTurn(() => connection.run('COMMIT'));
    return result;
  } catch (error) {
    await inCatalogTurn(() => connection.run('ROLLBACK')).catch(() => undefined);
    throw error;
  }
}
