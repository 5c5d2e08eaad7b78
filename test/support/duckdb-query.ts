import { DuckDBInstance } from '@duckdb/node-api';

/** Runs one statement on a DuckDB file (or `:memory:`) in a connection of its own and returns the rows as JSON values. */
export async function queryDuckDb(file: string, sql: string, options: Record<string, string> = {}): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(file, options);
  try {
    const connection = await instance.connect();
    try {
      return (await connection.runAndReadAll(sql)).getRowObjectsJson();
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}
