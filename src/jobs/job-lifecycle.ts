import { causeChain } from '../errors.ts';
import type { EventBus, QuarryEvent } from '../events/index.ts';
import type { Logger } from '../logger.ts';
import type { JobKind as JobKindName, JobOwner, JobRecord, LogLevel, Store } from '../store/index.ts';
import { CommitConflictError, type LakeWrite, type LakeWriter, type WriteOpening } from '../warehouse/index.ts';
import { finishWithin } from './finish-within.ts';
import { interruptOrphanedJobs } from './orphaned-jobs.ts';

type JobEvent = Parameters<EventBus['publish']>[0];

/** How often a process that sent jobs to the queue reads their records for their endings. */
const ENDING_POLL_MS = 250;
/** How many times in a row a job that lost to another writer's conflicting commit is queued again. */
const CONFLICT_RETRIES = 3;
/** Where a queued job's record counts them. */
const CONFLICT_RETRIES_PARAMETER = 'conflictRetries';

/** What a job's record is made of when it is queued. */
type QueuedJobFields = Pick<JobKind<unknown>, 'kind' | 'target' | 'fullRefresh' | 'requestedBy' | 'parameters'>;

/** What a job kind's work may use: its signal, its log and the lake's writer, labelled with the job. */
export interface JobTools {
  readonly job: JobRecord;
  readonly signal: AbortSignal;
  /**
   * Appends a line to the platform log, under the job. Lines are written in the order they are told, and the job
   * records its ending only once they are: one that cannot be written fails the job.
   */
  log(level: LogLevel, message: string): void;
  /**
   * LakeWriter.write with the job's label and signal: each transaction `work` commits is one snapshot that names
   * the job, which readers see from then on. Within the job's turn when the kind's `lockScope` is `job`, else in
   * a turn of its own.
   */
  write<T>(work: (write: LakeWrite) => Promise<T>, opening?: WriteOpening): Promise<T>;
}

/** How a job ended well, as the kind reports it; written in one transaction with the job's own ending. */
export interface JobSuccess {
  readonly status: 'success' | 'failed';
  readonly rows: number | null;
  readonly error: string | null;
  /** Files the job could not read and skipped (the history's `files_failed`); 0 when absent. */
  readonly filesFailed?: number;
  /** Fields of the service log's record of the ending, beside the kind's own and the duration. */
  readonly logFields: Readonly<Record<string, unknown>>;
  /** Log lines, written after the ending is recorded. */
  readonly lines: readonly { level: LogLevel; message: string }[];
  /** Published last, once everything is recorded. */
  readonly events: readonly JobEvent[];
}

/**
 * One kind of job (a sync, a model run…): it supplies its work and what its start and ending mean;
 * the lifecycle does the rest (queue, lock, bookkeeping, failure or interruption, shutdown).
 */
export interface JobKind<Outcome> {
  readonly kind: JobKindName;
  readonly target: string;
  readonly fullRefresh: boolean;
  readonly requestedBy: string | null;
  /** The `source` of its log lines (null for lines that belong to no source). */
  readonly logSource: string | null;
  /**
   * What it takes to make this job again from its record in another process (`JobLifecycleOptions.kindOf`): a kind
   * with parameters is sent to the deployment's queue, when there is one; one without runs in this process.
   */
  readonly parameters?: Readonly<Record<string, unknown>>;
  /** The name of the tables it alone writes (a sync's source), which other processes' writers of others may write beside (LakeWriter's `alongside`). */
  readonly writesAlongside?: string;
  /**
   * What holds the writer's turn: the whole job (`job`: dbt writing in its own process, DuckDB reading a folder),
   * or each `tools.write` alone (`write`: a connector extracts beside other jobs and waits for the writer only to load).
   */
  readonly lockScope: 'job' | 'write';
  /** How the service log (pino) names the kind and its job. */
  readonly serviceLog: {
    /** 'sync', 'model run': its failures are "<noun> failed". */
    readonly noun: string;
    /** The message of a job's ending: 'sync completed', 'model run finished'. */
    readonly finished: string;
    /** The fields of every record about the job: `{ source }`, `{ target }`. */
    readonly fields: Readonly<Record<string, unknown>>;
  };
  /** The error for a job of this kind and target that is already queued or running. */
  busy(): Error;
  /** Marks the start (events) and says the first log line. */
  started(job: JobRecord): string;
  work(tools: JobTools): Promise<Outcome>;
  /** Records what the work produced (inside the ending's transaction) and says how the job ended. */
  finished(job: JobRecord, outcome: Outcome, finishedAt: string, startedAt: Date): Promise<JobSuccess>;
  /**
   * The job's last step, once its ending is recorded and before it is announced: what follows from the records
   * (a sync's staging models). It must not reject: its failure is a line of the job's log, not the job's.
   */
  followUp?(tools: JobTools): Promise<void>;
  /** The one-line error for the history and events; `interrupted` when the service stopped it. */
  failureMessage(error: unknown, interrupted: boolean): string;
  /**
   * How the service log reports a failure (an interruption is not one): `warn` for one the kind expects,
   * `error` for one that needs someone to act, undefined when the job's history says all there is.
   */
  failureLogLevel(error: unknown): 'warn' | 'error' | undefined;
  /** Whether trying again later may succeed (recorded with the failure, so schedules retry only those); false when absent. */
  isTransient?(error: unknown): boolean;
  /** Records what else a failed job leaves (inside the ending's transaction). */
  recordFailure?(job: JobRecord, message: string, finishedAt: string): Promise<void>;
  /** Announces the failure. */
  failedEvents(job: JobRecord, message: string): readonly JobEvent[];
}

