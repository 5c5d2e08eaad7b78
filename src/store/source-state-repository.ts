import type { DatabaseSync } from 'node:sqlite';

/** Each incremental source's cursor per resource, as JSON, written with the job that loaded up to it. */
export class SourceStateRepository {
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  forSource(source: string): Map<string, unknown> {
    const rows = this.#database.prepare('SELECT resource, value FROM source_state WHERE source = ?').all(source) as unknown as
      { resource: string; value: string }[];
    return new Map(rows.map((row) => [row.resource, JSON.parse(row.value) as unknown]));
  }

  save(source: string, values: ReadonlyMap<string, unknown>, now: string): void {
    const upsert = this.#database.prepare(`
      INSERT INTO source_state (source, resource, value, updated_at) VALUES (?, ?, ?, ?)
      ON CONFLICT (source, resource) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`);
    for (const [resource, value] of values) upsert.run(source, resource, JSON.stringify(value), now);
  }

  clear(source: string): void {
    this.#database.prepare('DELETE FROM source_state WHERE source = ?').run(source);
  }
}
