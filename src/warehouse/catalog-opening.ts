import type { LakeLocation } from './lake-location.ts';

let lastOpening: Promise<unknown> = Promise.resolve();

/**
 * Runs `open`, a statement that opens the lake's catalog, after every other one this process started has
 * finished. DuckLake opens a new SQLite connection to an embedded catalog for each transaction. Two opening at
 * once in one process can each take itself for the first (POSIX locks do not show a process its own) and one
 * finds the other rebuilding the WAL index; the extension's SQLite, built without usleep, then sleeps a whole
 * second before it tries again: 1-2 % of reads run four at a time took a second. Other processes' connections
 * are seen and need no turn, and a PostgreSQL catalog has no such step.
 */
export async function openingCatalog<T>(lake: LakeLocation, open: () => Promise<T>): Promise<T> {
  if (lake.catalog.kind !== 'sqlite') return open();
  const turn = lastOpening.then(open, open);
  lastOpening = turn.catch(() => undefined);
  return turn;
}
