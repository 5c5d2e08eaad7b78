import path from 'node:path';
import type { CsvReadOptions, ProjectPaths, SourceConfig } from '../config/index.ts';
import type { EventBus } from '../events/index.ts';
import type { Logger } from '../logger.ts';
import {
  connectorFor, loadStagedTables, StagingArea, SyncFailedError, syncFileSource,
  type Connector, type CursorState, type FileSourceSpec, type SourceTokens,
} from '../sources/index.ts';
import { sqliteFailure, type JobRecord, type LedgerEntry, type LogLevel, type Store } from '../store/index.ts';
import { inTransaction, publishReplica, WarehouseBusyError, withWriteConnection } from '../warehouse/index.ts';
import { SourceDisabledError, SourceNotFoundError, SourceTypeNotSupportedError, SyncInProgressError } from './errors.ts';
import { finishWithin } from './finish-within.ts';
import type { WarehouseLock } from './warehouse-lock.ts';

export interface JobRunnerOptions {
  store: Store;
  paths: ProjectPaths;
  sources: readonly SourceConfig[];
  events: EventBus;
  log: Logger;
  now: () => Date;
  /** The project's environment, where connectors read credentials by name. */
  env: Readonly<Record<string, string | undefined>>;
  /** The warehouse's one door, shared with every other writer (model runs). */
  lock: WarehouseLock;
  sourceTokens: SourceTokens;
}

