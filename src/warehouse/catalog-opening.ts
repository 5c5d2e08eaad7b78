import type { DuckDBConnection } from '@duckdb/node-api';
import { LAKE_ALIAS } from './lake-location.ts';

let lastTurn: Promise<unknown> = Promise.resolve();

/**
 * Runs `statement`, one that opens or closes the lake's catalog connection, after every other one this process
 * started has finished. DuckLake opens a new SQLite connection to an embedded catalog for each transaction and
 * closes it when the transaction ends. Two opening at once in one process can each take itself for the first
 * (POSIX locks do not show a process its own) and one finds the other rebuilding the WAL index; the extension's
 * SQLite, built without usleep, then sleeps a whole second before it tries again: 1-2 % of reads run four at a
 * time took a second, and so did a read, and the sync itself, when it met a sync's ATTACH or COMMIT (3 of 10
 * 5M-row syncs). The statements that take turns: ATTACH, a transaction's first read (or a query's prepare), a
 * job's COMMIT (the embedded lake's writer lock has it so: HeldLock.commitInLine) and ROLLBACK, and the statements
 * that run in a transaction of their own (a new lake's options, maintenance's expiry and clean-ups). Other
 * processes' connections are seen and need no turn. A PostgreSQL catalog has no such step; its statements take turns
 * too, one rule being simpler than the milliseconds it costs them, except COMMIT, which waits in the line of every
 * writer of the lake instead, held by the catalog's writer lock.
 */
export async function inCatalogTurn<T>(statement: () => Promise<T>): Promise<T> {
  const turn = lastTurn.then(statement, statement);
  lastTurn = turn.catch(() => undefined);
  return turn;
}

/** Opens the lake's catalog for the connection's transaction, in turn: its later statements then run beside others. */
export async function openCatalogInTurn(connection: DuckDBConnection): Promise<void> {
  await inCatalogTurn(() => connection.run(`FROM ducklake_current_snapshot('${LAKE_ALIAS}')`));
}
