import type { BackupScheduleConfig, ScheduleConfig, SyncScheduleConfig } from '../config/index.ts';
import { firstLineOf } from '../errors.ts';
import { SyncInProgressError, type JobRunner, type StartedJob } from '../jobs/index.ts';
import type { SourceConfig } from '../sources/config/index.ts';
import type { JobStatus, LogLevel, Store } from '../store/index.ts';
import type { TransformRunner } from '../transform/index.ts';
import { delay, type Timer } from './timer.ts';

/** What a scheduled run uses: the job runner's and the transformations' public ways in, and the history. */
export interface ScheduleRunDependencies {
  readonly sources: readonly SourceConfig[];
  readonly store: Store;
  readonly jobs: Pick<JobRunner, 'startSync' | 'activeSync'>;
  readonly transform: Pick<TransformRunner, 'runDownstreamOf'>;
  readonly timer: Timer;
  /** Appends a platform log line (no source: the line belongs to the schedule). */
  readonly log: (level: LogLevel, message: string) => Promise<void>;
  /** How long to wait before try `attempt + 1` of a sync that failed on a transient error. */
  readonly retryDelayMs: (attempt: number) => number;
  /** Backs the project up as a backup schedule says; resolves with a line saying where to, and what was pruned. */
  readonly backup: (schedule: BackupScheduleConfig) => Promise<string>;
}

export interface ScheduleRunResult {
  readonly outcome: 'success' | 'failed';
  /** What failed, one clause per source or the models; null on success. */
  readonly detail: string | null;
}

/** Who asked, as the jobs' history records it. */
export function requesterOf(schedule: string): string {
  return `schedule:${schedule}`;
}

/** One run of a schedule of either kind. */
export async function runSchedule(schedule: ScheduleConfig, deps: ScheduleRunDependencies, signal: AbortSignal): Promise<ScheduleRunResult> {
  return schedule.kind === 'sync' ? runSyncSchedule(schedule, deps, signal) : runBackupSchedule(schedule, deps, signal);
}

/** A backup, taken at a moment no job runs (it waits for them), with its line in the platform log. */
async function runBackupSchedule(schedule: BackupScheduleConfig, deps: ScheduleRunDependencies, signal: AbortSignal): Promise<ScheduleRunResult> {
  try {
    await deps.log('INFO', `Schedule ${schedule.name}: ${await untilAborted(deps.backup(schedule), signal)}`);
    return { outcome: 'success', detail: null };
  } catch (error) {
    if (signal.aborted) throw error;
    return { outcome: 'failed', detail: `backup: ${firstLineOf(error)}` };
  }
}

/**
 * A sync schedule's run: a sync job per source (ordinary jobs: the queue orders them), each retried with backoff
 * while it fails on a transient error, then, with `transform: true`, the models downstream of what synced.
 */
async function runSyncSchedule(schedule: SyncScheduleConfig, deps: ScheduleRunDependencies, signal: AbortSignal): Promise<ScheduleRunResult> {
  const { synced: names, disabled } = sourcesOf(schedule, deps.sources);
  for (const name of disabled) await deps.log('WARNING', `Schedule ${schedule.name}: ${name} is disabled in sources.yml, so it was not synced`);
  const results = await Promise.all(names.map((name) => syncWithRetries(schedule, name, deps, signal)));
  const problems = results.filter((result) => !result.ok).map((result) => `${result.source}: ${result.error}`);
  const synced = results.filter((result) => result.ok).map((result) => result.source);
  if (schedule.transform && synced.length > 0) {
    try {
      const run = await untilAborted(deps.transform.runDownstreamOf(synced, requesterOf(schedule.name)), signal);
      if (run !== undefined && run.status !== 'success') problems.push(`models: ${run.error ?? run.status}`);
    } catch (error) {
      if (signal.aborted) throw error;
      problems.push(`models: ${firstLineOf(error)}`);
    }
  }
  return problems.length === 0 ? { outcome: 'success', detail: null } : { outcome: 'failed', detail: problems.join('; ') };
}

/** The enabled sources the schedule names (every one for `all`), and the disabled ones it names explicitly. */
export function sourcesOf(schedule: SyncScheduleConfig, sources: readonly SourceConfig[]): { synced: string[]; disabled: string[] } {
  const sync = schedule.sync;
  const named = sync === 'all' ? sources.filter((source) => source.enabled)
    : Array.isArray(sync) ? sources.filter((source) => sync.includes(source.name))
    : sources.filter((source) => source.enabled && source.tags.some((tag) => sync.tags.includes(tag)));
  return {
    synced: named.filter((source) => source.enabled).map((source) => source.name),
    disabled: named.filter((source) => !source.enabled).map((source) => source.name),
  };
}

interface SyncResult {
  readonly source: string;
  readonly ok: boolean;
  readonly error: string | null;
}

async function syncWithRetries(schedule: SyncScheduleConfig, source: string, deps: ScheduleRunDependencies, signal: AbortSignal): Promise<SyncResult> {
  const tries = schedule.retries + 1;
  for (let attempt = 1; ; attempt++) {
    const ending = await syncOnce(source, requesterOf(schedule.name), deps, signal);
    if (ending.status === 'success') return { source, ok: true, error: null };
    if (!ending.transient || attempt >= tries) {
      const after = attempt > 1 ? ` (after ${String(attempt)} tries)` : '';
      return { source, ok: false, error: `${ending.error ?? ending.status}${after}` };
    }
    const waitMs = deps.retryDelayMs(attempt);
    await deps.log('WARNING', `Schedule ${schedule.name}: the sync of ${source} failed on a transient error (${ending.error ?? ending.status}); `
      + `try ${String(attempt + 1)} of ${String(tries)} in ${String(Math.round(waitMs / 1000))} s`);
    await delay(deps.timer, waitMs, signal);
  }
}

interface SyncEnding {
  readonly status: JobStatus;
  readonly error: string | null;
  readonly transient: boolean;
}

/** Starts one sync job and resolves with how it ended, as its history records it. */
async function syncOnce(source: string, requestedBy: string, deps: ScheduleRunDependencies, signal: AbortSignal): Promise<SyncEnding> {
  let sync: StartedJob | undefined;
  try {
    sync = await deps.jobs.startSync(source, { fullRefresh: false, requestedBy });
  } catch (error) {
    // Someone (a person, the watcher) is syncing the source already: that sync's outcome stands for this run.
    if (!(error instanceof SyncInProgressError)) return { status: 'failed', error: firstLineOf(error), transient: false };
    sync = deps.jobs.activeSync(source);
  }
  // Gone when it ended between the refusal and this look (or when another process runs it): the history answers then.
  if (sync === undefined) {
    const record = await deps.store.jobs.latest('sync', source);
    return { status: record?.status ?? 'failed', error: record?.error ?? null, transient: record?.transient ?? false };
  }
  return untilAborted(sync.ended, signal);
}

/** `promise`, or the signal's reason once it aborts: a stopping scheduler leaves jobs to the job runner's own shutdown. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => { reject(signal.reason as Error); };
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(resolve, reject).finally(() => { signal.removeEventListener('abort', onAbort); });
  });
}