export interface JobLifecycleOptions {
  store: Store;
  /** This process as the jobs it runs name it: a worker's --name, or host:pid. */
  owner: JobOwner;
  /**
   * The deployment's queue, with a shared platform store: jobs whose kind has parameters are sent there, for
   * whichever process takes them (takeQueued), and `kindOf` makes each one again from its record.
   */
  queue?: { readonly send: (job: JobRecord) => Promise<void>; readonly kindOf: (job: JobRecord) => Promise<JobKind<unknown>> } | undefined;
  events: EventBus;
  log: Logger;
  now: () => Date;
  /** The lake's one writer, which jobs share with every other write of the lake. */
  writer: LakeWriter;
  /**
   * Sends a job's ending's events to the deployment's other processes inside the transaction that records the ending
   * (PostgresEventRelay.sendWithin), with a shared store; this process's listeners get them once it has committed.
   */
  announce?: ((events: readonly QuarryEvent[]) => Promise<void>) | undefined;
  /** Takes known secrets out of an ending's error, as the history and the events have it. */
  redact: (text: string) => string;
  /**
   * Runs after each job that ended well, once it is recorded, its turn ended and the job no longer active (the
   * catalog profiles the tables it changed), so it never delays the next job. It must not reject; its owner waits
   * for it before the platform DB closes.
   */
  afterCommit?: (() => Promise<void>) | undefined;
}

/** How a job ended, as its history records it. */
export interface JobEnding {
  readonly status: 'success' | 'failed' | 'interrupted';
  readonly rows: number | null;
  readonly error: string | null;
  /** Whether trying again later may succeed (a failure the kind calls transient). */
  readonly transient: boolean;
}

/** A queued or running job, as the lifecycle tracks it. */
export interface ActiveJob {
  readonly job: JobRecord;
  readonly kind: JobKind<unknown>;
  /**
   * Resolves with the job's ending once it is recorded, announced and the job is no longer active, so whoever
   * started it may start the next at once. It never rejects.
   */
  readonly ended: Promise<JobEnding>;
}

/** A job running in this process: `recorded` resolves once its ending is recorded, before the follow-up that `ended` waits for. */
type RunningJob = ActiveJob & { readonly controller: AbortController; readonly recorded: Promise<JobEnding> };

/**
 * The one job lifecycle: enqueue (one active job per kind and target), wait for the writer's turn,
 * work, record, emit events only after the record, fail or interrupt, and close with a grace
 * period. Every job kind runs through it.
 */
export class JobLifecycle {
  readonly #options: JobLifecycleOptions;
  readonly #active = new Map<number, RunningJob>();
  /** Jobs of #active whose ending is recorded, while their follow-up runs: over for anyone who asks. */
  readonly #followingUp = new Set<number>();
  /** Jobs this process sent to the queue, until their record shows how they ended, wherever they ran. */
  readonly #sent = new Map<number, ActiveJob & { resolve: (ending: JobEnding) => void }>();
  /** Reads the records of the jobs in #sent while there are any. */
  #watchSent: Promise<void> | undefined;
  /** Endings the platform database refused to record (read-only or locked); written with the next job. */
  readonly #unrecorded: (() => Promise<void>)[] = [];
  /** The enqueues asked for so far, which run one after another; it never rejects. */
  #enqueued: Promise<unknown> = Promise.resolve();
  /** Enqueues asked for whose job is not active yet; each resolves once it is (or was refused), and never rejects. */
  readonly #enqueuing = new Set<Promise<void>>();
  #closing = false;
  /** Whether close() has interrupted the jobs: one recorded since is interrupted at once. */
  #graceOver = false;

