import { rawSchemaOf } from '../sources/index.ts';
import { quoteIdentifier, withWriteConnection, type LakeLocation, type WarehouseLock } from '../warehouse/index.ts';

export interface DropSourceTablesOptions {
  readonly lake: LakeLocation;
  readonly lock: WarehouseLock;
  readonly signal: AbortSignal;
}

/**
 * Drops a source's raw schema and every table in it, in the warehouse lock's turn with the one write
 * connection. The one place a removed source's tables leave the warehouse.
 */
export async function dropSourceTables(source: string, options: DropSourceTablesOptions): Promise<void> {
  const { lake, lock, signal } = options;
  await lock.hold(async () => {
    await withWriteConnection(lake, signal, async (connection) => {
      await connection.run(`DROP SCHEMA IF EXISTS ${quoteIdentifier(rawSchemaOf(source))} CASCADE`);
    });
  }, signal);
}
