import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projectPaths } from '../config/index.ts';
import { SecretRedactor } from '../sources/config/index.ts';
import { EventBus, type QuarryEvent } from '../events/index.ts';
import { createLogger } from '../logger.ts';
import { lakeLocation, LakeWriter } from '../warehouse/index.ts';
import { openStore, type JobRecord, type Store } from '../store/index.ts';
import { thisJobOwner } from './job-owner.ts';
import { JobLifecycle, type JobKind, type JobSuccess, type JobTools } from './job-lifecycle.ts';

class BusyError extends Error {}

/** A sync-like kind whose work waits for `release`, or for its signal. */
class TestKind implements JobKind<number> {
  readonly kind = 'sync';
  readonly fullRefresh = false;
  readonly requestedBy = 'test';
  readonly lockScope = 'job';
  readonly logSource: string;
  readonly serviceLog: JobKind<number>['serviceLog'];
  readonly target: string;
  readonly #release: Promise<number>;
  readonly #store: Store;

  constructor(target: string, release: Promise<number>, store: Store) {
    this.target = target;
    this.logSource = target;
    this.serviceLog = { noun: 'test job', finished: 'test job finished', fields: { source: target } };
    this.#release = release;
    this.#store = store;
  }

  busy(): Error {
    return new BusyError(this.target);
  }

  started(): string {
    return 'Started';
  }

