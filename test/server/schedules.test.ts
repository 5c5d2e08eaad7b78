import { mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { JobRecord } from '../../src/store/index.ts';
import { records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type StartOptions, type TestQuarry } from '../support/quarry.ts';
import { TestClock } from '../support/test-clock.ts';

// 10:00:30 UTC: the next minute slot is 30 s away, the 03:00 slot far off.
const START = Date.UTC(2026, 5, 1, 10, 0, 30);
const MINUTE = 60_000;

let api: FakeApi;
/** While set, /v1/slow answers only once it resolves. */
let slowGate: Promise<void> | undefined;

beforeAll(async () => {
  api = await startFakeApi((app) => {
    app.get('/v1/items', () => ({ data: records(3, (n) => ({ id: n, name: `item ${String(n)}` })) }));
    app.get('/v1/slow', async () => {
      await slowGate;
      return { data: [{ id: 1 }] };
    });
    // Still failing after the connector's own retries (Retry-After: 0 keeps those instant).
    app.get('/v1/flaky', (_request, reply) => reply.code(503).header('retry-after', '0').send({ message: 'down for maintenance' }));
    app.get('/v1/denied', (_request, reply) => reply.code(401).send({ message: 'bad credentials' }));
  });
});

afterAll(async () => {
  await api.close();
});

function restSource(name: string, path: string, tags: readonly string[]): string {
  return [
    `  - name: ${name}`, '    type: rest_api', `    tags: [${tags.join(', ')}]`, '    rest_api:', `      base_url: ${api.url}/v1`, '      auth_type: none',
    '      endpoints:', `        - path: ${path}`, '          data_selector: data', '          primary_key: id',
  ].join('\n');
}

function sourcesYaml(): string {
  const sources = [['shop', '/items', ['nightly']], ['stock', '/items', ['nightly']], ['denied', '/denied', ['nightly']], ['slow', '/slow', []], ['flaky', '/flaky', []]] as const;
  return `sources:\n${sources.map(([name, path, tags]) => restSource(name, path, tags)).join('\n')}\n`;
}

function scheduled(schedules: Record<string, unknown>[], extra: Partial<StartOptions> = {}): Promise<TestQuarry> {
  return startQuarry({
    sourcesYaml: sourcesYaml(), projectConfig: { schedules: schedules.map((schedule) => ({ timezone: 'UTC', ...schedule })) },
    clock: new TestClock(START), ...extra,
  });
}

async function syncJobsOf(quarry: TestQuarry, source: string, schedule: string): Promise<JobRecord[]> {
  return (await quarry.ctx.store.jobs.history('sync', source, 50)).filter((job) => job.requestedBy === `schedule:${schedule}`).reverse();
}

function recordingIncidents(): { missed: (schedule: string, reason: string) => void; seen: { schedule: string; reason: string }[] } {
  const seen: { schedule: string; reason: string }[] = [];
  return { seen, missed: (schedule, reason) => { seen.push({ schedule, reason }); } };
}

describe('schedules', () => {
  let quarry: TestQuarry | undefined;
  afterEach(async () => {
    slowGate = undefined;
    await quarry?.close();
    quarry = undefined;
  });

  it('syncs at its cron slot with nobody acting, as an ordinary job requested by the schedule', async () => {
    quarry = await scheduled([{ name: 'minutely', cron: '* * * * *', sync: ['shop'] }]);
    expect(await quarry.ctx.store.jobs.latest('sync', 'shop')).toBeUndefined();
    const started = quarry.nextEvent('schedule_started');
    const synced = quarry.nextEvent('sync_completed', (event) => event.source === 'shop');
    const completed = quarry.nextEvent('schedule_completed');
    quarry.clock.advance(MINUTE);
    expect(await started).toEqual({ type: 'schedule_started', schedule: 'minutely', timestamp: '2026-06-01T10:01:00.000Z' });
    expect(await synced).toMatchObject({ source: 'shop', rows: 3 });
    expect(await completed).toEqual({ type: 'schedule_completed', schedule: 'minutely', outcome: 'success', timestamp: expect.any(String) });
    expect(await syncJobsOf(quarry, 'shop', 'minutely')).toMatchObject([{ status: 'success', rows: 3 }]);
    expect((await quarry.query('SELECT count(*) AS n FROM raw_shop.items'))[0]).toEqual({ n: 3 });

    const response = await quarry.request('GET', '/api/schedules', { as: 'viewer' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual([{
      name: 'minutely', kind: 'sync', cron: '* * * * *', timezone: 'UTC', enabled: true, running: false, next_run: '2026-06-01T10:02:00.000Z',
      last_run: { started_at: '2026-06-01T10:01:00.000Z', finished_at: expect.any(String), outcome: 'success' },
    }]);
  });

  it('runs each schedule once after a restart that missed several of its slots', async () => {
    const clock = new TestClock(START);
    const schedules = [{ name: 'minutely', cron: '* * * * *', sync: ['shop'] }, { name: 'hourly', cron: '0 * * * *', sync: ['stock'] }];
    const first = await scheduled(schedules, { clock });
    await first.stop();
    clock.advance(3 * 60 * MINUTE); // 180 minute slots and 3 hourly ones pass while the service is down
    quarry = await scheduled(schedules, { clock, projectDir: first.dir });
    await vi.waitFor(async () => {
      expect((await quarry?.ctx.store.schedules.latestRun('minutely'))?.outcome).toBe('success');
      expect((await quarry?.ctx.store.schedules.latestRun('hourly'))?.outcome).toBe('success');
    }, { timeout: 30_000 });
    expect(await quarry.ctx.store.schedules.runs('minutely', 10)).toMatchObject([{ trigger: 'catch_up', outcome: 'success' }]);
    expect(await quarry.ctx.store.schedules.runs('hourly', 10)).toMatchObject([{ trigger: 'catch_up', outcome: 'success' }]);
    expect(await syncJobsOf(quarry, 'shop', 'minutely')).toHaveLength(1);
    expect(await syncJobsOf(quarry, 'stock', 'hourly')).toHaveLength(1);
    // The second service runs in the first one's folder: it is stopped before the folder goes (a docs build may still write there).
    await quarry.close();
    quarry = undefined;
    await rm(first.dir, { recursive: true, force: true });
  });

  it('skips and reports a slot that comes while the previous run is still going, never stacking runs', async () => {
    let release = (): void => undefined;
    slowGate = new Promise((resolve) => { release = resolve; });
    const incidents = recordingIncidents();
    quarry = await scheduled([{ name: 'minutely', cron: '* * * * *', sync: ['slow'] }], { scheduleIncidents: incidents });
    const syncStarted = quarry.nextEvent('sync_started', (event) => event.source === 'slow');
    quarry.clock.advance(MINUTE);
    await syncStarted;
    const skipped = quarry.nextEvent('schedule_completed');
    quarry.clock.advance(MINUTE);
    expect(await skipped).toMatchObject({ schedule: 'minutely', outcome: 'skipped' });
    expect(incidents.seen).toEqual([{ schedule: 'minutely', reason: 'skipped: its previous run is still going' }]);
    expect((await quarry.ctx.store.logs.latest(20)).map((entry) => entry.message)).toContain('Schedule minutely skipped this slot: its previous run is still going');

    const runNow = await quarry.request('POST', '/api/schedules/minutely/run', { as: 'editor' });
    expect(runNow.status).toBe(409);
    expect(runNow.json).toEqual({ detail: 'The schedule "minutely" is already running', code: 'schedule_in_progress' });

    const finished = quarry.nextEvent('schedule_completed');
    release();
    expect(await finished).toMatchObject({ schedule: 'minutely', outcome: 'success' });
    expect(await syncJobsOf(quarry, 'slow', 'minutely')).toHaveLength(1);
    expect((await quarry.ctx.store.schedules.runs('minutely', 10)).map((run) => run.outcome)).toEqual(['skipped', 'success']);
  });

  it('retries a sync that fails on a transient error with backoff, each try in the history, then reports the failure', async () => {
    const incidents = recordingIncidents();
    quarry = await scheduled([{ name: 'nightly', cron: '0 3 * * *', sync: ['flaky'], retries: 2 }], { scheduleIncidents: incidents });
    const completed = quarry.nextEvent('schedule_completed');
    const response = await quarry.request('POST', '/api/schedules/nightly/run', { as: 'editor' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ success: true, message: 'Schedule nightly started', schedule: 'nightly', started_at: '2026-06-01T10:00:30.000Z' });
    for (const [tries, backoff] of [[1, MINUTE], [2, 2 * MINUTE]] as const) {
      const current = quarry;
      await vi.waitFor(async () => {
        expect((await syncJobsOf(current, 'flaky', 'nightly')).filter((job) => job.status === 'failed')).toHaveLength(tries);
        expect(current.clock.pendingTimers()[0]?.getTime()).toBe(current.clock.now().getTime() + backoff);
      });
      current.clock.advanceToNextTimer();
    }
    expect(await completed).toMatchObject({ schedule: 'nightly', outcome: 'failed' });
    const jobs = await syncJobsOf(quarry, 'flaky', 'nightly');
    expect(jobs).toHaveLength(3);
    for (const job of jobs) expect(job).toMatchObject({ status: 'failed', transient: true, error: expect.stringContaining('answered 503') });
    expect(await quarry.ctx.store.schedules.latestRun('nightly')).toMatchObject({ trigger: 'manual', outcome: 'failed', detail: expect.stringContaining('(after 3 tries)') });
    expect(incidents.seen).toEqual([{ schedule: 'nightly', reason: expect.stringMatching(/^flaky: .*answered 503.*\(after 3 tries\)$/) }]);
  });

  it('does not retry a sync that fails on an error trying again cannot cure', async () => {
    quarry = await scheduled([{ name: 'nightly', cron: '0 3 * * *', sync: ['denied'], retries: 2 }]);
    const completed = quarry.nextEvent('schedule_completed');
    expect((await quarry.request('POST', '/api/schedules/nightly/run', { as: 'editor' })).status).toBe(200);
    expect(await completed).toMatchObject({ schedule: 'nightly', outcome: 'failed' });
    expect(await syncJobsOf(quarry, 'denied', 'nightly')).toMatchObject([{ status: 'failed', transient: false, error: expect.stringContaining('answered 401') }]);
  });

  it('syncs the sources with the schedule\'s tags', async () => {
    quarry = await scheduled([{ name: 'tagged', cron: '0 3 * * *', sync: { tags: ['nightly'] }, enabled: false }]);
    const listed = await quarry.request('GET', '/api/schedules', { as: 'viewer' });
    expect(listed.json).toMatchObject([{ name: 'tagged', enabled: false, next_run: null, last_run: null }]);
    const completed = quarry.nextEvent('schedule_completed');
    expect((await quarry.request('POST', '/api/schedules/tagged/run', { as: 'admin' })).status).toBe(200);
    expect(await completed).toMatchObject({ outcome: 'failed' }); // denied is tagged too
    expect(await syncJobsOf(quarry, 'shop', 'tagged')).toMatchObject([{ status: 'success' }]);
    expect(await syncJobsOf(quarry, 'stock', 'tagged')).toMatchObject([{ status: 'success' }]);
    expect(await syncJobsOf(quarry, 'denied', 'tagged')).toMatchObject([{ status: 'failed' }]);
    expect(await syncJobsOf(quarry, 'slow', 'tagged')).toEqual([]);
  });

  it('lets every role read the schedules and editors and up run one, with the contract\'s errors', async () => {
    quarry = await scheduled([{ name: 'nightly', cron: '0 3 * * *', sync: ['shop'] }]);
    expect((await quarry.request('GET', '/api/schedules')).json).toEqual({ detail: 'Authentication required', code: 'unauthenticated' });
    const forbidden = await quarry.request('POST', '/api/schedules/nightly/run', { as: 'viewer' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json).toEqual({ detail: expect.any(String), code: 'forbidden' });
    const missing = await quarry.request('POST', '/api/schedules/weekly/run', { as: 'editor' });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ detail: 'No schedule named "weekly"', code: 'schedule_not_found' });
    const cookie = await quarry.login('editor');
    const crossSite = await quarry.request('POST', '/api/schedules/nightly/run', { cookie });
    expect(crossSite.status).toBe(403);
    expect(crossSite.json).toMatchObject({ code: 'csrf_failed' });
    expect(await quarry.ctx.store.schedules.latestRun('nightly')).toBeUndefined();
  });
});

describe('a schedule with transform: true', () => {
  let quarry: TestQuarry;
  beforeAll(async () => {
    quarry = await startQuarry({
      sourcesYaml: 'sources:\n  - name: shop\n    type: local_files\n    local_files: { directory: data/shop }\n',
      projectConfig: { schedules: [{ name: 'nightly', cron: '0 3 * * *', timezone: 'UTC', sync: 'all', transform: true }] },
      transform: true, clock: new TestClock(Date.UTC(2026, 5, 1, 2, 59, 30)),
      prepare: (dir) => {
        mkdirSync(path.join(dir, 'data', 'shop'), { recursive: true });
        writeFileSync(path.join(dir, 'data', 'shop', 'jan.csv'), 'id,amount\n1,10\n2,20\n');
      },
    });
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('runs the models downstream of what synced, as a run job requested by the schedule', async () => {
    const completed = quarry.nextEvent('schedule_completed');
    const modelRun = quarry.nextEvent('transform_run_completed', (event) => event.model === 'stg_shop__shop');
    quarry.clock.advance(MINUTE);
    expect(await completed).toMatchObject({ schedule: 'nightly', outcome: 'success' });
    await modelRun;
    expect(await quarry.ctx.store.jobs.latest('run', 'downstream of shop')).toMatchObject({ status: 'success', requestedBy: 'schedule:nightly' });
    await quarry.ctx.transform.idle();
    expect(await quarry.query('SELECT count(*) AS n FROM staging.stg_shop__shop')).toEqual([{ n: 2 }]);
  });
});
