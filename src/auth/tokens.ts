import { hash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX = 'svc_ak_';

/** 256 random bits, URL-safe. */
export function randomToken(): string {
  return randomBytes(32).toString('base64url');
}

/** One call, no Hash object: it runs on every authenticated request. */
export function sha256Hex(value: string): string {
  return hash('sha256', value, 'hex');
}
