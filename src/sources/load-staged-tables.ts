import { quoteIdentifier, quoteLiteral, type DuckDBConnection } from '../warehouse/index.ts';
import { adoptStagedParquet } from './adopt-staged-parquet.ts';
import type { StagedFile, TableSpec } from './connector.ts';
import type { DateWindow } from './date-window.ts';
import { describeColumns, evolveTable } from './evolve-schema.ts';
import type { StagedTable } from './staging-area.ts';
import { SyncFailedError } from './sync-failed-error.ts';
import { LOADED_AT_COLUMN, rawSchemaOf } from './sync-file-source.ts';

export interface LoadedTable {
  readonly schema: string;
  readonly name: string;
  readonly rowCount: number;
  /** The connector's merge key, for a table loaded by merging. */
  readonly primaryKey?: readonly string[];
}

export interface StagedLoadOutcome {
  readonly tables: LoadedTable[];
  /** Rows written by this load (new, replaced or merged), over all tables. */
  readonly rowsLoaded: number;
  readonly messages: { level: 'INFO' | 'WARNING'; message: string }[];
}

const SEQUENCE_COLUMN = '_quarry_sequence';

/** The reader of one staged file. */
function readerSql(file: StagedFile): string {
  const at = quoteLiteral(file.path);
  switch (file.format) {
    case 'jsonl': return jsonLinesSql([file]);
    case 'parquet': return `SELECT * FROM read_parquet(${at})`;
    case 'csv': {
      const columns = file.columns === undefined ? '' : `, auto_detect = false, columns = {${Object.entries(file.columns)
        .map(([name, type]) => `${quoteLiteral(name)}: ${quoteLiteral(type)}`).join(', ')}}`;
      return `SELECT * FROM read_csv(${at}, header = true, allow_quoted_nulls = false${columns})`;
    }
  }
}

/**
 * A table's JSON lines, read as one: every record of every file is sampled (DuckDB otherwise samples only the
 * first 32 files), so a type or a key first seen deep in a large extraction cannot fail the load or be left out,
 * and one inference covers them all. The staging area splits a table's records over several files so that the
 * inference runs on every core.
 */
function jsonLinesSql(files: readonly StagedFile[]): string {
  const paths = files.map((file) => quoteLiteral(file.path)).join(', ');
  return `SELECT * FROM read_json([${paths}], format = 'newline_delimited', sample_size = -1, maximum_sample_files = -1)`;
}

/** The staged rows of one table with their load time; the JSON lines among its files are read as one, where the first of them stands. */
function stagedSelect(files: readonly StagedFile[], loadedAt: string): string {
  const jsonLines = files.filter((file) => file.format === 'jsonl');
  const readers = files.flatMap((file) => {
    if (file.format !== 'jsonl') return [readerSql(file)];
    return file === jsonLines[0] ? [jsonLinesSql(jsonLines)] : [];
  });
  return `SELECT *, ${quoteLiteral(loadedAt)}::TIMESTAMP AS ${LOADED_AT_COLUMN} FROM (${readers.join(' UNION ALL BY NAME ')})`;
}

/**
 * Loads what a connector staged into the source's raw schema, inside the caller's transaction:
 * `replace` swaps a table whole, `append` adds rows, `merge` replaces rows with the same primary key.
 * New columns are added and conflicting types widened, as for files. With a backfill's `window`, a
 * `replace` table with a `windowColumn` has only the rows of the window replaced.
 */
