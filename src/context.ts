import { mkdirSync } from 'node:fs';
import { createAuth, OAuthLogin, type Auth } from './auth/index.ts';
import { Catalog, QueryService, TableProfiler } from './catalog/index.ts';
import { backupProjectToBucket } from './backup/index.ts';
import {
  assertScheduledSourcesExist, loadEnvironment, loadProjectConfig, loadSecretKey, projectPaths, resolveDataRoots, type DataRoots,
  type ProjectConfig, type ProjectPaths,
} from './config/index.ts';
import { assertSourceVariablesOwned, loadSources, SecretRedactor, type SourceConfig } from './sources/config/index.ts';
import { EventBus, PostgresEventRelay, type QuarryEvent } from './events/index.ts';
import { JobQueue, JobRunner, SourceReports } from './jobs/index.ts';
import { createLogger, type LogFormat, type Logger } from './logger.ts';
import { SERVICE_VERSION } from './version.ts';
import { assertSourcesWithinProject, OutboundPolicy, SourceTokens } from './sources/index.ts';
import { Scheduler, type Timer } from './schedules/index.ts';
import { openConfiguredStore, type Store } from './store/index.ts';
import { TransformRunner } from './transform/index.ts';
import { lakeLocation, LakeWriter, QueryProcess, WarehouseReaders, type LakeLocation } from './warehouse/index.ts';

/** Everything a request handler, job or command may use, built once and passed down. */
export interface AppContext {
  readonly version: string;
  readonly paths: ProjectPaths;
  readonly config: ProjectConfig;
  /** Where the lake's catalog and data are (project.yml's `warehouse`, the embedded lake by default). */
  readonly lake: LakeLocation;
  /** The sources as sources.yml was last read: one list every part reads when it needs it, refreshed by reloadSources. */
  readonly sources: readonly SourceConfig[];
  /** The only folders file sources read and uploads write (project.yml's `data_roots`), symlinks followed. */
  readonly dataRoots: DataRoots;
  /** The process environment over the project's .env, as last read (refreshed with the sources). */
  readonly env: Readonly<Record<string, string>>;
  /** The variables the service was started with a value for: they win over .env, so no form can set them. */
  readonly fixedVariables: ReadonlySet<string>;
  /**
   * Re-reads sources.yml and .env into `sources` and `env`, in place, after Quarry itself changed them (a source
   * added in the browser), so it can be tested and synced at once; throws ConfigError, changing nothing, on a bad file.
   */
  readonly reloadSources: () => void;
  /** Takes every known secret's value out of what leaves the process; relearns them with the sources. */
  readonly redactor: SecretRedactor;
  /** PATH and HOME every managed child (dbt, Superset) starts from. */
  readonly childEnv: Readonly<Record<string, string>>;
  readonly secretKey: Buffer;
  readonly store: Store;
  /** With a shared platform store: carries events between this process and the others of the deployment. */
  readonly relay: PostgresEventRelay | undefined;
  readonly auth: Auth;
  readonly oauth: OAuthLogin;
  readonly log: Logger;
  readonly events: EventBus;
  readonly jobs: JobRunner;
  readonly sourceTokens: SourceTokens;
  /** Where sources and alerts may connect (project.yml's `network`): every outbound connection they make goes through it. */
  readonly outbound: OutboundPolicy;
  /** Sources' summaries, sync history, logs and files, as the API and CLI report them. */
  readonly sourceReports: SourceReports;
  /** The lake's one writer: every write of it (jobs, start-up, a source's tables dropped) is queued here. */
  readonly writer: LakeWriter;
  /** dbt models: listing, runs with cascade, staging models kept in step with syncs, the docs site's files. */
  readonly transform: TransformRunner;
  /** The project's schedules: listed and run by hand everywhere, run by their cron only once started (startPlatform). */
  readonly schedules: Scheduler;
  /** Sandboxed read-only connections of the current warehouse snapshot: the one way SQL reads it. */
  readonly readers: WarehouseReaders;
  /** Users' read-only SQL on the warehouse, within the project's limits, audited. */
  readonly queries: QueryService;
  /** The warehouse's tables, columns, profiles, samples and lineage. */
  readonly catalog: Catalog;
  /** Profiles the tables a job changed (after each job); startPlatform catches up once at start. */
  readonly profiler: TableProfiler;
  readonly now: () => Date;
  readonly startedAt: Date;
}

