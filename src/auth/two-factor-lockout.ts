import type { Store } from '../store/index.ts';
import { LockedOutError } from './lockout.ts';

/** Wrong codes one two-factor login may send before it ends and the password step is due again. */
export const TOTP_FAILURES_PER_LOGIN = 5;
/** Wrong codes a user may accumulate, over any number of logins, before two-factor is locked. */
const TOTP_FAILURES_PER_USER = 10;
const LOCK_MS = 15 * 60_000;

export interface TotpFailureOutcome {
  /** The partial session has used up its attempts. */
  readonly loginExhausted: boolean;
  /** The user's two-factor step is now locked. */
  readonly userLocked: boolean;
}

/**
 * Limits guessing of six-digit codes, which a password alone lets anyone try: per partial session (it
 * ends at the 5th wrong code) and per user across sessions (locked for 15 minutes at the 10th), as
 * passwords are locked per client and email.
 */
export class TwoFactorLockout {
  readonly #store: Store;
  readonly #now: () => Date;
  constructor(store: Store, now: () => Date) {
    this.#store = store;
    this.#now = now;
  }

  async assertNotLocked(userId: number): Promise<void> {
    if ((await this.#store.totpFailures.find(userId))?.lockedUntil == null) return;
    // Read again with the clearing of a lock that has run out, so that a failure recorded meanwhile is not cleared with it.
    const remainingMs = await this.#store.transaction(async () => {
      const record = await this.#store.totpFailures.find(userId);
      if (record?.lockedUntil == null) return 0;
      const remaining = Date.parse(record.lockedUntil) - this.#now().getTime();
      if (remaining <= 0) await this.#store.totpFailures.clear(userId);
      return remaining;
    });
    if (remainingMs > 0) throw new LockedOutError(Math.ceil(remainingMs / 1000));
  }

  /** Records a wrong code, against the partial session when there is one. */
  async recordFailure(userId: number, partialSessionId: string | null): Promise<TotpFailureOutcome> {
    const now = this.#now();
    return this.#store.transaction(async () => {
      const loginFailures = partialSessionId === null ? 0 : await this.#store.sessions.countTotpFailure(partialSessionId);
      const userFailures = await this.#store.totpFailures.increment(userId);
      const userLocked = userFailures >= TOTP_FAILURES_PER_USER;
      if (userLocked) await this.#store.totpFailures.lock(userId, new Date(now.getTime() + LOCK_MS).toISOString());
      return { loginExhausted: loginFailures >= TOTP_FAILURES_PER_LOGIN, userLocked };
    });
  }

  async recordSuccess(userId: number): Promise<void> {
    await this.#store.totpFailures.clear(userId);
  }

  /** Lifts the lock; resolves to whether there was anything to clear. */
  async unlock(userId: number): Promise<boolean> {
    return this.#store.totpFailures.clear(userId);
  }
}
