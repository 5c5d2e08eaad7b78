import type { PlatformDatabase } from './platform-database.ts';

export interface TotpFailureRecord {
  readonly failures: number;
  readonly lockedUntil: string | null;
}

/** Wrong two-factor codes per user since the last right one, kept in the platform DB so a restart forgets nothing. */
export class TotpFailuresRepository {
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async find(userId: number): Promise<TotpFailureRecord | undefined> {
    const row = await this.#database.get<{ failures: number; locked_until: string | null }>(
      'SELECT failures, locked_until FROM totp_failures WHERE user_id = ?', userId);
    return row ? { failures: row.failures, lockedUntil: row.locked_until } : undefined;
  }

  /** Counts one more failure and returns the new count. */
  async increment(userId: number): Promise<number> {
    const row = await this.#database.get<{ failures: number }>(`
      INSERT INTO totp_failures (user_id, failures) VALUES (?, 1)
      ON CONFLICT (user_id) DO UPDATE SET failures = totp_failures.failures + 1
      RETURNING failures`, userId) as { failures: number };
    return row.failures;
  }

  async lock(userId: number, until: string): Promise<void> {
    await this.#database.run('UPDATE totp_failures SET locked_until = ? WHERE user_id = ?', until, userId);
  }

  /** Forgets the user's failures; returns whether there were any. */
  async clear(userId: number): Promise<boolean> {
    return await this.#database.run('DELETE FROM totp_failures WHERE user_id = ?', userId) > 0;
  }
}