export async function loadStagedTables(
  connection: DuckDBConnection, source: string, staged: readonly StagedTable[], options: { fullRefresh: boolean; now: Date; window?: DateWindow | undefined },
): Promise<StagedLoadOutcome> {
  const schema = rawSchemaOf(source);
  const messages: StagedLoadOutcome['messages'] = [];
  const loadedAt = options.now.toISOString().replace('T', ' ').replace('Z', '');
  await connection.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(schema)}`);
  const tables: LoadedTable[] = [];
  let rowsLoaded = 0;
  for (const { spec, files } of staged) {
    const table = `${quoteIdentifier(schema)}.${quoteIdentifier(spec.name)}`;
    const exists = await tableExists(connection, schema, spec.name);
    if (spec.disposition === 'history') {
      const history = await loadHistory(connection, table, { exists: exists && !options.fullRefresh, files, loadedAt, key: spec.primaryKey ?? [] });
      for (const change of history.changes) messages.push({ level: 'WARNING', message: `Schema change in ${spec.name}: ${change}` });
      rowsLoaded += history.rowsWritten;
      tables.push({ schema, name: spec.name, rowCount: await countRows(connection, table) });
      continue;
    }
    const disposition = options.fullRefresh ? 'replace' : spec.disposition;
    const window = options.window === undefined || spec.windowColumn === undefined || disposition !== 'replace' ? undefined : options.window;
    if (window !== undefined) {
      // A window the vendor answers with nothing leaves the table as it is, as an incremental sync that finds nothing does.
      if (files.length > 0) {
        const replaced = await replaceWindow(connection, table, { exists, select: stagedSelect(files, loadedAt), spec, window });
        for (const change of replaced.changes) messages.push({ level: 'WARNING', message: `Schema change in ${spec.name}: ${change}` });
        rowsLoaded += replaced.rowsWritten;
      }
    } else if (files.length === 0) {
      if (disposition === 'replace' && exists) {
        const rows = await countRows(connection, table);
        if (rows > 0 && !options.fullRefresh) {
          throw new SyncFailedError(
            `The source returned no records for ${spec.name}; refusing to replace ${String(rows)} loaded rows with nothing. `
            + 'Run a full refresh to empty the table on purpose.',
          );
        }
        await connection.run(`DELETE FROM ${table}`);
      } else if (!exists) {
        await connection.run(`CREATE TABLE ${table} (${LOADED_AT_COLUMN} TIMESTAMP)`);
      }
    } else {
      const select = stagedSelect(files, loadedAt);
      if (disposition === 'replace' || !exists) {
        // A keyed table holds one row per key from its first load on, full refreshes included.
        const keys = spec.disposition === 'merge' ? spec.primaryKey ?? [] : [];
        const single = keys.length === 0 ? soleFile(files) : undefined;
        const adopted = single !== undefined && await adoptStagedParquet(connection, { schema, name: spec.name, file: single, loadedAt });
        if (!adopted) await connection.run(`CREATE OR REPLACE TABLE ${table} AS ${keys.length > 0 ? latestPerKey(select, keys) : select}`);
        rowsLoaded += await countRows(connection, table);
      } else {
        const changes = await evolveTable(connection, table, await describeColumns(connection, select));
        for (const change of changes) messages.push({ level: 'WARNING', message: `Schema change in ${spec.name}: ${change}` });
        if (disposition === 'append') {
          const before = await countRows(connection, table);
          await connection.run(`INSERT INTO ${table} BY NAME ${select}`);
          rowsLoaded += await countRows(connection, table) - before;
        } else {
          rowsLoaded += await mergeInto(connection, table, select, spec.primaryKey ?? []);
        }
      }
    }
    const primaryKey = spec.disposition === 'merge' && spec.primaryKey !== undefined && spec.primaryKey.length > 0 ? spec.primaryKey : undefined;
    tables.push({ schema, name: spec.name, rowCount: await countRows(connection, table), ...(primaryKey ? { primaryKey } : {}) });
  }
  return { tables, rowsLoaded, messages };
}

export const VALID_FROM_COLUMN = 'valid_from';
export const VALID_TO_COLUMN = 'valid_to';
export const IS_CURRENT_COLUMN = 'is_current';

/**
 * Slowly changing dimension, type 2: a key extracted now but not current in the table opens a
 * version valid from now; a current key no longer extracted is closed at now. A full refresh starts
 * the history over.
 */
async function loadHistory(
  connection: DuckDBConnection, table: string,
  load: { exists: boolean; files: readonly StagedFile[]; loadedAt: string; key: readonly string[] },
): Promise<{ changes: string[]; rowsWritten: number }> {
  if (load.key.length === 0) throw new SyncFailedError(`Cannot keep the history of ${table} without a key`);
  const now = `${quoteLiteral(load.loadedAt)}::TIMESTAMP`;
  const validFrom = quoteIdentifier(VALID_FROM_COLUMN);
  const validTo = quoteIdentifier(VALID_TO_COLUMN);
  const isCurrent = quoteIdentifier(IS_CURRENT_COLUMN);
  const keys = load.key.map(quoteIdentifier).join(', ');
  if (load.files.length === 0) {
    if (load.exists) {
      const closed = await connection.run(`UPDATE ${table} SET ${validTo} = ${now}, ${isCurrent} = false WHERE ${isCurrent}`);
      return { changes: [], rowsWritten: closed.rowsChanged };
    }
    await connection.run(`CREATE OR REPLACE TABLE ${table} (${LOADED_AT_COLUMN} TIMESTAMP, ${validFrom} TIMESTAMP, ${validTo} TIMESTAMP, ${isCurrent} BOOLEAN)`);
    return { changes: [], rowsWritten: 0 };
  }
  const staged = stagedSelect(load.files, load.loadedAt);
  const versions = `SELECT *, ${now} AS ${validFrom}, NULL::TIMESTAMP AS ${validTo}, true AS ${isCurrent} FROM (${staged})`;
  if (!load.exists) {
    await connection.run(`CREATE OR REPLACE TABLE ${table} AS ${versions}`);
    return { changes: [], rowsWritten: await countRows(connection, table) };
  }
  const changes = await evolveTable(connection, table, await describeColumns(connection, versions));
  const closed = await connection.run(`UPDATE ${table} SET ${validTo} = ${now}, ${isCurrent} = false
    WHERE ${isCurrent} AND (${keys}) NOT IN (SELECT (${keys}) FROM (${staged}))`);
  const opened = await connection.run(`INSERT INTO ${table} BY NAME SELECT * FROM (${versions})
    WHERE (${keys}) NOT IN (SELECT (${keys}) FROM ${table} WHERE ${isCurrent})`);
  return { changes, rowsWritten: closed.rowsChanged + opened.rowsChanged };
}

/** Deletes the table's rows whose day falls within the window, then inserts the window's rows as extracted. */
async function replaceWindow(
  connection: DuckDBConnection, table: string, load: { exists: boolean; select: string; spec: TableSpec; window: DateWindow },
): Promise<{ changes: string[]; rowsWritten: number }> {
  if (!load.exists) {
    await connection.run(`CREATE TABLE ${table} AS ${load.select}`);
    return { changes: [], rowsWritten: await countRows(connection, table) };
  }
  const changes = await evolveTable(connection, table, await describeColumns(connection, load.select));
  const day = `TRY_CAST(${windowColumnSql(load.spec.windowColumn ?? '')} AS DATE)`;
  await connection.run(`DELETE FROM ${table} WHERE ${day} BETWEEN ${quoteLiteral(load.window.since)}::DATE AND ${quoteLiteral(load.window.until)}::DATE`);
  const inserted = await connection.run(`INSERT INTO ${table} BY NAME ${load.select}`);
  return { changes, rowsWritten: inserted.rowsChanged };
}

/** `segments.date` → "segments"."date": a column, or a field of a STRUCT column. */
function windowColumnSql(path: string): string {
  return path.split('.').map(quoteIdentifier).join('.');
}

/** Every table of the source's raw schema with its row count: what a backfill, which loads only some, reports. */
export async function rawTablesOf(connection: DuckDBConnection, source: string): Promise<LoadedTable[]> {
  const schema = rawSchemaOf(source);
  const result = await connection.runAndReadAll(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ${quoteLiteral(schema)} ORDER BY table_name`,
  );
  const tables: LoadedTable[] = [];
  for (const row of result.getRowObjects()) {
    const name = String(row.name);
    tables.push({ schema, name, rowCount: await countRows(connection, `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`) });
  }
  return tables;
}

