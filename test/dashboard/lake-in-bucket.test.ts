import { existsSync, readdirSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SERVICE_ACCOUNT, SupersetApi } from '../../src/dashboard/index.ts';
import { extensionFile } from '../../src/warehouse/index.ts';
import { startObjectStore, type ObjectStore } from '../support/object-store.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const BUCKET = 'team-lake';
const MARTS = ['marts.customer_revenue', 'marts.orders_enriched', 'marts.revenue_by_country', 'marts.revenue_by_month'];

/** The keys under `prefix` in the test's bucket, read with DuckDB's own httpfs as an outsider would. */
async function keysIn(store: ObjectStore, prefix: string): Promise<string[]> {
  const instance = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  const connection = await instance.connect();
  try {
    await connection.run(`LOAD '${extensionFile('httpfs')}'`);
    await connection.run(`CREATE SECRET (TYPE s3, KEY_ID '${store.accessKeyId}', SECRET '${store.secretAccessKey}', ENDPOINT '${store.endpoint}', URL_STYLE 'path', USE_SSL false, REGION '${store.region}')`);
    const listed = await connection.runAndReadAll(`SELECT file FROM glob('s3://${BUCKET}/${prefix}**')`);
    return listed.getRows().map(([file]) => String(file));
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

// The demo project with its lake's data in a bucket of a real S3-compatible server (the catalog stays embedded):
// the sync, the models, the query API, the catalog, health and the dashboard tool all read and write it there.
describe('the demo with its lake in a bucket', () => {
  let store: ObjectStore;
  let quarry: TestQuarry;
  let superset: SupersetApi;

  beforeAll(async () => {
    store = await startObjectStore();
    quarry = await startQuarry({
      demo: true, transform: true, dashboard: true,
      projectConfig: {
        warehouse: { data_path: `s3://${BUCKET}/quarry` },
        object_store: {
          endpoint: store.endpoint, region: store.region, url_style: 'path', use_ssl: false,
          access_key_id_env: 'LAKE_KEY_ID', secret_access_key_env: 'LAKE_SECRET',
        },
      },
      env: { LAKE_KEY_ID: store.accessKeyId, LAKE_SECRET: store.secretAccessKey },
    });
    superset = new SupersetApi({ origin: () => quarry.dashboard?.origin(), username: SERVICE_ACCOUNT, password: () => quarry.dashboard?.servicePassword() ?? '' });
  }, 300_000);

  afterAll(async () => {
    await quarry.close();
    await store.stop();
  }, 60_000);

  it('syncs and builds the models into the bucket, nothing into the project folder', async () => {
    expect((await quarry.request('POST', '/api/sources/orders/sync', { as: 'admin' })).status).toBe(200);
    await vi.waitFor(async () => {
      const config = (await quarry.request('GET', '/api/dashboard-config', { as: 'admin' })).json;
      expect(config.database?.datasets).toEqual(MARTS);
    }, { timeout: 120_000, interval: 500 });
    const keys = await keysIn(store, 'quarry/');
    expect(keys.some((key) => key.startsWith(`s3://${BUCKET}/quarry/raw_orders/`) && key.endsWith('.parquet'))).toBe(true);
    expect(keys.some((key) => key.startsWith(`s3://${BUCKET}/quarry/marts/`))).toBe(true);
    const localData = quarry.ctx.paths.lakeDataDir;
    expect(existsSync(localData) ? readdirSync(localData, { recursive: true }) : []).toEqual([]);
  }, 180_000);

  it('answers a viewer\'s query and the catalog from the bucket', async () => {
    const answer = await quarry.request('POST', '/api/query', { as: 'viewer', body: { sql: 'SELECT count(*) AS orders FROM raw_orders.orders' } });
    expect(answer.status, answer.text).toBe(200);
    expect(Number(answer.json.rows[0][0])).toBeGreaterThan(0);
    const countries = await quarry.request('POST', '/api/query', { as: 'viewer', body: { sql: 'SELECT sum(orders)::BIGINT FROM marts.revenue_by_country' } });
    expect(countries.json.rows[0][0]).toBe(answer.json.rows[0][0]);
    const detail = await quarry.request('GET', '/api/catalog/tables/marts/revenue_by_country', { as: 'viewer' });
    expect(detail.status, detail.text).toBe(200);
    expect(detail.json.sample.rows.length).toBeGreaterThan(0);
  });

  it('draws a dashboard chart from the bucket', async () => {
    const [dataset] = await superset.list<{ id: number; schema: string }>('/api/v1/dataset/', { col: 'table_name', opr: 'eq', value: 'revenue_by_country' });
    const chart = await quarry.request('POST', '/dashboard/api/v1/chart/data', {
      as: 'viewer',
      body: {
        datasource: { id: dataset?.id, type: 'table' }, force: true, result_format: 'json', result_type: 'full',
        queries: [{ columns: [], metrics: [{ expressionType: 'SQL', sqlExpression: 'SUM(orders)', label: 'orders' }], row_limit: 10 }],
      },
    });
    expect(chart.status, chart.text).toBe(200);
    const orders = await quarry.request('POST', '/api/query', { as: 'viewer', body: { sql: 'SELECT count(*) FROM raw_orders.orders' } });
    expect(chart.json.result[0].data).toEqual([{ orders: Number(orders.json.rows[0][0]) }]);
  });

  it('reports the bucket reachable and the lake\'s size, never the keys', async () => {
    const health = await quarry.request('GET', '/api/health/platform', { as: 'admin' });
    expect(health.status, health.text).toBe(200);
    expect(health.json.critical_issues).toEqual([]);
    expect(health.json.database.size_mb).toBeGreaterThan(0);
    expect(health.text).not.toContain(store.secretAccessKey);
  });

  it('restores a source to before a sync and keeps the lake readable after its maintenance', async () => {
    const ordersNow = async (): Promise<number> => Number((await quarry.query('SELECT count(*) AS n FROM raw_orders.orders'))[0]?.n);
    const before = await ordersNow();
    const sync = await quarry.ctx.jobs.startSync('orders', { fullRefresh: true, requestedBy: 'test' });
    expect((await sync.ended).status).toBe('success');
    await quarry.jobsIdle();
    const restore = await quarry.ctx.jobs.startRestore('orders', { beforeSync: sync.job.id, requestedBy: 'test' });
    await quarry.jobsIdle();
    expect(await quarry.ctx.store.jobs.get(restore.id)).toMatchObject({ status: 'success' });
    expect(await ordersNow()).toBe(before);

    const maintenance = await quarry.ctx.jobs.startMaintenance({ retentionDays: 0, requestedBy: 'test' });
    await quarry.jobsIdle();
    expect(await quarry.ctx.store.jobs.get(maintenance.id), JSON.stringify(await quarry.ctx.store.jobs.get(maintenance.id))).toMatchObject({ status: 'success' });
    expect(await ordersNow()).toBe(before);
    const answer = await quarry.request('POST', '/api/query', { as: 'viewer', body: { sql: 'SELECT sum(orders)::BIGINT FROM marts.revenue_by_country' } });
    expect(answer.status, answer.text).toBe(200);
  }, 120_000);

  // Last: the server is stopped.
  it('reports a bucket that stops answering as a critical problem, without its keys', async () => {
    await store.stop();
    await vi.waitFor(async () => {
      const health = await quarry.request('GET', '/api/health/platform', { as: 'admin' });
      expect(health.json.critical_issues.join(' ')).toContain(`bucket s3://${BUCKET}/quarry/`);
      expect(health.text).not.toContain(store.secretAccessKey);
    }, { timeout: 60_000, interval: 1_000 });
  }, 90_000);
});
