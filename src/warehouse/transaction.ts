import type { DuckDBConnection } from '@duckdb/node-api';
import { inCatalogTurn, openCatalogInTurn } from './catalog-opening.ts';
import type { HeldLock } from './catalog-writer-lock.ts';
import { applyCommitLabel, type CommitLabel } from './commit-label.ts';
import { describeError, firstLineOf } from '../errors.ts';

/** A statement failed inside the transaction and `work` went on: committing would silently commit nothing. */
export class AbortedTransactionError extends Error {
  constructor(cause: unknown) {
    super('A statement of the transaction failed, so nothing of it was committed', { cause });
  }
}

/**
 * Another writer of the lake committed first a change this transaction's conflicts with (the same table created,
 * altered or deleted from): DuckLake retried the commit and gave up, and nothing of it was committed. Trying the
 * whole work again, from a snapshot that has the other change, may succeed.
 */
export class CommitConflictError extends Error {
  constructor(cause: unknown) {
    const conflict = /Transaction conflict[^\n]*/.exec(describeError(cause))?.[0] ?? firstLineOf(cause);
    super(`Another writer changed the same part of the lake first, so nothing was committed (${conflict})`, { cause });
  }
}

/** How DuckLake says a commit lost to a conflicting one, after its own retries. */
const DUCKLAKE_CONFLICT = /Failed to commit DuckLake transaction[\s\S]*Transaction conflict/;

/**
 * Runs `work` in one transaction (one snapshot of the lake), labelled `label` when given: committed when it
 * resolves (in line with other writers' commits, as `commitInLine` has it), rolled back when it throws. A statement
 * that failed inside it aborts the transaction, and DuckLake's COMMIT of an aborted transaction commits nothing
 * without an error: so the transaction is checked alive before COMMIT. DuckDB may already have ended a transaction
 * a failed statement broke (a full disk); the error that broke it is what the caller gets, never the rollback's own.
 * The implementation of LakeWrite.transaction.
 */
export async function inTransaction<T>(
  connection: DuckDBConnection, options: { label: CommitLabel | undefined; commitInLine: HeldLock['commitInLine'] }, work: () => Promise<T>,
): Promise<T> {
  const { label, commitInLine } = options;
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
    await commitInLine(() => connection.run('COMMIT')).catch((error: unknown) => {
      throw DUCKLAKE_CONFLICT.test(describeError(error)) ? new CommitConflictError(error) : error;
    });
    return result;
  } catch (error) {
    await inCatalogTurn(() => connection.run('ROLLBACK')).catch(() => undefined);
    throw error;
  }
}
