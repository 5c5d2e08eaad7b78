import { statfs, stat } from 'node:fs/promises';
import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { SupersetProcess } from '../../dashboard/index.ts';
import type { DocsServer } from '../../transform/index.ts';
import type { WatcherProcess } from '../../watcher/index.ts';
import { isMissingFile } from '../../config/index.ts';
import { fileSourceLocation, summarizeSource } from '../../jobs/index.ts';
import { requireAction } from '../plugins/index.ts';
import { describeUptime } from './describe-uptime.ts';
import { webUrl } from './web-url.ts';

const Timestamp = z.iso.datetime().describe('ISO 8601 UTC timestamp');

const ServiceStatus = z.object({
  status: z.enum(['healthy', 'degraded']),
  service_version: z.string(),
  services: z.object({
    api: z.string(), warehouse: z.string(), dashboard: z.string(), transform_docs: z.string(),
  }),
  uptime: z.string(),
});

const Configuration = z.object({
  web_port: z.number().int(),
  web_url: z.string(),
  dashboard_url: z.string(),
  transform_docs_url: z.string(),
  api_url: z.string(),
  project_name: z.string(),
  organization: z.string(),
});

const PlatformHealth = z.object({
  status: z.enum(['healthy', 'warning', 'critical']),
  timestamp: Timestamp,
  database: z.object({
    size_mb: z.number(),
    tables: z.number().int(),
    status: z.enum(['small', 'medium', 'large']),
    raw_tables: z.number().int(),
    staging_tables: z.number().int(),
    marts_tables: z.number().int(),
  }),
  disk: z.object({ status: z.enum(['ok', 'low', 'critical']), free_gb: z.number(), total_gb: z.number() }),
  sync_failures: z.array(z.object({ source: z.string(), timestamp: Timestamp, error: z.string() })),
  transform_failures: z.array(z.object({ model: z.string(), timestamp: Timestamp, error: z.string() })),
  total_sources: z.number().int(),
  enabled_sources: z.number().int(),
  critical_issues: z.array(z.string()),
  warnings: z.array(z.string()),
});

const WatcherStatus = z.object({
  running: z.boolean(),
  pid: z.number().int().describe('the watcher process id; 0 while it is not running'),
  auto_sync_enabled: z.boolean(),
  auto_transform_enabled: z.boolean(),
  debounce_seconds: z.number().int(),
  watch_patterns: z.array(z.string()),
  watch_directories: z.array(z.string()),
});

const GB = 1024 ** 3;
/** A source not synced for this long is reported as stale. */
const STALE_AFTER_DAYS = 7;
const MB = 1024 ** 2;

interface StatusParts {
  ctx: AppContext; watcher: WatcherProcess | undefined; docsServer: DocsServer | undefined; dashboard: SupersetProcess | undefined;
}

