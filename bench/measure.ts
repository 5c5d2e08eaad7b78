// What the benchmarks share: a stopwatch, a one-statement DuckDB session, a lake of a baseline's own, a sync awaited
// to its end, the shared CSV, folder sizes, medians, percentiles and the shape of a row a benchmark words itself.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { AppContext } from '../src/context.ts';
import type { LakeLocation } from '../src/warehouse/index.ts';

/** The middle value (the upper one of an even count): a round disturbed by the machine moves it least. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** The range of a figure's rounds, as its row prints it. */
export const spread = (values: readonly number[]): string => `${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)} s`;

export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** An embedded lake in `dir` (a SQLite catalog, local data files), as Quarry makes one: a baseline's own. */
export function lakeIn(dir: string): LakeLocation {
  return { catalog: { kind: 'sqlite', file: path.join(dir, 'catalog.sqlite') }, dataPath: `${path.join(dir, 'data')}${path.sep}` };
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
  await ctx.jobs.startSync(source, { fullRefresh, requestedBy: 'bench' });
  await done;
  await ctx.jobs.idle();
}

/** Waits for the table profiles and file hashes a sync records in the background, so they do not run into the next measurement. */
export async function settled(ctx: AppContext): Promise<void> {
  await Promise.all([ctx.profiler.idle(), ctx.jobs.ledgerHasher.idle()]);
}

/** A row a benchmark words itself (sizes, latencies under load): printed as given, with its target by `id`. */
export interface ReportedRow {
  /** Stable across runs, for a row with a target (bench/targets.ts). */
  id?: string;
  name: string;
  value: string;
  /** Null on the baseline row. */
  ratio: number | null;
  ratioText: string;
  /** For a row of memory: its peak in MB, which an absolute target is checked against. */
  peakMb?: number;
}

export interface ReportedBenchResult {
  benchmark: string;
  rows: ReportedRow[];
}

/** Writes the 10-column CSV of `rows` rows that the load benchmarks share (the `load.local_files` file). */
export async function writeWideCsv(file: string, rows: number): Promise<void> {
  await runDuckDb(':memory:', `COPY (SELECT i AS id, i % 1000 AS customer_id, random() * 1000 AS amount, random() AS score,
    'name-' || (i % 50000) AS name, 'city-' || (i % 300) AS city, md5(i::VARCHAR) AS token, CASE WHEN i % 2 = 0 THEN 'even' ELSE 'odd' END AS parity,
    DATE '2024-01-01' + (i % 700)::INTEGER AS day, TIMESTAMP '2024-01-01' + to_seconds(i) AS created_at
    FROM range(${String(rows)}) t(i)) TO '${file}' (HEADER)`);
}

/** The bytes of every file under `dir`. */
export function folderBytes(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .reduce((total, entry) => total + statSync(path.join(entry.parentPath, entry.name)).size, 0);
}

/** The value at `fraction` (0.99 for p99) of `values`. */
export function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}
