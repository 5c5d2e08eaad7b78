import { statfs } from 'node:fs/promises';
import type { ProjectPaths, ScheduleConfig } from '../config/index.ts';
import type { SourceReports } from '../jobs/index.ts';
import type { SecretRedactor, SourceConfig } from '../sources/config/index.ts';
import type { Store } from '../store/index.ts';
import { catalogMissing, lakeProblem, type LakeLocation, type WarehouseReaders } from '../warehouse/index.ts';
import { freshnessLimitsOf, stalenessOf } from './freshness.ts';
import { warehouseSize } from './warehouse-size.ts';

const GB = 1024 ** 3;
const MB = 1024 ** 2;
const DAY_MS = 86_400_000;
/** A source without freshness limits of its own not synced for this long is reported as stale. */
const STALE_AFTER_DAYS = 7;
/** How far back failed syncs and model runs are listed. */
const FAILURES_WITHIN_DAYS = 7;

export interface PlatformHealthReport {
  readonly status: 'healthy' | 'warning' | 'critical';
  readonly timestamp: string;
  readonly database: {
    sizeMb: number; tables: number; status: 'small' | 'medium' | 'large'; rawTables: number; stagingTables: number; martsTables: number;
  };
  readonly disk: { status: 'ok' | 'low' | 'critical'; freeGb: number; totalGb: number };
  /** The sources whose latest sync within the window failed, each with that failure; a later success clears one. */
  readonly syncFailures: { source: string; timestamp: string; error: string }[];
  /** Failed model runs, and failing data tests (with `test`). */
  readonly transformFailures: { model: string; timestamp: string; error: string; test?: string }[];
  readonly totalSources: number;
  readonly enabledSources: number;
  readonly criticalIssues: string[];
  readonly warnings: string[];
}

export interface PlatformHealthInputs {
  readonly paths: ProjectPaths;
  readonly lake: LakeLocation;
  readonly readers: WarehouseReaders;
  readonly store: Store;
  readonly sources: readonly SourceConfig[];
  readonly schedules: readonly ScheduleConfig[];
  readonly sourceReports: SourceReports;
  readonly now: () => Date;
  /** Whether the file watcher gave up restarting. */
  readonly watcherFailed: boolean;
  /** Viewers read the report, which quotes errors from upstreams and the lake's catalog. */
  readonly redactor: SecretRedactor;
}

