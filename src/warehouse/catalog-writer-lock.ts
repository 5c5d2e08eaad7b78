import { existsSync, readdirSync } from 'node:fs';
import pg from 'pg';
import { BucketClient, keyOf } from '../object-storage/index.ts';
import { ConfigError, QuarryError, describeError } from '../errors.ts';
import { DataPathMovedError } from './data-path-moved-error.ts';
import type { LakeLocation, PostgresCatalog } from './lake-location.ts';

/** The lake's PostgreSQL catalog cannot be reached or refused the login: a start-up or job error that says which. */
export class CatalogUnreachableError extends QuarryError {
  readonly code = 'warehouse_catalog_unreachable';
  constructor(catalog: PostgresCatalog, cause: unknown) {
    super(`The warehouse catalog ${describeCatalog(catalog)} cannot be used: ${describeError(cause)}`);
  }
}

/** Held until released; releasing ends the session that holds it. */
export interface HeldLock {
  /**
   * Runs a COMMIT of the holder's in line with every other writer's commits, as the lock has them take turns. The
   * holder's own commits do not wait for each other (one turn writes one at a time).
   */
  readonly commitInLine: <T>(commit: () => Promise<T>) => Promise<T>;
  release(): Promise<void>;
}

/**
 * The writers' turn across hosts: a session-level `pg_advisory_lock` on a connection of its own, keyed on
 * the catalog's database and schema, so every Quarry writing that lake waits in line (DuckLake would
 * otherwise fail or, with CREATE OR REPLACE, silently drop one writer's commit). A write `alongside` names the tables it
 * alone writes (a sync's source): it holds the lake's lock shared, with the others of other names, and that name's
 * lock exclusive, so two writers of the same tables still wait in line (two appends to one table both commit in
 * DuckLake: a file loaded by both would be loaded twice); exclusive holders wait for them all. When the holder dies
 * its session ends and PostgreSQL releases the locks. Aborting while waiting gives up the place in line.
 */
export async function takeCatalogWriterLock(catalog: PostgresCatalog, signal: AbortSignal, alongside?: string): Promise<HeldLock> {
  signal.throwIfAborted();
  const client = catalogClient(catalog);
  const giveUp = (): void => { void client.end(); };
  signal.addEventListener('abort', giveUp, { once: true });
  try {
    try {
      await client.connect();
    } catch (error) {
      throw new CatalogUnreachableError(catalog, error);
    }
    const key = writerLockKey(catalog);
    // Its own tables first: a writer waiting for another of the same name holds nothing the exclusive ones wait for.
    if (alongside !== undefined) await client.query('SELECT pg_advisory_lock(hashtext($1))', [`${key}:${alongside}`]);
    await client.query(`SELECT ${alongside === undefined ? 'pg_advisory_lock' : 'pg_advisory_lock_shared'}(hashtext($1))`, [key]);
  } catch (error) {
    signal.removeEventListener('abort', giveUp);
    await client.end().catch(() => undefined);
    signal.throwIfAborted();
    throw error;
  }
  signal.removeEventListener('abort', giveUp);
  const commitKey = commitLockKey(catalog);
  return {
    // Writers of different tables commit whenever their work ends, often together (syncs that fetched for the same
    // time), and all but one lose DuckLake's race for the next snapshot, to retry after a wait; racing again, some
    // wait several times. In line, each waits only for the commit before it, and is woken as soon as that ends.
    commitInLine: async (commit) => {
      // A session ended meanwhile (the catalog restarted) holds nothing any more: the write must not commit.
      await client.query('SELECT pg_advisory_lock(hashtext($1))', [commitKey]).catch((error: unknown) => { throw new CatalogUnreachableError(catalog, error); });
      try {
        return await commit();
      } finally {
        await client.query('SELECT pg_advisory_unlock(hashtext($1))', [commitKey]).catch(() => undefined);
      }
    },
    release: () => client.end(),
  };
}

/**
 * Checks at start what this process is about to open, so that it stops with the reason instead of failing each job:
 * that the catalog accepts the login; that a lake already in it keeps its data where project.yml says (DuckLake's
 * own refusal names an ATTACH option Quarry does not offer); and, for a process that must not make the lake (a
 * worker: `lakeMustExist`), that there is one: with a mistyped metadata_schema it would make a second, empty lake
 * over the same data path and sync into that. Resolves with whether the lake is there (the embedded catalog's file
 * is looked for by its callers).
 */
