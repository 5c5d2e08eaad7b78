import type pg from 'pg';
import { PgBoss, type Job, type JobResult, type QueuePolicy } from 'pg-boss';
import { z } from 'zod';
import type { Logger } from '../logger.ts';
import type { JobKind } from '../store/index.ts';

export interface QueuedJob {
  readonly jobId: number;
  readonly kind: JobKind;
  readonly target: string;
}

export interface JobQueueOptions {
  /** The deployment's PostgreSQL. */
  connection: pg.ClientConfig;
  /** pg-boss's own schema, created when missing. */
  schema: string;
  log: Logger;
  /**
   * Seconds without a heartbeat after which a running job's worker is taken for dead and the job given to another
   * (>= 10, default 30). The same in every process of a deployment: the queue keeps the lease it was last opened
   * with, and each job the lease its queue had when it was sent.
   */
  leaseSeconds?: number;
}

type QueueName = 'jobs' | 'model-runs';

/** Every kind of job, so a kind added to the store fails to compile here until it has a queue. */
const QUEUE_OF_KIND: Record<JobKind, QueueName> = { sync: 'jobs', restore: 'jobs', maintain: 'jobs', run: 'model-runs' };

const QUEUE_POLICIES: Record<QueueName, QueuePolicy> = {
  // Quarry's jobs table already refuses a second active job of the same target.
  jobs: 'standard',
  // 'singleton' keeps every queued run waiting behind the one active run; 'stately' would keep only one queued and
  // drop the next send, losing a run someone asked for.
  'model-runs': 'singleton',
};

const DEFAULT_LEASE_SECONDS = 30;
/** pg-boss's least heartbeatSeconds. */
const MIN_LEASE_SECONDS = 10;
/**
 * Retries are for workers lost while holding the job, never for handlers that failed: enough for a couple of
 * lost workers in a row.
 */
const LOST_WORKER_RETRIES = 3;
/** pg-boss fails any job still active after expireInSeconds, heartbeat or not; this is its largest value. */
const LONGEST_JOB_SECONDS = 24 * 60 * 60;
/** How long a handler aborted by stop() has to wind down before pg-boss gives its job to another worker. */
const ABORTED_HANDLER_WINDOW_MS = 5_000;

const WORK_OPTIONS = {
  // Used only while the LISTEN connection is down (a NOTIFY otherwise wakes a worker as soon as a job is sent): the
  // least pg-boss allows, so a job still starts within about a second.
  pollingIntervalSeconds: 0.5,
  // While LISTEN is up, for jobs that become ready without a send: a lost worker's job put back, the next model run
  // once the active one ends.
  notifyPollingIntervalSeconds: 2,
  perJobResults: true,
} as const;

const QueuedJobData = z.object({
  jobId: z.number().int(),
  kind: z.custom<JobKind>((kind) => typeof kind === 'string' && Object.hasOwn(QUEUE_OF_KIND, kind)),
  target: z.string(),
});

/**
 * Quarry's jobs queued in PostgreSQL for every worker process of a deployment: each job runs once, on one worker,
 * model runs one at a time in the whole deployment, and the job of a worker that dies goes to another after the lease.
 */
export class JobQueue {
  readonly #boss: PgBoss;
  readonly #log: Logger;
  readonly #abortHandlers = new AbortController();
  #stopped: Promise<void> | undefined;

  private constructor(boss: PgBoss, log: Logger) {
    this.#boss = boss;
    this.#log = log;
    // pg-boss reports its own trouble (a lost connection, a failed poll) as events and carries on; an `error` event
    // with no listener would throw and end the process.
    boss.on('error', (error) => { log.error(errorFields(error), 'job queue error'); });
    boss.on('warning', (warning) => { log.warn({ warning: warning.message }, 'job queue warning'); });
  }

  static async open(options: JobQueueOptions): Promise<JobQueue> {
    const leaseSeconds = options.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
    if (!Number.isInteger(leaseSeconds) || leaseSeconds < MIN_LEASE_SECONDS) {
      throw new RangeError(`leaseSeconds must be a whole number of at least ${MIN_LEASE_SECONDS}, not ${leaseSeconds}`);
    }
    // The supervisor fails jobs whose heartbeat is older than the lease only when it passes, so it passes often
    // enough that a dead worker's job waits little more than the lease.
    const superviseSeconds = Math.max(1, Math.round(leaseSeconds / 5));
    const boss = new PgBoss({
      ...options.connection,
      schema: options.schema,
      useListenNotify: true,
      superviseIntervalSeconds: superviseSeconds,
      monitorIntervalSeconds: superviseSeconds,
      schedule: false,
    });
    const queue = new JobQueue(boss, options.log.child({ module: 'job-queue' }));
    try {
      await boss.start();
      const settings = {
        heartbeatSeconds: leaseSeconds, retryLimit: LOST_WORKER_RETRIES, expireInSeconds: LONGEST_JOB_SECONDS, notify: true,
      };
      for (const [name, policy] of Object.entries(QUEUE_POLICIES)) {
        await boss.createQueue(name, { ...settings, policy });
        // createQueue leaves a queue that already exists as it was, with the lease of whoever created it.
        await boss.updateQueue(name, settings);
      }
    } catch (error) {
      await boss.stop({ graceful: false }).catch(() => undefined);
      throw error;
    }
    return queue;
  }

