import { existsSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';
import { copySqliteTable } from '../store/index.ts';
import { connectCatalog, lakeDataPathIn } from './catalog-writer-lock.ts';
import { openLakeForWriting } from './lake-connection.ts';
import { fingerprints } from './lake-fingerprints.ts';
import type { LakeLocation, PostgresCatalog } from './lake-location.ts';
import { takeWriterLockFile } from './writer-lock-file.ts';

/** The catalog could not be copied, or the copy did not read back the same; the embedded lake is as it was. */
export class CatalogMoveError extends Error {}

export interface CatalogMoveOutcome {
  /** The lake's tables, each read back through the new catalog with the same rows. */
  readonly tables: number;
  /** Rows of DuckLake's own tables copied: snapshots, files, columns, statistics... */
  readonly catalogRows: number;
}

/**
 * Copies an embedded lake's catalog into a PostgreSQL schema, so that the same lake (its snapshots and history, its
 * data files where they are) opens through PostgreSQL for every process of a deployment. The copy is made in a schema
 * of its own (`<schema>_moving`, dropped first if a run cut short left it): DuckLake makes its tables there by opening
 * a new lake with the same data path, the embedded catalog's rows replace its first ones in one transaction, and
 * every table must read back through it with the same rows and hashes as before. Only then are the tables moved
 * into `schema`, in one transaction, so `schema` holds the whole lake or none of it. `whenCopied` (pointing
 * project.yml at it) runs before the writer's lock is let go, so no other process writes the embedded lake after
 * the copy. The embedded catalog is left as it was.
 */
export async function moveCatalogToPostgres(
  from: LakeLocation, to: LakeLocation, options: { writerLockFile: string; report: (line: string) => void; whenCopied: () => void },
): Promise<CatalogMoveOutcome> {
  const source = from.catalog;
  const target = to.catalog;
  if (source.kind !== 'sqlite' || target.kind !== 'postgres') throw new CatalogMoveError('Only the embedded catalog is copied this way, into a PostgreSQL one');
  if (from.dataPath !== to.dataPath) throw new CatalogMoveError(`The lake's data stays in ${from.dataPath}: the new catalog must name it`);
  if (!existsSync(source.file)) throw new CatalogMoveError(`There is no lake yet (${source.file}): set warehouse.catalog before the first sync, and the lake is made there`);
  const lock = await takeWriterLockFile(options.writerLockFile);
  let client: pg.Client | undefined;
  try {
    client = await connectCatalog(target);
    await refuseUnlessFree(client, target);
    const staging: PostgresCatalog = { ...target, metadataSchema: `${target.metadataSchema}_moving` };
    await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(staging.metadataSchema)} CASCADE`);
    const before = await fingerprints(from);
    options.report(`${String(before.size)} table(s) to check after the copy`);
    let catalogRows: number;
    try {
      const made = await openLakeForWriting({ ...to, catalog: staging });
      await made.close();
      catalogRows = await copyCatalogRows(source.file, client, staging, options.report);
      const after = await fingerprints({ ...to, catalog: staging });
      const differing = [...before].filter(([table, fingerprint]) => after.get(table) !== fingerprint).map(([table]) => table);
      if (differing.length > 0 || after.size !== before.size) {
        throw new CatalogMoveError(`Read back through PostgreSQL, ${differing.join(', ') || 'the list of tables'} differ(s) from the lake as it is; nothing was kept`);
      }
      await publish(client, staging, target);
    } catch (error) {
      // What the copy made goes; a failure to drop it is the lesser news (the next run drops it first).
      await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(staging.metadataSchema)} CASCADE`).catch(() => undefined);
      throw error;
    }
    options.report('Every table reads back the same through PostgreSQL');
    options.whenCopied();
    return { tables: before.size, catalogRows };
  } finally {
    await client?.end().catch(() => undefined);
    await lock.release();
  }
}

async function refuseUnlessFree(client: pg.Client, catalog: PostgresCatalog): Promise<void> {
  const existing = await lakeDataPathIn(client, catalog.metadataSchema);
  if (existing !== undefined) throw new CatalogMoveError(`The schema ${catalog.metadataSchema} holds a lake already (its data in ${existing}): name another with --schema; nothing was changed`);
}

/** Moves the checked copy's tables into the lake's schema, all or none. */
async function publish(client: pg.Client, staging: PostgresCatalog, catalog: PostgresCatalog): Promise<void> {
  await client.query('BEGIN');
  try {
    await refuseUnlessFree(client, catalog);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${client.escapeIdentifier(catalog.metadataSchema)}`);
    for (const table of await lakeTables(client, staging)) {
      await client.query(`ALTER TABLE ${qualified(client, staging, table)} SET SCHEMA ${client.escapeIdentifier(catalog.metadataSchema)}`);
    }
    await client.query(`DROP SCHEMA ${client.escapeIdentifier(staging.metadataSchema)}`);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Replaces the rows of the new lake's tables with the embedded catalog's, in one transaction; counts checked. */
async function copyCatalogRows(file: string, client: pg.Client, catalog: PostgresCatalog, report: (line: string) => void): Promise<number> {
  const source = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
  try {
    const tables = (source.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'ducklake\\_%' ESCAPE '\\' ORDER BY name").all() as { name: string }[])
      .map((row) => row.name);
    const embeddedVersion = (source.prepare("SELECT value FROM ducklake_metadata WHERE key = 'version' AND scope IS NULL").get() as { value?: string } | undefined)?.value;
    const version = (await client.query<{ value: string }>(`SELECT value FROM ${qualified(client, catalog, 'ducklake_metadata')} WHERE key = 'version' AND scope IS NULL`)).rows[0]?.value;
    if (embeddedVersion !== version) {
      throw new CatalogMoveError(`The embedded catalog is in DuckLake's format ${String(embeddedVersion)} and this Quarry makes ${String(version)}: start and stop Quarry on the project once (it brings the lake up to date), then move it; nothing was kept`);
    }
    const made = new Set(await lakeTables(client, catalog));
    const unknown = tables.filter((table) => !made.has(table));
    if (unknown.length > 0) throw new CatalogMoveError(`The embedded catalog has table(s) this DuckLake does not make in PostgreSQL (${unknown.join(', ')}); nothing was kept`);
    await client.query('BEGIN');
    try {
      let copied = 0;
      for (const table of made) await client.query(`DELETE FROM ${qualified(client, catalog, table)}`);
      for (const table of tables) {
        const rows = await copySqliteTable(source, client, table, qualified(client, catalog, table));
        const counted = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${qualified(client, catalog, table)}`);
        if (counted.rows[0]?.n !== rows) throw new CatalogMoveError(`${table} holds ${String(counted.rows[0]?.n)} row(s) in PostgreSQL after the copy, not ${String(rows)}; nothing was kept`);
        copied += rows;
      }
      await client.query('COMMIT');
      report(`Copied ${String(copied)} row(s) of the catalog's ${String(tables.length)} tables`);
      return copied;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    source.close();
  }
}

/** DuckLake's tables in the catalog's schema. */
async function lakeTables(client: pg.Client, catalog: PostgresCatalog): Promise<string[]> {
  const found = await client.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'ducklake\\_%' ORDER BY table_name", [catalog.metadataSchema],
  );
  return found.rows.map((row) => row.name);
}

function qualified(client: pg.Client, catalog: PostgresCatalog, table: string): string {
  return `${client.escapeIdentifier(catalog.metadataSchema)}.${client.escapeIdentifier(table)}`;
}
