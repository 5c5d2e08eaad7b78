import type { DuckDBConnection } from '@duckdb/node-api';
import type { ProjectPaths } from '../config/index.ts';
import type { Logger } from '../logger.ts';
import { QUARRY_AUTHOR } from './commit-label.ts';
import { LAKE_ALIAS } from './lake-location.ts';
import type { LakeWrite } from './lake-writer.ts';
import { quoteIdentifier, quoteLiteral } from './sql.ts';

const LEGACY = 'legacy';

interface TableName { readonly schema: string; readonly name: string }

/**
 * Copies every table of the single-file warehouse into the lake in one transaction (one snapshot),
 * checking each table's row count, then makes its views again. A lake that already holds every table
 * with the same counts (converted before the old file was renamed) is only checked.
 */
export async function convertLegacyWarehouse(write: LakeWrite, paths: ProjectPaths, log: Logger): Promise<void> {
  log.info({ file: paths.legacyWarehouseFile }, 'converting the single-file warehouse into the lake');
  const { connection } = write;
  await connection.run(`ATTACH ${quoteLiteral(paths.legacyWarehouseFile)} AS ${LEGACY} (READ_ONLY)`);
  const tables = await rowsOf<{ schema: string; name: string }>(connection,
    `SELECT schema_name AS schema, table_name AS name FROM duckdb_tables() WHERE database_name = '${LEGACY}' AND NOT internal ORDER BY 1, 2`);
  const expected = await countRows(connection, LEGACY, tables);
  const inLake = await countRows(connection, LAKE_ALIAS, tables).catch(() => undefined);
  if (inLake !== undefined && sameCounts(expected, inLake)) {
    log.info({ tables: tables.length }, 'the lake already holds every table of the old warehouse (converted before the old file was renamed)');
  } else {
    await write.transaction(async () => {
      for (const table of tables) {
        await connection.run(`CREATE SCHEMA IF NOT EXISTS ${LAKE_ALIAS}.${quoteIdentifier(table.schema)}`);
        await connection.run(`CREATE TABLE ${LAKE_ALIAS}.${qualified(table)} AS SELECT * FROM ${LEGACY}.${qualified(table)}`);
      }
      const copied = await countRows(connection, LAKE_ALIAS, tables);
      if (!sameCounts(expected, copied)) throw new Error('The row counts of the lake differ from the old warehouse file after copying; nothing was converted');
      // No job makes this snapshot, so it carries a message of its own.
      await connection.run(`CALL ${LAKE_ALIAS}.set_commit_message(${quoteLiteral(QUARRY_AUTHOR)}, 'converted the single-file warehouse into the lake')`);
    });
  }
  await recreateViews(connection, log);
  await connection.run(`DETACH ${LEGACY}`);
  log.info({ tables: tables.length, rows: [...expected.values()].reduce((sum, rows) => sum + rows, 0) }, 'converted the single-file warehouse into the lake; every table\'s row count checked');
}

/**
 * Makes the old file's views again in the lake (dbt's staging views, say), each on its own: one that
 * cannot be made is logged, and the next model run builds it.
 */
async function recreateViews(connection: DuckDBConnection, log: Logger): Promise<void> {
  const views = await rowsOf<{ schema: string; name: string; sql: string }>(connection,
    `SELECT schema_name AS schema, view_name AS name, sql FROM duckdb_views() WHERE database_name = '${LEGACY}' AND NOT internal ORDER BY 1, 2`);
  for (const view of views) {
    // The old file was named warehouse.duckdb, so its views name their tables "warehouse"...: the lake's alias.
    try {
      await connection.run(`CREATE SCHEMA IF NOT EXISTS ${LAKE_ALIAS}.${quoteIdentifier(view.schema)}`);
      await connection.run(view.sql);
    } catch (error) {
      log.warn({ err: error, view: `${view.schema}.${view.name}` }, 'a view of the old warehouse could not be made in the lake; the next model run builds it');
    }
  }
}

async function countRows(connection: DuckDBConnection, database: string, tables: readonly TableName[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const table of tables) {
    const [row] = await rowsOf<{ n: bigint }>(connection, `SELECT count(*) AS n FROM ${quoteIdentifier(database)}.${qualified(table)}`);
    counts.set(`${table.schema}.${table.name}`, Number(row?.n ?? 0));
  }
  return counts;
}

function sameCounts(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): boolean {
  return a.size === b.size && [...a].every(([name, rows]) => b.get(name) === rows);
}

function qualified(table: TableName): string {
  return `${quoteIdentifier(table.schema)}.${quoteIdentifier(table.name)}`;
}

async function rowsOf<T>(connection: DuckDBConnection, sql: string): Promise<T[]> {
  return (await connection.runAndReadAll(sql)).getRowObjects() as T[];
}
