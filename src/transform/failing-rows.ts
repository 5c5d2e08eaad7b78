import { LAKE_ALIAS, quoteIdentifier, quoteLiteral, type DuckDBConnection, type LakeWrite } from '../warehouse/index.ts';

/** How many of a test's failing rows are kept for the models page. */
export const FAILING_ROWS_KEPT = 20;

/** A relation as dbt quotes it: two or three double-quoted names joined by dots, nothing else. */
const QUOTED_RELATION = /^"(?:[^"]|"")+"(?:\."(?:[^"]|"")+"){1,2}$/;

/**
 * Up to FAILING_ROWS_KEPT rows of each table dbt stored a test's failures in (--store-failures), keyed by
 * the relation. A name that is not a plain quoted relation is never put into SQL and gets no rows.
 */
export async function readFailingRows(connection: DuckDBConnection, relations: readonly string[]): Promise<Map<string, Record<string, unknown>[]>> {
  const rows = new Map<string, Record<string, unknown>[]>();
  for (const relation of relations) {
    if (!QUOTED_RELATION.test(relation)) continue;
    try {
      const reader = await connection.runAndReadAll(`SELECT * FROM ${relation} LIMIT ${String(FAILING_ROWS_KEPT)}`);
      rows.set(relation, reader.getRowObjectsJson());
    } catch {
      // The rows are a help for reading the failure; a table gone or renamed since dbt wrote it leaves the failure without them.
    }
  }
  return rows;
}

/**
 * Drops the tables of stored failing rows of these tests (which pass now), in one snapshot of the run's, so that the
 * test_failures schema holds the rows of failing tests only; a test that never failed has none to drop.
 */
export async function dropStoredFailures(write: LakeWrite, tables: readonly { schema: string; name: string }[]): Promise<void> {
  if (tables.length === 0) return;
  const { connection } = write;
  const wanted = tables.map((table) => `(${quoteLiteral(table.schema)}, ${quoteLiteral(table.name)})`).join(', ');
  const existing = (await connection.runAndReadAll(`SELECT schema_name, table_name FROM duckdb_tables()
    WHERE database_name = ${quoteLiteral(LAKE_ALIAS)} AND (schema_name, table_name) IN (${wanted})`)).getRows();
  if (existing.length === 0) return;
  await write.transaction(async () => {
    for (const [schema, name] of existing) await connection.run(`DROP TABLE ${quoteIdentifier(String(schema))}.${quoteIdentifier(String(name))}`);
  });
}
