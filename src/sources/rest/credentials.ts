import { SyncFailedError } from '../sync-failed-error.ts';

/** The value of a credential's environment variable; a missing one fails the sync naming the variable, never a value. */
export function requireEnv(env: Readonly<Record<string, string | undefined>>, name: string, holds: string): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') {
    throw new SyncFailedError(`The environment variable ${name} is not set; it must hold ${holds} (put it in the project's .env file)`);
  }
  return value.trim();
}
