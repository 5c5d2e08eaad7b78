import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  attachStatement, dataInBucket, extensionFile, LAKE_ALIAS, lakeExtensionsOf, lakeSecretStatements, type LakeLocation, type PostgresCatalog,
} from './lake-location.ts';
import { inCatalogTurn } from './catalog-opening.ts';
import { closeJobInstance, createJobInstance, type JobInstanceOptions } from './job-instance.ts';
import { isObjectUrl } from '../config/index.ts';
import { DataPathMovedError } from './data-path-moved-error.ts';
import { quoteLiteral } from './sql.ts';

/** A DuckDB instance of its own with the lake attached as `warehouse` (LAKE_ALIAS), its default database. */
export interface LakeConnection {
  readonly connection: DuckDBConnection;
  /** Another connection to the same instance, the lake its default database too; its caller closes it. */
  connectAgain(): Promise<DuckDBConnection>;
  close(): Promise<void>;
}

// Zstandard and Parquet version 2 keep the lake about the size of a DuckDB file (snappy: 2.3 times it).
// No data inlining: DuckLake 1.5.5 keeps small inserts in the catalog, then fails to read back a STRUCT with a
// DATE or TIMESTAMP field from there ("Failed to read inlined data from DuckLake: invalid date field format").
// Stored in the catalog, so set once when the lake is made.
const NEW_LAKE_OPTIONS = { parquet_compression: 'zstd', parquet_version: '2', data_inlining_row_limit: '0' } as const;

/** The codec of the lake's data files, as `parquet_metadata` names it. */
export const LAKE_FILE_CODEC = NEW_LAKE_OPTIONS.parquet_compression.toUpperCase();

/** COPY's options for a Parquet file meant to become one of the lake's data files as it is: written as the lake writes its own. */
export const LAKE_FILE_COPY_OPTIONS = `FORMAT parquet, COMPRESSION ${NEW_LAKE_OPTIONS.parquet_compression}, PARQUET_VERSION V${NEW_LAKE_OPTIONS.parquet_version}`;

/**
 * How a commit is retried after another writer's took the snapshot it was to make (DuckLake checks the changes for
 * conflicts and, finding none, commits again without writing its files again). Quarry's commits take turns
 * (HeldLock.commitInLine), so a retry is nearly always due to the commit just before, not a collision, and
 * DuckLake's own first wait (100 ms) would be most of each commit of a burst of syncs. The backoff still spreads
 * out writers outside the turns (another tool writing the lake): 20 s in all, against DuckLake's 11.
 */
const COMMIT_RETRIES = { ducklake_retry_wait_ms: 5, ducklake_retry_backoff: 2, ducklake_max_retry_count: 12 } as const;

/**
 * Opens the lake for the one writer: read-write, with the file system (the writer reads source files).
 * Makes the lake on first use.
 */
export async function openLakeForWriting(location: LakeLocation, instance: JobInstanceOptions = {}): Promise<LakeConnection> {
  const { catalog } = location;
  const createdFile = catalog.kind === 'sqlite' && !preparedCatalogs.has(catalog.file) && prepareCatalog(catalog.file, location.dataPath);
  return openLake(location, instance, async (connection) => {
    await connection.run(Object.entries(COMMIT_RETRIES).map(([setting, value]) => `SET GLOBAL ${setting} = ${String(value)};`).join(' '));
    await inCatalogTurn(() => connection.run(attachStatement(location, 'write')));
    const created = catalog.kind === 'sqlite' ? createdFile : await isNewPostgresLake(connection, catalog);
    if (created) {
      for (const [option, value] of Object.entries(NEW_LAKE_OPTIONS)) {
        await inCatalogTurn(() => connection.run(`CALL ${LAKE_ALIAS}.set_option(${quoteLiteral(option)}, ${quoteLiteral(value)})`));
      }
    }
    await connection.run(`USE ${LAKE_ALIAS}`);
    if (catalog.kind === 'sqlite') preparedCatalogs.add(catalog.file);
  });
}

