import type { DatabaseSync } from 'node:sqlite';

export const LAYERS = ['raw', 'staging', 'marts'] as const;
export type Layer = (typeof LAYERS)[number];

/** What the jobs that change the warehouse recorded about it, so readers never open the warehouse. */
export class WarehouseTablesRepository {
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  /** Replaces what is recorded for one source's raw tables. Call inside a transaction. */
  replaceForSource(source: string, tables: readonly { schema: string; name: string; rowCount: number; primaryKey?: readonly string[] }[], now: string): void {
    this.#database.prepare("DELETE FROM warehouse_tables WHERE source_name = ? AND layer = 'raw'").run(source);
    const insert = this.#database.prepare(`
      INSERT INTO warehouse_tables (schema_name, table_name, layer, source_name, row_count, updated_at, primary_key) VALUES (?, ?, 'raw', ?, ?, ?, ?)
      ON CONFLICT (schema_name, table_name) DO UPDATE SET row_count = excluded.row_count, updated_at = excluded.updated_at, source_name = excluded.source_name,
        primary_key = excluded.primary_key`);
    for (const table of tables) {
      insert.run(table.schema, table.name, source, table.rowCount, now, table.primaryKey === undefined ? null : JSON.stringify(table.primaryKey));
    }
  }

  /** Records a table or view a model run built in the staging or marts layer. */
  replaceModelTable(table: { schema: string; name: string; layer: Exclude<Layer, 'raw'>; rowCount: number }, now: string): void {
    this.#database.prepare(`
      INSERT INTO warehouse_tables (schema_name, table_name, layer, source_name, row_count, updated_at) VALUES (?, ?, ?, NULL, ?, ?)
      ON CONFLICT (schema_name, table_name) DO UPDATE SET layer = excluded.layer, row_count = excluded.row_count, updated_at = excluded.updated_at`)
      .run(table.schema, table.name, table.layer, table.rowCount, now);
  }

  /** A source's tables; `primaryKey` is the merge key of a raw table loaded by merging, else empty. */
  forSource(source: string): { schema: string; name: string; rowCount: number; primaryKey: string[] }[] {
    const rows = this.#database.prepare('SELECT schema_name, table_name, row_count, primary_key FROM warehouse_tables WHERE source_name = ? ORDER BY table_name')
      .all(source) as unknown as { schema_name: string; table_name: string; row_count: number; primary_key: string | null }[];
    return rows.map((row) => ({
      schema: row.schema_name, name: row.table_name, rowCount: row.row_count, primaryKey: row.primary_key === null ? [] : JSON.parse(row.primary_key) as string[],
    }));
  }

  inLayer(layer: Layer): { schema: string; name: string }[] {
    const rows = this.#database.prepare('SELECT schema_name, table_name FROM warehouse_tables WHERE layer = ? ORDER BY schema_name, table_name')
      .all(layer) as unknown as { schema_name: string; table_name: string }[];
    return rows.map((row) => ({ schema: row.schema_name, name: row.table_name }));
  }

  countByLayer(): Record<Layer, number> {
    const counts: Record<Layer, number> = { raw: 0, staging: 0, marts: 0 };
    const rows = this.#database.prepare('SELECT layer, count(*) AS n FROM warehouse_tables GROUP BY layer').all() as unknown as
      { layer: Layer; n: number }[];
    for (const row of rows) counts[row.layer] = row.n;
    return counts;
  }
}
