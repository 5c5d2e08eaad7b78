import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { migratePostgres, migrateSqlite } from './migrations.ts';
import { copySqliteTable, sqliteColumns } from './sqlite-table-copy.ts';
import type { PostgresStoreAddress } from './store.ts';

/** Why a copy of the platform database was refused or undone; nothing in the destination changed. */
export class StoreCopyError extends Error {}

export interface StoreCopyOutcome {
  /** Rows copied per table, each checked against a count of the destination after the copy. */
  readonly rows: ReadonlyMap<string, number>;
}

/**
 * Copies the embedded platform database into an empty PostgreSQL store, in one transaction: every table, row for
 * row, ids kept (and each table's id sequence moved past them), then every table counted on both sides. Any
 * difference, or a destination that already holds rows, rolls it all back. The source is brought to this
 * Quarry's schema first, as starting Quarry would, and otherwise only read.
 */
export async function copyToPostgres(sourceFile: string, destination: PostgresStoreAddress, report: (line: string) => void): Promise<StoreCopyOutcome> {
  const source = new DatabaseSync(sourceFile, { timeout: 5000 });
  const client = new pg.Client({ ...destination.connection, options: `-c search_path=${destination.schema}` });
  try {
    migrateSqlite(source);
    await client.connect();
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${destination.schema}`);
    await migratePostgres(client);
    const tables = tablesOf(source);
    await client.query('BEGIN');
    try {
      await refuseUnlessEmpty(client, tables);
      // The migrations' own rows, and those the triggers add as the copied tables arrive, make way for the copied ones.
      await client.query('DELETE FROM credential_generation');
      const rows = new Map<string, number>();
      for (const table of [...tables.filter((name) => name !== 'table_changes'), 'table_changes']) {
        if (table === 'table_changes') await client.query('DELETE FROM table_changes');
        rows.set(table, await copySqliteTable(source, client, table, table));
        report(`${table}: ${String(rows.get(table))} row(s)`);
      }
      for (const table of tables.filter((name) => sqliteColumns(source, name).includes('id'))) await moveIdentityPast(client, table);
      await checkCounts(client, rows);
      await client.query('COMMIT');
      return { rows };
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  } finally {
    source.close();
    await client.end().catch(() => undefined);
  }
}

/** The platform's tables, parents before the tables whose foreign keys name them. */
function tablesOf(source: DatabaseSync): string[] {
  const names = (source.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[])
    .map((row) => row.name);
  const parents = (table: string) => (source.prepare(`SELECT DISTINCT "table" AS parent FROM pragma_foreign_key_list(?)`).all(table) as { parent: string }[])
    .map((row) => row.parent);
  const ordered: string[] = [];
  const visit = (table: string): void => {
    if (ordered.includes(table)) return;
    for (const parent of parents(table)) if (parent !== table) visit(parent);
    ordered.push(table);
  };
  for (const name of names) visit(name);
  return ordered;
}

async function refuseUnlessEmpty(client: pg.Client, tables: readonly string[]): Promise<void> {
  for (const table of tables) {
    if (table === 'credential_generation' || table === 'table_changes') continue;
    const { rows } = await client.query<{ found: number }>(`SELECT COUNT(*)::int AS found FROM ${table}`);
    const found = rows[0]?.found ?? 0;
    if (found > 0) {
      throw new StoreCopyError(`The PostgreSQL store already holds data (${String(found)} row(s) in ${table}): copy into an empty schema, or name another with --schema`);
    }
  }
}

/** Rows copied with their ids leave a table's identity behind them: the next row it numbers must come after. */
async function moveIdentityPast(client: pg.Client, table: string): Promise<void> {
  const { rows } = await client.query<{ sequence: string | null }>('SELECT pg_get_serial_sequence($1, $2) AS sequence', [table, 'id']);
  const sequence = rows[0]?.sequence ?? null;
  if (sequence === null) return;
  await client.query(`SELECT setval($1, (SELECT COALESCE(MAX(id), 0) + 1 FROM ${table}), false)`, [sequence]);
}

async function checkCounts(client: pg.Client, copied: ReadonlyMap<string, number>): Promise<void> {
  for (const [table, count] of copied) {
    const { rows } = await client.query<{ found: number }>(`SELECT COUNT(*)::int AS found FROM ${table}`);
    const found = rows[0]?.found ?? 0;
    if (found !== count) throw new StoreCopyError(`${table} holds ${String(found)} row(s) in PostgreSQL after the copy, not the ${String(count)} of platform.db: nothing was kept`);
  }
}
