import type { TestQuarry } from './quarry.ts';

/** Every table of the lake with its row count and a sum of hashes of its rows (every value read), as readers see it. */
export async function fingerprintWarehouse(project: TestQuarry): Promise<Record<string, string>> {
  const tables = await project.query("SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = 'warehouse' ORDER BY 1, 2");
  const found: Record<string, string> = {};
  for (const { schema_name: schema, table_name: name } of tables as { schema_name: string; table_name: string }[]) {
    const [row] = await project.query(`SELECT count(*) AS n, coalesce(sum(hash(t)), 0)::VARCHAR AS h FROM "${schema}"."${name}" t`);
    found[`${schema}.${name}`] = `${String(row?.n)}:${String(row?.h)}`;
  }
  return found;
}
