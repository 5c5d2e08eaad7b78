import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describeError } from '../errors.ts';
import { pythonExecutable } from '../python/index.ts';
import { describeJob, interruptOrphanedJobs } from '../jobs/index.ts';
import { SCHEMA_VERSION, type Store } from '../store/index.ts';
import { ok, problem, warning, type Finding } from './finding.ts';

const SETUP = path.join(path.resolve(import.meta.dirname, '..', '..'), 'bin', 'setup');

/** The platform database (users, jobs, logs) opens and passes SQLite's quick check. */
export function checkPlatformDatabase(file: string): Finding {
  const check = 'Platform database';
  if (!existsSync(file)) return problem(check, `${file} is missing`, 'run `quarry init` in the project folder (or restore the file from a backup)');
  try {
    const database = new DatabaseSync(file, { readOnly: true, timeout: 5000 });
    try {
      const verdict = database.prepare('PRAGMA quick_check').get() as { quick_check?: string } | undefined;
      const answer = verdict?.quick_check ?? 'no answer';
      if (answer !== 'ok') return problem(check, `${file} is damaged: ${answer}`, 'restore it from a backup');
      return ok(check, `${file} is sound`);
    } finally {
      database.close();
    }
  } catch (error) {
    return problem(check, `${file} cannot be read: ${describeError(error)}`, 'check its permissions (the user running Quarry owns it), or restore it from a backup');
  }
}

/** A platform store in PostgreSQL answers, at this Quarry's schema version (it migrates it, as a start would). */
export async function checkSharedPlatformStore(openPlatformStore: () => Promise<Store>, address: string): Promise<Finding> {
  const check = 'Platform store';
  try {
    const store = await openPlatformStore();
    try {
      return ok(check, `${address} answers: ${String(await store.users.count())} user(s), schema version ${String(SCHEMA_VERSION)}`);
    } finally {
      await store.close();
    }
  } catch (error) {
    return problem(check, describeError(error), 'check that PostgreSQL is up, that platform.store and platform.schema in project.yml name it, and the password in .env (platform.password_env)');
  }
}

/** The dashboard tool: off in project.yml, or its environment can start Superset. */
export function checkDashboardTool(enabled: boolean, environmentsDir?: string): Finding {
  const check = 'Dashboard tool';
  if (!enabled) return ok(check, 'turned off in project.yml (dashboard.enabled: false)');
  let python: string;
  try {
    python = pythonExecutable('superset', environmentsDir);
  } catch {
    return problem(check, 'the superset environment is not installed', `run ${SETUP}`);
  }
  const imported = spawnSync(python, ['-c', 'import importlib.metadata, superset; print(importlib.metadata.version("apache-superset"))'], { encoding: 'utf8', timeout: 120_000 });
  if (imported.status !== 0) return problem(check, `Superset does not import: ${(imported.stderr || '').trim().split('\n').at(-1) ?? ''}`, `run ${SETUP}`);
  return ok(check, `Superset ${imported.stdout.trim()} is installed`);
}

/**
 * Jobs recorded queued or running whose process has stopped (Ctrl-C, a closed terminal, kill -9): each is marked
 * interrupted now, as the next command that starts a job would, and named, so nothing seems to run that does not.
 */
export async function checkLeftoverJobs(openPlatformStore: () => Promise<Store>, now: Date): Promise<Finding> {
  const check = 'Jobs';
  let store: Store;
  try {
    store = await openPlatformStore();
  } catch (error) {
    return problem(check, `the jobs cannot be read: ${describeError(error)}`, 'see the platform database check above');
  }
  try {
    const interrupted = await interruptOrphanedJobs(store, now.toISOString());
    if (interrupted.length === 0) return ok(check, 'none is left running by a process that stopped');
    return warning(check, `marked interrupted, since the process running each had stopped: ${interrupted.map(describeJob).join('; ')}`, 'run them again (quarry sync, quarry build)');
  } finally {
    await store.close();
  }
}
