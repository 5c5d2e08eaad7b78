import type { FastifyInstance } from 'fastify';
import { AlertCenter, FreshnessMonitor } from '../alerts/index.ts';
import { profileAfterDeploymentJobs } from '../catalog/index.ts';
import { closeContext, createContext, type AppContext, type ContextOptions } from '../context.ts';
import { DashboardService, startDashboard, type SupersetProcess } from '../dashboard/index.ts';
import { fileSourceLocation } from '../jobs/index.ts';
import { removeUnfinishedUploads } from '../sources/index.ts';
import { startDocsServer, type DocsServer } from '../transform/index.ts';
import { DailyMaintenance, type ScheduleIncidents } from '../schedules/index.ts';
import { MAINTENANCE_TARGET } from '../jobs/index.ts';
import { checkCatalogReachable, checkCatalogReader, prepareWarehouse } from '../warehouse/index.ts';
import type { WatcherProcess } from '../watcher/index.ts';
import { buildApp } from './build-app.ts';
import { listeningAddress, webUrl } from './routes/web-url.ts';
import { recordRunningServer } from '../os/index.ts';
import { startWatcher } from './start-watcher.ts';
import { WebSocketHub } from './websocket-hub.ts';

/** How often the service profiles the tables changed since their profile, by a command line beside it among others. */
const PROFILE_SWEEP_MS = 60_000;

export interface PlatformOptions extends ContextOptions {
  /** Overrides web.host. */
  host?: string;
  /** Overrides the configured ports (0: any free port). */
  ports?: { web?: number; dashboard?: number };
  /** Runs the file watcher when project.yml enables it (default true). */
  watcher?: boolean;
  /** Starts transformations: interrupted runs recorded, the dbt project completed, parse and docs (default true). */
  transform?: boolean;
  /** Runs the transformation-docs server (default true). */
  docsServer?: boolean;
  /**
   * The dashboard tool: 'run' (the default) starts Superset when project.yml enables it; 'disabled' turns it
   * off for this run (`--no-dashboard`), reported disabled; 'not_started' leaves it enabled but not started
   * in this process (tests, where Superset is slow), reported not running.
   */
  dashboard?: 'run' | 'disabled' | 'not_started';
  /** Listens only once the docs server and Superset answer (tests), instead of serving 502 until they do. */
  awaitUpstreams?: boolean;
  /** Where schedules report runs they could not do: the alerts unless a test listens itself. */
  scheduleIncidents?: ScheduleIncidents;
  /** Runs after the context opens and before anything starts (tests add users here). */
  beforeStart?: (ctx: AppContext) => void | Promise<void>;
  /** With a shared platform store: takes jobs from the deployment's queue, as a worker does (default true; `--no-jobs`). */
  takeJobs?: boolean;
}

