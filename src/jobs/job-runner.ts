import { z } from 'zod';
import type { DataRoots, ProjectPaths } from '../config/index.ts';
import type { SecretRedactor, SourceConfig } from '../sources/config/index.ts';
import type { EventBus, QuarryEvent } from '../events/index.ts';
import type { Logger } from '../logger.ts';
import { backfillWindow, LedgerHasher, loaderFor, type OutboundPolicy, type SourceTokens } from '../sources/index.ts';
import type { JobRecord, Store } from '../store/index.ts';
import { dropSourceTables } from './drop-source-tables.ts';
import { SourceDisabledError, SourceNotFoundError, SourceTypeNotSupportedError, SyncInProgressError, SyncNotFoundError, SyncOfAnotherSourceError, RestoreInProgressError } from './errors.ts';
import { JobLifecycle, type ActiveJob, type JobKind } from './job-lifecycle.ts';
import type { JobQueue } from './job-queue.ts';
import { thisJobOwner } from './job-owner.ts';
import { MaintenanceJob } from './maintenance-job.ts';
import { interruptOrphanedJobs } from './orphaned-jobs.ts';
import { RestoreJob, snapshotBeforeSync } from './restore-job.ts';
import { SyncJob } from './sync-job.ts';
import type { LakeWriter, WarehouseReaders } from '../warehouse/index.ts';

/** What a queued job's record carries beyond its kind and target, by kind. */
const SyncParameters = z.object({
  backfill: z.object({ since: z.string(), until: z.string().optional() }).optional(),
});
const RestoreParameters = z.object({ beforeSync: z.number().int().positive() });
const MaintenanceParameters = z.object({ retentionDays: z.number().int().nonnegative() });

export interface JobRunnerOptions {
  store: Store;
  /** The name the jobs this process runs are recorded with (a worker's --name); host:pid when left out. */
  workerName?: string | undefined;
  paths: ProjectPaths;
  /** Pooled readers of the same lake, for what a job's start reads of it (a restore's snapshot). */
  readers: WarehouseReaders;
  sources: readonly SourceConfig[];
  events: EventBus;
  log: Logger;
  now: () => Date;
  /** The project's environment, where connectors read credentials by name. */
  env: Readonly<Record<string, string | undefined>>;
  /** The lake's one writer, shared with every other write of it (model runs, docs generation). */
  writer: LakeWriter;
  sourceTokens: SourceTokens;
  /** Where sources may connect. */
  outbound: OutboundPolicy;
  /** The only folders file sources read. */
  dataRoots: DataRoots;
  /** How long reading one spreadsheet may take (limits.spreadsheet_seconds). */
  spreadsheetSeconds: number;
  /** Takes known secrets out of a job's ending, which may quote what an upstream answered. */
  redactor: SecretRedactor;
  /** Runs after each job that ended well, outside the writer's turn (the catalog's profiles). */
  afterCommit?: (() => Promise<void>) | undefined;
  /**
   * The deployment's job queue, with a shared platform store: every job is sent there and run by whichever process
   * takes it (takeQueuedJobs); without it every job runs in the process that queued it.
   */
  queue?: JobQueue | undefined;
  /** Sends a job's ending's events to the deployment's other processes with its record (JobLifecycleOptions.announce). */
  announce?: ((events: readonly QuarryEvent[]) => Promise<void>) | undefined;
}

/**
 * The jobs' front door: syncs started by source name, and the one lifecycle every job kind goes through
 * (model runs are queued on `lifecycle` by the transform runner), closed once with the service.
 */
export class JobRunner {
  readonly #options: JobRunnerOptions;
  #afterLoad: ((source: string) => Promise<void>) | undefined;
  #modelRunOf: ((job: JobRecord) => Promise<JobKind<unknown>>) | undefined;
  readonly lifecycle: JobLifecycle;
  /** Records the hashes of the files syncs loaded, after they commit. */
  readonly ledgerHasher: LedgerHasher;

  constructor(options: JobRunnerOptions) {
    this.#options = options;
    const { store, events, log, now, writer, afterCommit, queue, announce } = options;
    const shared = store.shared;
    const executeSql = shared === undefined ? undefined : (text: string, values: unknown[]) => shared.executeSql(text, values);
    this.lifecycle = new JobLifecycle({
      store, owner: thisJobOwner(options.workerName), events, log, now, writer, afterCommit, announce, redact: (text) => options.redactor.redact(text),
      queue: queue === undefined ? undefined : {
        send: (job) => queue.send({ jobId: job.id, kind: job.kind, target: job.target }, executeSql),
        kindOf: (job) => this.kindOf(job),
      },
    });
    this.ledgerHasher = new LedgerHasher(store.fileLedger);
  }

