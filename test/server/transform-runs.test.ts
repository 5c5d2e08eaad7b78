import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const OWNER = { pid: 4242, started: '2026-11-29T08:00:00.000Z', host: 'elsewhere', worker: 'elsewhere:4242' };

interface RunAnswer {
  job_id: number;
  status: string;
  error: string | null;
  models: { name: string; status: string; duration_seconds: number | null }[];
  tests: { name: string; model: string | null; status: string; failures: number | null }[];
}

/** cities (a null name among them) → city_count; the not_null test on a city's name fails. */
function writeModels(dir: string): void {
  const marts = path.join(dir, 'transform', 'models', 'marts');
  mkdirSync(marts, { recursive: true });
  writeFileSync(path.join(marts, 'cities.sql'), "select * from (values (1, 'Oslo'), (2, 'Lyon'), (3, null)) as t(id, name)");
  writeFileSync(path.join(marts, 'city_count.sql'), "select count(*) as n from {{ ref('cities') }}");
  writeFileSync(path.join(marts, '_marts.yml'), [
    'version: 2', 'models:', '  - name: cities', '    columns:', '      - {name: id, data_tests: [unique]}', '      - {name: name, data_tests: [not_null]}', '',
  ].join('\n'));
}

describe('model runs through the API: queue a build, test or one model, then follow it by its job id', () => {
  let quarry: TestQuarry;

  async function runToEnd(body: unknown): Promise<RunAnswer> {
    const queued = await quarry.request('POST', '/api/transform/runs', { as: 'editor', body });
    expect(queued.status).toBe(200);
    expect(queued.json).toMatchObject({ job_id: expect.any(Number), status: expect.stringMatching(/^(queued|running)$/) });
    let run: RunAnswer | undefined;
    await expect.poll(async () => {
      run = (await quarry.request('GET', `/api/transform/runs/${String(queued.json.job_id)}`, { as: 'viewer' })).json as RunAnswer;
      return run.status;
    }, { timeout: 60_000 }).toMatch(/^(success|failed)$/);
    return run as RunAnswer;
  }

  beforeAll(async () => {
    quarry = await startQuarry({ transform: true, prepare: writeModels });
    await quarry.ctx.transform.idle();
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('builds a selector and reports each model and test, the failing test with its rows counted', async () => {
    const run = await runToEnd({ select: 'cities+' });
    expect(run.status).toBe('failed');
    expect(run.error).toContain('not_null_cities_name');
    expect(run.models).toEqual([expect.objectContaining({ name: 'cities', status: 'success', duration_seconds: expect.any(Number) }),
      expect.objectContaining({ name: 'city_count', status: 'skipped' })]);
    expect(run.tests).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'unique_cities_id', model: 'cities', status: 'pass' }),
      expect.objectContaining({ name: 'not_null_cities_name', model: 'cities', status: 'fail', failures: 1 }),
    ]));
  });

  it('runs only the tests, or one model without what is downstream of it', async () => {
    const tests = await runToEnd({ command: 'test', select: 'cities' });
    expect(tests.models).toEqual([]);
    expect(tests.tests.map((test) => test.name).sort()).toEqual(['not_null_cities_name', 'unique_cities_id']);
    const one = await runToEnd({ model: 'city_count', cascade: false });
    expect(one).toMatchObject({ status: 'success', models: [expect.objectContaining({ name: 'city_count', status: 'success' })] });
  });

  it('refuses a selector word that dbt would read as an option, and what is not one request, queueing nothing', async () => {
    for (const body of [
      { select: '--vars {"x":1}' }, { select: 'cities --profiles-dir /tmp' }, { select: '-s cities' }, { select: 'cities;rm' },
      { select: 'x'.repeat(4_001) }, { command: 'run-operation' }, { model: 'cities', select: 'cities' }, { model: 'cities', command: 'test' },
      { model: '../cities' }, { unknown: true },
    ]) {
      const response = await quarry.request('POST', '/api/transform/runs', { as: 'editor', body });
      expect({ body, status: response.status, code: response.json.code }).toEqual({ body, status: 400, code: 'invalid_request' });
    }
    const missing = await quarry.request('POST', '/api/transform/runs', { as: 'editor', body: { model: 'nowhere' } });
    expect({ status: missing.status, code: missing.json.code }).toEqual({ status: 404, code: 'model_not_found' });
    // A run accepted would be queued or running still.
    expect(await quarry.ctx.store.jobs.active()).toEqual([]);
  });

  it('lets a viewer follow a run but not start one, and knows only model runs by their id', async () => {
    const refused = await quarry.request('POST', '/api/transform/runs', { as: 'viewer', body: {} });
    expect(refused.status).toBe(403);
    const anonymous = await quarry.request('GET', '/api/transform/runs/1', { as: 'anonymous' });
    expect(anonymous.status).toBe(401);
    for (const id of ['999999', '0', 'abc', '1e3']) {
      const response = await quarry.request('GET', `/api/transform/runs/${id}`, { as: 'viewer' });
      expect({ id, status: response.status }).toEqual({ id, status: id === '999999' ? 404 : 400 });
    }
    const now = new Date().toISOString();
    const sync = await quarry.ctx.store.jobs.enqueueUnlessActive({ kind: 'sync', target: 'orders', fullRefresh: false, requestedBy: null }, now, OWNER);
    if (sync === undefined) throw new Error('the sync job was not recorded');
    await quarry.ctx.store.jobs.finish(sync.id, { status: 'failed', rows: null, error: 'made up', filesFailed: 0 }, now);
    const notARun = await quarry.request('GET', `/api/transform/runs/${String(sync.id)}`, { as: 'viewer' });
    expect({ status: notARun.status, code: notARun.json.code }).toEqual({ status: 404, code: 'run_not_found' });
  });

  it('answers 409 to a run queued while another covers the same models', async () => {
    const first = await quarry.request('POST', '/api/transform/runs', { as: 'editor', body: {} });
    const second = await quarry.request('POST', '/api/transform/runs', { as: 'editor', body: { select: 'city_count' } });
    expect([first.status, second.status, second.json.code]).toEqual([200, 409, 'run_in_progress']);
    await quarry.ctx.transform.idle();
  });
});
