import { rawSchemaOf } from '../sources/index.ts';
import { quoteIdentifier, type LakeWriter } from '../warehouse/index.ts';

/**
 * Drops a source's raw schema and every table in it, as a write of the lake's writer. The one place a removed
 * source's tables leave the warehouse.
 */
export async function dropSourceTables(source: string, writer: LakeWriter, signal: AbortSignal): Promise<void> {
  await writer.write(({ transaction }) => transaction(async (connection) => {
    await connection.run(`DROP SCHEMA IF EXISTS ${quoteIdentifier(rawSchemaOf(source))} CASCADE`);
  }), { signal });
}
