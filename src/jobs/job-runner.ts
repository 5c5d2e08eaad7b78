import type { ProjectPaths, SourceConfig } from '../config/index.ts';
import type { EventBus } from '../events/index.ts';
import type { Logger } from '../logger.ts';
import {
  backfillWindow, loaderFor, SyncFailedError, type DateWindow, type LoadContext, type LoadMessage, type LoadOutcome, type SourceLoader, type SourceTokens,
} from '../sources/index.ts';
import { sqliteFailure, type JobRecord, type LogLevel, type Store } from '../store/index.ts';
import { WarehouseBusyError, withWriteConnection, type DuckDBConnection } from '../warehouse/index.ts';
import { SourceDisabledError, SourceNotFoundError, SourceTypeNotSupportedError, SyncInProgressError } from './errors.ts';
import { finishWithin } from './finish-within.ts';
import { publishAfterCommit, type JobMessage } from './publish-after-commit.ts';
import type { WarehouseLock } from './warehouse-lock.ts';
import { firstLineOf, TransientError } from '../errors.ts';

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

  /**
   * Queues a sync: file sources load under the lock; other sources extract first, then load under the lock.
   * With `backfill`, only that window of days is re-loaded (BackfillNotSupportedError for a type without date ranges).
   */
  startSync(name: string, options: { fullRefresh: boolean; requestedBy: string | null; backfill?: BackfillRequest | undefined }): JobRecord {
    const { store, sources, now, paths } = this.#options;
    const source = sources.find((candidate) => candidate.name === name);
    if (!source) throw new SourceNotFoundError(name);
    if (!source.enabled) throw new SourceDisabledError(name);
    const loader = loaderFor(source);
    const unsupported = loader.unsupportedReason(source, paths.root);
    if (unsupported !== undefined) throw new SourceTypeNotSupportedError(name, source.type, unsupported);
    const window = options.backfill === undefined ? undefined : backfillWindow(source, options.backfill, { now: now(), fullRefresh: options.fullRefresh });
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
    const run = () => this.#runSync(job, source, signal, () => loader.load(this.#loadContext(job, source, loader, signal, window)));
    const sync = loader.lockScope === 'sync' ? () => this.#lock.hold(run, signal) : run;
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

  async #runSync(job: JobRecord, source: SourceConfig, signal: AbortSignal, sync: () => Promise<LoadOutcome>): Promise<void> {
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
    events.publish({ type: 'sync_completed', source: source.name, rows: outcome.rows });
  }

  /** What the source's loader needs for this job; its writes hold the lock unless the whole sync already does. */
  #loadContext(job: JobRecord, source: SourceConfig, loader: SourceLoader, signal: AbortSignal, window: DateWindow | undefined): LoadContext {
    const { store, paths, now, env } = this.#options;
    const write = async <T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<{ result: T; messages: LoadMessage[] }> => {
      const result = await withWriteConnection(paths.warehouseFile, signal, work);
      return { result, messages: await this.#publish() };
    };
    return {
      source, env, now, signal, projectDir: paths.root, runDir: paths.runDir, jobId: job.id, fullRefresh: job.fullRefresh, window,
      log: (level, message) => { this.#logLine(level, source.name, message, job.id); },
      oauthAccessToken: (provider) => this.#options.sourceTokens.accessToken(provider, env, signal),
      savedCursors: () => (job.fullRefresh ? new Map<string, unknown>() : store.sourceState.forSource(source.name)),
      ledger: () => store.fileLedger.forSource(source.name),
      write: (work) => (loader.lockScope === 'sync' ? write(work) : this.#lock.hold(() => write(work), signal)),
    };
  }

  /** Refreshes the read-only replica by the rule every job kind shares: a failure is a warning. */
  #publish(): Promise<JobMessage[]> {
    return publishAfterCommit(this.#options.paths, this.#options.log);
  }

  #finishFailed(job: JobRecord, error: unknown, signal: AbortSignal): void {
    const { store, events, now, log } = this.#options;
    const interrupted = signal.aborted;
    const message = interrupted
      ? 'The sync was interrupted because the service is stopping; the previous data is intact'
      : error instanceof SyncFailedError || error instanceof WarehouseBusyError ? error.message : `The sync failed: ${failureReason(error)}`;
    const ending: UnrecordedEnding = {
      jobId: job.id, source: job.target, status: interrupted ? 'interrupted' : 'failed', error: message, finishedAt: now().toISOString(),
      transient: !interrupted && isTransient(error),
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
    this.#options.store.jobs.finish(ending.jobId, { status: ending.status, rows: null, error: ending.error, transient: ending.transient }, ending.finishedAt);
    this.#options.store.logs.append({
      timestamp: ending.finishedAt, level: ending.status === 'interrupted' ? 'WARNING' : 'ERROR', source: ending.source, message: ending.error, jobId: ending.jobId,
    });
  }

  #logLine(level: LogLevel, source: string | null, message: string, jobId: number): void {
    this.#options.store.logs.append({ timestamp: this.#options.now().toISOString(), level, source, message, jobId });
  }
}

/** The days a backfill asks for, as given (`until` defaults to today); checked by `backfillWindow`. */
export interface BackfillRequest {
  readonly since: string;
  readonly until?: string | undefined;
}

interface UnrecordedEnding {
  readonly jobId: number;
  readonly source: string;
  readonly status: 'failed' | 'interrupted';
  readonly error: string;
  readonly finishedAt: string;
  readonly transient: boolean;
}

/** Whether trying the sync again later may succeed: recorded with the job, so schedules retry only those. */
function isTransient(error: unknown): boolean {
  return error instanceof TransientError || (error instanceof SyncFailedError && error.transient) || error instanceof WarehouseBusyError;
}

/** The first line of what went wrong, in words for the sync history. */
function failureReason(error: unknown): string {
  if (sqliteFailure(error) === 'read_only') return 'the platform database is read-only, so the sync could not be recorded';
  return firstLineOf(error);
}
