import type { DuckDBConnection } from '@duckdb/node-api';
import { LAKE_ALIAS } from './lake-location.ts';

let lastOpening: Promise<unknown> = Promise.resolve();

/**
 * Runs `open`, a statement that opens the lake's catalog, after every other one this process started has
 * finished. DuckLake opens a new SQLite connection to an embedded catalog for each transaction. Two opening at
 * once in one process can each take itself for the first (POSIX locks do not show a process its own) and one
 * finds the other rebuilding the WAL index; the extension's SQLite, built without usleep, then sleeps a whole
 * second before it tries again: 1-2 % of reads run four at a time took a second. Other processes' connections
 * are seen and need no turn. A PostgreSQL catalog has no such step; its openings take turns too, one rule
 * being simpler than the milliseconds it costs them.
 */
export async function openingCatalog<T>(open: () => Promise<T>): Promise<T> {
  const turn = lastOpening.then(open, open);
  lastOpening = turn.catch(() => undefined);
  return turn;
}

/** Opens the lake's catalog for the connection's transaction, in turn: its later statements then run beside others. */
export async function openCatalogInTurn(connection: DuckDBConnection): Promise<void> {
  await openingCatalog(() => connection.run(`FROM ducklake_current_snapshot('${LAKE_ALIAS}')`));
}