  /** Queues a job for any worker. `executeSql`, when given, runs pg-boss's insert inside the caller's transaction. */
  async send(job: QueuedJob, executeSql?: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>): Promise<void> {
    const data = { jobId: job.jobId, kind: job.kind, target: job.target };
    const options = executeSql === undefined ? {} : { db: { executeSql: (text: string, values: unknown[] = []) => executeSql(text, values) } };
    const id = await this.#boss.send(QUEUE_OF_KIND[job.kind], data, options);
    // Neither policy refuses a job, so a refusal means the queue is not what open() made it.
    if (id === null) throw new Error(`The job queue refused job ${job.jobId}`);
  }

  /**
   * Runs `handler` for queued jobs until stop(): at most `concurrency` syncs, restores and maintenance at a time in
   * this process, and beside them the deployment's one model run when this process holds it. The handler resolving
   * marks the job done, rejecting marks it failed for good. A job whose worker died goes to another worker after the
   * lease, whose handler gets the same QueuedJob. `signal` aborts when stop() gives up waiting, or when the job was
   * taken from this worker (its heartbeat could not reach the database for the whole lease).
   */
  async work(handler: (job: QueuedJob, signal: AbortSignal) => Promise<void>, options: { concurrency: number }): Promise<void> {
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      throw new RangeError(`concurrency must be a whole number of at least 1, not ${options.concurrency}`);
    }
    for (let slot = 0; slot < options.concurrency; slot++) await this.#workSlot('jobs', handler);
    await this.#workSlot('model-runs', handler);
  }

  /**
   * One job at a time from `queue`. A slot that has just finished a job looks for the next at once: left to pg-boss's
   * loop, it would wait out the rest of notifyPollingIntervalSeconds, since jobs sent before it was free (a burst of
   * syncs, the next model run) send no NOTIFY it has not already had.
   */
  async #workSlot(queue: QueueName, handler: (job: QueuedJob, signal: AbortSignal) => Promise<void>): Promise<void> {
    const slot: { id?: string } = {};
    slot.id = await this.#boss.work(queue, WORK_OPTIONS, async (jobs: Job<unknown>[]): Promise<JobResult[]> => {
      try {
        return await Promise.all(jobs.map((job) => this.#run(job, handler)));
      } finally {
        if (slot.id !== undefined) this.#boss.notifyWorker(slot.id);
      }
    });
  }

  /**
   * Stops taking jobs, waits up to graceMs for running handlers, then aborts them and closes. A handler still running
   * a few seconds after its abort is left behind, and its job goes to another worker.
   */
  async stop(graceMs: number): Promise<void> {
    this.#stopped ??= this.#shutDown(graceMs);
    return this.#stopped;
  }

  async #shutDown(graceMs: number): Promise<void> {
    const abort = setTimeout(() => { this.#abortHandlers.abort(); }, graceMs);
    try {
      await this.#boss.stop({ graceful: true, timeout: graceMs + ABORTED_HANDLER_WINDOW_MS });
    } catch (error) {
      this.#log.error(errorFields(error), 'job queue did not stop cleanly');
    } finally {
      clearTimeout(abort);
    }
  }

  async #run(job: Job<unknown>, handler: (job: QueuedJob, signal: AbortSignal) => Promise<void>): Promise<JobResult> {
    // pg-boss's 'deadletter' fails a job past its remaining retries, which are kept for lost workers.
    const failed = (message: string): JobResult => ({ id: job.id, status: 'deadletter', output: { message } });
    const parsed = QueuedJobData.safeParse(job.data);
    if (!parsed.success) {
      this.#log.error({ queueJobId: job.id }, 'queued job not readable');
      return failed('queued job not readable');
    }
    try {
      await handler(parsed.data, AbortSignal.any([job.signal, this.#abortHandlers.signal]));
      return { id: job.id, status: 'completed' };
    } catch (error) {
      return failed(error instanceof Error ? error.message : String(error));
    }
  }
}

/** An error pg-boss reports, without what it carries along: a pg error holds its client, and the client the password. */
function errorFields(error: unknown): { err: { message: string; code?: unknown; stack?: unknown }; queue?: unknown } {
  if (typeof error !== 'object' || error === null) return { err: { message: String(error) } };
  const { message, code, stack, queue } = error as Record<string, unknown>;
  return { err: { message: String(message), code, stack }, queue };
}
