import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { describeError, QuarryError } from '../errors.ts';
import type { Logger } from '../logger.ts';

const REPOSITORY_ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Where bin/setup links each managed environment: .tools/venvs/<name> → the cache entry built for its lock file. */
export const DEFAULT_ENVIRONMENTS_DIR = path.join(REPOSITORY_ROOT, '.tools', 'venvs');

/** A managed Python environment is missing or cannot start; the message names the command that repairs it. */
export class PythonEnvironmentError extends QuarryError {
  readonly code = 'python_env_unavailable';
  constructor(name: string, problem: string) {
    super(`The ${name} Python environment ${problem}; run ${path.join(REPOSITORY_ROOT, 'bin', 'setup')} to repair it`);
  }
}

/** The interpreter of the managed environment `name`; throws PythonEnvironmentError when it is not there. */
export function pythonExecutable(name: string, environmentsDir: string = DEFAULT_ENVIRONMENTS_DIR): string {
  const python = path.join(environmentsDir, name, 'bin', 'python');
  try {
    accessSync(python, constants.X_OK);
  } catch {
    throw new PythonEnvironmentError(name, 'is not installed');
  }
  return python;
}

/**
 * The environment's python, or undefined after logging `unavailable` with the reason: a missing
 * environment turns off the one feature that needs it, never the service.
 */
export function pythonExecutableOrLog(name: string, environmentsDir: string | undefined, log: Logger, unavailable: string): string | undefined {
  try {
    return pythonExecutable(name, environmentsDir);
  } catch (error) {
    log.error({ reason: describeError(error) }, unavailable);
    return undefined;
  }
}