  /** Marks the jobs a stopped process left behind as interrupted; call once at start. */
  recoverInterrupted(): Promise<JobRecord[]> {
    const { store, now } = this.#options;
    return interruptOrphanedJobs(store, now().toISOString());
  }

  /** Makes `step` the last step of every sync that loads: what the source's new tables set off. */
  followSyncsWith(step: (source: string) => Promise<void>): void {
    this.#afterLoad = step;
  }

  /**
   * Queues a sync: a file source's whole sync is one turn of the lake's writer; other sources extract first, then
   * load in a turn of their own. With `backfill`, only that window of days is re-loaded (BackfillNotSupportedError
   * for a type without date ranges).
   */
  async startSync(name: string, options: { fullRefresh: boolean; requestedBy: string | null; backfill?: BackfillRequest | undefined }): Promise<StartedJob> {
    const { store } = this.#options;
    const assertNoRestore = (): void => {
      if (this.lifecycle.active().some((active) => active.kind.kind === 'restore' && active.kind.target === name)) throw new RestoreInProgressError(name);
    };
    const source = this.#syncableSource(name);
    assertNoRestore();
    // A restore cleared the source's ledger and cursors: only a rebuild makes its tables whole again.
    const fullRefresh = options.fullRefresh || await store.refreshMarks.isMarked(name);
    const sync = this.#syncOf(source, { ...options, fullRefresh });
    // Asked again as it is queued: a restore may have been queued meanwhile.
    const { job, ended } = await this.lifecycle.enqueue(sync, assertNoRestore);
    return { job, ended };
  }

  /**
   * The job kind of a job sent to the deployment's queue, made again from its record in the process that takes it.
   * Its parameters were written by this code in another process, or by an older version of it: a record that does
   * not say what its kind needs is refused, never guessed at.
   */
  async kindOf(job: JobRecord): Promise<JobKind<unknown>> {
    const { store, events } = this.#options;
    const requestedBy = job.requestedBy;
    switch (job.kind) {
      case 'sync': {
        const { backfill } = SyncParameters.parse(job.parameters ?? {});
        return this.#syncOf(this.#syncableSource(job.target), { fullRefresh: job.fullRefresh, requestedBy, backfill });
      }
      case 'restore': {
        const { beforeSync } = RestoreParameters.parse(job.parameters);
        return new RestoreJob({ source: job.target, beforeSync, requestedBy, store, events });
      }
      case 'maintain':
        return new MaintenanceJob({ retentionDays: MaintenanceParameters.parse(job.parameters).retentionDays, requestedBy });
      case 'run':
        if (this.#modelRunOf === undefined) throw new Error('this process runs no models');
        return this.#modelRunOf(job);
    }
  }

  /** Makes model runs taken from the deployment's queue with `make` (the transform runner's). */
  makeModelRunsWith(make: (job: JobRecord) => Promise<JobKind<unknown>>): void {
    this.#modelRunOf = make;
  }

  /** The source by that name, if this process's configuration has it enabled and its loader can sync it here. */
  #syncableSource(name: string): SourceConfig {
    const { sources, paths } = this.#options;
    const source = sources.find((candidate) => candidate.name === name);
    if (!source) throw new SourceNotFoundError(name, sources.map((candidate) => candidate.name));
    if (!source.enabled) throw new SourceDisabledError(name);
    const unsupported = loaderFor(source).unsupportedReason(source, paths.root);
    if (unsupported !== undefined) throw new SourceTypeNotSupportedError(name, source.type, unsupported);
    return source;
  }