/**
 * Loads the lake's extensions by path from the folder bin/setup fills (nothing is downloaded), and gives a
 * PostgreSQL catalog its password and a bucket its keys as secrets (never in the ATTACH string, which errors quote).
 */
export async function loadLakeExtensions(connection: DuckDBConnection, location: LakeLocation): Promise<void> {
  for (const name of lakeExtensionsOf(location)) await connection.run(`LOAD ${quoteLiteral(extensionFile(name))}`);
  for (const secret of lakeSecretStatements(location)) await connection.run(secret);
}

/** Whether DuckLake has just initialised this PostgreSQL catalog (its options not set yet). */
async function isNewPostgresLake(connection: DuckDBConnection, catalog: PostgresCatalog): Promise<boolean> {
  const reader = await connection.runAndReadAll(
    `SELECT count(*)::INTEGER FROM __ducklake_metadata_${LAKE_ALIAS}.${catalog.metadataSchema}.ducklake_metadata WHERE key = 'parquet_compression'`,
  );
  return reader.getRows()[0]?.[0] === 0;
}

async function openLake(location: LakeLocation, options: JobInstanceOptions, attach: (connection: DuckDBConnection) => Promise<void>): Promise<LakeConnection> {
  if (!dataInBucket(location)) mkdirSync(location.dataPath, { recursive: true });
  const instance = await createJobInstance(options);
  try {
    const connection = await instance.connect();
    try {
      await loadLakeExtensions(connection, location);
      await attach(connection);
    } catch (error) {
      connection.closeSync();
      throw error;
    }
    const connectAgain = async (): Promise<DuckDBConnection> => {
      const another = await instance.connect();
      try {
        await another.run(`USE ${LAKE_ALIAS}`);
      } catch (error) {
        another.closeSync();
        throw error;
      }
      return another;
    };
    return { connection, connectAgain, close: () => closeJobInstance(instance, connection) };
  } catch (error) {
    instance.closeSync();
    throw error;
  }
}

/**
 * Catalogs this process has prepared and attached. Once is enough, and more would break: closing node:sqlite's
 * handle drops every POSIX lock this process holds on the file, DuckDB's own SQLite's too (the readers the
 * profiler keeps open), and DuckLake's next query then fails with "disk I/O error". A process's first writer
 * opens the lake before its readers do.
 */
const preparedCatalogs = new Set<string>();

/**
 * Makes sure the catalog is in WAL mode before DuckLake first attaches it (in SQLite's default journal
 * mode a reader's long query makes the writer's COMMIT fail: "database is locked"), creating the file
 * when missing, and that it names the data folder where it is now: DuckLake stores the absolute path and
 * refuses an ATTACH with another, so a moved project folder would not open (the files' own paths are
 * relative to it). A lake whose data is in a bucket, or is to be, is never repointed so: its files would not be
 * there. Returns whether DuckLake has yet to initialise the catalog (a new lake).
 */
function prepareCatalog(file: string, dataPath: string): boolean {
  mkdirSync(path.dirname(file), { recursive: true });
  const catalog = new DatabaseSync(file);
  try {
    catalog.exec('PRAGMA journal_mode = WAL');
    const initialised = catalog.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'ducklake_metadata'").get();
    if (Number(initialised?.n ?? 0) === 0) return true;
    const stored = catalog.prepare("SELECT value FROM ducklake_metadata WHERE key = 'data_path' AND scope IS NULL").get()?.value;
    if (typeof stored === 'string' && stored !== dataPath) {
      if (isObjectUrl(stored) || isObjectUrl(dataPath)) throw new DataPathMovedError(stored, dataPath);
      catalog.prepare("UPDATE ducklake_metadata SET value = ? WHERE key = 'data_path' AND scope IS NULL").run(dataPath);
    }
    return false;
  } finally {
    catalog.close();
  }
}

