import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { quoteLiteral } from './sql.ts';

/**
 * The folder of `reader_sandbox.py`, the same sandbox for Python readers (the dashboard tool imports it
 * from here, so both languages open the warehouse one way).
 */
export const READER_SANDBOX_PYTHON_PATH = import.meta.dirname;

/**
 * Opens the warehouse as reader_sandbox.py does: an in-memory database with the file attached read-only
 * as `warehouse`, no file system and a locked configuration, so nothing run on it can write or read a
 * file. Runs `work`, then closes it.
 */
export async function withSandboxedReader<T>(databaseFile: string, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '1' });
  try {
    const connection = await instance.connect();
    try {
      await connection.run(`ATTACH ${quoteLiteral(databaseFile)} AS warehouse (READ_ONLY)`);
      await connection.run('USE warehouse');
      await connection.run('SET enable_external_access = false');
      await connection.run("SET disabled_filesystems = 'LocalFileSystem'");
      await connection.run('SET lock_configuration = true');
      return await work(connection);
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}
