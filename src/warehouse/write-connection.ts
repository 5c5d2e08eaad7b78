import type { DuckDBConnection } from '@duckdb/node-api';
import { labelCommits, type CommitLabel } from './commit-label.ts';
import { openLakeForWriting } from './lake-connection.ts';
import type { LakeLocation } from './lake-location.ts';
import { whileWriting } from './lake-writes.ts';

/**
 * Opens the lake as its one writer, runs `work`, and closes it; the caller holds the WarehouseLock. What
 * `work` commits is one snapshot per transaction, labelled `label` (the job's) when given; readers keep
 * reading the snapshot they started on meanwhile, and start on a new one after (whileWriting).
 */
export async function withWriteConnection<T>(
  lake: LakeLocation, signal: AbortSignal, work: (connection: DuckDBConnection) => Promise<T>, label?: CommitLabel,
): Promise<T> {
  return whileWriting(lake, async () => {
    const writer = await openLakeForWriting(lake);
    if (label !== undefined) labelCommits(writer.connection, label);
    const interrupt = (): void => { writer.connection.interrupt(); };
    signal.addEventListener('abort', interrupt, { once: true });
    try {
      return await work(writer.connection);
    } finally {
      signal.removeEventListener('abort', interrupt);
      await writer.close();
    }
  });
}
