import { readdirSync } from 'node:fs';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { lowerThreadPriority } from '../os/index.ts';

/**
 * The options of a DuckDB instance that runs only SQL Quarry builds (names and values quoted), never a user's:
 * the scratch instance and the lake's writer. LOAD checks a signed extension's signature on every load: 250-300 ms
 * for these 35-40 MB files (1-3 ms without), a quarter of a 1M-row database sync. The files are the ones bin/setup
 * installed beside our own code, loaded by path; nothing is downloaded. Readers, which run users' SQL, keep the check.
 */
const QUARRY_SQL_ONLY_INSTANCE_OPTIONS: Readonly<Record<string, string>> = {
  autoinstall_known_extensions: 'false', autoload_known_extensions: 'false', allow_unsigned_extensions: 'true',
};

const TASKS_DIR = '/proc/self/task';

export interface JobInstanceOptions {
  /**
   * DuckDB's threads, the calling one included; every core when left out. Work known to be small (a few megabytes)
   * gains nothing from more, and while other threads run a statement's tasks the calling thread spins waiting for
   * them: with one, opening the lake takes about half the CPU (45 ms against 65-85 ms).
   */
  readonly threads?: number | undefined;
}

/**
 * Creates an in-memory DuckDB instance for a job (the lake's writer, the scratch instance of a database sync) whose
 * worker threads run niced, so a 5M-row load on both cores leaves a dashboard's query its turn (p99 during a sync
 * 1.5-1.7x idle without, about 1x with); alone on the machine the job keeps all of its speed. DuckDB starts its
 * workers when the instance is created, so they are the threads that appear meanwhile (on Linux a thread has its
 * own nice value). Readers have one thread and start none; an unrelated thread started in the same moment would be
 * niced too, which slows it and nothing else. Without /proc the threads keep the process's priority.
 */
export async function createJobInstance(options: JobInstanceOptions = {}): Promise<DuckDBInstance> {
  const settings: Record<string, string> = { ...QUARRY_SQL_ONLY_INSTANCE_OPTIONS };
  if (options.threads !== undefined) settings.threads = String(options.threads);
  return withNewThreadsNiced(() => DuckDBInstance.create(':memory:', settings));
}

/**
 * Sets how many threads a job's instance runs (DuckDB's `threads`, the calling one included): those DuckDB starts
 * for it run niced, as the instance's first ones do (createJobInstance).
 */
export async function setJobThreads(connection: DuckDBConnection, threads: number): Promise<void> {
  await withNewThreadsNiced(() => connection.run(`SET threads = ${String(threads)}`));
}

/** Runs `start`, then lowers the priority of the threads that appeared meanwhile (see createJobInstance). */
async function withNewThreadsNiced<T>(start: () => Promise<T>): Promise<T> {
  const before = threadIds();
  const started = await start();
  if (before !== undefined) for (const thread of threadIds() ?? []) if (!before.has(thread)) lowerThreadPriority(thread);
  return started;
}

/**
 * Closes a job's instance and its connection. DuckDB joins its worker threads as the instance closes, on the
 * calling thread: 12-16 ms after a 5M-row load, with the event loop stopped meanwhile (every request waits).
 * Going down to one thread first joins them on a thread of the pool instead, and the close takes 2 ms.
 */
export async function closeJobInstance(instance: DuckDBInstance, connection: DuckDBConnection): Promise<void> {
  await connection.run('SET threads = 1').catch(() => undefined); // an aborted transaction refuses it: the close joins them then
  connection.closeSync();
  instance.closeSync();
}

function threadIds(): Set<number> | undefined {
  try {
    return new Set(readdirSync(TASKS_DIR).map(Number));
  } catch {
    return undefined;
  }
}
