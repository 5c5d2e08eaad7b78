import type { SourceConfig } from '../sources/config/index.ts';
import { QuarryError, type ErrorCode } from '../errors.ts';
import type { JobRunner } from './job-runner.ts';
import { SyncInProgressError } from './errors.ts';

/** How one source fared when every source was asked to sync. */
export interface SyncAllEntry {
  readonly source: string;
  /** `started`; `already_running` and `skipped` (disabled) are no failure; `failed` could not be queued. */
  readonly status: 'started' | 'already_running' | 'skipped' | 'failed';
  /** When the job was queued, for a started one. */
  readonly startedAt: string | null;
  /** Why it was not started, with the error code a single sync would have answered. */
  readonly detail: string | null;
  readonly code: ErrorCode | null;
}

/**
 * Queues one sync per enabled source, in the order of sources.yml (the queue runs them as the warehouse
 * allows); a source that cannot start is reported in its entry and the others still start.
 */
export async function startAllSyncs(
  jobs: Pick<JobRunner, 'startSync'>, sources: readonly SourceConfig[], requestedBy: string | null,
): Promise<SyncAllEntry[]> {
  const entries: SyncAllEntry[] = [];
  for (const source of sources) entries.push(await startOne(jobs, source, requestedBy));
  return entries;
}

async function startOne(jobs: Pick<JobRunner, 'startSync'>, source: SourceConfig, requestedBy: string | null): Promise<SyncAllEntry> {
  if (!source.enabled) {
    return { source: source.name, status: 'skipped', startedAt: null, detail: `The source "${source.name}" is disabled`, code: 'source_disabled' };
  }
  try {
    const { job } = await jobs.startSync(source.name, { fullRefresh: false, requestedBy });
    return { source: source.name, status: 'started', startedAt: job.createdAt, detail: null, code: null };
  } catch (error) {
    if (!(error instanceof QuarryError)) throw error;
    const status = error instanceof SyncInProgressError ? 'already_running' : 'failed';
    return { source: source.name, status, startedAt: null, detail: error.message, code: error.code };
  }
}
