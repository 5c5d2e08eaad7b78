import { withSandboxedReader } from '../warehouse/index.ts';

/** The column names of each table, in table order, read from a read-only copy of the warehouse (the serving replica). */
export async function readColumns(databaseFile: string, tables: readonly { schema: string; name: string }[]): Promise<Map<string, string[]>> {
  const columns = new Map<string, string[]>();
  if (tables.length === 0) return columns;
  await withSandboxedReader(databaseFile, async (connection) => {
    for (const table of tables) {
      const reader = await connection.runAndReadAll(
        "SELECT column_name FROM information_schema.columns WHERE table_catalog = 'warehouse' AND table_schema = $schema AND table_name = $name ORDER BY ordinal_position",
        { schema: table.schema, name: table.name },
      );
      columns.set(`${table.schema}.${table.name}`, reader.getRowObjects().map((row) => String(row.column_name)));
    }
  });
  return columns;
}