/** The running platform: what startPlatform started, and the one way to stop it. */
export interface Platform {
  readonly ctx: AppContext;
  readonly app: FastifyInstance;
  /** The port the HTTP app listens on. */
  readonly port: number;
  /** The address to show: public_url when set, else the listening host and port. */
  readonly url: string;
  readonly watcher: WatcherProcess | undefined;
  readonly docsServer: DocsServer | undefined;
  readonly dashboard: SupersetProcess | undefined;
  /** Alerts: incidents (the scheduler reports missed runs here), the outbox and its delivery. */
  readonly alerts: AlertCenter;
  /** Source freshness: `source_stale` incidents opened and closed as sources age and sync. */
  readonly freshness: FreshnessMonitor;
  /** Stops everything in the reverse order of its start (running jobs get `graceMs` to finish); idempotent. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Builds and starts the whole platform over a project: context, recovery of what a stopped service left,
 * the lake (made, or converted from a warehouse of before),
 * alerts and the freshness check, transformations, watcher, docs server, dashboard tool, WebSocket hub and the HTTP app, listening.
 * The CLI and the tests both start it here, so a test never runs a platform the CLI would not.
 */
export async function startPlatform(options: PlatformOptions): Promise<Platform> {
  const ctx = await createContext(options);
  const stops = new StopStack(ctx);
  let graceMs: number | undefined;
  stops.push('the platform context', () => closeContext(ctx, graceMs));
  try {
    await options.beforeStart?.(ctx);
    await recoverAfterStop(ctx);
    await checkCatalogReachable(ctx.lake);
    const starting = new AbortController().signal;
    const upgrade = await prepareWarehouse(ctx.paths, ctx.writer, ctx.log.child({ module: 'warehouse' }), starting);
    await checkCatalogReader(ctx.readers);
    const alerts = new AlertCenter({
      store: ctx.store, events: ctx.events, alerts: ctx.config.alerts, project: ctx.config.name, env: ctx.env, outbound: ctx.outbound, redactor: ctx.redactor,
      log: ctx.log.child({ module: 'alerts' }), now: ctx.now,
    });
    alerts.start();
    stops.push('alerts', () => alerts.close());
    const freshness = new FreshnessMonitor({
      sources: ctx.sources, schedules: ctx.config.schedules, sourceReports: ctx.sourceReports, events: ctx.events, alerts, log: ctx.log.child({ module: 'freshness' }), now: ctx.now,
    });
    await freshness.start();
    stops.push('the freshness check', () => freshness.stop());
    if (options.transform !== false) await ctx.transform.start();
    const watcher = options.watcher !== false && ctx.config.watcher.enabled ? await startWatcher(ctx) : undefined;
    if (watcher) stops.push('the file watcher', () => watcher.stop());
    const docsServer = options.docsServer === false ? undefined : startDocsServer({
      paths: ctx.paths, log: ctx.log.child({ module: 'transform-docs' }), pythonEnvironmentsDir: ctx.env.QUARRY_PYTHON_ENVS_DIR,
    });
    if (docsServer) stops.push('the transformation-docs server', () => docsServer.stop());
    const dashboardEnabled = options.dashboard !== 'disabled' && ctx.config.dashboard.enabled;
    const superset = dashboardEnabled && options.dashboard !== 'not_started' ? startDashboard({
      paths: ctx.paths, lake: ctx.lake, config: ctx.config, log: ctx.log.child({ module: 'dashboard' }), pythonEnvironmentsDir: ctx.env.QUARRY_PYTHON_ENVS_DIR,
      baseEnv: ctx.childEnv, port: options.ports?.dashboard,
    }) : undefined;
    if (superset) stops.push('the dashboard tool', () => superset.stop());
    await ctx.schedules.start(options.scheduleIncidents ?? alerts);
    stops.push('the schedules', () => ctx.schedules.close());
    if (ctx.store.shared !== undefined && options.takeJobs !== false) await ctx.jobs.takeQueuedJobs(ctx.config.platform.job_concurrency);
    const maintenance = new DailyMaintenance({
      start: async () => { await ctx.jobs.startMaintenance({ retentionDays: ctx.config.warehouse.snapshot_retention_days, requestedBy: 'schedule:maintenance' }); },
      lastStartedAt: async () => {
        const last = await ctx.store.jobs.latest('maintain', MAINTENANCE_TARGET);
        return last === undefined ? undefined : new Date(last.createdAt);
      },
      now: ctx.now, log: ctx.log.child({ module: 'maintenance' }),
    });
    await maintenance.start();
    stops.push('the daily maintenance', () => { maintenance.close(); });
    // Tables a command line changed beside the service are left for it to profile (see ContextOptions.profileAfterJobs).
    const profileSweep = setInterval(() => { void ctx.profiler.refresh(); }, PROFILE_SWEEP_MS);
    profileSweep.unref();
    stops.push('the profile sweep', () => { clearInterval(profileSweep); });
    if (ctx.store.shared !== undefined) stops.push('the profiles after the deployment\'s jobs', profileAfterDeploymentJobs(ctx.events, ctx.profiler));
    if (options.awaitUpstreams === true) await Promise.all([docsServer?.whenReady(), superset?.whenReady()]);
    const dashboard = superset === undefined ? undefined : startDashboardService(ctx, superset);
    if (dashboard) stops.push('the dashboard service', () => dashboard.close());
    const hub = new WebSocketHub(ctx);
    stops.push('the WebSocket hub', () => { hub.close(); });
    const app = await buildApp(ctx, {
      hub, watcher, docsServer, superset, dashboard, dashboardEnabled, answeredRequestsLevel: options.logFormat === 'pretty' ? 'debug' : 'info',
    });
    stops.push('the HTTP app', () => app.close());
    const host = options.host ?? ctx.config.web.host;
    await app.listen({ host, port: options.ports?.web ?? ctx.config.web.port });
    stops.push('the pid file', recordRunningServer(ctx.paths, listeningAddress(ctx, app)));
    const url = webUrl(ctx, app);
    alerts.startDelivery(url);
    await upgrade.afterSuccessfulStart();
    return {
      ctx, app, port: listeningAddress(ctx, app).port, url,
      watcher, docsServer, dashboard: superset, alerts, freshness,
      close: (grace?: number) => {
        graceMs = grace;
        return stops.close();
      },
    };
  } catch (error) {
    await stops.close();
    throw error;
  }
}

/** Marks the jobs a stopped service left running as interrupted and removes the temp files of its unfinished uploads. */
async function recoverAfterStop(ctx: AppContext): Promise<void> {
  await ctx.jobs.recoverInterrupted();
  for (const source of ctx.sources) {
    const location = fileSourceLocation(source, ctx.paths.root);
    const removed = location === undefined ? 0 : await removeUnfinishedUploads(location.directory);
    if (removed > 0) ctx.log.warn({ source: source.name, removed }, 'removed the temp files of uploads interrupted when the service stopped');
  }
  // Tables changed by a Quarry that stopped before profiling them (or predates profiles), in the background.
  void ctx.profiler.refresh();
}

/** Keeps Superset in step with the platform (accounts, roles, the warehouse, shipped dashboards). */
function startDashboardService(ctx: AppContext, superset: SupersetProcess): DashboardService {
  const service = new DashboardService({
    superset, store: ctx.store, events: ctx.events, lake: ctx.lake, dashboardsDir: ctx.paths.dashboardsDir,
    secretKey: ctx.secretKey, log: ctx.log.child({ module: 'dashboard' }), now: ctx.now,
  });
  service.start();
  return service;
}

/** What was started, stopped last-started first; a part that fails to stop is logged and the rest still stop. */
class StopStack {
  readonly #ctx: AppContext;
  readonly #stops: { what: string; stop: () => void | Promise<void> }[] = [];
  #closed: Promise<void> | undefined;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  push(what: string, stop: () => void | Promise<void>): void {
    this.#stops.push({ what, stop });
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      for (const { what, stop } of this.#stops.toReversed()) {
        try {
          await stop();
        } catch (error) {
          this.#ctx.log.error({ err: error, part: what }, 'a part of the platform did not stop cleanly');
        }
      }
    })();
    return this.#closed;
  }
}
