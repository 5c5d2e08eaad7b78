import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { quoteLiteral } from './sql.ts';

/**
 * The folder of `reader_sandbox.py`, the same sandbox for Python readers (the dashboard tool imports it
 * from here, so both languages open the warehouse one way).
 */
export const READER_SANDBOX_PYTHON_PATH = import.meta.dirname;

/** What one reader may use of the machine. */
export interface ReaderLimits {
  readonly threads: number;
  /** DuckDB's notation: '1GB', '512MB'. */
  readonly memoryLimit: string;
}

export const DEFAULT_READER_LIMITS: ReaderLimits = { threads: 1, memoryLimit: '1GB' };

/** A sandboxed reader's connection and the one way to let it go. */
export interface SandboxedReader {
  readonly connection: DuckDBConnection;
  close(): void;
}

/**
 * Opens the warehouse as reader_sandbox.py does: an in-memory database with the file attached read-only
 * as `warehouse`, no file system, no extension loading and a locked configuration, so nothing run on it
 * can write or read a file. The caller closes it; SQL it did not write goes through assertReadsOnly first.
 */
export async function openSandboxedReader(databaseFile: string, limits: ReaderLimits = DEFAULT_READER_LIMITS): Promise<SandboxedReader> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(limits.threads),
    memory_limit: limits.memoryLimit,
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const close = (): void => {
    connection?.closeSync();
    instance.closeSync();
  };
  let connection: DuckDBConnection | undefined;
  try {
    connection = await instance.connect();
    await connection.run(`ATTACH ${quoteLiteral(databaseFile)} AS warehouse (READ_ONLY)`);
    await connection.run('USE warehouse');
    await connection.run('SET enable_external_access = false');
    await connection.run("SET disabled_filesystems = 'LocalFileSystem'");
    await connection.run('SET lock_configuration = true');
    return { connection, close };
  } catch (error) {
    close();
    throw error;
  }
}

/**
 * The same sandbox with `count` connections on one instance (one memory limit for all), each using the warehouse
 * as its default database; the configuration is locked once they all exist. The caller closes them and the instance.
 */
export async function openSandboxedReaders(databaseFile: string, count: number, limits: ReaderLimits): Promise<{ instance: DuckDBInstance; connections: DuckDBConnection[] }> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: String(limits.threads),
    memory_limit: limits.memoryLimit,
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const connections: DuckDBConnection[] = [];
  try {
    for (let index = 0; index < count; index++) connections.push(await instance.connect());
    const [first] = connections;
    if (first === undefined) throw new Error('a pool of no readers');
    await first.run(`ATTACH ${quoteLiteral(databaseFile)} AS warehouse (READ_ONLY)`);
    for (const connection of connections) await connection.run('USE warehouse');
    await first.run('SET enable_external_access = false');
    await first.run("SET disabled_filesystems = 'LocalFileSystem'");
    await first.run('SET lock_configuration = true');
    return { instance, connections };
  } catch (error) {
    for (const connection of connections) connection.closeSync();
    instance.closeSync();
    throw error;
  }
}

/** Opens a sandboxed reader, runs `work` on it, then closes it. */
export async function withSandboxedReader<T>(databaseFile: string, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const reader = await openSandboxedReader(databaseFile);
  try {
    return await work(reader.connection);
  } finally {
    reader.close();
  }
}
