import { DuckDBInstance } from '@duckdb/node-api';
import { projectPaths } from '../../src/config/index.ts';
import { lakeLocation, withSandboxedReader } from '../../src/warehouse/index.ts';

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

/** Runs one query on a project's lake through a sandboxed reader (as dashboards read it) and returns the rows as JSON values. */
export async function queryLake(projectDir: string, sql: string): Promise<Record<string, unknown>[]> {
  return withSandboxedReader(lakeLocation(projectPaths(projectDir)), async (connection) => (await connection.runAndReadAll(sql)).getRowObjectsJson());
}
