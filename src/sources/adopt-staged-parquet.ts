import { randomUUID } from 'node:crypto';
import { copyFile, mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { LAKE_ALIAS, LAKE_FILE_CODEC, quoteIdentifier, quoteLiteral, type DuckDBConnection } from '../warehouse/index.ts';
import type { StagedFile } from './connector.ts';
import { LOADED_AT_COLUMN } from './sync-file-source.ts';

/**
 * The column types, as DuckDB reads them back from a Parquet file it wrote, that DuckLake 1.5.5 was checked to
 * map (adopt-staged-parquet.test.ts). A file with any other type (STRUCT, MAP, ...) is rewritten instead: a
 * failed adoption would fail the whole job's transaction.
 */
const ADOPTABLE_TYPE = new RegExp(
  '^(BOOLEAN|TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|FLOAT|DOUBLE|DECIMAL\\(\\d+,\\d+\\)'
  + '|DATE|TIME|TIMESTAMP|TIMESTAMP WITH TIME ZONE|INTERVAL|VARCHAR|BLOB|UUID|JSON)(\\[\\])?$',
);

/** How DuckLake names a schema's or a table's folder: after it, when the name is this plain; otherwise after a UUID nobody can predict. */
const PLAIN_FOLDER_NAME = /^[A-Za-z0-9_-]+$/;

/**
 * Makes `schema.name` a new table whose only data file is the staged Parquet file, moved into the table's folder
 * and recorded by DuckLake where it lies (`ducklake_add_data_files`) instead of rewritten: a million-row table
 * costs a rename and a commit. `_quarry_loaded_at` is added afterwards with the load's time as its initial
 * default, which is what DuckLake reads for a file written before the column existed.
 *
 * Returns false, having changed nothing, when the file cannot be adopted as it is: empty, written with another
 * codec than the lake's (the lake would grow), a column type DuckLake does not map, or a table folder whose name
 * DuckLake would make up (the file's path must sit under the table's, so the catalog holds it relative and a
 * restored backup still finds it). The caller then loads the file the usual way.
 *
 * A transaction that fails after the move leaves the file in the table's folder: nothing in the catalog refers
 * to it, and the lake's maintenance deletes such orphans.
 */
export async function adoptStagedParquet(
  connection: DuckDBConnection, target: { schema: string; name: string; file: StagedFile; loadedAt: string },
): Promise<boolean> {
  const { schema, name, file } = target;
  if (file.format !== 'parquet' || !PLAIN_FOLDER_NAME.test(schema) || !PLAIN_FOLDER_NAME.test(name)) return false;
  const dataPath = await lakeDataPath(connection);
  if (dataPath === undefined || !await isAdoptable(connection, file.path)) return false;
  const table = `${quoteIdentifier(schema)}.${quoteIdentifier(name)}`;
  await connection.run(`CREATE OR REPLACE TABLE ${table} AS SELECT * FROM read_parquet(${quoteLiteral(file.path)}) LIMIT 0`);
  const folder = path.join(dataPath, schema, name);
  await mkdir(folder, { recursive: true });
  const placed = path.join(folder, `quarry-${randomUUID()}.parquet`);
  await moveFile(file.path, placed);
  // On disk before the catalog names it, as the files DuckLake writes itself are.
  await syncToDisk(placed);
  await syncToDisk(folder);
  await connection.run(`CALL ducklake_add_data_files(${quoteLiteral(LAKE_ALIAS)}, ${quoteLiteral(name)}, ${quoteLiteral(placed)}, schema => ${quoteLiteral(schema)})`);
  const loadedAt = quoteIdentifier(LOADED_AT_COLUMN);
  await connection.run(`ALTER TABLE ${table} ADD COLUMN ${loadedAt} TIMESTAMP DEFAULT ${quoteLiteral(target.loadedAt)}`);
  // Rows inserted later name their load time; a default would hide a load that forgot to.
  await connection.run(`ALTER TABLE ${table} ALTER COLUMN ${loadedAt} DROP DEFAULT`);
  return true;
}

/** The lake's data folder when it is a local one; DuckLake tags its attached catalog with it. */
async function lakeDataPath(connection: DuckDBConnection): Promise<string | undefined> {
  const result = await connection.runAndReadAll(`SELECT tags['data_path'] FROM duckdb_databases() WHERE database_name = ${quoteLiteral(LAKE_ALIAS)}`);
  const value = result.getRows()[0]?.[0];
  return typeof value === 'string' && path.isAbsolute(value) ? value : undefined;
}

/**
 * Whether the file has rows (DuckLake records no data file for an empty one, which would then lie in the table's
 * folder as an orphan), every column a type DuckLake maps, and every column chunk the lake's own codec.
 */
async function isAdoptable(connection: DuckDBConnection, file: string): Promise<boolean> {
  const at = quoteLiteral(file);
  // One row per column chunk: a row group's rows counted once, at its first column.
  const chunks = await connection.runAndReadAll(`SELECT coalesce(sum(row_group_num_rows) FILTER (WHERE column_id = 0), 0)::BIGINT,
    coalesce(bool_and(compression = ${quoteLiteral(LAKE_FILE_CODEC)}), false) FROM parquet_metadata(${at})`);
  const [rows, lakeCodec] = chunks.getRows()[0] ?? [0n, false];
  if (Number(rows) === 0 || lakeCodec !== true) return false;
  const columns = await connection.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(${at}))`);
  return columns.getRows().every(([column, type]) => column !== LOADED_AT_COLUMN && ADOPTABLE_TYPE.test(String(type)));
}

async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await copyFile(from, to);
    await unlink(from);
  }
}

async function syncToDisk(file: string): Promise<void> {
  const handle = await open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
