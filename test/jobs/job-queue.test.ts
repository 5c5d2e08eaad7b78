import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JobQueue, type JobQueueOptions, type QueuedJob } from '../../src/jobs/index.ts';
import { captureLog, type CapturedLog, type LogRecord } from '../support/captured-log.ts';
import { LOCAL_POSTGRES, onPostgres } from '../support/local-postgres.ts';

const DYING_WORKER = path.join(import.meta.dirname, 'fixtures', 'dying-worker.ts');
/** The lease of the test's workers, and time beyond it for the supervisor to pass and a worker to take the job. */
const TAKEOVER_MS = (10 + 30) * 1000;

interface QueueRecord {
  readonly state: string;
  readonly retryCount: number;
}

describe('JobQueue', () => {
  const schema = `quarry_queue_${randomBytes(6).toString('hex')}`;
  const opened: JobQueue[] = [];
  let captured: CapturedLog;

  async function openQueue(options: Partial<JobQueueOptions> = {}): Promise<JobQueue> {
    const queue = await JobQueue.open({ connection: { ...LOCAL_POSTGRES }, schema, log: captured.log, ...options });
    opened.push(queue);
    return queue;
  }

  /** pg-boss's own record of each job sent, by Quarry job id. */
  async function queueRecords(): Promise<Map<number, QueueRecord>> {
    const { rows } = await onPostgres((client) => client.query<QueueRecord & { jobId: number }>(
      `SELECT (data->>'jobId')::int AS "jobId", state, retry_count AS "retryCount" FROM ${schema}.job`,
    ));
    return new Map(rows.map(({ jobId, state, retryCount }) => [jobId, { state, retryCount }]));
  }

  /** The warnings and errors logged in this test. */
  function troubleLogged(): LogRecord[] {
    return captured.records().filter((record) => record.level >= 40);
  }

  /** A handler that counts the jobs it was given, by job id. */
  function countingHandler(): { handle: (job: QueuedJob) => Promise<void>; received: QueuedJob[]; count: (jobId: number) => number } {
    const received: QueuedJob[] = [];
    return {
      received,
      handle: async (job) => { received.push(job); },
      count: (jobId) => received.filter((job) => job.jobId === jobId).length,
    };
  }

  beforeEach(() => {
    captured = captureLog();
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((queue) => queue.stop(0)));
  });

  afterAll(async () => {
    await onPostgres((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
  });

  it('hands each of 20 jobs to exactly one of two workers, as it was sent', async () => {
    const [first, second] = await Promise.all([openQueue(), openQueue()]);
    const handlers = [countingHandler(), countingHandler()] as const;
    await first.work(handlers[0].handle, { concurrency: 2 });
    await second.work(handlers[1].handle, { concurrency: 2 });
    const kinds = ['sync', 'restore', 'maintain'] as const;
    const sent = Array.from({ length: 20 }, (_, index): QueuedJob => ({ jobId: index + 1, kind: kinds[index % 3]!, target: `source-${index + 1}` }));
    for (const job of sent) await first.send(job);

    const received = (): QueuedJob[] => handlers.flatMap((handler) => handler.received);
    await expect.poll(() => received().length).toBeGreaterThanOrEqual(20);
    await expect.poll(async () => [...(await queueRecords()).values()].filter((record) => record.state === 'completed').length).toBe(20);

    expect(received().toSorted((a, b) => a.jobId - b.jobId)).toEqual(sent);
    expect(troubleLogged()).toEqual([]);
  });

  it('starts the next job of a backlog as soon as a slot is free, not at its next poll', async () => {
    const queue = await openQueue();
    // Sent before the worker listens: no notification of them is left to wake it, only the slot freeing.
    for (const jobId of [201, 202, 203]) await queue.send({ jobId, kind: 'sync', target: `backlog-${String(jobId)}` });
    const spans: { start: number; end: number }[] = [];
    await queue.work(async () => {
      const start = performance.now();
      await delay(50);
      spans.push({ start, end: performance.now() });
    }, { concurrency: 1 });

    await expect.poll(() => spans.length, { timeout: 30_000 }).toBe(3);
    // pg-boss alone would fetch again only after its poll interval with a NOTIFY listener (2 s) had passed.
    const waits = spans.slice(1).map((span, index) => span.start - spans[index]!.end);
    expect(Math.max(...waits)).toBeLessThan(1_000);
  });

  it('runs one model run at a time across the workers, and every one of them', async () => {
    const [first, second] = await Promise.all([openQueue(), openQueue()]);
    let active = 0;
    let mostActive = 0;
    const done: number[] = [];
    const runModels = async (job: QueuedJob): Promise<void> => {
      active++;
      mostActive = Math.max(mostActive, active);
      // Long enough for the other worker to poll, and find the run queue busy, while this one runs.
      await delay(300);
      active--;
      done.push(job.jobId);
    };
    await first.work(runModels, { concurrency: 2 });
    await second.work(runModels, { concurrency: 2 });
    await Promise.all([101, 102, 103].map((jobId) => first.send({ jobId, kind: 'run', target: 'all' })));

    await expect.poll(() => done.toSorted(), { timeout: 30_000 }).toEqual([101, 102, 103]);
    expect(mostActive).toBe(1);
  });

  it('gives the job of a worker killed while running it to another worker, once', async () => {
    // The lease is the queue's, set by every process that opens it, so the whole deployment has the same one.
    const survivor = await openQueue({ leaseSeconds: 10 });
    const handler = countingHandler();
    await survivor.send({ jobId: 201, kind: 'sync', target: 'orders' });
    const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', DYING_WORKER, schema], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const exited = once(child, 'exit');
      const started = new Promise<void>((resolve, reject) => {
        createInterface({ input: child.stdout }).on('line', (line) => { if (line === 'started 201') resolve(); });
        exited.then(([code]) => { reject(new Error(`the dying worker exited with ${String(code)} before taking the job`)); }, reject);
      });
      await started;
      child.kill('SIGKILL');
      await exited;

      await survivor.work(handler.handle, { concurrency: 1 });
      await expect.poll(() => handler.count(201), { timeout: TAKEOVER_MS }).toBe(1);
      await expect.poll(async () => (await queueRecords()).get(201)).toEqual({ state: 'completed', retryCount: 1 });
      expect(handler.received).toEqual([{ jobId: 201, kind: 'sync', target: 'orders' }]);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });

  it('fails a job whose handler rejects, for good', async () => {
    const queue = await openQueue();
    const calls: number[] = [];
    await queue.work(async (job) => {
      calls.push(job.jobId);
      throw new Error('the source is broken');
    }, { concurrency: 1 });
    await queue.send({ jobId: 301, kind: 'restore', target: 'snapshot-1' });

    // 'failed' is final: a job pg-boss means to retry waits in 'retry'.
    await expect.poll(async () => (await queueRecords()).get(301)).toEqual({ state: 'failed', retryCount: 0 });
    expect(calls).toEqual([301]);
  });

  it('waits on stop for a handler that finishes within the grace and aborts one that does not', async () => {
    const queue = await openQueue();
    const started: number[] = [];
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => { release = resolve; });
    let finished = false;
    let stuckSignal: AbortSignal | undefined;
    await queue.work(async (job, signal) => {
      started.push(job.jobId);
      if (job.jobId === 401) {
        await released;
        // Still running a while after stop() began.
        await delay(100);
        finished = true;
        return;
      }
      stuckSignal = signal;
      await new Promise((_resolve, reject) => { signal.addEventListener('abort', () => { reject(new Error('aborted')); }, { once: true }); });
    }, { concurrency: 2 });
    await queue.send({ jobId: 401, kind: 'sync', target: 'orders' });
    await queue.send({ jobId: 402, kind: 'sync', target: 'customers' });
    await expect.poll(() => started.toSorted()).toEqual([401, 402]);

    const stopped = queue.stop(1_000);
    release();
    await stopped;

    expect(finished).toBe(true);
    expect(stuckSignal?.aborted).toBe(true);
    const records = await queueRecords();
    expect(records.get(401)).toEqual({ state: 'completed', retryCount: 0 });
    expect(records.get(402)).toEqual({ state: 'failed', retryCount: 0 });
  });

  it('never hands out a job sent in a transaction that was rolled back', async () => {
    const queue = await openQueue();
    const handler = countingHandler();
    await queue.work(handler.handle, { concurrency: 1 });
    await onPostgres(async (client) => {
      await client.query('BEGIN');
      await queue.send({ jobId: 501, kind: 'sync', target: 'orders' }, (text, values) => client.query(text, values));
      await client.query('ROLLBACK');
      await client.query('BEGIN');
      await queue.send({ jobId: 502, kind: 'sync', target: 'orders' }, (text, values) => client.query(text, values));
      await client.query('COMMIT');
    });

    await expect.poll(() => handler.count(502)).toBe(1);
    expect(handler.count(501)).toBe(0);
    expect((await queueRecords()).has(501)).toBe(false);
  });

  it('refuses a lease shorter than pg-boss can keep', async () => {
    await expect(openQueue({ leaseSeconds: 5 })).rejects.toThrow(RangeError);
  });

  it('logs the loss of its connections, without the password, and goes on working', async () => {
    const applicationName = `job-queue-test-${randomBytes(4).toString('hex')}`;
    // The local server trusts the test's connections, so any password will do.
    const password = `secret-${randomBytes(4).toString('hex')}`;
    const queue = await openQueue({ connection: { ...LOCAL_POSTGRES, application_name: applicationName, password } });
    const handler = countingHandler();
    await queue.work(handler.handle, { concurrency: 1 });
    await onPostgres((client) => client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [applicationName]));

    await expect.poll(() => troubleLogged().map((record) => record.msg)).toContain('job queue error');
    // Every connection was cut at once, but each client hears of it on its own: a send before the last has would take
    // a pooled connection already cut.
    await delay(1000);
    await queue.send({ jobId: 601, kind: 'maintain', target: 'warehouse' });
    await expect.poll(() => handler.count(601)).toBe(1);
    expect(JSON.stringify(captured.records())).not.toContain(password);
  });
});
