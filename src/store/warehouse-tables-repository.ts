import type { PlatformDatabase } from './platform-database.ts';

export const LAYERS = ['raw', 'staging', 'marts'] as const;
export type Layer = (typeof LAYERS)[number];

/** What the jobs that change the warehouse recorded about it, so readers never open the warehouse. */
export class WarehouseTablesRepository {
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  /** Replaces what is recorded for one source's raw tables. Call inside a transaction. */
  async replaceForSource(
    source: string, tables: readonly { schema: string; name: string; rowCount: number; primaryKey?: readonly string[] }[], now: string,
  ): Promise<void> {
    await this.#database.transaction(async () => {
      await this.#database.run("DELETE FROM warehouse_tables WHERE source_name = ? AND layer = 'raw'", source);
      for (const table of tables) {
        await this.#database.run(`
          INSERT INTO warehouse_tables (schema_name, table_name, layer, source_name, row_count, updated_at, primary_key) VALUES (?, ?, 'raw', ?, ?, ?, ?)
          ON CONFLICT (schema_name, table_name) DO UPDATE SET row_count = excluded.row_count, updated_at = excluded.updated_at, source_name = excluded.source_name,
            primary_key = excluded.primary_key`,
          table.schema, table.name, source, table.rowCount, now, table.primaryKey === undefined ? null : JSON.stringify(table.primaryKey));
      }
    });
  }

  /** Records a table or view a model run built in the staging or marts layer. */
  async replaceModelTable(table: { schema: string; name: string; layer: Exclude<Layer, 'raw'>; rowCount: number }, now: string): Promise<void> {
    await this.#database.run(`
      INSERT INTO warehouse_tables (schema_name, table_name, layer, source_name, row_count, updated_at) VALUES (?, ?, ?, NULL, ?, ?)
      ON CONFLICT (schema_name, table_name) DO UPDATE SET layer = excluded.layer, row_count = excluded.row_count, updated_at = excluded.updated_at`,
      table.schema, table.name, table.layer, table.rowCount, now);
  }

  /** A source's tables; `primaryKey` is the merge key of a raw table loaded by merging, else empty. */
  async forSource(source: string): Promise<{ schema: string; name: string; rowCount: number; primaryKey: string[] }[]> {
    const rows = await this.#database.all<{ schema_name: string; table_name: string; row_count: number; primary_key: string | null }>(
      'SELECT schema_name, table_name, row_count, primary_key FROM warehouse_tables WHERE source_name = ? ORDER BY table_name', source);
    return rows.map((row) => ({
      schema: row.schema_name, name: row.table_name, rowCount: row.row_count, primaryKey: row.primary_key === null ? [] : JSON.parse(row.primary_key) as string[],
    }));
  }

  async inLayer(layer: Layer): Promise<{ schema: string; name: string }[]> {
    const rows = await this.#database.all<{ schema_name: string; table_name: string }>(
      'SELECT schema_name, table_name FROM warehouse_tables WHERE layer = ? ORDER BY schema_name, table_name', layer);
    return rows.map((row) => ({ schema: row.schema_name, name: row.table_name }));
  }

  async countByLayer(): Promise<Record<Layer, number>> {
    const counts: Record<Layer, number> = { raw: 0, staging: 0, marts: 0 };
    const rows = await this.#database.all<{ layer: Layer; n: number }>('SELECT layer, count(*) AS n FROM warehouse_tables GROUP BY layer');
    for (const row of rows) counts[row.layer] = row.n;
    return counts;
  }
}
