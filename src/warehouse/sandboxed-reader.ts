import { existsSync } from 'node:fs';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { inCatalogTurn } from './catalog-opening.ts';
import { loadLakeExtensions } from './lake-connection.ts';
import { attachStatement, LAKE_ALIAS, readerLocation, type LakeLocation } from './lake-location.ts';
import { guardValueSizes } from './reader-value-guards.ts';
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
 * `count` sandboxed connections on one DuckDB instance (one memory limit for all), each with the lake as
 * its default database: the file system shrinks to the lake's data folder, external access goes off, the
 * catalog is attached read-only, and the configuration is locked, so no later statement can undo it; each
 * connection's value-size guards (reader-value-guards.sql) stand in front of DuckDB's functions that build large values.
 * The order matters: allowed_directories before external access goes off, and the SQLite catalog
 * attached after it (its extension opens the file itself), because DuckDB lets COPY write the files of
 * a database attached before, which would overwrite the catalog. A PostgreSQL catalog is attached first
 * (postgres_scanner refuses to attach with external access off): it has no file to overwrite, and
 * COPY still reaches only the data folder. Each query reads the lake's latest
 * snapshot when it starts; no writer waits for it.
 *
 * The catalog's extension (sqlite_scanner, postgres_scanner) ignores enable_external_access: SQL the
 * caller did not write passes assertReadsOnly first (postgres_query could reach the whole PostgreSQL
 * database as its role: readers log in as the catalog's reader role, limited to the lake's schema, when project.yml
 * names one, docs/operations.md). The caller closes the connections and the instance.
 */
export async function openSandboxedReaders(lake: LakeLocation, count: number, limits: ReaderLimits): Promise<{ instance: DuckDBInstance; connections: DuckDBConnection[] }> {
  const location = readerLocation(lake);
  const { catalog } = location;
  if (catalog.kind === 'sqlite' && !existsSync(catalog.file)) throw new Error(`The warehouse has no catalog yet (${catalog.file}); start Quarry once to create it`);
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
    await loadLakeExtensions(first, location);
    // A PostgreSQL catalog cannot be attached once external access is off, and has no file a COPY could overwrite.
    if (catalog.kind === 'postgres') await inCatalogTurn(() => first.run(attachStatement(location, 'read')));
    await first.run(`SET allowed_directories = [${quoteLiteral(location.dataPath)}]`);
    await first.run('SET enable_external_access = false');
    if (catalog.kind === 'sqlite') await inCatalogTurn(() => first.run(attachStatement(location, 'read')));
    for (const connection of connections) {
      await connection.run(`USE ${LAKE_ALIAS}`);
      await guardValueSizes(connection);
    }
    await first.run('SET lock_configuration = true');
    return { instance, connections };
  } catch (error) {
    for (const connection of connections) connection.closeSync();
    instance.closeSync();
    throw error;
  }
}

/** One sandboxed reader of the lake (see openSandboxedReaders); the caller closes it. */
export async function openSandboxedReader(location: LakeLocation, limits: ReaderLimits = DEFAULT_READER_LIMITS): Promise<SandboxedReader> {
  const { instance, connections: [connection] } = await openSandboxedReaders(location, 1, limits);
  if (connection === undefined) throw new Error('no reader was opened');
  return {
    connection,
    close: () => {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

/** Opens a sandboxed reader, runs `work` on it, then closes it. */
export async function withSandboxedReader<T>(location: LakeLocation, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const reader = await openSandboxedReader(location);
  try {
    return await work(reader.connection);
  } finally {
    reader.close();
  }
}