  #syncOf(source: SourceConfig, options: { fullRefresh: boolean; requestedBy: string | null; backfill?: BackfillRequest | undefined }): SyncJob {
    const { store, paths, events, now, env, sourceTokens, outbound, dataRoots, spreadsheetSeconds } = this.#options;
    const { fullRefresh, requestedBy, backfill } = options;
    const window = backfill === undefined ? undefined : backfillWindow(source, backfill, { now: now(), fullRefresh });
    return new SyncJob({
      source, loader: loaderFor(source), fullRefresh, requestedBy, window, store, ledgerHasher: this.ledgerHasher, paths, events, now, env, sourceTokens, outbound,
      dataRoots, spreadsheetSeconds, afterLoad: this.#afterLoad, parameters: backfill === undefined ? {} : { backfill },
    });
  }

  /** The sync of `name` queued or running now, if any. */
  activeSync(name: string): StartedJob | undefined {
    return this.lifecycle.active().find((active) => active.kind.kind === 'sync' && active.kind.target === name);
  }

  /** Throws SyncInProgressError while a sync of `name` is queued or running. */
  assertNoSync(name: string): void {
    if (this.activeSync(name) !== undefined) throw new SyncInProgressError(name);
  }

  /**
   * Drops a source's tables from the warehouse, in the writer's turn (see dropSourceTables), and forgets what
   * its syncs recorded of them (cursors, loaded files, tables): a source added again by that name starts afresh.
   */
  async dropSourceTables(name: string): Promise<void> {
    const { writer, store, now, afterCommit } = this.#options;
    await dropSourceTables(name, writer, AbortSignal.timeout(10 * 60_000));
    await store.transaction(async () => {
      await store.sourceState.clear(name);
      await store.fileLedger.replace(name, []);
      await store.warehouseTables.replaceForSource(name, [], now().toISOString());
      await store.refreshMarks.clear(name);
    });
    await afterCommit?.();
  }

  /**
   * Queues a restore of a source's raw tables to just before one of its syncs (see RestoreJob). Refused
   * before anything is queued when the sync is unknown, of another source, committed nothing or its
   * snapshot has expired, and while a sync of the source is queued or running.
   */
  async startRestore(name: string, options: { beforeSync: number; requestedBy: string | null }): Promise<JobRecord> {
    const { store, sources, events } = this.#options;
    if (!sources.some((candidate) => candidate.name === name)) throw new SourceNotFoundError(name, sources.map((candidate) => candidate.name));
    const sync = await store.jobs.get(options.beforeSync);
    if (sync?.kind !== 'sync') throw new SyncNotFoundError(options.beforeSync);
    if (sync.target !== name) throw new SyncOfAnotherSourceError(sync.id, name, sync.target);
    await this.#options.readers.withReader((connection) => snapshotBeforeSync(connection, sync.id, sync.status === 'success'));
    const restore = new RestoreJob({ source: name, beforeSync: sync.id, requestedBy: options.requestedBy, store, events });
    return (await this.lifecycle.enqueue(restore, () => { this.assertNoSync(name); })).job;
  }

  /** Queues the lake's maintenance, keeping `retentionDays` of snapshots (MaintenanceInProgressError while one is active). */
  async startMaintenance(options: { retentionDays: number; requestedBy: string | null }): Promise<JobRecord> {
    return (await this.lifecycle.enqueue(new MaintenanceJob(options))).job;
  }

  /**
   * Takes jobs from the deployment's queue, `concurrency` at a time beside the deployment's one model run, until
   * close(): each runs here as if queued here, and is recorded as run by this process.
   */
  async takeQueuedJobs(concurrency: number): Promise<void> {
    const { queue } = this.#options;
    if (queue === undefined) throw new Error('this project has no job queue: its platform store is not shared');
    await queue.work((queued, signal) => this.lifecycle.takeQueued(queued.jobId, signal), { concurrency });
  }

  /** Resolves when no sync is queued or running and every turn of the lake's writer asked for so far has ended. */
  idle(): Promise<void> {
    return this.lifecycle.idle('sync');
  }

  /**
   * Stops accepting jobs of every kind; lets running jobs, and `alsoFinishing` (the transform runner's
   * follow-up work), end within `graceMs`, then interrupts every job. Queued jobs end interrupted. The hashes
   * of what the syncs loaded are recorded before it resolves.
   */
  async close(graceMs: number, alsoFinishing: Promise<void> = Promise.resolve()): Promise<void> {
    // The queue first: no job is taken any more, and those taken end (or are interrupted) within the grace.
    await this.#options.queue?.stop(graceMs);
    await this.lifecycle.close(graceMs, Promise.all([this.lifecycle.idleHere(), alsoFinishing]).then(() => undefined));
    await this.ledgerHasher.close();
  }
}

/** A job just queued: its record, and how it ends (see ActiveJob.ended). */
export type StartedJob = Pick<ActiveJob, 'job' | 'ended'>;

/** The days a backfill asks for, as given (`until` defaults to today); checked by `backfillWindow`. */
export interface BackfillRequest {
  readonly since: string;
  readonly until?: string | undefined;
}
