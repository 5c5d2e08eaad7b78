import type { FastifyPluginCallbackZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import type { SupersetProcess } from '../../dashboard/index.ts';
import type { DocsServer } from '../../transform/index.ts';
import type { WatcherProcess } from '../../watcher/index.ts';
import { checkPlatformHealth, warehouseExists } from '../../health/index.ts';
import { fileSourceLocation } from '../../jobs/index.ts';
import { requireAction } from '../plugins/index.ts';
import { describeUptime } from './describe-uptime.ts';
import { recentAnswer } from './recent-answer.ts';
import { listeningAddress, webUrl } from './web-url.ts';

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
  sync_failures: z.array(z.object({ source: z.string(), timestamp: Timestamp, error: z.string() }))
    .describe('the sources whose latest sync of the last 7 days failed, with that failure; a later successful sync clears one'),
  transform_failures: z.array(z.object({
    model: z.string(), timestamp: Timestamp, error: z.string(), test: z.string().optional().describe('set when a data test of the model fails'),
  })),
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

interface StatusParts {
  ctx: AppContext; watcher: WatcherProcess | undefined; docsServer: DocsServer | undefined; dashboard: SupersetProcess | undefined;
  dashboardEnabled: boolean;
}

export const statusRoutes: FastifyPluginCallbackZod<StatusParts> = (app, { ctx, watcher: watcherProcess, docsServer, dashboard, dashboardEnabled }, done) => {
  const readAccess = { preHandler: requireAction('data.read') };
  // A status poller learns of a new or removed warehouse within a second, without a file check per request.
  const warehouseState = recentAnswer(1000, () => warehouseExists(ctx.lake) ? 'healthy' : 'not_created');

  app.get('/api/status', {
    ...readAccess,
    schema: { tags: ['platform'], summary: 'Service status', response: { 200: ServiceStatus } },
  }, async () => {
    return {
      status: 'healthy' as const,
      service_version: ctx.version,
      services: {
        api: 'running',
        warehouse: warehouseState(),
        dashboard: dashboardState(dashboardEnabled, dashboard),
        transform_docs: docsServer?.socket() === undefined ? 'not_running' : 'running',
      },
      uptime: describeUptime(ctx.now().getTime() - ctx.startedAt.getTime()),
    };
  });

  app.get('/api/config', {
    ...readAccess,
    schema: { tags: ['platform'], summary: 'Public configuration', response: { 200: Configuration } },
  }, async (request) => {
    const base = webUrl(ctx, request.server);
    return {
      web_port: listeningAddress(ctx, request.server).port,
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
    const health = await checkPlatformHealth({ ...ctx, schedules: ctx.config.schedules, watcherFailed: watcherProcess?.status().state === 'failed' });
    return {
      status: health.status,
      timestamp: health.timestamp,
      database: {
        size_mb: health.database.sizeMb,
        tables: health.database.tables,
        status: health.database.status,
        raw_tables: health.database.rawTables,
        staging_tables: health.database.stagingTables,
        marts_tables: health.database.martsTables,
      },
      disk: { status: health.disk.status, free_gb: health.disk.freeGb, total_gb: health.disk.totalGb },
      sync_failures: health.syncFailures,
      transform_failures: health.transformFailures,
      total_sources: health.totalSources,
      enabled_sources: health.enabledSources,
      critical_issues: health.criticalIssues,
      warnings: health.warnings,
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
function dashboardState(enabled: boolean, dashboard: SupersetProcess | undefined): string {
  if (!enabled) return 'disabled';
  const state = dashboard?.status().state;
  if (state === 'running' || state === 'starting' || state === 'failed') return state;
  return 'not_running';
}

function watchedDirectories(ctx: AppContext): string[] {
  const directories = ctx.sources.filter((source) => source.enabled).map((source) => fileSourceLocation(source, ctx.paths.root)?.directory);
  return [...new Set(directories.filter((directory) => directory !== undefined))];
}
