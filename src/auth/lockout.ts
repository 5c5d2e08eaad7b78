import { QuarryError } from '../errors.ts';
import type { Store } from '../store/index.ts';

const MAX_FAILURES = 5;
const LOCK_MS = 15 * 60_000;

export class LockedOutError extends QuarryError {
  readonly code = 'locked_out';
  override readonly headers: Record<string, string>;
  constructor(retryAfterSeconds: number) {
    super(`Too many failed logins: try again in ${Math.ceil(retryAfterSeconds / 60)} minutes`);
    this.headers = { 'retry-after': String(retryAfterSeconds) };
  }
}

/**
 * The 5th failed login for one (client IP, email) pair locks that pair for 15 minutes,
 * whether or not the email belongs to a user, so lockouts reveal nothing about accounts.
 */
export class Lockout {
  readonly #store: Store;
  readonly #now: () => Date;
  constructor(store: Store, now: () => Date) {
    this.#store = store;
    this.#now = now;
  }

  assertNotLocked(ip: string, email: string): void {
    const record = this.#store.loginFailures.find(ip, email);
    if (record?.lockedUntil == null) return;
    const remainingMs = Date.parse(record.lockedUntil) - this.#now().getTime();
    if (remainingMs > 0) throw new LockedOutError(Math.ceil(remainingMs / 1000));
    this.#store.loginFailures.clear(ip, email);
  }

  /** Records a failure; returns true when it locked the pair. */
  recordFailure(ip: string, email: string): boolean {
    const now = this.#now();
    return this.#store.transaction(() => {
      const failures = this.#store.loginFailures.increment(ip, email, now.toISOString());
      if (failures < MAX_FAILURES) return false;
      this.#store.loginFailures.lock(ip, email, new Date(now.getTime() + LOCK_MS).toISOString());
      return true;
    });
  }

  recordSuccess(ip: string, email: string): void {
    this.#store.loginFailures.clear(ip, email);
  }

  unlock(email: string): number {
    return this.#store.loginFailures.clearEmail(email);
  }
}
