import type { QuarryEvent } from '../../src/events/index.ts';
import type { TestQuarry } from './quarry.ts';

export type SyncEnd = Extract<QuarryEvent, { type: 'sync_completed' | 'sync_failed' }>;

/** Starts a sync through the job runner and resolves with how it ended. */
export async function syncAndWait(quarry: TestQuarry, source: string, fullRefresh = false): Promise<SyncEnd> {
  const ended = new Promise<SyncEnd>((resolve) => {
    const unsubscribe = quarry.ctx.events.subscribe((event) => {
      if ((event.type === 'sync_completed' || event.type === 'sync_failed') && event.source === source) {
        unsubscribe();
        resolve(event);
      }
    });
  });
  quarry.ctx.jobs.startSync(source, { fullRefresh, requestedBy: 'test' });
  const end = await ended;
  await quarry.jobsIdle();
  return end;
}

/** How many files the source's latest sync skipped because DuckDB cannot read them, from its history. */
export function filesFailedOfLastSync(quarry: TestQuarry, source: string): number | undefined {
  return quarry.ctx.sourceReports.history(source, 1)[0]?.filesFailed;
}

/** The messages of a source's log lines at one level, oldest first. */
export function logMessages(quarry: TestQuarry, source: string, level: 'INFO' | 'WARNING' | 'ERROR' | 'SUCCESS'): string[] {
  return quarry.ctx.store.logs.latest(1000, source).filter((entry) => entry.level === level).map((entry) => entry.message).reverse();
}
