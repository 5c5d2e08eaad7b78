import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuarryEvent } from '../../src/events/index.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/alert-receivers.ts';
import { queryLake } from '../support/duckdb-query.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const DUPLICATED = "select * from (values (1, 'Ada'), (2, 'Grace'), (2, 'Grace again'), (3, null)) as t(id, name)";
const FIXED = "select * from (values (1, 'Ada'), (2, 'Grace'), (3, null)) as t(id, name)";

/** customers (a duplicated id, a null name) → customer_count; `unique` is an error, `not_null` a warning. */
const MARTS_YAML = `version: 2
models:
  - name: customers
    columns:
      - name: id
        data_tests:
          - unique
      - name: name
        data_tests:
          - not_null:
              config:
                severity: warn
  - name: customer_count
    columns:
      - name: n
        data_tests:
          - not_null
`;

function writeModels(dir: string, customers: string): void {
  const marts = path.join(dir, 'transform', 'models', 'marts');
  mkdirSync(marts, { recursive: true });
  writeFileSync(path.join(marts, 'customers.sql'), customers);
  writeFileSync(path.join(marts, 'customer_count.sql'), "select count(*) as n from {{ ref('customers') }}");
  writeFileSync(path.join(marts, '_marts.yml'), MARTS_YAML);
}

/** The events of one run, until its job has finished. */
async function runWithEvents(quarry: TestQuarry, model: string): Promise<QuarryEvent[]> {
  const events: QuarryEvent[] = [];
  const unsubscribe = quarry.ctx.events.subscribe((event) => { events.push(event); });
  const response = await quarry.request('POST', `/api/transform/models/${model}/run`, { as: 'editor' });
  expect(response.status).toBe(200);
  await quarry.ctx.transform.idle();
  unsubscribe();
  return events;
}

interface ApiTest { name: string; model: string; status: string; failures: number | null; failing_rows: Record<string, unknown>[]; compiled_sql: string | null }

async function testsByName(quarry: TestQuarry): Promise<Map<string, ApiTest>> {
  const response = await quarry.request('GET', '/api/transform/tests', { as: 'viewer' });
  expect(response.status).toBe(200);
  return new Map((response.json.tests as ApiTest[]).map((test) => [test.name, test]));
}

