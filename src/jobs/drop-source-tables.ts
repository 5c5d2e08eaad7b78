import type { ProjectPaths } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import { rawSchemaOf } from '../sources/index.ts';
import { quoteIdentifier, withWriteConnection } from '../warehouse/index.ts';
import { publishAfterCommit } from './publish-after-commit.ts';
import type { WarehouseLock } from './warehouse-lock.ts';

export interface DropSourceTablesOptions {
  readonly paths: ProjectPaths;
  readonly lock: WarehouseLock;
  readonly log: Logger;
  readonly signal: AbortSignal;
}

/**
 * Drops a source's raw schema and every table in it, in the warehouse lock's turn with the one write
 * connection, then refreshes the read-only replica. The one place a removed source's tables leave the warehouse.
 */
export async function dropSourceTables(source: string, options: DropSourceTablesOptions): Promise<void> {
  const { paths, lock, log, signal } = options;
  await lock.hold(async () => {
    await withWriteConnection(paths.warehouseFile, signal, async (connection) => {
      await connection.run(`DROP SCHEMA IF EXISTS ${quoteIdentifier(rawSchemaOf(source))} CASCADE`);
    });
    await publishAfterCommit(paths, log);
  }, signal);
}
