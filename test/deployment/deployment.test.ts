// A deployment on one machine, as on several: one web process and two workers, each its own process with its own
// copy of the project folder, sharing the platform store and the lake's catalog in the local PostgreSQL and the
// lake's data in a bucket.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { projectPaths } from '../../src/config/index.ts';
import { launchBrowser, signIn } from '../support/browser.ts';
import { DEPLOYMENT_ADMIN, dropDeployment, prepareDeployment, restSourcesYaml, signInAdmin, startWorker, stopProcess, type Child } from '../support/deployment.ts';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { onPostgres } from '../support/local-postgres.ts';
import { startObjectStore, type ObjectStore } from '../support/object-store.ts';
import { freshPostgresStore } from '../support/postgres-store.ts';
import { runQuarry, spawnQuarry, type QuarryProcess } from '../support/quarry-process.ts';

const SOURCES = Array.from({ length: 20 }, (_, index) => `s${String(index + 1).padStart(2, '0')}`);
/** The source whose first sync is left hanging, so that its worker can be killed in the middle of it. */
const HANGING = 's07';
const ROWS_PER_SOURCE = 40;
const LEASE_SECONDS = 10;

interface SyncRecord { id: number; target: string; status: string; rows: number | null; worker: string | null; error: string | null }

describe('a deployment: one web process and two workers', () => {
  const base = mkdtempSync(path.join(tmpdir(), 'quarry-deployment-'));
  const dirs = {
    web: path.join(base, 'web'), first: path.join(base, 'worker-1'), second: path.join(base, 'worker-2'), refused: path.join(base, 'worker-refused'),
  };
  const platform = freshPostgresStore();
  const lakeSchema = `quarry_lake_${platform.schema.slice(-12)}`;
  let api: FakeApi;
  let bucket: ObjectStore;
  let web: QuarryProcess | undefined;
  const workers = new Map<string, Child>();
  let releaseHanging = (): void => undefined;
  const hangingRequests: number[] = [];
  let cookie = '';
  let browser: Browser | undefined;
  /** A page of the web process whose WebSocket, Chromium's own with the session's cookie, keeps every event it hears. */
  let page: Page | undefined;
  interface SeenEvent { type: string; source?: string; model?: string }
  const seen = async (): Promise<SeenEvent[]> => page!.evaluate<SeenEvent[]>('window.seen');

  const jobs = (kind: string): Promise<SyncRecord[]> => onPostgres(async (client) =>
    (await client.query<SyncRecord>(`SELECT id::int AS id, target, status, rows::int AS rows, worker, error FROM ${platform.schema}.jobs WHERE kind = $1 ORDER BY id`, [kind])).rows);

  /** The twenty sources' syncs (the schedule's own source syncs whenever its minute comes). */
  const syncs = async (): Promise<SyncRecord[]> => (await jobs('sync')).filter((job) => SOURCES.includes(job.target));
  /** The latest job of the kind, once it has ended. */
  const ended = async (kind: string): Promise<SyncRecord | undefined> => {
    await expect.poll(async () => (await jobs(kind)).at(-1)?.status, { timeout: 120_000, interval: 500 }).toMatch(/^(success|failed|interrupted)$/);
    return (await jobs(kind)).at(-1);
  };

  const request = async (method: string, url: string, body?: unknown): Promise<Response> => fetch(`${web!.url}${url}`, {
    method, headers: { cookie, 'x-requested-with': 'XMLHttpRequest', ...body === undefined ? {} : { 'content-type': 'application/json' } },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

  beforeAll(async () => {
    bucket = await startObjectStore();
    await bucket.createBucket('lake');
    const hanging = new Promise<void>((resolve) => { releaseHanging = resolve; });
    api = await startFakeApi((app) => {
      app.get('/:source/items', async (incoming) => {
        const { source } = incoming.params as { source: string };
        // An API answering in 50 ms; the hanging source's first request never answers while its worker lives.
        if (source === HANGING && hangingRequests.push(Date.now()) === 1) await hanging;
        await new Promise((resolve) => setTimeout(resolve, 50));
        return { data: Array.from({ length: ROWS_PER_SOURCE }, (_, index) => ({ id: index + 1, source, value: index * 2 })) };
      });
    });

    await prepareDeployment({
      dirs: [dirs.web, dirs.first, dirs.second, dirs.refused], platform, lakeSchema, bucket, sourcesYaml: restSourcesYaml(api.url, [...SOURCES, 'scheduled']),
      projectConfig: {
        platform: { store: platform.url, schema: platform.schema, job_lease_seconds: LEASE_SECONDS },
        schedules: [{ name: 'minutely', cron: '* * * * *', sync: ['scheduled'] }],
      },
    });
    web = await spawnQuarry(dirs.web, { args: ['--no-jobs'] });
    const [first, second] = await Promise.all([startWorker(dirs.first, 'worker-1', 4), startWorker(dirs.second, 'worker-2', 4)]);
    workers.set('worker-1', first);
    workers.set('worker-2', second);
    cookie = await signInAdmin(web.url);
    browser = await launchBrowser();
    page = await browser.newPage();
    await signIn(page, web.url, DEPLOYMENT_ADMIN.email, DEPLOYMENT_ADMIN.password);
    await page.waitForURL((url) => !url.pathname.startsWith('/login'));
    await page.evaluate(`new Promise((resolve, reject) => {
      window.seen = [];
      const socket = new WebSocket('ws://' + window.location.host + '/ws');
      socket.addEventListener('message', (message) => { window.seen.push(JSON.parse(message.data)); });
      socket.addEventListener('open', resolve);
      socket.addEventListener('error', reject);
    })`);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    releaseHanging();
    await Promise.all([...workers.values()].map(stopProcess));
    if (web !== undefined) await stopProcess(web.child);
    await api.close();
    await bucket.stop();
    await dropDeployment(platform, lakeSchema);
    rmSync(base, { recursive: true, force: true });
  });

  it('syncs 20 sources each exactly once on the workers, and finishes a killed worker\'s sync on the other', async () => {
    for (const name of SOURCES) expect((await request('POST', `/api/sources/${name}/sync`, {})).status).toBe(200);
    // A second sync of a source already queued or running is refused deployment-wide.
    expect((await request('POST', `/api/sources/${HANGING}/sync`, {})).status).toBe(409);

    // The hanging source's sync runs on one worker: that worker dies with it.
    await expect.poll(async () => (await syncs()).find((job) => job.target === HANGING)?.status, { timeout: 60_000 }).toBe('running');
    await expect.poll(() => hangingRequests.length, { timeout: 30_000 }).toBe(1);
    const hanging = (await syncs()).find((job) => job.target === HANGING)!;
    const killed = hanging.worker!;
    expect(workers.has(killed)).toBe(true);
    workers.get(killed)!.kill('SIGKILL');
    const survivor = killed === 'worker-1' ? 'worker-2' : 'worker-1';

    await expect.poll(async () => (await syncs()).filter((job) => job.status === 'success').length, { timeout: 90_000, interval: 500 }).toBe(SOURCES.length);
    const records = await syncs();
    expect(records.map((job) => job.target).sort()).toEqual([...SOURCES].sort());
    expect(records.filter((job) => job.status !== 'success' || job.rows !== ROWS_PER_SOURCE)).toEqual([]);
    expect(records.find((job) => job.target === HANGING)).toMatchObject({ id: hanging.id, worker: survivor });
    // Its log says why it ran twice.
    const warnings = await onPostgres(async (client) => (await client.query<{ message: string }>(
      `SELECT message FROM ${platform.schema}.logs WHERE job_id = $1 AND level = 'WARNING'`, [hanging.id],
    )).rows.map((row) => row.message));
    expect(warnings).toEqual([`${killed} lost its hold on it (stopped, or out of the database's reach for the whole lease): ${survivor} runs the job again from the start (what it had not committed is not in the lake)`]);
    expect(hangingRequests.length).toBe(2);
    expect(records.every((job) => job.worker === 'worker-1' || job.worker === 'worker-2')).toBe(true);

    // The workers ran jobs and nothing else: the web process profiled the tables they loaded.
    await expect.poll(async () => onPostgres(async (client) => (await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${platform.schema}.table_profiles WHERE schema_name = ANY($1)`, [SOURCES.map((name) => `raw_${name}`)],
    )).rows[0]!.n), { timeout: 20_000, interval: 500 }).toBe(SOURCES.length);

    // The source's page shows which worker ran its sync.
    const details = await request('GET', `/api/sources/${HANGING}/details`);
    expect(((await details.json()) as { history: { worker: string }[] }).history[0]?.worker).toBe(survivor);

    // Nothing the killed worker had half done was committed: every table holds its rows once.
    const counted = await request('POST', '/api/query', {
      sql: SOURCES.map((name) => `SELECT '${name}' AS source, count(*) AS n, count(DISTINCT id) AS ids FROM raw_${name}.items`).join(' UNION ALL '),
    });
    expect(counted.status).toBe(200);
    const rows = ((await counted.json()) as { rows: unknown[][] }).rows;
    expect(rows).toHaveLength(SOURCES.length);
    for (const [, n, ids] of rows) expect([Number(n), Number(ids)]).toEqual([ROWS_PER_SOURCE, ROWS_PER_SOURCE]);

    // What the workers ran reached the web process's WebSocket clients, the killed worker's endings included: they
    // are sent with their records. (The schedule's own source may complete meanwhile: only the twenty are counted.)
    const completed = async (): Promise<string[]> =>
      [...new Set((await seen()).filter((event) => event.type === 'sync_completed' && SOURCES.includes(event.source ?? '')).map((event) => event.source!))].sort();
    await expect.poll(completed).toEqual([...SOURCES].sort());
  }, 240_000);

  it('runs models, restores and maintains the lake from the queue, on the worker left', async () => {
    const alive = [...workers.entries()].filter(([, child]) => child.exitCode === null && child.signalCode === null).map(([name]) => name);
    expect(alive).toHaveLength(1);
    // The web process wrote the staging models of what the workers loaded, in its own copy of the project, as it heard
    // of each sync.
    const model = 'stg_s01__items';
    await expect.poll(async () => {
      const listed = (await (await request('GET', '/api/transform/models')).json()) as { models: { name: string }[] };
      return listed.models.map((entry) => entry.name);
    }, { timeout: 60_000, interval: 1000 }).toContain(model);

    // ...and queued the run that builds each, once: a worker's copy has no staging model of the source, and writes
    // it from the lake before it runs.
    const stagingRuns = async (): Promise<SyncRecord[]> => (await jobs('run')).filter((job) => SOURCES.some((name) => job.target === `staging of ${name}`));
    await expect.poll(async () => (await stagingRuns()).filter((job) => job.status === 'success').length, { timeout: 180_000, interval: 1000 })
      .toBe(SOURCES.length);
    expect((await stagingRuns()).map((job) => job.target).sort()).toEqual(SOURCES.map((name) => `staging of ${name}`).sort());
    const staged = await request('POST', '/api/query', { sql: `SELECT count(*) AS n FROM staging.${model}` });
    expect(((await staged.json()) as { rows: unknown[][] }).rows).toEqual([[String(ROWS_PER_SOURCE)]]);
    await expect.poll(async () => (await seen()).some((event) => event.type === 'transform_run_completed' && event.model === model)).toBe(true);

    const restored = (await syncs()).find((job) => job.target === 's02')!;
    const restore = await request('POST', '/api/sources/s02/restore', { before_sync: restored.id });
    expect(restore.status).toBe(200);
    expect(await ended('restore')).toMatchObject({ status: 'success', worker: alive[0], error: null });

    // The command line beside the web process queues the maintenance, and waits for the worker that runs it.
    const maintained = await runQuarry(['warehouse', 'maintain', '--project', dirs.web]);
    expect(maintained.stderr).toBe('');
    expect(maintained.status).toBe(0);
    expect(await ended('maintain')).toMatchObject({ status: 'success', worker: alive[0], error: null });
  }, 360_000);

  it('fires a schedule once for the whole deployment, its sync run by a worker', async () => {
    await expect.poll(async () => onPostgres(async (client) =>
      (await client.query(`SELECT count(*)::int AS n FROM ${platform.schema}.jobs WHERE kind = 'sync' AND target = 'scheduled' AND status = 'success'`)).rows[0].n),
    { timeout: 90_000, interval: 1000 }).toBeGreaterThanOrEqual(1);
    const runs = await onPostgres(async (client) => (await client.query(`SELECT started_at FROM ${platform.schema}.schedule_runs WHERE schedule = 'minutely'`)).rows);
    const slots = runs.map((run: { started_at: string }) => run.started_at.slice(0, 16));
    expect(new Set(slots).size).toBe(slots.length);
    const scheduled = await onPostgres(async (client) => (await client.query(`SELECT worker FROM ${platform.schema}.jobs WHERE target = 'scheduled'`)).rows);
    expect(scheduled.every((job: { worker: string }) => job.worker.startsWith('worker-'))).toBe(true);
  }, 120_000);

  it('stops a worker at its start, before it takes a job, when its keys cannot list the bucket, its schema holds no lake or its data path is not the lake\'s', async () => {
    const paths = projectPaths(dirs.refused);
    const config = parse(readFileSync(paths.projectFile, 'utf8')) as { warehouse: Record<string, unknown> };
    const refusal = async (): Promise<string> => {
      // Killed if it takes jobs after all: it would take the deployment's.
      const worker = await runQuarry(['worker', '--project', dirs.refused, '--name', 'refused'], {}, { timeoutMs: 30_000 });
      expect(worker.stdout).not.toContain('is taking jobs');
      expect(worker.status).not.toBe(0);
      return worker.stderr;
    };

    writeFileSync(paths.envFile, `S3_KEY_ID=${bucket.accessKeyId}\nS3_SECRET=not-the-lake-secret\n`, { mode: 0o600 });
    const keysRefused = await refusal();
    expect(keysRefused).toMatch(/^quarry: The warehouse cannot be used: its bucket s3:\/\/lake\/deployment\/ cannot be listed: .*403/m);
    expect(keysRefused).not.toContain('not-the-lake-secret');
    writeFileSync(paths.envFile, `S3_KEY_ID=${bucket.accessKeyId}\nS3_SECRET=${bucket.secretAccessKey}\n`, { mode: 0o600 });

    // A mistyped schema would otherwise be made a second, empty lake over the same data path.
    writeFileSync(paths.projectFile, stringify({ ...config, warehouse: { ...config.warehouse, metadata_schema: `${lakeSchema}_typo` } }));
    expect(await refusal()).toContain(`warehouse.metadata_schema: the catalog postgres://postgres@127.0.0.1:5432/test has no lake in the schema ${lakeSchema}_typo: `);
    expect(await onPostgres(async (client) => (await client.query('SELECT count(*)::int AS n FROM information_schema.schemata WHERE schema_name = $1', [`${lakeSchema}_typo`])).rows[0].n)).toBe(0);

    writeFileSync(paths.projectFile, stringify({ ...config, warehouse: { ...config.warehouse, data_path: 's3://lake/elsewhere' } }));
    expect(await refusal()).toContain("warehouse.data_path: the lake's data files are in s3://lake/deployment/, and project.yml says s3://lake/elsewhere/.");

    expect(await onPostgres(async (client) => (await client.query(`SELECT count(*)::int AS n FROM ${platform.schema}.jobs WHERE worker = 'refused'`)).rows[0].n)).toBe(0);
  }, 60_000);
});