describe('transformations: data tests run with every model run (dbt build)', () => {
  let quarry: TestQuarry;
  let receiver: WebhookReceiver;
  const alertsSent = (): unknown[][] => receiver.accepted.map((body) => [body.event, body.model, body.error]);

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    quarry = await startQuarry({
      transform: true, prepare: (dir) => { writeModels(dir, DUPLICATED); },
      projectConfig: { alerts: [{ name: 'team', webhook_url_env: 'ALERT_WEBHOOK_URL', on: ['transform_test_failed'] }] },
      env: { ALERT_WEBHOOK_URL: receiver.url },
    });
    await quarry.ctx.transform.idle();
  });
  afterAll(async () => {
    await quarry.close();
    await receiver.close();
  });

  it('lists every test of the project before any run', async () => {
    const tests = await testsByName(quarry);
    expect([...tests.keys()].sort()).toEqual(['not_null_customer_count_n', 'not_null_customers_name', 'unique_customers_id']);
    expect(tests.get('unique_customers_id')).toMatchObject({ model: 'customers', column: 'id', type: 'unique', status: 'not_run', failing_rows: [] });
  });

  it('a failing unique test stops what is downstream, a warning does not fail, and both are reported where people look', async () => {
    const events = await runWithEvents(quarry, 'customers');
    expect(events).toContainEqual(expect.objectContaining({ type: 'transform_test_failed', model: 'customers', test: 'unique_customers_id', failures: 1 }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'transform_test_warned', model: 'customers', test: 'not_null_customers_name', failures: 1 }));
    expect(events).toContainEqual(expect.objectContaining({ type: 'transform_run_completed', model: 'customers' }));
    expect(events).toContainEqual(expect.objectContaining({
      type: 'transform_run_failed', model: 'customer_count', error: 'Skipped because the upstream test unique_customers_id of customers failed',
    }));

    const job = await quarry.ctx.store.jobs.latest('run', 'customers');
    expect(job?.status).toBe('failed');
    expect(job?.error).toContain('the test unique_customers_id failed (1 failing rows)');

    const models = await quarry.request('GET', '/api/transform/models', { as: 'viewer' });
    const byName = new Map((models.json.models as { name: string; status: string; tests: unknown }[]).map((model) => [model.name, model]));
    expect(byName.get('customers')).toMatchObject({ status: 'success', tests: { passed: 0, failed: 1, warned: 1, last_run_at: expect.any(String) } });
    expect(byName.get('customer_count')).toMatchObject({ status: 'skipped', tests: { passed: 0, failed: 0, warned: 0 } });

    const tests = await testsByName(quarry);
    const unique = tests.get('unique_customers_id');
    expect(unique).toMatchObject({ status: 'fail', severity: 'error', failures: 1 });
    // DuckDB's JSON rows carry a BIGINT (the count) as a string.
    expect(unique?.failing_rows).toEqual([{ unique_field: 2, n_records: '2' }]);
    expect(unique?.compiled_sql).toContain('customers');
    expect(tests.get('not_null_customers_name')).toMatchObject({ status: 'warn', severity: 'warn', failures: 1 });
    expect(tests.get('not_null_customers_name')?.failing_rows).toEqual([{ id: 3, name: null }]);
    expect(tests.get('not_null_customer_count_n')?.status).toBe('skipped');
    const stored = await queryLake(quarry.dir, 'SELECT count(*)::INTEGER AS n FROM test_failures.unique_customers_id');
    expect(stored).toEqual([{ n: 1 }]);

    const health = await quarry.request('GET', '/api/health/platform', { as: 'viewer' });
    expect(health.json.transform_failures).toContainEqual(expect.objectContaining({
      model: 'customers', test: 'unique_customers_id', error: 'The test unique_customers_id failed: 1 failing row',
    }));
    expect(health.json.warnings).toContain('1 data test of the models fails');

    await expect.poll(alertsSent, { timeout: 10_000 })
      .toEqual([['transform_test_failed', 'customers', 'The test unique_customers_id failed: 1 failing row']]);
    // The same failure again is the same incident: no second alert.
    await runWithEvents(quarry, 'customers');
    await quarry.alerts.deliverDue();
    expect(alertsSent()).toHaveLength(1);
  });

  it('turns green once the data is fixed', async () => {
    writeModels(quarry.dir, FIXED);
    const events = await runWithEvents(quarry, 'customers');
    expect(events.filter((event) => event.type === 'transform_test_failed')).toEqual([]);
    const tests = await testsByName(quarry);
    expect(tests.get('unique_customers_id')).toMatchObject({ status: 'pass', failures: 0, failing_rows: [] });
    expect(tests.get('not_null_customer_count_n')?.status).toBe('pass');
    expect((await quarry.ctx.store.jobs.latest('run', 'customers'))?.status).toBe('success');
    // Failing rows are kept for failing tests only: the table of the test that passes now is gone (the warning's stays).
    expect(await queryLake(quarry.dir, "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'test_failures' ORDER BY 1"))
      .toEqual([{ table_name: 'not_null_customers_name' }]);
    const health = await quarry.request('GET', '/api/health/platform', { as: 'viewer' });
    expect(health.json.transform_failures.filter((failure: { test?: string }) => failure.test !== undefined)).toEqual([]);
    await expect.poll(() => alertsSent().at(-1), { timeout: 10_000 }).toEqual(['transform_test_failed_resolved', 'customers', null]);
  });

  it('a test-only run (quarry test) whose tests pass ends the incident too', async () => {
    writeModels(quarry.dir, DUPLICATED);
    await runWithEvents(quarry, 'customers');
    await expect.poll(() => alertsSent().at(-1), { timeout: 10_000 }).toEqual(['transform_test_failed', 'customers', 'The test unique_customers_id failed: 1 failing row']);

    // The team decides the second Grace is a known exception: the test changes, the table is not rebuilt.
    const marts = path.join(quarry.dir, 'transform', 'models', 'marts');
    writeFileSync(path.join(marts, '_marts.yml'), MARTS_YAML.replace('          - unique\n', "          - unique:\n              config:\n                where: \"name <> 'Grace again'\"\n"));
    const events: QuarryEvent[] = [];
    const unsubscribe = quarry.ctx.events.subscribe((event) => { events.push(event); });
    const job = await quarry.ctx.transform.buildAndWait('', { command: 'test', requestedBy: null, onNode: () => undefined });
    unsubscribe();
    expect(job.status).toBe('success');
    expect(events.filter((event) => event.type.startsWith('transform_run'))).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'transform_tests_passed', model: 'customers', tests: 2 }));
    await expect.poll(() => alertsSent().at(-1), { timeout: 10_000 }).toEqual(['transform_test_failed_resolved', 'customers', null]);
  });

  it('counts a singular test (a query in tests/) with the one model it reads', async () => {
    const tests = path.join(quarry.dir, 'transform', 'tests');
    mkdirSync(tests, { recursive: true });
    writeFileSync(path.join(tests, 'customers_have_positive_ids.sql'), "select * from {{ ref('customers') }} where id <= 0\n");
    const events = await runWithEvents(quarry, 'customers');
    expect(events).toContainEqual(expect.objectContaining({ type: 'transform_tests_passed', model: 'customers', tests: 3 }));
    expect((await testsByName(quarry)).get('customers_have_positive_ids')).toMatchObject({ model: 'customers', type: 'singular', status: 'pass' });
    const models = await quarry.request('GET', '/api/transform/models', { as: 'viewer' });
    const customers = (models.json.models as { name: string; tests: unknown }[]).find((model) => model.name === 'customers');
    expect(customers?.tests).toMatchObject({ passed: 2, failed: 0, warned: 1 });
  });
});