  async work(tools: JobTools): Promise<number> {
    const { promise: aborted, reject } = Promise.withResolvers<never>();
    tools.signal.addEventListener('abort', () => { reject(tools.signal.reason); }, { once: true });
    return Promise.race([this.#release, aborted]);
  }

  async finished(job: JobRecord, rows: number, finishedAt: string): Promise<JobSuccess> {
    await this.#store.logs.append({ timestamp: finishedAt, level: 'INFO', source: this.target, message: 'Recorded with the ending', jobId: job.id });
    return {
      status: 'success', rows, error: null, logFields: { rows },
      lines: [{ level: 'SUCCESS', message: `Finished with ${String(rows)} rows` }],
      events: [{ type: 'sync_completed', source: this.target, rows }],
    };
  }

  failureMessage(error: unknown, interrupted: boolean): string {
    return interrupted ? 'Interrupted' : `Failed: ${String(error)}`;
  }

  failureLogLevel(): 'warn' {
    return 'warn';
  }

  failedEvents(_job: JobRecord, message: string): QuarryEvent[] {
    return [{ type: 'sync_failed', source: this.target, error: message, timestamp: new Date(0).toISOString() }];
  }
}

/** A TestKind whose follow-up waits for `release`. */
class FollowedKind extends TestKind {
  followedUp = false;
  readonly #followUpRelease: Promise<void>;

  constructor(target: string, release: Promise<number>, store: Store, followUpRelease: Promise<void>) {
    super(target, release, store);
    this.#followUpRelease = followUpRelease;
  }

  async followUp(): Promise<void> {
    await this.#followUpRelease;
    this.followedUp = true;
  }
}

describe('JobLifecycle', () => {
  let dir: string;
  let store: Store;
  let events: EventBus;
  let lifecycle: JobLifecycle;
  let options: ConstructorParameters<typeof JobLifecycle>[0];
  let records: { msg: string; level: number }[];

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'quarry-lifecycle-'));
    const paths = projectPaths(dir);
    store = openStore(paths.platformDb);
    records = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        records.push(...chunk.toString('utf8').split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as { msg: string; level: number }));
        callback();
      },
    });
    const log = createLogger({ level: 'debug', destination });
    const now = (): Date => new Date();
    events = new EventBus(log, now, new SecretRedactor());
    options = { store, owner: thisJobOwner(), events, log, now, writer: new LakeWriter(lakeLocation(paths), paths.writerLockFile), redact: (text) => text };
    lifecycle = new JobLifecycle(options);
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the ending and the kind\'s lines before it publishes the events, and logs the kind\'s own message', async () => {
    const seen: Promise<string>[] = [];
    events.subscribe((event) => { seen.push(store.jobs.latest('sync', 'orders').then((latest) => `${event.type} ${String(latest?.status)}`)); });
    const { job, ended } = await lifecycle.enqueue(new TestKind('orders', Promise.resolve(3), store));
    await ended;
    expect(await Promise.all(seen)).toEqual(['sync_completed success']);
    expect(await store.jobs.latest('sync', 'orders')).toMatchObject({ id: job.id, status: 'success', rows: 3 });
    expect((await store.logs.latest(10, 'orders')).map((line) => line.message).toReversed())
      .toEqual(['Started', 'Recorded with the ending', 'Finished with 3 rows']);
    expect(records).toContainEqual(expect.objectContaining({ level: 30, msg: 'test job finished', source: 'orders', rows: 3 }));
  });

  it('refuses a second job of the same kind and target while one is active, and any job once closing', async () => {
    const { promise: release, resolve } = Promise.withResolvers<number>();
    const first = await lifecycle.enqueue(new TestKind('orders', release, store));
    await expect(lifecycle.enqueue(new TestKind('orders', release, store))).rejects.toThrow(BusyError);
    resolve(1);
    await first.ended;
    const closing = lifecycle.close(60_000);
    await expect(lifecycle.enqueue(new TestKind('orders', release, store))).rejects.toThrow(BusyError);
    await closing;
  });

  it('interrupts a job that outlasts the grace period and records it interrupted, with no failure in the service log', async () => {
    const failures: QuarryEvent[] = [];
    events.subscribe((event) => { if (event.type === 'sync_failed') failures.push(event); });
    const { job } = await lifecycle.enqueue(new TestKind('orders', new Promise(() => undefined), store));
    const queued = await lifecycle.enqueue(new TestKind('customers', new Promise(() => undefined), store));
    await lifecycle.close(10);
    // The queued job leaves the writer's line at once; the running one ends when its interrupt is heard.
    await expect.poll(() => failures).toContainEqual(expect.objectContaining({ source: 'orders', error: 'Interrupted' }));
    expect(await store.jobs.latest('sync', 'orders')).toMatchObject({ id: job.id, status: 'interrupted', error: 'Interrupted' });
    expect(await store.jobs.latest('sync', 'customers')).toMatchObject({ id: queued.job.id, status: 'interrupted' });
    expect(records.filter((record) => record.msg.startsWith('test job failed'))).toEqual([]);
    expect(lifecycle.active()).toEqual([]);
  });

  it('frees the queue\'s slot once a taken job\'s ending is recorded, and waits on close for its follow-up', async () => {
    const { promise: followUpReleased, resolve: releaseFollowUp } = Promise.withResolvers<undefined>();
    const kind = new FollowedKind('orders', Promise.resolve(2), store, followUpReleased);
    const worker = new JobLifecycle({ ...options, queue: { send: () => Promise.resolve(), kindOf: () => Promise.resolve(kind) } });
    const job = await store.jobs.enqueueUnlessActive({ kind: 'sync', target: 'orders', fullRefresh: false, requestedBy: 'test', parameters: {} }, new Date().toISOString(), worker.owner);

    await worker.takeQueued(job!.id, new AbortController().signal);
    expect(await store.jobs.latest('sync', 'orders')).toMatchObject({ id: job!.id, status: 'success', rows: 2 });
    expect(kind.followedUp).toBe(false);
    // Over for anyone who asks: the next job of the same target is not refused while the follow-up goes on.
    expect(worker.active()).toEqual([]);

    let closed = false;
    const closing = worker.close(60_000).then(() => { closed = true; });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(closed).toBe(false);
    releaseFollowUp(undefined);
    await closing;
    expect(kind.followedUp).toBe(true);
  });
});
