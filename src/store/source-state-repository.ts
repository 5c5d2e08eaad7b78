import type { PlatformDatabase } from './platform-database.ts';

/** Each incremental source's cursor per resource, as JSON, written with the job that loaded up to it. */
export class SourceStateRepository {
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async forSource(source: string): Promise<Map<string, unknown>> {
    const rows = await this.#database.all<{ resource: string; value: string }>('SELECT resource, value FROM source_state WHERE source = ?', source);
    return new Map(rows.map((row) => [row.resource, JSON.parse(row.value) as unknown]));
  }

  async save(source: string, values: ReadonlyMap<string, unknown>, now: string): Promise<void> {
    await this.#database.transaction(async () => {
      for (const [resource, value] of values) {
        await this.#database.run(`
          INSERT INTO source_state (source, resource, value, updated_at) VALUES (?, ?, ?, ?)
          ON CONFLICT (source, resource) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
          source, resource, JSON.stringify(value), now);
      }
    });
  }

  async clear(source: string): Promise<void> {
    await this.#database.run('DELETE FROM source_state WHERE source = ?', source);
  }
}
