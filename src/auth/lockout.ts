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

  async assertNotLocked(ip: string, email: string): Promise<void> {
    if ((await this.#store.loginFailures.find(ip, email))?.lockedUntil == null) return;
    // Read again with the clearing of a lock that has run out, so that a failure recorded meanwhile is not cleared with it.
    const remainingMs = await this.#store.transaction(async () => {
      const record = await this.#store.loginFailures.find(ip, email);
      if (record?.lockedUntil == null) return 0;
      const remaining = Date.parse(record.lockedUntil) - this.#now().getTime();
      if (remaining <= 0) await this.#store.loginFailures.clear(ip, email);
      return remaining;
    });
    if (remainingMs > 0) throw new LockedOutError(Math.ceil(remainingMs / 1000));
  }

  /** Records a failure; resolves to true when it locked the pair. */
  async recordFailure(ip: string, email: string): Promise<boolean> {
    const now = this.#now();
    return this.#store.transaction(async () => {
      const failures = await this.#store.loginFailures.increment(ip, email, now.toISOString());
      if (failures < MAX_FAILURES) return false;
      await this.#store.loginFailures.lock(ip, email, new Date(now.getTime() + LOCK_MS).toISOString());
      return true;
    });
  }

  async recordSuccess(ip: string, email: string): Promise<void> {
    await this.#store.loginFailures.clear(ip, email);
  }

  async unlock(email: string): Promise<number> {
    return this.#store.loginFailures.clearEmail(email);
  }
}
