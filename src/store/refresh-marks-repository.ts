import type { PlatformDatabase } from './platform-database.ts';

/** Sources whose next sync must be a full refresh (a restore put their raw tables back). */
export class RefreshMarksRepository {
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async mark(source: string, reason: string, now: string): Promise<void> {
    await this.#database.run(`
      INSERT INTO refresh_marks (source, reason, marked_at) VALUES (?, ?, ?)
      ON CONFLICT (source) DO UPDATE SET reason = excluded.reason, marked_at = excluded.marked_at`, source, reason, now);
  }

  async isMarked(source: string): Promise<boolean> {
    return await this.#database.get('SELECT 1 FROM refresh_marks WHERE source = ?', source) !== undefined;
  }

  async clear(source: string): Promise<void> {
    await this.#database.run('DELETE FROM refresh_marks WHERE source = ?', source);
  }
}
