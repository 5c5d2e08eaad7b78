// What the benchmarks share: a stopwatch, a one-statement DuckDB session, and a sync awaited to its end.
import { DuckDBInstance } from '@duckdb/node-api';
import type { AppContext } from '../src/context.ts';

export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** Opens `file` (or :memory:), runs `sql`, and closes it, so the next writer can open the file. */
export async function runDuckDb(file: string, sql: string): Promise<void> {
  const instance = await DuckDBInstance.create(file);
  try {
    const connection = await instance.connect();
    await connection.run(sql);
    connection.closeSync();
  } finally {
    instance.closeSync();
  }
}

/** Starts a sync through the job runner and resolves when it and everything it queued have finished. */
export async function syncAndWait(ctx: AppContext, source: string, fullRefresh = false): Promise<void> {
  const done = new Promise<void>((resolve, reject) => {
    const unsubscribe = ctx.events.subscribe((event) => {
      if (event.type === 'sync_completed' && event.source === source) { unsubscribe(); resolve(); }
      if (event.type === 'sync_failed' && event.source === source) { unsubscribe(); reject(new Error(event.error)); }
    });
  });
  ctx.jobs.startSync(source, { fullRefresh, requestedBy: 'bench' });
  await done;
  await ctx.jobs.idle();
}
