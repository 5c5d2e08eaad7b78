import type { DatabaseSync } from 'node:sqlite';

export const LAYERS = ['raw', 'staging', 'marts'] as const;
export type Layer = (typeof LAYERS)[number];

/** What the jobs that change the warehouse recorded about it, so readers never open the warehouse. */
export class WarehouseTablesRepository {
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  countByLayer(): Record<Layer, number> {
    const counts: Record<Layer, number> = { raw: 0, staging: 0, marts: 0 };
    const rows = this.#database.prepare('SELECT layer, count(*) AS n FROM warehouse_tables GROUP BY layer').all() as unknown as
      { layer: Layer; n: number }[];
    for (const row of rows) counts[row.layer] = row.n;
    return counts;
  }
}
