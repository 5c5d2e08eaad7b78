import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import bcrypt from 'bcrypt';
import { QuarryError } from '../errors.ts';

const WORK_FACTOR = 12;
export const MIN_PASSWORD_LENGTH = 8;

/** A cost-12 hash of a random string: verifying against it costs what a real check costs. */
const DUMMY_HASH = '$2b$12$tGiEMtYMos69OxWITPZ0kOh5BhBdbk.2Smpacc9b9IMkjPjP6oCAW';

export class WeakPasswordError extends QuarryError {
  readonly status = 400;
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

export async function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(preHash(password), WORK_FACTOR);
}

/** Compares in constant time; with no hash it still spends a full verification, so every failure takes as long. */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  const matches = await bcrypt.compare(preHash(password), hash ?? DUMMY_HASH);
  return hash !== null && matches;
}
