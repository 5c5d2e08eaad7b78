import type { DatabaseSync } from 'node:sqlite';
import type pg from 'pg';

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table. */
const BATCH_ROWS = 500;

/** The columns of a SQLite table, in their order. */
export function sqliteColumns(source: DatabaseSync, table: string): string[] {
  return (source.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').all(table) as { name: string }[]).map((row) => row.name);
}

/**
 * Copies every row of the SQLite table `table` into the PostgreSQL table `target` (a name as SQL says it, schema
 * included or found on the search path), column by column of the same names; PostgreSQL converts each value to its
 * column's type. Resolves with the number of rows copied. Run inside the caller's transaction.
 */
export async function copySqliteTable(source: DatabaseSync, client: pg.Client, table: string, target: string): Promise<number> {
  const columns = sqliteColumns(source, table);
  const columnList = columns.map(quoted).join(', ');
  const statement = source.prepare(`SELECT ${columnList} FROM ${quoted(table)}`);
  statement.setReturnArrays(true);
  let copied = 0;
  let batch: unknown[][] = [];
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const placeholders = batch.map((_, row) => `(${columns.map((__, column) => `$${String(row * columns.length + column + 1)}`).join(', ')})`);
    await client.query(`INSERT INTO ${target} (${columnList}) VALUES ${placeholders.join(', ')}`, batch.flat());
    copied += batch.length;
    batch = [];
  };
  for (const row of statement.iterate()) {
    batch.push(row as unknown as unknown[]);
    if (batch.length === BATCH_ROWS) await flush();
  }
  await flush();
  return copied;
}

/** A name as both SQLite and PostgreSQL read it, whatever it holds. */
function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