  constructor(options: JobLifecycleOptions) {
    this.#options = options;
  }

  /** This process as the jobs it runs are recorded. */
  get owner(): JobOwner {
    return this.#options.owner;
  }

  /**
   * Queued and running jobs: those this process runs, until their ending is recorded (a user told a run has ended
   * may start the next at once, its follow-up going on), and those it sent to the queue.
   */
  active(): ActiveJob[] {
    return this.#tracked().filter((tracked) => !this.#followingUp.has(tracked.job.id));
  }

  /** The jobs this process runs, follow-ups included, and those it sent to the queue. */
  #tracked(): ActiveJob[] {
    return [...this.#active.values(), ...[...this.#sent.values()].filter((sent) => !this.#active.has(sent.job.id))];
  }

  /** Whether close() has begun: no job is accepted any more. */
  isClosing(): boolean {
    return this.#closing;
  }

  /**
   * Records the job queued and runs it, in the writer's turn as the kind's `lockScope` says. Rejects with
   * kind.busy() when one of its kind and target is already active, or while the lifecycle closes. Enqueues run one
   * at a time: `check`, when given, runs first, and no other enqueue of this lifecycle runs until this job is
   * active or refused; it throws to refuse the job (when one it conflicts with is active).
   */
  enqueue<Outcome>(kind: JobKind<Outcome>, check?: () => void): Promise<ActiveJob> {
    const enqueued = this.#enqueued.then(() => this.#enqueue(kind, check));
    this.#enqueued = enqueued.catch(() => undefined);
    const settled = enqueued.then(() => undefined, () => undefined);
    this.#enqueuing.add(settled);
    void settled.then(() => { this.#enqueuing.delete(settled); });
    return enqueued;
  }

  async #enqueue<Outcome>(kind: JobKind<Outcome>, check: (() => void) | undefined): Promise<ActiveJob> {
    const { store, now, queue } = this.#options;
    check?.();
    if (this.#closing) throw kind.busy();
    // A job of the same target that a stopped process left running must not refuse this one.
    await interruptOrphanedJobs(store, now().toISOString());
    const sendToQueue = queue !== undefined && kind.parameters !== undefined ? queue.send : undefined;
    const job = await this.#recordQueued(kind, sendToQueue);
    if (!job) throw kind.busy();
    if (sendToQueue === undefined) return this.#start(job, kind);
    const { promise: ended, resolve } = Promise.withResolvers<JobEnding>();
    const sent = { job, kind: kind as JobKind<unknown>, ended, resolve };
    this.#sent.set(job.id, sent);
    this.#watchSent ??= this.#watchSentEndings().finally(() => { this.#watchSent = undefined; });
    return sent;
  }

  /**
   * Runs a job another process (or this one) sent to the deployment's queue, made again from its record; resolves
   * once it has ended. `signal` aborts it (the worker stopping). A job that ended meanwhile is left alone.
   */
  async takeQueued(jobId: number, signal: AbortSignal): Promise<void> {
    const { store, queue } = this.#options;
    if (queue === undefined) throw new Error('this process has no job queue');
    const job = await store.jobs.get(jobId);
    if (job === undefined || (job.status !== 'queued' && job.status !== 'running')) return;
    let kind: JobKind<unknown>;
    try {
      kind = await queue.kindOf(job);
    } catch (error) {
      await this.#recordUnrunnable(job, error);
      return;
    }
    // Recorded as running: pg-boss gave it here because the process running it stopped, or could not reach the
    // database for a whole lease (then it aborts the job when it finds out).
    const takenOver = job.status === 'running'
      ? `${job.worker ?? 'The process running this job'} lost its hold on it (stopped, or out of the database's reach for the whole lease): ${this.owner.worker} runs the job again from the start (what it had not committed is not in the lake)`
      : undefined;
    const active = this.#start(job, kind, takenOver);
    const abort = (): void => { this.#active.get(job.id)?.controller.abort(); };
    signal.addEventListener('abort', abort, { once: true });
    try {
      // The queue's slot is free once the ending is recorded: the follow-up (a sync's staging models, for this
      // process's copy of the project) goes on beside the next job, and close() still waits for it.
      const ending = await active.recorded;
      // Sent by this process too: its sender learns the ending now, not at its next read of the record.
      const sent = this.#sent.get(job.id);
      this.#sent.delete(job.id);
      sent?.resolve(ending);
    } finally {
      signal.removeEventListener('abort', abort);
    }
  }

  /** Runs a recorded job here, in the writer's turn as its kind's `lockScope` says; `warning` is its log's first line. */
  #start<Outcome>(job: JobRecord, kind: JobKind<Outcome>, warning?: string): RunningJob {
    const { writer } = this.#options;
    const controller = new AbortController();
    const { promise: ended, resolve } = Promise.withResolvers<JobEnding>();
    const { promise: recorded, resolve: tellRecorded } = Promise.withResolvers<JobEnding>();
    const told = (ending: JobEnding): JobEnding => ({ ...ending, error: ending.error === null ? null : this.#options.redact(ending.error) });
    // Told by #run once the ending is recorded, before the follow-up; a failed job's ending is told with `ended`.
    const onRecorded = (ending: JobEnding): void => {
      this.#followingUp.add(job.id);
      tellRecorded(told(ending));
    };
    const active = { job, kind: kind as JobKind<unknown>, ended, recorded, controller };
    // Tracked before it runs: a job whose lock scope is `write` starts (and announces itself) at once.
    this.#active.set(job.id, active);
    // Queued while close() interrupted the others: it must not outlive them.
    if (this.#graceOver) controller.abort();
    const { signal } = controller;
    const label = { job: job.id, kind: kind.kind, target: kind.target };
    const lines = this.#lines(job.id, kind.logSource);
    if (warning !== undefined) lines.tell('WARNING', warning);
    const alongside = kind.writesAlongside;
    const run = kind.lockScope === 'job'
      ? writer.turn((turn) => this.#run(job, kind, signal, turn.write, lines, onRecorded), { signal, label, alongside })
      : this.#run(job, kind, signal, (work, opening) => writer.write(work, { signal, label, alongside, ...opening }), lines, onRecorded);
    void run
      .then(
        (ending) => ({ ending, endedWell: true }),
        async (error: unknown) => ({ ending: await this.#fail(job, kind, error, signal, lines), endedWell: false }),
      )
      .then(({ ending, endedWell }) => {
        this.#active.delete(job.id);
        this.#followingUp.delete(job.id);
        const said = told(ending);
        tellRecorded(said);
        resolve(said);
        // After the job has ended for everyone: a client told the job completed may start the next one at once.
        if (endedWell) void this.#options.afterCommit?.();
      });
    return active;
  }

  /**
   * While jobs this process sent are watched, reads their records together, however many, until each shows an
   * ending, wherever it ran; one that ran here, or that close() gave up on, is no longer watched.
   */
  async #watchSentEndings(): Promise<void> {
    while (this.#sent.size > 0) {
      await new Promise((resolve) => setTimeout(resolve, ENDING_POLL_MS));
      const ended = await this.#options.store.jobs.endedAmong([...this.#sent.keys()]).catch(() => []);
      for (const job of ended) {
        if (job.status === 'queued' || job.status === 'running') continue;
        const sent = this.#sent.get(job.id);
        this.#sent.delete(job.id);
        sent?.resolve({ status: job.status, rows: job.rows, error: job.error, transient: job.transient });
      }
    }
  }

  /** A queued job this process cannot make again (its source is gone from this process's configuration): it fails, said why. */
  async #recordUnrunnable(job: JobRecord, error: unknown): Promise<void> {
    const { store, now } = this.#options;
    const message = `The ${job.kind} job ${String(job.id)} could not be run by ${this.#options.owner.worker}: ${error instanceof Error ? error.message : String(error)}`;
    const finishedAt = now().toISOString();
    await store.transaction(async () => {
      await store.jobs.finish(job.id, { status: 'failed', rows: null, error: message }, finishedAt);
      await store.logs.append({ timestamp: finishedAt, level: 'ERROR', source: job.kind === 'sync' || job.kind === 'restore' ? job.target : null, message, jobId: job.id });
    });
  }

  /**
   * Resolves when no job (of `kind`, when given) is queued or running, no enqueue is under way and every turn of
   * the lake's writer asked for so far has ended.
   */
  async idle(kind?: JobKindName): Promise<void> {
    const waitedFor = (): Promise<unknown>[] => [
      ...this.#enqueuing,
      ...this.#tracked().filter((tracked) => kind === undefined || tracked.kind.kind === kind).map((tracked) => tracked.ended),
    ];
    for (let pending = waitedFor(); pending.length > 0; pending = waitedFor()) await Promise.all(pending);
    await this.#options.writer.idle();
  }

  /** Resolves when no job runs in this process (those it sent to the queue may still run elsewhere) and the writer is idle. */
  async idleHere(): Promise<void> {
    const waitedFor = (): Promise<unknown>[] => [...this.#enqueuing, ...[...this.#active.values()].map((active) => active.ended)];
    for (let pending = waitedFor(); pending.length > 0; pending = waitedFor()) await Promise.all(pending);
    await this.#options.writer.idle();
  }

  /**
   * Stops accepting jobs; lets `finished` (the jobs running here, by default) end within `graceMs`, then interrupts
   * every job running here. Jobs sent to the queue go on elsewhere, no longer watched.
   */
  async close(graceMs: number, finished: Promise<void> = this.idleHere()): Promise<void> {
    this.#closing = true;
    await finishWithin(finished, graceMs, () => {
      this.#graceOver = true;
      this.interrupt();
    });
    const stoppedWatching = 'This process stopped before the job ended; it goes on in the deployment (see its history)';
    for (const sent of this.#sent.values()) sent.resolve({ status: 'interrupted', rows: null, error: stoppedWatching, transient: false });
    this.#sent.clear();
  }

  /** Aborts every queued and running job; each records itself interrupted. */
  interrupt(): void {
    for (const active of this.#active.values()) active.controller.abort();
  }

  /**
   * Records the job queued unless one of its kind and target is active, with the endings left unrecorded so far,
   * and sends it to the queue in the same transaction when `send` is given: it is queued there exactly when it is recorded.
   */
  async #recordQueued(kind: QueuedJobFields, send: ((job: JobRecord) => Promise<void>) | undefined): Promise<JobRecord | undefined> {
    const { store, now } = this.#options;
    const unrecorded = this.#unrecorded.splice(0);
    try {
      return await store.transaction(async () => {
        for (const record of unrecorded) await record();
        const job = await store.jobs.enqueueUnlessActive(
          { kind: kind.kind, target: kind.target, fullRefresh: kind.fullRefresh, requestedBy: kind.requestedBy, parameters: kind.parameters },
          now().toISOString(), this.#options.owner,
        );
        if (job !== undefined) await send?.(job);
        return job;
      });
    } catch (error) {
      this.#unrecorded.unshift(...unrecorded);
      throw error;
    }
  }

  /** Runs the job's work and records its ending (`onRecorded` is told once it is), then its follow-up. */
  async #run<Outcome>(
    job: JobRecord, kind: JobKind<Outcome>, signal: AbortSignal, write: JobTools['write'], lines: JobLog, onRecorded: (ending: JobEnding) => void,
  ): Promise<JobEnding> {
    const { store, events, now, log } = this.#options;
    signal.throwIfAborted();
    const started = now();
    await store.jobs.markRunning(job.id, started.toISOString(), this.#options.owner);
    const tools: JobTools = {
      job, signal, write,
      log: (level, message) => { lines.tell(level, message); },
    };
    tools.log('INFO', kind.started(job));
    await lines.written();
    const outcome = await kind.work(tools);
    await lines.written();
    const finishedAt = now();
    let announced: QuarryEvent[] = [];
    const ending = await store.transaction(async () => {
      const success = await kind.finished(job, outcome, finishedAt.toISOString(), started);
      await store.jobs.finish(job.id, {
        status: success.status, rows: success.rows, error: success.error, filesFailed: success.filesFailed ?? 0,
      }, finishedAt.toISOString());
      announced = success.events.map((event) => events.stamp(event));
      await this.#options.announce?.(announced);
      return success;
    });
    const recorded: JobEnding = { status: ending.status, rows: ending.rows, error: ending.error, transient: false };
    for (const line of ending.lines) tools.log(line.level, line.message);
    await lines.written();
    onRecorded(recorded);
    await kind.followUp?.(tools);
    await lines.written();
    log.info({ ...kind.serviceLog.fields, ...ending.logFields, durationMs: finishedAt.getTime() - started.getTime() }, kind.serviceLog.finished);
    for (const event of announced) events.receive(event);
    return recorded;
  }

  async #fail<Outcome>(job: JobRecord, kind: JobKind<Outcome>, error: unknown, signal: AbortSignal, lines: JobLog): Promise<JobEnding> {
    const { store, events, now, log } = this.#options;
    const interrupted = signal.aborted;
    const again = interrupted ? undefined : this.#againAfterConflict(job, kind, error);
    const message = `${kind.failureMessage(error, interrupted)}${again === undefined ? '' : '; the job is queued again'}`;
    const finishedAt = now().toISOString();
    const ending: JobEnding = {
      status: interrupted ? 'interrupted' : 'failed', rows: null, error: message, transient: !interrupted && kind.isTransient?.(error) === true,
    };
    const announced = kind.failedEvents(job, message).map((event) => events.stamp(event));
    const record = async (): Promise<void> => {
      await store.jobs.finish(job.id, ending, finishedAt);
      await kind.recordFailure?.(job, message, finishedAt);
      await store.logs.append({ timestamp: finishedAt, level: interrupted ? 'WARNING' : 'ERROR', source: kind.logSource, message, jobId: job.id });
      await this.#options.announce?.(announced);
    };
    // The lines the job told before it failed come before its ending.
    await lines.settled();
    try {
      await store.transaction(record);
    } catch (storeError) {
      // Thrown from here, it would be an unhandled rejection that stops the service.
      this.#unrecorded.push(record);
      const { noun, fields } = kind.serviceLog;
      log.error({ err: storeError, ...fields, job: job.id }, `the end of the ${noun} could not be recorded in the platform database; it is recorded with the next ${noun}`);
    }
    const level = interrupted ? undefined : kind.failureLogLevel(error);
    if (level === 'warn') log.warn({ err: error, ...kind.serviceLog.fields }, `${kind.serviceLog.noun} failed`);
    if (level === 'error') log.error({ err: error, ...kind.serviceLog.fields }, `${kind.serviceLog.noun} failed unexpectedly`);
    for (const event of announced) events.receive(event);
    if (again !== undefined) {
      await this.#recordQueued(again, this.#options.queue?.send).catch((queueError: unknown) => {
        log.error({ err: queueError, ...kind.serviceLog.fields, job: job.id }, `the ${kind.serviceLog.noun} could not be queued again after a conflicting commit`);
      });
    }
    return ending;
  }

  /**
   * The job once more, when another writer's conflicting commit failed it and the deployment's queue can take it:
   * at most CONFLICT_RETRIES times in a row, counted in the record's parameters.
   */
  #againAfterConflict(job: JobRecord, kind: JobKind<unknown>, error: unknown): QueuedJobFields | undefined {
    const conflicted = causeChain(error).some((cause) => cause instanceof CommitConflictError);
    if (this.#options.queue === undefined || kind.parameters === undefined || !conflicted) return undefined;
    const retries = Number(job.parameters?.[CONFLICT_RETRIES_PARAMETER] ?? 0);
    if (!Number.isInteger(retries) || retries >= CONFLICT_RETRIES) return undefined;
    const { target, fullRefresh, requestedBy } = kind;
    return { kind: kind.kind, target, fullRefresh, requestedBy, parameters: { ...kind.parameters, [CONFLICT_RETRIES_PARAMETER]: retries + 1 } };
  }

  #lines(jobId: number, source: string | null): JobLog {
    const { store, now } = this.#options;
    return new JobLog((level, message) => {
      const entry = { timestamp: now().toISOString(), level, source, message, jobId };
      return () => store.logs.append(entry);
    });
  }
}

/** A job's lines of the platform log, written one after another in the order they are told. */
class JobLog {
  /** Makes the write of a line, stamped when it is told. */
  readonly #line: (level: LogLevel, message: string) => () => Promise<void>;
  /** The writes of the lines told so far; it never rejects. */
  #written: Promise<void> = Promise.resolve();
  #failure: { readonly error: unknown } | undefined;

  constructor(line: (level: LogLevel, message: string) => () => Promise<void>) {
    this.#line = line;
  }

  tell(level: LogLevel, message: string): void {
    const write = this.#line(level, message);
    this.#written = this.#written.then(write).catch((error: unknown) => { this.#failure ??= { error }; });
  }

  /** Resolves once the lines told so far are written; rejects with the error of the first that could not be. */
  async written(): Promise<void> {
    await this.#written;
    if (this.#failure !== undefined) throw this.#failure.error;
  }

  /** Resolves once the lines told so far are written or could not be. */
  settled(): Promise<void> {
    return this.#written;
  }
}