export async function checkCatalogReachable(location: LakeLocation, options: { lakeMustExist?: boolean } = {}): Promise<boolean> {
  const { catalog } = location;
  if (catalog.kind !== 'postgres') return true;
  const client = await connectCatalog(catalog);
  try {
    const stored = await lakeDataPathIn(client, catalog.metadataSchema);
    if (stored !== undefined && stored !== location.dataPath) throw new DataPathMovedError(stored, location.dataPath);
    if (stored === undefined && options.lakeMustExist !== true && await holdsFiles(location)) {
      throw new ConfigError([
        `warehouse.data_path: ${location.dataPath} holds files, and the catalog ${describeCatalog(catalog)} has no lake in the schema `
        + `${catalog.metadataSchema}: a new lake there would take them for its own leftovers, which maintenance deletes. Move a project's `
        + 'embedded lake there with quarry warehouse move-catalog, or point data_path at an empty folder or prefix.',
      ]);
    }
    if (stored === undefined && options.lakeMustExist === true) {
      throw new ConfigError([
        `warehouse.metadata_schema: the catalog ${describeCatalog(catalog)} has no lake in the schema ${catalog.metadataSchema}: `
        + 'start the web process (quarry start) first, which makes it, or correct the schema\'s name to the one every process of the deployment uses '
        + '(a project\'s embedded lake moves there with quarry warehouse move-catalog).',
      ]);
    }
    return stored !== undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A session of its own in the catalog's database, as the writer logs in; CatalogUnreachableError when refused. */
export async function connectCatalog(catalog: PostgresCatalog): Promise<pg.Client> {
  const client = catalogClient(catalog);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw new CatalogUnreachableError(catalog, error);
  }
  return client;
}

/** Whether anything is stored under the lake's data path (one listing request for a bucket). */
async function holdsFiles(location: LakeLocation): Promise<boolean> {
  if (location.objectStore === undefined) return existsSync(location.dataPath) && readdirSync(location.dataPath).length > 0;
  const bucket = new BucketClient(location.dataPath, location.objectStore);
  try {
    for await (const page of bucket.pages(keyOf(location.dataPath))) return page.length > 0;
    return false;
  } catch (error) {
    // A bucket that does not exist holds nothing: some servers make it at the lake's first write.
    if (error instanceof Error && (error.cause as { name?: unknown } | undefined)?.name === 'NoSuchBucket') return false;
    throw new ConfigError([`warehouse.data_path: ${location.dataPath} cannot be listed: ${describeError(error)}`]);
  } finally {
    bucket.close();
  }
}

/** Where the lake in `schema` keeps its data, or undefined when the schema holds no lake. */
export async function lakeDataPathIn(client: pg.Client, schema: string): Promise<string | undefined> {
  const table = `${client.escapeIdentifier(schema)}.ducklake_metadata`;
  const found = await client.query<{ table: string | null }>('SELECT to_regclass($1)::text AS table', [table]);
  if (found.rows[0]?.table === null || found.rows[0] === undefined) return undefined;
  const stored = await client.query<{ value: string }>(`SELECT value FROM ${table} WHERE key = 'data_path' AND scope IS NULL`);
  return stored.rows[0]?.value;
}

function describeCatalog(catalog: PostgresCatalog): string {
  return `postgres://${catalog.user}@${catalog.host}:${String(catalog.port)}/${catalog.database}`;
}

function catalogClient(catalog: PostgresCatalog): pg.Client {
  const client = new pg.Client({
    host: catalog.host, port: catalog.port, user: catalog.user, database: catalog.database, password: catalog.password,
    application_name: 'quarry-writer', connectionTimeoutMillis: 10_000,
  });
  client.on('error', () => undefined); // a session lost while held surfaces at the next commit, or in the writer's own catalog connection
  return client;
}

/** One key per lake: advisory locks are per database already; the schema tells lakes in one database apart. */
function writerLockKey(catalog: PostgresCatalog): string {
  return `quarry-writer:${catalog.database}.${catalog.metadataSchema}`;
}

/** The commits' line, in a namespace of its own: a source's lock is the writer's key and the source's name. */
function commitLockKey(catalog: PostgresCatalog): string {
  return `quarry-commit:${catalog.database}.${catalog.metadataSchema}`;
}