export interface ContextOptions {
  projectDir: string;
  log?: Logger;
  /** How the service's own logger writes, when no `log` is given (JSON unless told). */
  logFormat?: LogFormat;
  /** The redactor a given `log` already writes through; the context teaches it the project's secrets. */
  redactor?: SecretRedactor;
  now?: () => Date;
  /** The process environment; tests pass their own instead of touching process.env. */
  env?: NodeJS.ProcessEnv;
  /** The timers schedules wait on; tests pass one their clock drives. */
  timer?: Timer;
  /** bcrypt's work factor for passwords set from now on (PASSWORD_COST unless told). */
  passwordCost?: number;
  /**
   * Whether the catalog profiles the tables a job changed as soon as it ends (true unless told). A command line
   * leaves them to the service: profiling a large table takes seconds its user is not waiting for.
   */
  profileAfterJobs?: boolean;
  /**
   * Whether a sync's staging models are written to this process's copy of the project as it ends (true unless
   * told). A deployment's worker leaves them to its queued model runs, which write them first, unless auto_transform
   * has it queue the models downstream of the sync from its own copy.
   */
  stagingAfterSyncs?: boolean;
  /** The name this process's jobs are recorded with (`quarry worker --name`); host:pid when left out. */
  workerName?: string;
}

/** Loads the project's configuration and opens its platform store; throws ConfigError on a bad project. */
export async function createContext(options: ContextOptions): Promise<AppContext> {
  const paths = projectPaths(options.projectDir);
  const config = loadProjectConfig(paths);
  const processEnv = options.env ?? process.env;
  // Copies, not the frozen originals: reloadSources refreshes them in place, where every part already holds them.
  const sources = [...loadSources(paths)];
  assertScheduledSourcesExist(paths, config.schedules, sources);
  assertSourceVariablesOwned(paths, config, sources);
  const env: Record<string, string> = { ...loadEnvironment(paths, processEnv) };
  const redactor = options.redactor ?? new SecretRedactor();
  redactor.learn(config, sources, env);
  const dataRoots = resolveDataRoots(paths, config, env);
  assertSourcesWithinProject(paths, dataRoots, sources);
  const reloadSources = (): void => {
    const freshSources = loadSources(paths);
    assertSourcesWithinProject(paths, dataRoots, freshSources);
    assertSourceVariablesOwned(paths, config, freshSources);
    const freshEnv = loadEnvironment(paths, processEnv);
    sources.splice(0, sources.length, ...freshSources);
    for (const name of Object.keys(env)) if (!(name in freshEnv)) Reflect.deleteProperty(env, name);
    Object.assign(env, freshEnv);
    redactor.learn(config, sources, env);
  };
  const secretKey = loadSecretKey(paths);
  const now = options.now ?? (() => new Date());
  mkdirSync(paths.runDir, { recursive: true });
  const store = await openConfiguredStore(paths.platformDb, config.platform, env, { redact: (text) => redactor.redact(text) });
  const log = options.log ?? createLogger({ level: env.QUARRY_LOG_LEVEL ?? 'info', format: options.logFormat, redactor });
  const events = new EventBus(log.child({ module: 'events' }), now, redactor);
  const { queue, relay } = await deploymentParts(store, events, config, log).catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const lake = lakeLocation(paths, config, env);
  const writer = new LakeWriter(lake, paths.writerLockFile);
  const outbound = new OutboundPolicy(config.network.allow_private);
  const sourceTokens = new SourceTokens({ store, secretKey, now, outbound });
  const childEnv = Object.freeze({ PATH: env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: env.HOME ?? paths.runDir });
  const readers = new WarehouseReaders(lake);
  const profiler = new TableProfiler({ readers, store, log: log.child({ module: 'catalog' }), now });
  const jobs = new JobRunner({
    store, paths, sources, events, log: log.child({ module: 'jobs' }), now, env, readers, writer, sourceTokens, outbound, dataRoots, redactor,
    afterCommit: options.profileAfterJobs === false ? undefined : () => profiler.refresh(),
    spreadsheetSeconds: config.limits.spreadsheet_seconds, queue, workerName: options.workerName,
    announce: relay === undefined || store.shared === undefined ? undefined : announceWith(relay, store.shared),
  });
  const transform = new TransformRunner({
    store, paths, lake, readers, config, sources, events, log: log.child({ module: 'transform' }), now, writer,
    jobs: jobs.lifecycle, stagingAfterSyncs: options.stagingAfterSyncs ?? true,
    pythonEnvironmentsDir: env.QUARRY_PYTHON_ENVS_DIR,
    baseEnv: childEnv,
  });
  jobs.followSyncsWith((source) => transform.afterSync(source));
  jobs.makeModelRunsWith((job) => transform.modelRunOf(job));
  return Object.freeze({
    version: SERVICE_VERSION,
    paths,
    config,
    lake,
    sources,
    dataRoots,
    env,
    fixedVariables: new Set(Object.entries(processEnv).filter(([, value]) => value !== undefined && value !== '').map(([name]) => name)),
    reloadSources,
    redactor,
    childEnv,
    secretKey,
    store,
    relay,
    auth: createAuth({ store, config, secretKey, now, passwordCost: options.passwordCost }),
    oauth: new OAuthLogin({ config: config.oauth, env, secretKey, now }),
    log,
    events,
    jobs,
    writer,
    sourceTokens,
    outbound,
    sourceReports: new SourceReports({ store, sources, now }),
    transform,
    schedules: new Scheduler({
      schedules: config.schedules, sources, store, events, jobs, transform, log: log.child({ module: 'schedules' }), now,
      timer: options.timer,
      backup: async (schedule) => {
        const summary = await backupProjectToBucket({ paths, config, env, quarryVersion: SERVICE_VERSION }, schedule.to, { keep: schedule.keep });
        const pruned = summary.removed.length === 0 ? '' : `; deleted ${String(summary.removed.length)} older backup(s) to keep ${String(schedule.keep)}`;
        return `backed up into ${summary.url} (${String(summary.files)} files)${pruned}`;
      },
    }),
    readers,
    queries: new QueryService({ process: new QueryProcess(lake), config, store, now }),
    catalog: new Catalog({ readers, store, profiler, log: log.child({ module: 'catalog' }), models: () => transform.listModels() }),
    profiler,
    now,
    startedAt: now(),
  });
}