describe('transformations: seeds and snapshots built with the models', () => {
  let quarry: TestQuarry;
  const seedFile = (dir: string): string => path.join(dir, 'transform', 'seeds', 'countries.csv');

  beforeAll(async () => {
    quarry = await startQuarry({
      transform: true,
      prepare: (dir) => {
        const transform = path.join(dir, 'transform');
        for (const folder of ['seeds', 'snapshots', 'models/marts']) mkdirSync(path.join(transform, folder), { recursive: true });
        writeFileSync(seedFile(dir), 'code,name\nNL,Netherlands\nDE,Germany\n');
        writeFileSync(path.join(transform, 'models', 'marts', 'country_names.sql'), "select name from {{ ref('countries') }}");
        writeFileSync(path.join(transform, 'snapshots', 'countries_history.yml'), [
          'snapshots:', '  - name: countries_history', "    relation: ref('countries')",
          '    config: {unique_key: code, strategy: check, check_cols: all}', '',
        ].join('\n'));
      },
    });
    await quarry.ctx.transform.idle();
  });
  afterAll(async () => {
    await quarry.close();
  });

  it('loads a seed, builds what reads it, keeps SCD2 history in a snapshot, and lists both beside the models', async () => {
    await runWithEvents(quarry, 'countries');
    const models = await quarry.request('GET', '/api/transform/models', { as: 'viewer' });
    const byName = new Map((models.json.models as { name: string }[]).map((model) => [model.name, model]));
    expect(byName.get('countries')).toMatchObject({ schema: 'seeds', materialization: 'seed', status: 'success' });
    expect(byName.get('countries_history')).toMatchObject({ schema: 'snapshots', materialization: 'snapshot', status: 'success', depends_on: ['countries'] });
    expect(byName.get('country_names')).toMatchObject({ status: 'success', depends_on: ['countries'] });

    writeFileSync(seedFile(quarry.dir), 'code,name\nNL,Nederland\nDE,Germany\n');
    await runWithEvents(quarry, 'countries');
    const history = await queryLake(quarry.dir,
      'SELECT code, name, dbt_valid_to IS NULL AS current FROM snapshots.countries_history ORDER BY code, dbt_valid_from');
    expect(history).toEqual([
      { code: 'DE', name: 'Germany', current: true },
      { code: 'NL', name: 'Netherlands', current: false },
      { code: 'NL', name: 'Nederland', current: true },
    ]);
  });
});
