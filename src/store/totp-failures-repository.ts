import type { DatabaseSync } from 'node:sqlite';

export interface TotpFailureRecord {
  readonly failures: number;
  readonly lockedUntil: string | null;
}

/** Wrong two-factor codes per user since the last right one, kept in the platform DB so a restart forgets nothing. */
export class TotpFailuresRepository {
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  find(userId: number): TotpFailureRecord | undefined {
    const row = this.#database.prepare('SELECT failures, locked_until FROM totp_failures WHERE user_id = ?')
      .get(userId) as { failures: number; locked_until: string | null } | undefined;
    return row ? { failures: row.failures, lockedUntil: row.locked_until } : undefined;
  }

  /** Counts one more failure and returns the new count. */
  increment(userId: number): number {
    const row = this.#database.prepare(`
      INSERT INTO totp_failures (user_id, failures) VALUES (?, 1)
      ON CONFLICT (user_id) DO UPDATE SET failures = failures + 1
      RETURNING failures`).get(userId) as { failures: number };
    return row.failures;
  }

  lock(userId: number, until: string): void {
    this.#database.prepare('UPDATE totp_failures SET locked_until = ? WHERE user_id = ?').run(until, userId);
  }

  /** Forgets the user's failures; returns whether there were any. */
  clear(userId: number): boolean {
    return Number(this.#database.prepare('DELETE FROM totp_failures WHERE user_id = ?').run(userId).changes) > 0;
  }
}
