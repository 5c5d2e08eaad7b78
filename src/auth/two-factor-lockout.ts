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

  assertNotLocked(userId: number): void {
    const record = this.#store.totpFailures.find(userId);
    if (record?.lockedUntil == null) return;
    const remainingMs = Date.parse(record.lockedUntil) - this.#now().getTime();
    if (remainingMs > 0) throw new LockedOutError(Math.ceil(remainingMs / 1000));
    this.#store.totpFailures.clear(userId);
  }

  /** Records a wrong code, against the partial session when there is one. */
  recordFailure(userId: number, partialSessionId: string | null): TotpFailureOutcome {
    const now = this.#now();
    return this.#store.transaction(() => {
      const loginFailures = partialSessionId === null ? 0 : this.#store.sessions.countTotpFailure(partialSessionId);
      const userFailures = this.#store.totpFailures.increment(userId);
      const userLocked = userFailures >= TOTP_FAILURES_PER_USER;
      if (userLocked) this.#store.totpFailures.lock(userId, new Date(now.getTime() + LOCK_MS).toISOString());
      return { loginExhausted: loginFailures >= TOTP_FAILURES_PER_LOGIN, userLocked };
    });
  }

  recordSuccess(userId: number): void {
    this.#store.totpFailures.clear(userId);
  }

  /** Lifts the lock; returns whether there was anything to clear. */
  unlock(userId: number): boolean {
    return this.#store.totpFailures.clear(userId);
  }
}
