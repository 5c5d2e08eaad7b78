import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'svc_ak_';

/** 256 random bits, URL-safe. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}
