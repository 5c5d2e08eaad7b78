import type { z } from 'zod';
import { SyncFailedError } from '../sync-failed-error.ts';

/** The value of a credential's environment variable; a missing one fails the sync naming the variable, never a value. */
export function requireEnv(env: Readonly<Record<string, string | undefined>>, name: string, holds: string): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new SyncFailedError(`The environment variable ${name} is not set; it must hold ${holds} (put it in the project's .env file)`);
  }
  return value.trim();
}

/**
 * The JSON credentials an environment variable holds (a key file's content), checked by `schema`; the
 * message names the variable and the fields to check, never a value.
 */
export function requireJsonEnv<T>(
  env: Readonly<Record<string, string | undefined>>, name: string, holds: string, schema: z.ZodType<T>,
): T {
  const text = requireEnv(env, name, holds);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new SyncFailedError(`The environment variable ${name} does not hold JSON; it must hold ${holds}`);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    const fields = [...new Set(result.error.issues.map((issue) => issue.path.join('.') || 'type'))].join(', ');
    throw new SyncFailedError(`The environment variable ${name} does not hold ${holds} (check ${fields})`);
  }
  return result.data;
}
