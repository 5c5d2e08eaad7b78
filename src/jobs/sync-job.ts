import { firstLineOf, TransientError } from '../errors.ts';
import type { EventBus } from '../events/index.ts';
import { SyncFailedError, type DateWindow, type LedgerHasher, type LoadContext, type LoadOutcome, type SourceLoader, type SyncProgress } from '../sources/index.ts';
import { storeFailure, type JobRecord, type Store } from '../store/index.ts';
import { CommitConflictError, WarehouseBusyError } from '../warehouse/index.ts';
import { SyncInProgressError } from './errors.ts';
import type { JobKind, JobSuccess, JobTools } from './job-lifecycle.ts';
import { readContextOf, type ReadContextOptions } from './read-context.ts';

const PROGRESS_INTERVAL_MS = 500;

/** The source and the platform parts its reading draws on (the job brings the signal), and the job's own. */
export interface SyncJobOptions extends Omit<ReadContextOptions, 'signal'> {
  readonly loader: SourceLoader;
  readonly fullRefresh: boolean;
  readonly requestedBy: string | null;
  /** A backfill's days, or undefined for a sync from the saved cursors. */
  readonly window: DateWindow | undefined;
  /** What another process needs to make this sync again from its record: the backfill asked for, if any. */
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly store: Store;
  readonly ledgerHasher: LedgerHasher;
  readonly events: EventBus;
  /** What a loaded source's tables set off (the transformations' staging models), run as the sync's last step. */
  readonly afterLoad: ((source: string) => Promise<void>) | undefined;
}

/**
 * The sync job kind: the source's loader brings its data into the warehouse; the tables, the file ledger
 * and the cursors it reports are recorded with the job's ending. File sources hold the lake writer's turn for
 * the whole sync (DuckDB reads the folder itself); extracted sources only for their load.
 */
export class SyncJob implements JobKind<LoadOutcome> {
  readonly kind = 'sync';
  readonly target: string;
  readonly fullRefresh: boolean;
  readonly requestedBy: string | null;
  readonly logSource: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  /** A sync writes its source's raw tables only. */
  readonly writesAlongside: string;
  readonly lockScope: 'job' | 'write';
  readonly serviceLog: JobKind<LoadOutcome>['serviceLog'];
  readonly #options: SyncJobOptions;

  constructor(options: SyncJobOptions) {
    this.#options = options;
    this.target = options.source.name;
    this.writesAlongside = options.source.name;
    this.fullRefresh = options.fullRefresh;
    this.requestedBy = options.requestedBy;
    this.logSource = options.source.name;
    this.parameters = options.parameters;
    this.lockScope = options.loader.lockScope === 'sync' ? 'job' : 'write';
    this.serviceLog = { noun: 'sync', finished: 'sync completed', fields: { source: options.source.name } };
  }

  busy(): Error {
    return new SyncInProgressError(this.target);
  }

  started(job: JobRecord): string {
    this.#options.events.publish({ type: 'sync_started', source: this.target });
    return `Sync started${job.fullRefresh ? ' (full refresh)' : ''}`;
  }

  async work(tools: JobTools): Promise<LoadOutcome> {
    // Without the hashes of its last sync, a file touched since would load again for nothing.
    await this.#options.ledgerHasher.settled(this.target);
    return this.#options.loader.load(this.#loadContext(tools));
  }

  async followUp(tools: JobTools): Promise<void> {
    try {
      await this.#options.afterLoad?.(this.target);
    } catch (error) {
      tools.log('WARNING', `The staging models could not be refreshed: ${firstLineOf(error)}`);
    }
  }

  async finished(job: JobRecord, outcome: LoadOutcome, finishedAt: string, startedAt: Date): Promise<JobSuccess> {
    const { store } = this.#options;
    const source = this.target;
    await store.warehouseTables.replaceForSource(source, outcome.tables, finishedAt);
    if (outcome.ledger !== undefined) {
      await store.fileLedger.replace(source, outcome.ledger);
      this.#options.ledgerHasher.hashLater(source, outcome.ledger);
    }
    if (job.fullRefresh) await store.refreshMarks.clear(source);
    if (outcome.cursors !== undefined) {
      if (job.fullRefresh) await store.sourceState.clear(source);
      await store.sourceState.save(source, outcome.cursors, finishedAt);
    }
    const seconds = (Date.parse(finishedAt) - startedAt.getTime()) / 1000;
    const filesFailed = outcome.filesFailed ?? 0;
    const skipped = filesFailed > 0 ? `; ${String(filesFailed)} file(s) could not be read and were skipped` : '';
    return {
      status: 'success', rows: outcome.rows, error: null, filesFailed,
      logFields: { rows: outcome.rows, filesFailed },
      lines: [
        ...outcome.messages,
        { level: 'SUCCESS', message: `Sync finished: ${String(outcome.rows)} rows in ${seconds.toFixed(1)} s${skipped}` },
      ],
      events: [{ type: 'sync_completed', source, rows: outcome.rows }],
    };
  }

  failureMessage(error: unknown, interrupted: boolean): string {
    if (interrupted) return 'The sync was interrupted because the service is stopping; the previous data is intact';
    if (isExpectedFailure(error)) return error.message;
    if (storeFailure(error) === 'read_only') return 'The sync failed: the platform database is read-only, so the sync could not be recorded';
    return `The sync failed: ${firstLineOf(error)}`;
  }

  isTransient(error: unknown): boolean {
    return error instanceof TransientError || (error instanceof SyncFailedError && error.transient) || error instanceof WarehouseBusyError
      || error instanceof CommitConflictError;
  }

  failureLogLevel(error: unknown): 'error' | undefined {
    // A source that cannot be read as configured, or a busy warehouse, is told in the sync's history.
    return isExpectedFailure(error) ? undefined : 'error';
  }

  failedEvents(_job: JobRecord, message: string): JobSuccess['events'] {
    return [{ type: 'sync_failed', source: this.target, error: message }];
  }

  /** Publishes a sync's progress at most once per PROGRESS_INTERVAL_MS: a fast extraction must not flood the WebSocket. */
  #progressTeller(): (done: SyncProgress) => void {
    const { events, now } = this.#options;
    let toldAt = 0;
    return (done) => {
      const at = now().getTime();
      if (at - toldAt < PROGRESS_INTERVAL_MS) return;
      toldAt = at;
      events.publish({ type: 'sync_progress', source: this.target, rows: done.rows, pages: done.pages });
    };
  }

  /** What the source's loader needs for this job. */
  #loadContext(tools: JobTools): LoadContext {
    const { source, store, window } = this.#options;
    const { job, signal } = tools;
    return {
      ...readContextOf({ ...this.#options, signal }), jobId: job.id, fullRefresh: job.fullRefresh, window,
      log: (level, message) => { tools.log(level, message); },
      progress: this.#progressTeller(),
      savedCursors: () => (job.fullRefresh ? Promise.resolve(new Map<string, unknown>()) : store.sourceState.forSource(source.name)),
      ledger: () => store.fileLedger.forSource(source.name),
      write: (work, opening) => tools.write(work, opening),
    };
  }
}

/** A sync that cannot succeed as configured, or a warehouse another process holds: its message is the history's line. */
function isExpectedFailure(error: unknown): error is SyncFailedError | WarehouseBusyError {
  return error instanceof SyncFailedError || error instanceof WarehouseBusyError;
}
