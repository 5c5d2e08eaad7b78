import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SERVICE_ACCOUNT, SupersetApi } from '../../src/dashboard/index.ts';
import { onPostgres, sharedLakeServiceOptions } from '../support/local-postgres.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

// Two Quarry services sharing one lake, as two hosts would (catalog in the local PostgreSQL, data in one
// folder): the one that syncs runs no dashboard tool, the other's Superset reads what the first loaded, logged
// in to the catalog as a read-only reader role.
const schema = `quarry_lake_dash_${String(process.pid)}_${Date.now().toString(36)}`;
const reader = `quarry_dash_reader_${String(process.pid)}_${Date.now().toString(36)}`;

describe("a shared lake in the other service's dashboard tool", () => {
  let shared: string;
  let loader: TestQuarry;
  let viewer: TestQuarry;
  let superset: SupersetApi;

  /** SQL Lab of the viewing service's Superset, on the lake it registered, as its service account. */
  const sqlLab = async (sql: string): Promise<unknown[]> => {
    const databases = await superset.list<{ id: number; database_name: string }>('/api/v1/database/');
    const lake = databases.find((database) => database.database_name === 'warehouse');
    if (lake === undefined) throw new Error(`the lake is not registered (databases: ${databases.map((database) => database.database_name).join(', ')})`);
    const answer = await superset.request<{ data: unknown[] }>('POST', '/api/v1/sqllab/execute/', {
      database_id: lake.id, sql, runAsync: false, schema: 'raw_orders', tab: 'shared lake', client_id: Math.random().toString(36).slice(2, 12), queryLimit: 100,
    });
    return answer.data;
  };

  beforeAll(async () => {
    shared = await mkdtemp(path.join(tmpdir(), 'quarry-shared-dash-'));
    const options = sharedLakeServiceOptions(shared, schema);
    loader = await startQuarry(options);
    await onPostgres((client) => client.query([
      `CREATE ROLE ${reader} LOGIN`, `GRANT USAGE ON SCHEMA ${schema} TO ${reader}`, `GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${reader}`,
    ].join(';\n')));
    viewer = await startQuarry({
      ...options, dashboard: true,
      projectConfig: { ...options.projectConfig, warehouse: { ...options.projectConfig.warehouse, reader: { user: reader } } },
    });
    superset = new SupersetApi({ origin: () => viewer.dashboard?.origin(), username: SERVICE_ACCOUNT, password: () => viewer.dashboard?.servicePassword() ?? '' });
  }, 300_000);

  afterAll(async () => {
    await viewer.close();
    await loader.close();
    await onPostgres((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE; DROP OWNED BY ${reader}; DROP ROLE IF EXISTS ${reader}`));
    await rm(shared, { recursive: true, force: true });
  }, 60_000);

  it('answers from the snapshot the other service committed, and from its next one', async () => {
    expect(await syncAndWait(loader, 'orders')).toMatchObject({ type: 'sync_completed', rows: 3 });
    await vi.waitFor(async () => {
      expect(await sqlLab('select count(*) as n, sum(amount) as total from raw_orders.orders')).toEqual([{ n: 3, total: 35 }]);
    }, { timeout: 120_000, interval: 1_000 });

    writeFileSync(path.join(shared, 'files', 'b.csv'), 'id,region,amount\n4,west,1\n5,south,2\n');
    expect(await syncAndWait(loader, 'orders')).toMatchObject({ type: 'sync_completed' });
    expect(await sqlLab('select count(*) as n, sum(amount) as total from raw_orders.orders')).toEqual([{ n: 5, total: 38 }]);
    // Still the reader's sandbox: the shared folder is not open to SQL.
    await expect(sqlLab(`select * from read_csv('${path.join(shared, 'files', 'a.csv')}')`)).rejects.toThrow(/refused|disabled|Permission/i);
    const dashboardRoles = await onPostgres(async (client) => (await client.query<{ usename: string }>(
      "SELECT DISTINCT usename FROM pg_stat_activity WHERE application_name = 'quarry-dashboard' AND usename IN ($1, 'postgres')", [reader],
    )).rows.map((row) => row.usename));
    expect(dashboardRoles).toEqual([reader]);
  }, 300_000);
});
