import { quoteIdentifier, type DuckDBConnection } from '../warehouse/index.ts';

/** Row counts of warehouse tables, keyed `schema.name`, as `connection` (the writer's, so what the job committed) sees them. */
export async function countRows(connection: DuckDBConnection, tables: readonly { schema: string; name: string }[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const table of tables) {
    const reader = await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`);
    counts.set(`${table.schema}.${table.name}`, Number(reader.getRowObjects()[0]?.n ?? 0));
  }
  return counts;
}