export const statusRoutes: FastifyPluginCallbackZod<StatusParts> = (app, { ctx, watcher: watcherProcess, docsServer, dashboard }, done) => {
  const readAccess = { preHandler: requireAction('data.read') };

  app.get('/api/status', {
    ...readAccess,
    schema: { tags: ['platform'], summary: 'Service status', response: { 200: ServiceStatus } },
  }, async () => {
    const warehouseExists = await fileSize(ctx.paths.warehouseFile) !== null;
    return {
      status: 'healthy' as const,
      service_version: ctx.version,
      services: {
        api: 'running',
        warehouse: warehouseExists ? 'healthy' : 'not_created',
        dashboard: dashboardState(ctx, dashboard),
        transform_docs: docsServer?.origin() === undefined ? 'not_running' : 'running',
      },
      uptime: describeUptime(ctx.now().getTime() - ctx.startedAt.getTime()),
    };
  });

  app.get('/api/config', {
    ...readAccess,
    schema: { tags: ['platform'], summary: 'Public configuration', response: { 200: Configuration } },
  }, async () => {
    const base = webUrl(ctx);
    return {
      web_port: ctx.config.web.port,
      web_url: base,
      dashboard_url: `${base}/dashboard/`,
      transform_docs_url: `${base}/transform-docs/`,
      api_url: `${base}/api`,
      project_name: ctx.config.name,
      organization: ctx.config.organization,
    };
  });

  app.get('/api/health/platform', {
    ...readAccess,
    schema: { tags: ['platform'], summary: 'Platform health', response: { 200: PlatformHealth } },
  }, async () => {
    const sizeBytes = await fileSize(ctx.paths.warehouseFile) ?? 0;
    const layers = ctx.store.warehouseTables.countByLayer();
    const disk = await statfs(ctx.paths.root);
    const freeBytes = disk.bavail * disk.bsize;
    const totalBytes = disk.blocks * disk.bsize;
    const diskStatus = freeBytes < GB ? 'critical' as const : freeBytes < 5 * GB || freeBytes < totalBytes * 0.05 ? 'low' as const : 'ok' as const;
    const criticalIssues: string[] = [];
    const warnings: string[] = [];
    if (diskStatus === 'critical') criticalIssues.push(`Only ${round(freeBytes / GB)} GB of disk left for the project`);
    if (diskStatus === 'low') warnings.push(`Disk space is low: ${round(freeBytes / GB)} GB free`);
    if (watcherProcess?.status().state === 'failed') warnings.push('The file watcher keeps failing and is stopped: files are not picked up automatically');
    const enabledSources = ctx.sources.filter((source) => source.enabled).length;
    const now = ctx.now();
    const syncFailures = ctx.store.jobs.recentFailures('sync', new Date(now.getTime() - 7 * 86_400_000).toISOString())
      .map((job) => ({ source: job.target, timestamp: job.finishedAt ?? job.createdAt, error: job.error ?? 'failed' }));
    for (const source of ctx.sources.filter((candidate) => candidate.enabled)) {
      const summary = summarizeSource(ctx.store, source, now);
      if (summary.status === 'failed') warnings.push(`The last sync of ${source.name} failed`);
      if (summary.filesFailed > 0) warnings.push(`The last sync of ${source.name} skipped ${String(summary.filesFailed)} file(s) DuckDB cannot read`);
      if (summary.freshness.daysOld !== null && summary.freshness.daysOld >= STALE_AFTER_DAYS) {
        warnings.push(`${source.name} was last synced ${String(summary.freshness.daysOld)} days ago`);
      }
    }
    return {
      status: criticalIssues.length > 0 ? 'critical' as const : warnings.length > 0 ? 'warning' as const : 'healthy' as const,
      timestamp: ctx.now().toISOString(),
      database: {
        size_mb: round(sizeBytes / MB),
        tables: layers.raw + layers.staging + layers.marts,
        status: sizeBytes < GB ? 'small' as const : sizeBytes < 10 * GB ? 'medium' as const : 'large' as const,
        raw_tables: layers.raw,
        staging_tables: layers.staging,
        marts_tables: layers.marts,
      },
      disk: { status: diskStatus, free_gb: round(freeBytes / GB), total_gb: round(totalBytes / GB) },
      sync_failures: syncFailures,
      transform_failures: ctx.store.modelRuns.recentFailures(new Date(now.getTime() - 7 * 86_400_000).toISOString())
        .map((run) => ({ model: run.model, timestamp: run.finishedAt ?? run.startedAt, error: run.error ?? 'failed' })),
      total_sources: ctx.sources.length,
      enabled_sources: enabledSources,
      critical_issues: criticalIssues,
      warnings,
    };
  });

  app.get('/api/watcher/status', {
    ...readAccess,
    schema: { tags: ['platform'], summary: 'File watcher status', response: { 200: WatcherStatus } },
  }, async () => {
    const watcher = ctx.config.watcher;
    const status = watcherProcess?.status();
    return {
      running: status?.running ?? false,
      pid: status?.pid ?? 0,
      auto_sync_enabled: watcher.auto_sync,
      auto_transform_enabled: watcher.auto_transform,
      debounce_seconds: watcher.debounce_seconds,
      watch_patterns: [...watcher.patterns],
      watch_directories: watchedDirectories(ctx),
    };
  });

  done();
};

/** `running` only while Superset answers its health check; `starting` covers the first start's initialisation. */
function dashboardState(ctx: AppContext, dashboard: SupersetProcess | undefined): string {
  if (!ctx.config.dashboard.enabled) return 'disabled';
  const state = dashboard?.status().state;
  if (state === 'running' || state === 'starting' || state === 'failed') return state;
  return 'not_running';
}

function watchedDirectories(ctx: AppContext): string[] {
  const directories = ctx.sources.filter((source) => source.enabled).map((source) => fileSourceLocation(source, ctx.paths.root)?.directory);
  return [...new Set(directories.filter((directory) => directory !== undefined))];
}

async function fileSize(file: string): Promise<number | null> {
  try {
    return (await stat(file)).size;
  } catch (error) {
    if (isMissingFile(error)) return null;
    throw error;
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
