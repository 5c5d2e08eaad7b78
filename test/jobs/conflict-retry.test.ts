// A job that loses to another writer's conflicting commit: with a shared lake (a PostgreSQL catalog) and the
// deployment's queue, DuckLake's refusal fails the job cleanly, nothing of it committed, and the job is queued again.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventBus } from '../../src/events/index.ts';
import { thisJobOwner } from '../../src/jobs/job-owner.ts';
import { JobLifecycle, JobQueue, type JobKind, type JobSuccess, type JobTools } from '../../src/jobs/index.ts';
import { SecretRedactor } from '../../src/sources/config/index.ts';
import { openPostgresStore, type JobRecord, type Store } from '../../src/store/index.ts';
import { LakeWriter, snapshotsOfJob, type LakeLocation } from '../../src/warehouse/index.ts';
import { openLakeForWriting } from '../../src/warehouse/lake-connection.ts';
import { captureLog } from '../support/captured-log.ts';
import { LOCAL_POSTGRES, onPostgres } from '../support/local-postgres.ts';
import { freshPostgresStore } from '../support/postgres-store.ts';

const TABLE = 'contested.totals';

/**
 * Replaces a table of the lake. Its first attempt lets another writer (a DuckDB of its own, outside Quarry) create
 * the same table and commit while its transaction is open: DuckLake then refuses its commit.
 */
class ReplaceTableJob implements JobKind<number> {
  readonly kind = 'sync';
  readonly target = 'contested';
  readonly fullRefresh = false;
  readonly requestedBy = 'test';
  readonly logSource = 'contested';
  readonly lockScope = 'job';
  readonly parameters = {};
  readonly serviceLog = { noun: 'replacement', finished: 'replacement finished', fields: { table: TABLE } };
  readonly #beforeCommit: () => Promise<void>;

  constructor(beforeCommit: () => Promise<void>) {
    this.#beforeCommit = beforeCommit;
  }

  busy(): Error {
    return new Error('busy');
  }

  started(): string {
    return 'Replacing the table';
  }

  work(tools: JobTools): Promise<number> {
    return tools.write(({ transaction }) => transaction(async (connection) => {
      await connection.run(`CREATE OR REPLACE TABLE ${TABLE} AS SELECT 1 AS written_by_job`);
      await this.#beforeCommit();
      return 1;
    }));
  }

  async finished(_job: JobRecord, rows: number): Promise<JobSuccess> {
    return { status: 'success', rows, error: null, logFields: {}, lines: [], events: [] };
  }

  failureMessage(error: unknown): string {
    return `The replacement failed: ${error instanceof Error ? error.message : String(error)}`;
  }

  failureLogLevel(): undefined {
    return undefined;
  }

  failedEvents(): [] {
    return [];
  }
}

describe('a job whose commit conflicts with another writer\'s', () => {
  const platform = freshPostgresStore();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'quarry-conflict-'));
  const lake: LakeLocation = {
    catalog: { kind: 'postgres', ...LOCAL_POSTGRES, password: undefined, metadataSchema: `quarry_lake_${randomBytes(6).toString('hex')}` },
    dataPath: `${dataDir}/`,
  };
  // Left undefined when beforeAll failed before opening them.
  let store: Store | undefined;
  let queue: JobQueue | undefined;
  let lifecycle: JobLifecycle | undefined;
  let attempts = 0;

  /** The other writer: on the job's first attempt only, it creates the table first. */
  const outsiderFirst = async (): Promise<void> => {
    attempts += 1;
    if (attempts > 1) return;
    const outsider = await openLakeForWriting(lake);
    try {
      await outsider.connection.run(`CREATE TABLE ${TABLE} AS SELECT 2 AS written_by_outsider`);
    } finally {
      await outsider.close();
    }
  };

  beforeAll(async () => {
    const setup = await openLakeForWriting(lake);
    await setup.connection.run('CREATE SCHEMA contested');
    await setup.close();
    const { log } = captureLog();
    const opened = await openPostgresStore(platform);
    store = opened;
    const jobQueue = await JobQueue.open({ connection: { ...LOCAL_POSTGRES }, schema: `${platform.schema}_queue`, log });
    queue = jobQueue;
    const shared = opened.shared!;
    const now = (): Date => new Date();
    const jobs = new JobLifecycle({
      store: opened, owner: thisJobOwner('test-worker'), events: new EventBus(log, now, new SecretRedactor()), log, now,
      writer: new LakeWriter(lake, path.join(dataDir, 'writer.lock')), redact: (text) => text,
      queue: {
        send: (job) => jobQueue.send({ jobId: job.id, kind: job.kind, target: job.target }, (text, values) => shared.executeSql(text, values)),
        kindOf: async () => new ReplaceTableJob(outsiderFirst),
      },
    });
    lifecycle = jobs;
    await jobQueue.work((queued, signal) => jobs.takeQueued(queued.jobId, signal), { concurrency: 1 });
  }, 60_000);

  afterAll(async () => {
    await lifecycle?.close(5_000);
    await queue?.stop(5_000);
    await store?.close();
    await platform.drop();
    await onPostgres(async (client) => {
      await client.query(`DROP SCHEMA IF EXISTS ${platform.schema}_queue CASCADE`);
      await client.query(`DROP SCHEMA IF EXISTS ${lake.catalog.kind === 'postgres' ? lake.catalog.metadataSchema : ''} CASCADE`);
    });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('fails, with nothing of it committed, and is queued again; the next attempt commits', async () => {
    const { job, ended } = await lifecycle!.enqueue(new ReplaceTableJob(outsiderFirst));
    const first = await ended;
    expect(first.status).toBe('failed');
    expect(first.error).toMatch(/^The replacement failed: Another writer changed the same part of the lake first, so nothing was committed \(Transaction conflict - attempting to create table "totals" in schema "contested".*\); the job is queued again$/);

    await expect.poll(async () => (await store!.jobs.history('sync', 'contested', 10)).map((job) => job.status), { timeout: 30_000 })
      .toEqual(['success', 'failed']);
    const [again] = await store!.jobs.history('sync', 'contested', 1);
    expect(again?.parameters).toEqual({ conflictRetries: 1 });
    expect(again?.worker).toBe('test-worker');

    // The outsider's table was replaced by the job's second attempt; its first committed no snapshot.
    const reader = await openLakeForWriting(lake);
    try {
      expect((await reader.connection.runAndReadAll(`SELECT * FROM ${TABLE}`)).getRowObjects()).toEqual([{ written_by_job: 1 }]);
      expect(await snapshotsOfJob(reader.connection, job.id)).toEqual([]);
      expect(await snapshotsOfJob(reader.connection, again!.id)).toHaveLength(1);
    } finally {
      await reader.close();
    }
  }, 60_000);
});
