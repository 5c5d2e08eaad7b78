import type { DatabaseSync } from 'node:sqlite';

/** Sources whose next sync must be a full refresh (a restore put their raw tables back). */
export class RefreshMarksRepository {
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  mark(source: string, reason: string, now: string): void {
    this.#database.prepare(`
      INSERT INTO refresh_marks (source, reason, marked_at) VALUES (?, ?, ?)
      ON CONFLICT (source) DO UPDATE SET reason = excluded.reason, marked_at = excluded.marked_at`).run(source, reason, now);
  }

  isMarked(source: string): boolean {
    return this.#database.prepare('SELECT 1 FROM refresh_marks WHERE source = ?').get(source) !== undefined;
  }

  clear(source: string): void {
    this.#database.prepare('DELETE FROM refresh_marks WHERE source = ?').run(source);
  }
}
