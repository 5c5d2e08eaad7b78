import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import bcrypt from 'bcrypt';
import { QuarryError } from '../errors.ts';

/** bcrypt's work factor: about a quarter of a second a hash on one core of a small server. */
export const PASSWORD_COST = 12;
export const MIN_PASSWORD_LENGTH = 8;

/** A cost-12 hash of a random string: verifying against it costs what a real check costs. */
const DUMMY_HASH_AT_DEFAULT_COST = '$2b$12$tGiEMtYMos69OxWITPZ0kOh5BhBdbk.2Smpacc9b9IMkjPjP6oCAW';

export class WeakPasswordError extends QuarryError {
  readonly code = 'weak_password';
}

/**
 * bcrypt reads only the first 72 bytes, so two long passwords sharing a prefix would match.
 * Every password is first reduced to its SHA-256 digest (44 base64 characters, no NUL bytes).
 */
function preHash(password: string): string {
  return createHash('sha256').update(password, 'utf8').digest('base64');
}

const COMMON_PASSWORDS: ReadonlySet<string> = new Set(
  readFileSync(path.join(import.meta.dirname, 'data', 'common-passwords.txt'), 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#')),
);

/** NIST SP 800-63B: at least 8 characters, no maximum, no composition rules, not a commonly used password. */
export function assertAcceptablePassword(password: string): void {
  if (countCodePoints(password) < MIN_PASSWORD_LENGTH) {
    throw new WeakPasswordError(`The password is too short: use at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  if (COMMON_PASSWORDS.has(password.toLowerCase())) {
    throw new WeakPasswordError('The password is one of the most commonly used passwords: choose another');
  }
}

/** NIST SP 800-63B counts each Unicode code point as one character. */
function countCodePoints(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    // A high surrogate starts a pair that is one code point.
    if (unit < 0xd800 || unit > 0xdbff) count += 1;
  }
  return count;
}

/**
 * Hashes and verifies passwords at one bcrypt cost. Tests that are not about passwords use bcrypt's minimum,
 * so that creating users and signing in does not dominate them.
 */
export class PasswordHasher {
  readonly #cost: number;
  #dummyHash: Promise<string> | undefined;

  constructor(cost: number = PASSWORD_COST) {
    this.#cost = cost;
  }

  async hash(password: string): Promise<string> {
    return bcrypt.hash(preHash(password), this.#cost);
  }

  /** Compares in constant time; with no hash it still spends a full verification, so every failure takes as long. */
  async verify(password: string, hash: string | null): Promise<boolean> {
    const matches = await bcrypt.compare(preHash(password), hash ?? await this.#dummy());
    return hash !== null && matches;
  }

  /** A hash of a random string at this cost: verifying against it costs what a real check costs. */
  #dummy(): Promise<string> {
    this.#dummyHash ??= this.#cost === PASSWORD_COST
      ? Promise.resolve(DUMMY_HASH_AT_DEFAULT_COST)
      : bcrypt.hash(randomBytes(32).toString('base64'), this.#cost);
    return this.#dummyHash;
  }
}
