import type { PlatformDatabase } from './platform-database.ts';

export interface LoginFailureRecord {
  readonly failures: number;
  readonly lockedUntil: string | null;
}

/** Failed password logins per (client IP, email), kept in the platform DB so a restart forgets nothing. */
export class LoginFailuresRepository {
  readonly #database: PlatformDatabase;
  constructor(database: PlatformDatabase) {
    this.#database = database;
  }

  async find(ip: string, email: string): Promise<LoginFailureRecord | undefined> {
    const row = await this.#database.get<{ failures: number; locked_until: string | null }>(
      'SELECT failures, locked_until FROM login_failures WHERE ip = ? AND email = ?', ip, email,
    );
    return row ? { failures: row.failures, lockedUntil: row.locked_until } : undefined;
  }

  /** Counts one more failure and returns the new count. */
  async increment(ip: string, email: string, now: string): Promise<number> {
    const row = await this.#database.get<{ failures: number }>(`
      INSERT INTO login_failures (ip, email, failures, first_failed_at) VALUES (?, ?, 1, ?)
      ON CONFLICT (ip, email) DO UPDATE SET failures = login_failures.failures + 1
      RETURNING failures`, ip, email, now) as { failures: number };
    return row.failures;
  }

  async lock(ip: string, email: string, until: string): Promise<void> {
    await this.#database.run('UPDATE login_failures SET locked_until = ? WHERE ip = ? AND email = ?', until, ip, email);
  }

  async clear(ip: string, email: string): Promise<void> {
    await this.#database.run('DELETE FROM login_failures WHERE ip = ? AND email = ?', ip, email);
  }

  /** Clears every pair for the email; returns how many there were. */
  async clearEmail(email: string): Promise<number> {
    return await this.#database.run('DELETE FROM login_failures WHERE email = ?', email);
  }
}
