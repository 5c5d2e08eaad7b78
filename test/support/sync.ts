import type { QuarryEvent } from '../../src/events/index.ts';
import type { TestQuarry } from './quarry.ts';

export type SyncEnd = Extract<QuarryEvent, { type: 'sync_completed' | 'sync_failed' }>;

/** Starts a sync through the job runner and resolves with how it ended, as the event announcing it says. */
export async function syncAndWait(quarry: TestQuarry, source: string, fullRefresh = false): Promise<SyncEnd> {
  const ending = await (await quarry.ctx.jobs.startSync(source, { fullRefresh, requestedBy: 'test' })).ended;
  await quarry.jobsIdle();
  const timestamp = quarry.ctx.now().toISOString();
  return ending.status === 'success'
    ? { type: 'sync_completed', source, rows: ending.rows ?? 0, timestamp }
    : { type: 'sync_failed', source, error: ending.error ?? ending.status, timestamp };
}

/** How many files the source's latest sync skipped because DuckDB cannot read them, from its history. */
export async function filesFailedOfLastSync(quarry: TestQuarry, source: string): Promise<number | undefined> {
  return (await quarry.ctx.sourceReports.history(source, 1))[0]?.filesFailed;
}

/** The messages of a source's log lines at one level, oldest first. */
export async function logMessages(quarry: TestQuarry, source: string, level: 'INFO' | 'WARNING' | 'ERROR' | 'SUCCESS'): Promise<string[]> {
  return (await quarry.ctx.store.logs.latest(1000, source)).filter((entry) => entry.level === level).map((entry) => entry.message).reverse();
}
