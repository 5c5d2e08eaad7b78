import { quoteIdentifier, withWriteConnection, type LakeLocation } from '../warehouse/index.ts';

/**
 * Row counts of warehouse tables, keyed `schema.name`, read through the writer's own connection: call it
 * holding the warehouse lock, so the counts are of what the job itself committed.
 */
export async function countRows(lake: LakeLocation, tables: readonly { schema: string; name: string }[], signal: AbortSignal): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (tables.length === 0) return counts;
  await withWriteConnection(lake, signal, async (connection) => {
    for (const table of tables) {
      const reader = await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`);
      counts.set(`${table.schema}.${table.name}`, Number(reader.getRowObjects()[0]?.n ?? 0));
    }
  });
  return counts;
}