/** Sends events to the deployment's other processes within the platform store's current transaction. */
function announceWith(relay: PostgresEventRelay, shared: NonNullable<Store['shared']>): (events: readonly QuarryEvent[]) => Promise<void> {
  return (events) => relay.sendWithin(events, (text, values) => shared.executeSql(text, values));
}

/**
 * What a process of a deployment shares with the others beside the store, when the store is shared: the job queue
 * (pg-boss's tables in a schema of their own beside the store's) and the relay of events.
 */
async function deploymentParts(
  store: Store, events: EventBus, config: ProjectConfig, log: Logger,
): Promise<{ queue: JobQueue | undefined; relay: PostgresEventRelay | undefined }> {
  const shared = store.shared;
  if (shared === undefined) return { queue: undefined, relay: undefined };
  const queue = await JobQueue.open({
    connection: shared.connection, schema: `${shared.schema}_queue`, log: log.child({ module: 'queue' }), leaseSeconds: config.platform.job_lease_seconds,
  });
  const relay = new PostgresEventRelay({ bus: events, connection: shared.connection, schema: shared.schema, log: log.child({ module: 'events' }) });
  await relay.start();
  return { queue, relay };
}

/** How long a running job may take to finish when the service stops before it is interrupted. */
const SHUTDOWN_GRACE_MS = 20_000;

/**
 * Closes what createContext opened, in reverse order: the schedules, then the transform runner stops queuing
 * work and the one job lifecycle closes (syncs and model runs finish within the grace period or are
 * interrupted), the lake's writer, then the store.
 */
export async function closeContext(context: AppContext, graceMs = SHUTDOWN_GRACE_MS): Promise<void> {
  await context.schedules.close();
  await context.jobs.close(graceMs, context.transform.close());
  await context.writer.close();
  await context.profiler.idle();
  context.readers.close();
  context.queries.close();
  await context.relay?.close();
  await context.store.close();
  await context.outbound.close();
}