/** The rows of `select`, one per key: of several records with one key, the last extracted. */
function latestPerKey(select: string, primaryKey: readonly string[]): string {
  return `SELECT * EXCLUDE (${SEQUENCE_COLUMN}) FROM (SELECT *, row_number() OVER () AS ${SEQUENCE_COLUMN} FROM (${select}))
    QUALIFY row_number() OVER (PARTITION BY ${primaryKey.map(quoteIdentifier).join(', ')} ORDER BY ${SEQUENCE_COLUMN} DESC) = 1`;
}

/**
 * Replaces the rows whose primary key the new records carry; of several records with one key, the last
 * extracted wins. Returns how many rows were merged in.
 */
async function mergeInto(connection: DuckDBConnection, table: string, select: string, primaryKey: readonly string[]): Promise<number> {
  if (primaryKey.length === 0) throw new SyncFailedError(`Cannot merge into ${table} without a primary key`);
  const keys = primaryKey.map(quoteIdentifier);
  await connection.run('DROP TABLE IF EXISTS temp.quarry_merge');
  await connection.run(`CREATE TEMP TABLE quarry_merge AS ${latestPerKey(select, primaryKey)}`);
  const matches = keys.map((key) => `${table}.${key} = quarry_merge.${key}`).join(' AND ');
  await connection.run(`DELETE FROM ${table} USING temp.quarry_merge WHERE ${matches}`);
  await connection.run(`INSERT INTO ${table} BY NAME SELECT * FROM temp.quarry_merge`);
  const merged = await countRows(connection, 'temp.quarry_merge');
  await connection.run('DROP TABLE temp.quarry_merge');
  return merged;
}

/** The one file a table was staged in, if it was one. */
function soleFile(files: readonly StagedFile[]): StagedFile | undefined {
  return files.length === 1 ? files[0] : undefined;
}

async function tableExists(connection: DuckDBConnection, schema: string, name: string): Promise<boolean> {
  const result = await connection.runAndReadAll(
    `SELECT count(*)::INTEGER AS n FROM information_schema.tables WHERE table_schema = ${quoteLiteral(schema)} AND table_name = ${quoteLiteral(name)}`,
  );
  return Number(result.getRowObjects()[0]?.n ?? 0) > 0;
}

async function countRows(connection: DuckDBConnection, table: string): Promise<number> {
  const result = await connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${table}`);
  return Number(result.getRowObjects()[0]?.n ?? 0);
}
