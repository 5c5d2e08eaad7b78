import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { ProjectPaths, SourceConfig } from '../config/index.ts';
import type { EventBus } from '../events/index.ts';
import type { Logger } from '../logger.ts';
import { SyncFailedError, syncFileSource, type FileSourceSpec } from '../sources/index.ts';
import type { JobRecord, LogLevel, Store } from '../store/index.ts';
import { publishReplica, withWriteConnection } from '../warehouse/index.ts';
import { SourceDisabledError, SourceNotFoundError, SourceTypeNotSupportedError, SyncInProgressError } from './errors.ts';
import type { WarehouseLock } from './warehouse-lock.ts';

export interface JobRunnerOptions {
  store: Store;
  paths: ProjectPaths;
  sources: readonly SourceConfig[];
  events: EventBus;
  log: Logger;
  now: () => Date;
  /** The warehouse's one door, shared with every other writer (model runs). */
  lock: WarehouseLock;
}

/** Where a file source's files live, or undefined for sources of other kinds. */
export function fileSourceLocation(source: SourceConfig, projectRoot: string): { directory: string; pattern: string } | undefined {
  switch (source.type) {
    case 'local_files': return { directory: path.resolve(projectRoot, source.local_files.directory), pattern: source.local_files.file_pattern };
    case 'csv': return { directory: path.resolve(projectRoot, source.csv.directory), pattern: source.csv.file_pattern };
    default: return undefined;
  }
}

/** Queues sync jobs, runs them one warehouse writer at a time, and records every transition. */
export class JobRunner {
  readonly #options: JobRunnerOptions;
  readonly #lock: WarehouseLock;
  readonly #controllers = new Map<number, AbortController>();
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

  /** Queues a sync and starts it as soon as the warehouse is free. */
  startSync(name: string, options: { fullRefresh: boolean; requestedBy: string | null }): JobRecord {
    const { store, sources, now, paths } = this.#options;
    const source = sources.find((candidate) => candidate.name === name);
    if (!source) throw new SourceNotFoundError(name);
    if (!source.enabled) throw new SourceDisabledError(name);
    const location = fileSourceLocation(source, paths.root);
    if (location === undefined) throw new SourceTypeNotSupportedError(name, source.type);
    if (this.#closing) throw new SyncInProgressError(name);
    const job = store.transaction(() => store.jobs.enqueueUnlessActive(
      { kind: 'sync', target: name, fullRefresh: options.fullRefresh, requestedBy: options.requestedBy }, now().toISOString(),
    ));
    if (!job) throw new SyncInProgressError(name);
    const controller = new AbortController();
    this.#controllers.set(job.id, controller);
    const spec: FileSourceSpec = { source: name, ...location, fullRefresh: options.fullRefresh, lookbackDays: source.lookback_days };
    const run = async (): Promise<void> => {
      try {
        await this.#runSync(job, spec, controller.signal);
      } catch (error) {
        this.#finishFailed(job, error, controller.signal);
      }
    };
    // Failure is recorded inside the held turn, so whoever waits for the lock to be idle sees the job finished.
    this.#lock.hold(run, controller.signal)
      .catch((error: unknown) => { this.#finishFailed(job, error, controller.signal); })
      .finally(() => { this.#controllers.delete(job.id); });
    return job;
  }

  /** Resolves when no job is queued or running. */
  async idle(): Promise<void> {
    await this.#lock.idle();
  }

  /** Lets the running job finish within `graceMs`, then aborts it; queued jobs end interrupted. */
  async close(graceMs: number): Promise<void> {
    this.#closing = true;
    const finished = this.#lock.idle();
    const graceOver = new AbortController();
    const timedOut = await Promise.race([
      finished.then(() => false),
      delay(graceMs, true, { signal: graceOver.signal }).catch(() => false),
    ]);
    graceOver.abort();
    if (timedOut) {
      for (const controller of this.#controllers.values()) controller.abort();
      await finished;
    }
  }

  async #runSync(job: JobRecord, spec: FileSourceSpec, signal: AbortSignal): Promise<void> {
    const { store, paths, events, now, log } = this.#options;
    const started = now();
    store.jobs.markRunning(job.id, started.toISOString());
    events.publish({ type: 'sync_started', source: spec.source });
    this.#logLine('INFO', spec.source, `Sync started${spec.fullRefresh ? ' (full refresh)' : ''}`, job.id);
    const ledger = store.fileLedger.forSource(spec.source);
    const outcome = await withWriteConnection(paths.warehouseFile, signal, (connection) => syncFileSource(connection, spec, ledger, now(), signal));
    await publishReplica(paths.warehouseFile, path.join(paths.warehouseDir, 'serving'));
    const finishedAt = now();
    store.transaction(() => {
      store.jobs.finish(job.id, { status: 'success', rows: outcome.rows, error: null }, finishedAt.toISOString());
      store.warehouseTables.replaceForSource(spec.source, outcome.tables, finishedAt.toISOString());
      store.fileLedger.replace(spec.source, outcome.ledger);
    });
    for (const line of outcome.messages) this.#logLine(line.level, spec.source, line.message, job.id);
    const seconds = (finishedAt.getTime() - started.getTime()) / 1000;
    this.#logLine('SUCCESS', spec.source, `Sync finished: ${String(outcome.rows)} rows in ${seconds.toFixed(1)} s`, job.id);
    log.info({ source: spec.source, rows: outcome.rows, durationMs: finishedAt.getTime() - started.getTime() }, 'sync completed');
    events.publish({ type: 'sync_completed', source: spec.source, rows: outcome.rows });
  }

  #finishFailed(job: JobRecord, error: unknown, signal: AbortSignal): void {
    const { store, events, now, log } = this.#options;
    const interrupted = signal.aborted;
    const message = interrupted
      ? 'The sync was interrupted because the service is stopping; the previous data is intact'
      : error instanceof SyncFailedError ? error.message : `The sync failed: ${error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error)}`;
    store.jobs.finish(job.id, { status: interrupted ? 'interrupted' : 'failed', rows: null, error: message }, now().toISOString());
    this.#logLine(interrupted ? 'WARNING' : 'ERROR', job.target, message, job.id);
    if (!(error instanceof SyncFailedError) && !interrupted) log.error({ err: error, source: job.target }, 'sync failed unexpectedly');
    events.publish({ type: 'sync_failed', source: job.target, error: message });
  }

  #logLine(level: LogLevel, source: string | null, message: string, jobId: number): void {
    this.#options.store.logs.append({ timestamp: this.#options.now().toISOString(), level, source, message, jobId });
  }
}