/** The platform's health rules in one place: disk, warehouse size, readers' view of the lake, failures, stale sources, the watcher. */
export async function checkPlatformHealth(inputs: PlatformHealthInputs): Promise<PlatformHealthReport> {
  const { paths, store, sources, sourceReports } = inputs;
  const sizeBytes = await warehouseSize(inputs.lake) ?? 0;
  const layers = await store.warehouseTables.countByLayer();
  const disk = await statfs(paths.root);
  const freeBytes = disk.bavail * disk.bsize;
  const totalBytes = disk.blocks * disk.bsize;
  const diskStatus = freeBytes < GB ? 'critical' as const : freeBytes < 5 * GB || freeBytes < totalBytes * 0.05 ? 'low' as const : 'ok' as const;
  const criticalIssues: string[] = [];
  const warnings: string[] = [];
  if (diskStatus === 'critical') criticalIssues.push(`Only ${String(round(freeBytes / GB))} GB of disk left for the project`);
  if (diskStatus === 'low') warnings.push(`Disk space is low: ${String(round(freeBytes / GB))} GB free`);
  const unreadable = await lakeProblem(inputs.readers);
  if (unreadable !== undefined) {
    criticalIssues.push(`Dashboards and other readers cannot read the warehouse (${unreadable})`);
  }
  if (inputs.watcherFailed) warnings.push('The file watcher keeps failing and is stopped: files are not picked up automatically');
  const now = inputs.now();
  const failuresSince = new Date(now.getTime() - FAILURES_WITHIN_DAYS * DAY_MS).toISOString();
  const syncFailures = (await store.jobs.unresolvedFailures('sync', failuresSince))
    .map((job) => ({ source: job.target, timestamp: job.finishedAt ?? job.createdAt, error: job.error ?? 'failed' }));
  const sourcesByName = new Map(sources.map((source) => [source.name, source]));
  for (const summary of (await sourceReports.summaries()).filter((candidate) => candidate.enabled)) {
    if (summary.status === 'failed') warnings.push(`The last sync of ${summary.name} failed`);
    if (summary.filesFailed > 0) warnings.push(`The last sync of ${summary.name} skipped ${String(summary.filesFailed)} file(s) DuckDB cannot read`);
    const source = sourcesByName.get(summary.name);
    const limits = source === undefined ? undefined : freshnessLimitsOf(source, inputs.schedules, now);
    if (limits !== undefined) {
      const staleness = stalenessOf(summary.name, limits, summary.freshness.lastUpdate, now);
      if (staleness?.level === 'error') criticalIssues.push(staleness.message);
      if (staleness?.level === 'warn') warnings.push(staleness.message);
    } else if (summary.freshness.daysOld !== null && summary.freshness.daysOld >= STALE_AFTER_DAYS) {
      warnings.push(`${summary.name} was last synced ${String(summary.freshness.daysOld)} days ago`);
    }
  }
  const broken = [...(await store.modelRuns.latestByModel()).values()]
    .filter((run) => run.status === 'error' && (run.finishedAt ?? run.startedAt) >= failuresSince).map((run) => run.model).sort();
  if (broken.length === 1) warnings.push(`The last run of the model ${broken[0] ?? ''} failed`);
  if (broken.length > 1) warnings.push(`${String(broken.length)} models failed their last run: ${broken.join(', ')}`);
  const tests = await failingTests(store, failuresSince);
  const recentFailures = await store.modelRuns.recentFailures(failuresSince);
  if (tests.length > 0) warnings.push(`${String(tests.length)} data test${tests.length === 1 ? '' : 's'} of the models fail${tests.length === 1 ? 's' : ''}`);
  return inputs.redactor.redactStrings({
    status: criticalIssues.length > 0 ? 'critical' : warnings.length > 0 ? 'warning' : 'healthy',
    timestamp: now.toISOString(),
    database: {
      sizeMb: round(sizeBytes / MB),
      tables: layers.raw + layers.staging + layers.marts,
      status: sizeBytes < GB ? 'small' : sizeBytes < 10 * GB ? 'medium' : 'large',
      rawTables: layers.raw,
      stagingTables: layers.staging,
      martsTables: layers.marts,
    },
    disk: { status: diskStatus, freeGb: round(freeBytes / GB), totalGb: round(totalBytes / GB) },
    syncFailures,
    transformFailures: [
      ...recentFailures
        .map((run) => ({ model: run.model, timestamp: run.finishedAt ?? run.startedAt, error: run.error ?? 'failed' })),
      ...tests,
    ],
    totalSources: sources.length,
    enabledSources: sources.filter((source) => source.enabled).length,
    criticalIssues,
    warnings,
  });
}

/** The data tests whose latest outcome is a failure, within the window. */
async function failingTests(store: Store, sinceIso: string): Promise<{ model: string; timestamp: string; error: string; test: string }[]> {
  return [...(await store.testResults.latestByTest()).values()]
    .filter((result) => (result.status === 'fail' || result.status === 'error') && result.finishedAt >= sinceIso)
    .map((result) => ({
      model: result.model ?? result.name,
      test: result.name,
      timestamp: result.finishedAt,
      error: result.status === 'fail'
        ? `The test ${result.name} failed: ${String(result.failures ?? 0)} failing row${result.failures === 1 ? '' : 's'}`
        : `The test ${result.name} could not run: ${result.message ?? 'dbt reported an error'}`,
    }));
}

/**
 * Whether the first load has created the warehouse: asked on every GET /api/status, so one synchronous stat that
 * throws nothing (a missing file through the promise API costs an error object and a thread-pool round trip).
 */
export function warehouseExists(lake: LakeLocation): boolean {
  return !catalogMissing(lake);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
