import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuarryEvent } from '../../src/events/index.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const SOURCES = `sources:
  - name: shop
    type: local_files
    local_files:
      directory: data/shop
      file_pattern: "*.csv"
`;

/** Two chains of marts models: a_base → b_middle → c_top (and d_side), e_root → broken (bad SQL) → after_broken → after_after. */
const MARTS: Record<string, string> = {
  'a_base.sql': "select 1 as id, 'x' as label",
  'b_middle.sql': "select id, label from {{ ref('a_base') }}",
  'c_top.sql': "select count(*) as n from {{ ref('b_middle') }}",
  'd_side.sql': "select id from {{ ref('a_base') }}",
  'e_root.sql': 'select 2 as id',
  'broken.sql': "select no_such_column from {{ ref('e_root') }}",
  'after_broken.sql': "select * from {{ ref('broken') }}",
  'after_after.sql': "select * from {{ ref('after_broken') }}",
  '_marts.yml': 'version: 2\nmodels:\n  - name: b_middle\n    description: The middle of the chain\n',
};

function writeModels(dir: string): void {
  const marts = path.join(dir, 'transform', 'models', 'marts');
  mkdirSync(marts, { recursive: true });
  for (const [name, sql] of Object.entries(MARTS)) writeFileSync(path.join(marts, name), sql);
  const data = path.join(dir, 'data', 'shop');
  mkdirSync(data, { recursive: true });
  writeFileSync(path.join(data, 'jan.csv'), 'id,amount\n1,10\n2,20\n');
}

/** Every transform event until the run of `models` has reported each of them once. */
function collectRun(quarry: TestQuarry, models: readonly string[]): Promise<QuarryEvent[]> {
  return new Promise((resolve) => {
    const events: QuarryEvent[] = [];
    const pending = new Set(models);
    const unsubscribe = quarry.ctx.events.subscribe((event) => {
      if (!event.type.startsWith('transform_run_')) return;
      events.push(event);
      if ((event.type === 'transform_run_completed' || event.type === 'transform_run_failed') && pending.delete(event.model) && pending.size === 0) {
        unsubscribe();
        resolve(events);
      }
    });
  });
}

function startedOrder(events: readonly QuarryEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'transform_run_started' ? [event.model] : []));
}

async function statuses(quarry: TestQuarry): Promise<Record<string, string>> {
  const response = await quarry.request('GET', '/api/transform/models', { as: 'viewer' });
  return Object.fromEntries(response.json.models.map((model: { name: string; status: string }) => [model.name, model.status]));
}

describe('transformations: models API and runs', () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry({ sourcesYaml: SOURCES, transform: true, prepare: writeModels });
    await quarry.ctx.transform.idle();
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('lists the models of the real dbt project with every documented field', async () => {
    const response = await quarry.request('GET', '/api/transform/models', { as: 'viewer' });
    expect(response.status).toBe(200);
    const models = response.json.models as { name: string }[];
    expect(models.map((model) => model.name)).toEqual([
      'a_base', 'after_after', 'after_broken', 'b_middle', 'broken', 'c_top', 'd_side', 'e_root',
    ]);
    expect(models.find((model) => model.name === 'b_middle')).toEqual({
      name: 'b_middle', description: 'The middle of the chain', database: 'warehouse', schema: 'marts',
      depends_on: ['a_base'], materialization: 'table', status: 'not_run', tests: { passed: 0, failed: 0, warned: 0, last_run_at: null },
    });
  });

  it('answers 404 model_not_found for an unknown model, 400 for a malformed name, 403 for a viewer', async () => {
    const unknown = await quarry.request('POST', '/api/transform/models/nope/run', { as: 'editor' });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ detail: 'No model named "nope"', code: 'model_not_found' });
    const malformed = await quarry.request('POST', '/api/transform/models/a+b/run', { as: 'editor' });
    expect(malformed.status).toBe(400);
    expect(malformed.json.code).toBe('invalid_request');
    const viewer = await quarry.request('POST', '/api/transform/models/a_base/run', { as: 'viewer' });
    expect(viewer.status).toBe(403);
    expect(viewer.json.code).toBe('forbidden');
  });

  it('runs a model and its downstream models in dependency order, announcing each', async () => {
    const run = collectRun(quarry, ['a_base', 'b_middle', 'c_top', 'd_side']);
    const response = await quarry.request('POST', '/api/transform/models/a_base/run', { as: 'editor' });
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      success: true, message: 'Run of a_base and its downstream models started', model_name: 'a_base', started_at: expect.stringMatching(ISO_UTC),
    });
    const events = await run;
    const order = startedOrder(events);
    expect(order.sort()).toEqual(['a_base', 'b_middle', 'c_top', 'd_side']);
    const started = startedOrder(events);
    expect(started[0]).toBe('a_base');
    expect(started.indexOf('c_top')).toBeGreaterThan(started.indexOf('b_middle'));
    expect(events.filter((event) => event.type === 'transform_run_completed').map((event) => event.model).sort())
      .toEqual(['a_base', 'b_middle', 'c_top', 'd_side']);
    for (const event of events) expect(event.timestamp).toMatch(ISO_UTC);
    await quarry.ctx.transform.idle();

    const after = await statuses(quarry);
    expect(after).toMatchObject({ a_base: 'success', b_middle: 'success', c_top: 'success', d_side: 'success', e_root: 'not_run' });
    const job = await quarry.ctx.store.jobs.latest('run', 'a_base');
    expect(job).toMatchObject({ status: 'success', error: null });
    const runs = await quarry.ctx.store.modelRuns.forJob(job!.id);
    const timing = Object.fromEntries(runs.map((model) => [model.model, model]));
    expect(timing.b_middle!.startedAt >= timing.a_base!.finishedAt!).toBe(true);
    expect(timing.c_top!.startedAt >= timing.b_middle!.finishedAt!).toBe(true);
    for (const model of runs) expect(model.durationSeconds).toBeGreaterThan(0);
    expect(await quarry.query('SELECT n FROM marts.c_top')).toEqual([{ n: 1 }]);
    expect((await quarry.ctx.store.warehouseTables.countByLayer()).marts).toBeGreaterThanOrEqual(4);
  });

  it('runs only the model itself with cascade=false', async () => {
    const run = collectRun(quarry, ['b_middle']);
    const response = await quarry.request('POST', '/api/transform/models/b_middle/run?cascade=false', { as: 'editor' });
    expect(response.json.message).toBe('Run of b_middle started');
    expect(startedOrder(await run)).toEqual(['b_middle']);
    await quarry.ctx.transform.idle();
  });

  it('fails a model with a SQL error with the error text and skips its downstream models', async () => {
    const run = collectRun(quarry, ['e_root', 'broken', 'after_broken', 'after_after']);
    const response = await quarry.request('POST', '/api/transform/models/e_root/run?cascade=true', { as: 'editor' });
    expect(response.status).toBe(200);
    const events = await run;
    const outcome = (model: string) => events.find((event) => 'model' in event && event.model === model && event.type !== 'transform_run_started');
    expect(outcome('e_root')).toEqual({ type: 'transform_run_completed', model: 'e_root', timestamp: expect.stringMatching(ISO_UTC) });
    expect(outcome('broken')).toEqual({
      type: 'transform_run_failed', model: 'broken', timestamp: expect.stringMatching(ISO_UTC),
      error: expect.stringMatching(/Runtime Error in model broken.*Referenced column "no_such_column" not found/),
    });
    expect(outcome('after_broken')).toMatchObject({ type: 'transform_run_failed', error: 'Skipped because the upstream model broken failed' });
    expect(outcome('after_after')).toMatchObject({ type: 'transform_run_failed', error: 'Skipped because the upstream model broken failed' });
    await quarry.ctx.transform.idle();

    expect(await statuses(quarry)).toMatchObject({ e_root: 'success', broken: 'error', after_broken: 'skipped', after_after: 'skipped' });
    const job = await quarry.ctx.store.jobs.latest('run', 'e_root');
    expect(job?.status).toBe('failed');
    expect(job?.error).toContain('no_such_column');
    const health = await quarry.request('GET', '/api/health/platform', { as: 'viewer' });
    expect(health.json.transform_failures).toEqual([
      { model: 'broken', timestamp: expect.stringMatching(ISO_UTC), error: expect.stringContaining('no_such_column') },
    ]);
    // A broken model needs attention as a failing test does: the overview's banner shows the warnings.
    expect(health.json.status).toBe('warning');
    expect(health.json.warnings).toContain('The last run of the model broken failed');
  });

  it('answers 409 run_in_progress while a run touching the model is queued, and runs unrelated models', async () => {
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    const held = quarry.ctx.writer.turn(() => gate, { signal: new AbortController().signal });
    try {
      const first = await quarry.request('POST', '/api/transform/models/b_middle/run', { as: 'editor' });
      expect(first.status).toBe(200);
      const downstream = await quarry.request('POST', '/api/transform/models/c_top/run', { as: 'editor' });
      expect(downstream.status).toBe(409);
      expect(downstream.json).toEqual({ detail: 'A run touching "c_top" is already queued or running', code: 'run_in_progress' });
      const upstream = await quarry.request('POST', '/api/transform/models/a_base/run', { as: 'editor' });
      expect(upstream.json.code).toBe('run_in_progress');
      const unrelated = await quarry.request('POST', '/api/transform/models/e_root/run?cascade=false', { as: 'editor' });
      expect(unrelated.status).toBe(200);
    } finally {
      release();
      await held;
    }
    await quarry.ctx.transform.idle();
    const again = await quarry.request('POST', '/api/transform/models/c_top/run', { as: 'editor' });
    expect(again.status).toBe(200);
    await quarry.ctx.transform.idle();
  });

  it('generates a staging model per raw table after a sync, builds it, and follows raw schema changes', async () => {
    const stagingFile = path.join(quarry.dir, 'transform', 'models', 'staging', 'shop', 'stg_shop__shop.sql');
    const built = collectRun(quarry, ['stg_shop__shop']);
    await quarry.request('POST', '/api/sources/shop/sync', { as: 'editor' });
    expect(startedOrder(await built)).toEqual(['stg_shop__shop']);
    await quarry.ctx.transform.idle();
    expect(readFileSync(stagingFile, 'utf8')).toMatch(/select\n {4}"id",\n {4}"amount",\n {4}"_quarry_file",\n {4}"_quarry_loaded_at"\nfrom \{\{ source\('shop', 'shop'\) \}\}/);
    const models = (await quarry.request('GET', '/api/transform/models', { as: 'viewer' })).json.models;
    expect(models.find((model: { name: string }) => model.name === 'stg_shop__shop')).toEqual({
      name: 'stg_shop__shop', description: 'Staging view over raw_shop.shop', database: 'warehouse', schema: 'staging',
      depends_on: [], materialization: 'view', status: 'success',
      // not_null, generated for each of its four columns: the synced file has no null.
      tests: { passed: 4, failed: 0, warned: 0, last_run_at: expect.stringMatching(ISO_UTC) },
    });
    // A model over the staging view, added after the sync that created it (before, the project would not parse).
    writeFileSync(path.join(quarry.dir, 'transform', 'models', 'marts', 'shop_totals.sql'),
      "select count(*) as orders, sum(amount) as amount from {{ ref('stg_shop__shop') }}");
    const totals = collectRun(quarry, ['shop_totals']);
    await quarry.request('POST', '/api/transform/models/shop_totals/run', { as: 'editor' });
    await totals;
    await quarry.ctx.transform.idle();
    expect(await quarry.query('SELECT orders, amount FROM marts.shop_totals')).toEqual([{ orders: 2, amount: 30 }]);

    writeFileSync(path.join(quarry.dir, 'data', 'shop', 'feb.csv'), 'id,amount,coupon\n3,30,SPRING\n');
    const rebuilt = collectRun(quarry, ['stg_shop__shop']);
    await quarry.request('POST', '/api/sources/shop/sync', { as: 'editor' });
    await rebuilt;
    await quarry.ctx.transform.idle();
    expect(readFileSync(stagingFile, 'utf8')).toContain('"coupon"');
    expect(await quarry.query('SELECT coupon FROM staging.stg_shop__shop WHERE id = 3')).toEqual([{ coupon: 'SPRING' }]);
  });

  it('never overwrites a staging model the user edited', async () => {
    const stagingFile = path.join(quarry.dir, 'transform', 'models', 'staging', 'shop', 'stg_shop__shop.sql');
    const edited = `${readFileSync(stagingFile, 'utf8')}where amount > 0\n`;
    writeFileSync(stagingFile, edited);
    writeFileSync(path.join(quarry.dir, 'data', 'shop', 'mar.csv'), 'id,amount,channel\n4,40,web\n');
    const synced = quarry.nextEvent('sync_completed');
    await quarry.request('POST', '/api/sources/shop/sync', { as: 'editor' });
    await synced;
    await quarry.ctx.transform.idle();
    expect(readFileSync(stagingFile, 'utf8')).toBe(edited);
    expect(readFileSync(path.join(path.dirname(stagingFile), '_shop__sources.yml'), 'utf8')).toContain('"channel"');
  });
});

describe('auto-transform after a sync', () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry({
      sourcesYaml: SOURCES,
      projectConfig: { watcher: { auto_transform: true } },
      prepare: (dir) => {
        mkdirSync(path.join(dir, 'data', 'shop'), { recursive: true });
        writeFileSync(path.join(dir, 'data', 'shop', 'jan.csv'), 'id,amount\n1,10\n2,20\n');
      },
    });
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('runs every model downstream of the synced source when auto_transform is on', async () => {
    const first = collectRun(quarry, ['stg_shop__shop']);
    await quarry.request('POST', '/api/sources/shop/sync', { as: 'editor' });
    await first;
    await quarry.ctx.transform.idle();

    writeFileSync(path.join(quarry.dir, 'transform', 'models', 'marts', 'shop_totals.sql'),
      "select count(*) as orders, sum(amount) as amount from {{ ref('stg_shop__shop') }}");
    writeFileSync(path.join(quarry.dir, 'data', 'shop', 'feb.csv'), 'id,amount\n3,30\n');
    const second = collectRun(quarry, ['stg_shop__shop', 'shop_totals']);
    await quarry.request('POST', '/api/sources/shop/sync', { as: 'editor' });
    expect(startedOrder(await second)).toEqual(['stg_shop__shop', 'shop_totals']);
    await quarry.ctx.transform.idle();
    expect(await quarry.query('SELECT orders, amount FROM marts.shop_totals')).toEqual([{ orders: 3, amount: 60 }]);
    expect(await quarry.ctx.store.jobs.latest('run', 'source:shop+')).toMatchObject({ status: 'success', requestedBy: 'auto_transform' });
  });
});