/** Where a file source's files live, or undefined for sources of other kinds. */
export function fileSourceLocation(
  source: SourceConfig, projectRoot: string,
): { directory: string; pattern: string; csv?: CsvReadOptions | undefined } | undefined {
  switch (source.type) {
    case 'local_files': return { directory: path.resolve(projectRoot, source.local_files.directory), pattern: source.local_files.file_pattern, csv: source.local_files.csv };
    case 'csv': return { directory: path.resolve(projectRoot, source.csv.directory), pattern: source.csv.file_pattern };
    case 'filesystem': {
      const url = source.filesystem.bucket_url;
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !url.startsWith('file://')) return undefined;
      return { directory: path.resolve(projectRoot, url.replace(/^file:\/\//, '')), pattern: source.filesystem.file_pattern };
    }
    default: return undefined;
  }
}

interface SyncResult {
  readonly rows: number;
  readonly tables: { schema: string; name: string; rowCount: number }[];
  readonly messages: { level: 'INFO' | 'WARNING'; message: string }[];
  readonly ledger?: LedgerEntry[];
  readonly cursors?: ReadonlyMap<string, unknown>;
  /** Files a file-source sync skipped because DuckDB cannot read them: the sync succeeds with a warning. */
  readonly filesFailed?: number;
}

/** Queues sync jobs and records every transition; whatever writes the warehouse does so one holder of the lock at a time. */
export class JobRunner {
  readonly #options: JobRunnerOptions;
  readonly #lock: WarehouseLock;
  readonly #controllers = new Map<number, AbortController>();
  readonly #inFlight = new Set<Promise<void>>();
  /** Ends of failed jobs the platform database refused to record (read-only or locked); written with the next sync. */
  readonly #unrecordedEndings: UnrecordedEnding[] = [];
  #closing = false;

  constructor(options: JobRunnerOptions) {
    this.#options = options;
    this.#lock = options.lock;
  }

  /** Marks jobs a stopped service left behind as interrupted; call once at start. */
  recoverInterrupted(): JobRecord[] {
    const { store, now } = this.#options;
    const interrupted = store.jobs.interruptActive(now().toISOString());
    for (const job of interrupted) {
      this.#logLine('WARNING', job.kind === 'sync' ? job.target : null, `The ${job.kind} job ${String(job.id)} was interrupted when the service stopped; the previous data is intact`, job.id);
    }
    return interrupted;
  }

  /** Queues a sync: file sources load under the lock; other sources extract first, then load under the lock. */
  startSync(name: string, options: { fullRefresh: boolean; requestedBy: string | null }): JobRecord {
    const { store, sources, now, paths } = this.#options;
    const source = sources.find((candidate) => candidate.name === name);
    if (!source) throw new SourceNotFoundError(name);
    if (!source.enabled) throw new SourceDisabledError(name);
    const location = fileSourceLocation(source, paths.root);
    const connector = location === undefined ? connectorFor(source) : undefined;
    if (source.type === 'filesystem' && location === undefined) {
      throw new SourceTypeNotSupportedError(name, source.type, `its files in ${source.filesystem.bucket_url}: object storage is not readable yet; point bucket_url at a local folder`);
    }
    if (location === undefined && connector === undefined) throw new SourceTypeNotSupportedError(name, source.type);
    if (this.#closing) throw new SyncInProgressError(name);
    const job = store.transaction(() => {
      for (const ending of this.#unrecordedEndings) this.#recordEnding(ending);
      return store.jobs.enqueueUnlessActive(
        { kind: 'sync', target: name, fullRefresh: options.fullRefresh, requestedBy: options.requestedBy }, now().toISOString(),
      );
    });
    this.#unrecordedEndings.length = 0;
    if (!job) throw new SyncInProgressError(name);
    const controller = new AbortController();
    this.#controllers.set(job.id, controller);
    const signal = controller.signal;
    const sync = location !== undefined
      ? () => this.#lock.hold(() => this.#runSync(job, source, signal, () => this.#syncFiles(job, { source: name, ...location, fullRefresh: options.fullRefresh, lookbackDays: source.lookback_days }, signal)), signal)
      : () => this.#runSync(job, source, signal, () => this.#syncConnector(job, source, connector as Connector, signal));
    const done = sync()
      .catch((error: unknown) => { this.#finishFailed(job, error, signal); })
      .finally(() => {
        this.#controllers.delete(job.id);
        this.#inFlight.delete(done);
      });
    this.#inFlight.add(done);
    return job;
  }

  /** Resolves when no job is queued or running. */
  async idle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.all(this.#inFlight);
    await this.#lock.idle();
  }

  /** Lets running jobs finish within `graceMs`, then aborts them; queued jobs end interrupted. */
  async close(graceMs: number): Promise<void> {
    this.#closing = true;
    await finishWithin(this.idle(), graceMs, () => {
      for (const controller of this.#controllers.values()) controller.abort();
    });
  }

  async #runSync(job: JobRecord, source: SourceConfig, signal: AbortSignal, sync: () => Promise<SyncResult>): Promise<void> {
    const { store, events, now, log } = this.#options;
    signal.throwIfAborted();
    const started = now();
    store.jobs.markRunning(job.id, started.toISOString());
    events.publish({ type: 'sync_started', source: source.name });
    this.#logLine('INFO', source.name, `Sync started${job.fullRefresh ? ' (full refresh)' : ''}`, job.id);
    const outcome = await sync();
    const finishedAt = now();
    store.transaction(() => {
      store.jobs.finish(job.id, { status: 'success', rows: outcome.rows, error: null, filesFailed: outcome.filesFailed ?? 0 }, finishedAt.toISOString());
      store.warehouseTables.replaceForSource(source.name, outcome.tables, finishedAt.toISOString());
      if (outcome.ledger !== undefined) store.fileLedger.replace(source.name, outcome.ledger);
      if (outcome.cursors !== undefined) {
        if (job.fullRefresh) store.sourceState.clear(source.name);
        store.sourceState.save(source.name, outcome.cursors, finishedAt.toISOString());
      }
    });
    for (const line of outcome.messages) this.#logLine(line.level, source.name, line.message, job.id);
    const seconds = (finishedAt.getTime() - started.getTime()) / 1000;
    const filesFailed = outcome.filesFailed ?? 0;
    const skipped = filesFailed > 0 ? `; ${String(filesFailed)} file(s) could not be read and were skipped` : '';
    this.#logLine('SUCCESS', source.name, `Sync finished: ${String(outcome.rows)} rows in ${seconds.toFixed(1)} s${skipped}`, job.id);
    log.info({ source: source.name, rows: outcome.rows, filesFailed, durationMs: finishedAt.getTime() - started.getTime() }, 'sync completed');
    events.publish({ type: 'sync_completed', source: source.name, rows: outcome.rows, ...(filesFailed > 0 ? { files_failed: filesFailed } : {}) });
  }

  async #syncFiles(job: JobRecord, spec: FileSourceSpec, signal: AbortSignal): Promise<SyncResult> {
    const { store, paths, now } = this.#options;
    const ledger = store.fileLedger.forSource(spec.source);
    const outcome = await withWriteConnection(paths.warehouseFile, signal, (connection) => syncFileSource(connection, spec, ledger, now(), signal));
    return { ...outcome, messages: [...outcome.messages, ...await this.#publish()] };
  }

  /** Extracts outside the lock (a slow API must not hold up other loads), then loads everything in one transaction. */
  async #syncConnector(job: JobRecord, source: SourceConfig, connector: Connector, signal: AbortSignal): Promise<SyncResult> {
    const { store, paths, now, env } = this.#options;
    const saved = job.fullRefresh ? new Map<string, unknown>() : store.sourceState.forSource(source.name);
    const cursors = new Map<string, unknown>();
    const state: CursorState = {
      get: (resource) => saved.get(resource),
      set: (resource, value) => { cursors.set(resource, value); },
    };
    const afterCommit: (() => Promise<void>)[] = [];
    const staging = await StagingArea.create(paths.runDir, job.id);
    try {
      await connector.extract({
        source, env, state, fullRefresh: job.fullRefresh, now: now(), signal, workDir: staging.directory, projectDir: paths.root,
        log: (level, message) => { this.#logLine(level, source.name, message, job.id); },
        oauthAccessToken: (provider) => this.#options.sourceTokens.accessToken(provider, env, signal),
        onCommitted: (work) => { afterCommit.push(work); },
      }, staging);
      const staged = await staging.finish();
      const committed = await this.#lock.hold(async () => {
        const loaded = await withWriteConnection(paths.warehouseFile, signal, (connection) => inTransaction(connection, async () => {
          const outcome = await loadStagedTables(connection, source.name, staged, { fullRefresh: job.fullRefresh, now: now() });
          signal.throwIfAborted();
          return outcome;
        }));
        const published = await this.#publish();
        return { rows: loaded.rowsLoaded, tables: loaded.tables, messages: [...loaded.messages, ...published], cursors };
      }, signal);
      // Outside the lock: the data is committed, and a slow vendor must not hold up other loads.
      return { ...committed, messages: [...committed.messages, ...await runAfterCommit(afterCommit)] };
    } finally {
      await staging.remove();
    }
  }

  /**
   * Refreshes the read-only replica. The data is committed by now, so a failure here (a full disk) must not
   * fail the sync and lose its ledger or cursors: it is reported, and readers keep the previous replica.
   */
  async #publish(): Promise<{ level: 'WARNING'; message: string }[]> {
    const { paths, log } = this.#options;
    try {
      await publishReplica(paths.warehouseFile, path.join(paths.warehouseDir, 'serving'));
      return [];
    } catch (error) {
      log.error({ err: error }, 'publishing the read-only replica failed');
      const cause = error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error);
      return [{ level: 'WARNING', message: `The data is loaded, but the read-only copy for dashboards could not be refreshed (${cause}); they show the previous data until the next sync` }];
    }
  }

  #finishFailed(job: JobRecord, error: unknown, signal: AbortSignal): void {
    const { store, events, now, log } = this.#options;
    const interrupted = signal.aborted;
    const message = interrupted
      ? 'The sync was interrupted because the service is stopping; the previous data is intact'
      : error instanceof SyncFailedError || error instanceof WarehouseBusyError ? error.message : `The sync failed: ${failureReason(error)}`;
    const ending: UnrecordedEnding = {
      jobId: job.id, source: job.target, status: interrupted ? 'interrupted' : 'failed', error: message, finishedAt: now().toISOString(),
    };
    try {
      store.transaction(() => { this.#recordEnding(ending); });
    } catch (storeError) {
      // Thrown from here, it would be an unhandled rejection that stops the service.
      this.#unrecordedEndings.push(ending);
      log.error({ err: storeError, source: job.target, job: job.id }, 'the end of the sync could not be recorded in the platform database; it is recorded with the next sync');
    }
    if (!(error instanceof SyncFailedError) && !(error instanceof WarehouseBusyError) && !interrupted) log.error({ err: error, source: job.target }, 'sync failed unexpectedly');
    events.publish({ type: 'sync_failed', source: job.target, error: message });
  }

  #recordEnding(ending: UnrecordedEnding): void {
    this.#options.store.jobs.finish(ending.jobId, { status: ending.status, rows: null, error: ending.error }, ending.finishedAt);
    this.#options.store.logs.append({
      timestamp: ending.finishedAt, level: ending.status === 'interrupted' ? 'WARNING' : 'ERROR', source: ending.source, message: ending.error, jobId: ending.jobId,
    });
  }

  #logLine(level: LogLevel, source: string | null, message: string, jobId: number): void {
    this.#options.store.logs.append({ timestamp: this.#options.now().toISOString(), level, source, message, jobId });
  }
}

interface UnrecordedEnding {
  readonly jobId: number;
  readonly source: string;
  readonly status: 'failed' | 'interrupted';
  readonly error: string;
  readonly finishedAt: string;
}

/** The first line of what went wrong, in words for the sync history. */
function failureReason(error: unknown): string {
  if (sqliteFailure(error) === 'read_only') return 'the platform database is read-only, so the sync could not be recorded';
  return error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error);
}

/** Runs what connectors asked to do once their data is committed; the data stays loaded whatever happens here. */
async function runAfterCommit(work: readonly (() => Promise<void>)[]): Promise<SyncResult['messages']> {
  const messages: SyncResult['messages'] = [];
  for (const step of work) {
    try {
      await step();
    } catch (error) {
      messages.push({ level: 'WARNING', message: `After the data was committed: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}` });
    }
  }
  return messages;
}
