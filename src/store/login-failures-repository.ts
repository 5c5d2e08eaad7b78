import type { DatabaseSync } from 'node:sqlite';

export interface LoginFailureRecord {
  readonly failures: number;
  readonly lockedUntil: string | null;
}

/** Failed password logins per (client IP, email), kept in the platform DB so a restart forgets nothing. */
export class LoginFailuresRepository {
  readonly #database: DatabaseSync;
  constructor(database: DatabaseSync) {
    this.#database = database;
  }

  find(ip: string, email: string): LoginFailureRecord | undefined {
    const row = this.#database.prepare('SELECT failures, locked_until FROM login_failures WHERE ip = ? AND email = ?')
      .get(ip, email) as { failures: number; locked_until: string | null } | undefined;
    return row ? { failures: row.failures, lockedUntil: row.locked_until } : undefined;
  }

  /** Counts one more failure and returns the new count. */
  increment(ip: string, email: string, now: string): number {
    const row = this.#database.prepare(`
      INSERT INTO login_failures (ip, email, failures, first_failed_at) VALUES (?, ?, 1, ?)
      ON CONFLICT (ip, email) DO UPDATE SET failures = failures + 1
      RETURNING failures`).get(ip, email, now) as { failures: number };
    return row.failures;
  }

  lock(ip: string, email: string, until: string): void {
    this.#database.prepare('UPDATE login_failures SET locked_until = ? WHERE ip = ? AND email = ?').run(until, ip, email);
  }

  clear(ip: string, email: string): void {
    this.#database.prepare('DELETE FROM login_failures WHERE ip = ? AND email = ?').run(ip, email);
  }

  /** Clears every pair for the email; returns how many there were. */
  clearEmail(email: string): number {
    return Number(this.#database.prepare('DELETE FROM login_failures WHERE email = ?').run(email).changes);
  }
}
