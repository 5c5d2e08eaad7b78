import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { Connector } from '../connector.ts';
import { connectDatabase, databaseCause, type DatabaseReader } from '../databases/index.ts';
import { requireEnv } from '../rest/index.ts';
import { SyncFailedError } from '../sync-failed-error.ts';
import { EnvVarName, NonEmptyString, StringList, genericConfig, defineSourceType, sectionOf } from '../type-definition/index.ts';

export const RelationalDbConfig = genericConfig({
  /** Names the variable holding a `postgresql://` or `mysql://` connection URL. */
  credentials_env: EnvVarName.default('RELATIONAL_DB_URL'),
  schema: NonEmptyString.optional(),
  /** Absent means every table of the schema. */
  table_names: StringList.optional(),
  /** Table → cursor column, for append or merge loads. */
  incremental: z.record(NonEmptyString, NonEmptyString).optional(),
});
export type RelationalDbConfig = z.output<typeof RelationalDbConfig>;

/**
 * `relational_db`: PostgreSQL and MySQL/MariaDB tables, read through DuckDB's own scanner in one snapshot for
 * the whole sync, each staged as a Parquet file with the column types the database declares. A table with a
 * cursor column in `incremental` loads only rows past the last cursor, merged on its primary key.
 */
const relationalDbConnector: Connector = {
  async extract(context, sink) {
    const config = sectionOf(context.source) as RelationalDbConfig;
    const variable = config.credentials_env;
    const url = requireEnv(context.env, variable, 'the database connection URL (postgresql://user:password@host:5432/db or mysql://...)');
    const reader = await connectDatabase(url, variable, context.outbound);
    try {
      await exportTables(reader, config, context, sink, new URL(url));
    } finally {
      // A connection cut off mid-export may not close politely; the stop must not wait on it.
      await Promise.race([reader.close().catch(() => undefined), sleep(2000, undefined, { ref: false })]);
    }
  },
};

async function exportTables(
  reader: DatabaseReader,
  config: RelationalDbConfig,
  context: Parameters<Connector['extract']>[0],
  sink: Parameters<Connector['extract']>[1],
  url: URL,
): Promise<void> {
  const schema = config.schema ?? reader.defaultSchema;
  const available = await reader.listTables(schema).catch((error: unknown) => {
    throw new SyncFailedError(`Could not list the tables of ${schema}: ${databaseCause(error, url)}`);
  });
  const wanted = config.table_names ?? available;
  const missing = wanted.filter((table) => !available.includes(table));
  if (missing.length > 0) throw new SyncFailedError(`No table ${missing.join(', ')} in the schema ${schema} (it has ${available.length === 0 ? 'no tables' : available.join(', ')})`);
  for (const [index, table] of wanted.entries()) {
    context.signal.throwIfAborted();
    const description = await reader.describe(schema, table);
    const cursorColumn = config.incremental?.[table];
    if (cursorColumn !== undefined && !description.columns.some((column) => column.name === cursorColumn)) {
      throw new SyncFailedError(`The cursor column ${cursorColumn} of ${table} does not exist (the table's schema changed upstream?)`);
    }
    const saved = context.fullRefresh ? undefined : context.state.get(table);
    const range = cursorColumn === undefined ? undefined : { column: cursorColumn, after: typeof saved === 'string' ? saved : undefined };
    const disposition = range === undefined ? 'replace' : description.primaryKey.length > 0 ? 'merge' : 'append';
    const writer = sink.table({ name: table, disposition, primaryKey: description.primaryKey });
    const file = path.join(context.workDir, `export-${String(index)}.parquet`);
    const result = await reader.exportParquet(schema, table, description, range, file, context.signal).catch((error: unknown) => {
      if (context.signal.aborted) throw error;
      throw new SyncFailedError(`Could not read ${schema}.${table}: ${databaseCause(error, url)}`);
    });
    if (result.exported) writer.addFile({ path: file, format: 'parquet' });
    if (result.highest !== undefined) context.state.set(table, result.highest);
    context.log('INFO', range?.after === undefined
      ? `Exported ${table}`
      : result.exported ? `Exported the rows of ${table} with ${range.column} after ${range.after}` : `No new rows in ${table}`);
  }
}

export const relationalDbType = defineSourceType({
  key: 'relational_db', category: 'Databases', authType: 'Basic', wizard: true, incremental: true,
  section: 'generic', schema: RelationalDbConfig,
  connector: relationalDbConnector,
});
