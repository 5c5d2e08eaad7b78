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
 * data files where they are) opens through PostgreSQL for every process of a deployment. DuckLake makes the schema's
 * tables by opening a new lake there, with the same data path; in one transaction their first rows make way for
 * the embedded catalog's, row for row. Every table must then read back through the new catalog with the same rows
 * and hashes as before, or DuckLake's tables are dropped from the schema again. Holds the writer's lock throughout;
 * the embedded catalog is left as it was.
 */
export async function moveCatalogToPostgres(
  from: LakeLocation, to: LakeLocation, options: { writerLockFile: string; report: (line: string) => void },
): Promise<CatalogMoveOutcome> {
  const source = from.catalog;
  const target = to.catalog;
  if (source.kind !== 'sqlite' || target.kind !== 'postgres') throw new CatalogMoveError('Only the embedded catalog is copied this way, into a PostgreSQL one');
  if (from.dataPath !== to.dataPath) throw new CatalogMoveError(`The lake's data stays in ${from.dataPath}: the new catalog must name it`);
  if (!existsSync(source.file)) throw new CatalogMoveError(`There is no lake yet (${source.file}): set warehouse.catalog before the first sync, and the lake is made there`);
  const lock = await takeWriterLockFile(options.writerLockFile);
  const client = await connectCatalog(target);
  try {
    const existing = await lakeDataPathIn(client, target.metadataSchema);
    if (existing !== undefined) throw new CatalogMoveError(`The schema ${target.metadataSchema} holds a lake already (its data in ${existing}): name another with --schema; nothing was changed`);
    const before = await fingerprints(from);
    options.report(`${String(before.size)} table(s) to check after the copy`);
    const made = await openLakeForWriting(to);
    await made.close();
    let catalogRows: number;
    try {
      catalogRows = await copyCatalogRows(source.file, client, target, options.report);
      const after = await fingerprints(to);
      const differing = [...before].filter(([table, fingerprint]) => after.get(table) !== fingerprint).map(([table]) => table);
      if (differing.length > 0 || after.size !== before.size) {
        throw new CatalogMoveError(`Read back through PostgreSQL, ${differing.join(', ') || 'the list of tables'} differ(s) from the lake as it is; nothing was kept`);
      }
    } catch (error) {
      await dropLakeTables(client, target);
      throw error;
    }
    options.report('Every table reads back the same through PostgreSQL');
    return { tables: before.size, catalogRows };
  } finally {
    await client.end().catch(() => undefined);
    await lock.release();
  }
}

/** Replaces the rows of the new lake's tables with the embedded catalog's, in one transaction; counts checked. */
async function copyCatalogRows(file: string, client: pg.Client, catalog: PostgresCatalog, report: (line: string) => void): Promise<number> {
  const source = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
  try {
    const tables = (source.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'ducklake\\_%' ESCAPE '\\' ORDER BY name").all() as { name: string }[])
      .map((row) => row.name);
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
      await client.query('ROLLBACK');
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

/** Undoes a copy that did not check out: the schema itself (perhaps made by an administrator, with its grants) stays. */
async function dropLakeTables(client: pg.Client, catalog: PostgresCatalog): Promise<void> {
  for (const table of await lakeTables(client, catalog)) await client.query(`DROP TABLE IF EXISTS ${qualified(client, catalog, table)} CASCADE`);
}

function qualified(client: pg.Client, catalog: PostgresCatalog, table: string): string {
  return `${client.escapeIdentifier(catalog.metadataSchema)}.${client.escapeIdentifier(table)}`;
}
