import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const SOURCES = `sources:
  - name: shop
    type: local_files
    local_files:
      directory: data/shop
      file_pattern: "*.csv"
`;

function prepare(dir: string): void {
  const data = path.join(dir, 'data', 'shop');
  mkdirSync(data, { recursive: true });
  writeFileSync(path.join(data, 'jan.csv'), 'id,amount,channel\n1,10,web\n2,,web\n3,30,store\n4,40,web\n');
  const marts = path.join(dir, 'transform', 'models', 'marts');
  mkdirSync(marts, { recursive: true });
}

describe('the catalog', () => {
  let quarry: TestQuarry;

  const get = (url: string) => quarry.request('GET', url, { as: 'viewer' });
  const syncAndBuild = async (): Promise<void> => {
    await syncAndWait(quarry, 'shop');
    await quarry.ctx.transform.idle();
    await quarry.jobsIdle();
  };

  beforeAll(async () => {
    quarry = await startQuarry({ sourcesYaml: SOURCES, transform: true, prepare });
    await quarry.ctx.transform.idle();
    await syncAndBuild();
    // A mart over the staging view, with a description to search for.
    const marts = path.join(quarry.dir, 'transform', 'models', 'marts');
    writeFileSync(path.join(marts, 'channel_revenue.sql'), "select channel, sum(amount) as revenue from {{ ref('stg_shop__shop') }} group by channel");
    writeFileSync(path.join(marts, '_marts.yml'), 'version: 2\nmodels:\n  - name: channel_revenue\n    description: Revenue per sales channel\n');
    const run = await quarry.request('POST', '/api/transform/models/channel_revenue/run', { as: 'editor' });
    expect(run.status).toBe(200);
    await quarry.ctx.transform.idle();
    await quarry.jobsIdle();
  }, 300_000);
  afterAll(async () => {
    await quarry.close();
  });

  it('lists every table of each layer with its kind, rows, columns, origin and last change', async () => {
    const response = await get('/api/catalog/tables');
    expect(response.status).toBe(200);
    const byName = Object.fromEntries(response.json.tables.map((table: { schema: string; name: string }) => [`${table.schema}.${table.name}`, table]));
    expect(byName['raw_shop.shop']).toEqual({
      schema: 'raw_shop', name: 'shop', layer: 'raw', kind: 'table', row_count: 4, column_count: 5, source: 'shop', model: null,
      description: '', updated_at: expect.stringMatching(ISO_UTC), profiled_at: expect.stringMatching(ISO_UTC),
    });
    // A view's rows are counted by the run that built it.
    expect(byName['staging.stg_shop__shop']).toEqual(expect.objectContaining({ layer: 'staging', kind: 'view', row_count: 4, model: 'stg_shop__shop', source: null }));
    expect(byName['marts.channel_revenue']).toEqual(expect.objectContaining({
      layer: 'marts', kind: 'table', row_count: 2, column_count: 2, model: 'channel_revenue', description: 'Revenue per sales channel',
    }));
  });

  it('records a mart from its first run, as the dashboard tool reads them to make datasets', async () => {
    // channel_revenue was added after the service parsed the project: its first run alone must record it.
    const health = await get('/api/health/platform');
    expect(health.json.database).toEqual(expect.objectContaining({ marts_tables: 1 }));
  });

  it("shows a table's column profiles, first rows and lineage", async () => {
    const response = await get('/api/catalog/tables/raw_shop/shop');
    expect(response.status).toBe(200);
    const columns = Object.fromEntries(response.json.columns.map((column: { name: string }) => [column.name, column]));
    expect(columns.amount).toEqual({ name: 'amount', type: 'BIGINT', null_fraction: 0.25, distinct_count: 3, distinct_exact: true, min: '10', max: '40', top_values: [] });
    expect(columns.channel).toEqual({
      name: 'channel', type: 'VARCHAR', null_fraction: 0, distinct_count: 2, distinct_exact: true, min: 'store', max: 'web',
      top_values: [{ value: 'web', count: 3 }, { value: 'store', count: 1 }],
    });
    expect(response.json.sample.columns.slice(0, 3)).toEqual([{ name: 'id', type: 'BIGINT' }, { name: 'amount', type: 'BIGINT' }, { name: 'channel', type: 'VARCHAR' }]);
    expect(response.json.sample.rows.map((row: unknown[]) => row.slice(0, 3))).toEqual([['1', '10', 'web'], ['2', null, 'web'], ['3', '30', 'store'], ['4', '40', 'web']]);
    expect({ upstream: response.json.upstream, downstream: response.json.downstream }).toEqual({ upstream: [], downstream: ['stg_shop__shop'] });

    const staging = await get('/api/catalog/tables/staging/stg_shop__shop');
    expect({ upstream: staging.json.upstream, downstream: staging.json.downstream }).toEqual({ upstream: [], downstream: ['channel_revenue'] });
    const mart = await get('/api/catalog/tables/marts/channel_revenue');
    expect({ upstream: mart.json.upstream, downstream: mart.json.downstream }).toEqual({ upstream: ['stg_shop__shop'], downstream: [] });
  });

  it('searches table names, column names and model descriptions', async () => {
    const byColumn = await get('/api/catalog/search?q=CHANNEL');
    expect(byColumn.json.results).toEqual(expect.arrayContaining([
      { schema: 'raw_shop', name: 'shop', layer: 'raw', match: 'column', column: 'channel' },
      { schema: 'marts', name: 'channel_revenue', layer: 'marts', match: 'table', column: null },
    ]));
    expect((await get('/api/catalog/search?q=sales%20channel')).json.results).toEqual([
      { schema: 'marts', name: 'channel_revenue', layer: 'marts', match: 'description', column: null },
    ]);
    expect((await get('/api/catalog/search?q=')).json.results).toEqual([]);
  });

  it('answers 404 table_not_found for an unknown table and 401 without credentials', async () => {
    const unknown = await get('/api/catalog/tables/raw_shop/nothing');
    expect({ status: unknown.status, code: unknown.json.code }).toEqual({ status: 404, code: 'table_not_found' });
    expect((await quarry.request('GET', '/api/catalog/tables')).status).toBe(401);
  });

  it('answers 404 for a table this Quarry recorded that the lake no longer has (a full refresh, restore or removed model dropped it)', async () => {
    const write = (sql: string): Promise<void> =>
      quarry.ctx.writer.write(({ transaction }) => transaction(async (connection) => { await connection.run(sql); }), { signal: AbortSignal.timeout(60_000) });
    await write('CREATE TABLE marts.retired_model AS SELECT 1 AS id');
    await quarry.ctx.store.warehouseTables.replaceModelTable({ schema: 'marts', name: 'retired_model', layer: 'marts', rowCount: 1 }, new Date().toISOString());
    expect((await get('/api/catalog/tables/marts/retired_model')).status).toBe(200);
    await write('DROP TABLE marts.retired_model');

    const gone = await get('/api/catalog/tables/marts/retired_model');
    expect({ status: gone.status, body: gone.json }).toEqual({
      status: 404, body: { detail: 'No table marts.retired_model in the warehouse', code: 'table_not_found' },
    });
    const names = (await get('/api/catalog/tables')).json.tables.map((table: { schema: string; name: string }) => `${table.schema}.${table.name}`);
    expect(names).not.toContain('marts.retired_model');
  }, 60_000);

  it('keeps a table of long values to a glance: profile text cut to 200 characters, sample rows to 4 MB', async () => {
    await quarry.ctx.writer.write(({ transaction }) => transaction(async (connection) => {
      // Ten documents of a megabyte, two kinds whose names are 300 characters long.
      await connection.run(`CREATE TABLE marts.documents AS
        SELECT range AS id, repeat('d', 1000000) AS body, repeat(CASE WHEN range % 2 = 0 THEN 'a' ELSE 'b' END, 300) AS kind FROM range(10)`);
      await connection.run("CREATE TABLE marts.one_huge_row AS SELECT 1 AS id, repeat('h', 5000000) AS body");
    }), { signal: AbortSignal.timeout(60_000) });
    const documents = (await get('/api/catalog/tables/marts/documents')).json;
    const columns = Object.fromEntries(documents.columns.map((column: { name: string }) => [column.name, column]));
    expect({ min: columns.body.min, max: columns.body.max }).toEqual({ min: `${'d'.repeat(200)}…`, max: `${'d'.repeat(200)}…` });
    expect(columns.kind.top_values).toEqual([{ value: `${'a'.repeat(200)}…`, count: 5 }, { value: `${'b'.repeat(200)}…`, count: 5 }]);
    expect(documents.sample.rows.map((row: unknown[]) => row[0])).toEqual(['0', '1', '2', '3']);

    // Its first row alone is more than a sample holds: the page still has its columns and profile.
    const huge = await get('/api/catalog/tables/marts/one_huge_row');
    expect({ status: huge.status, sample: huge.json.sample }).toEqual({
      status: 200, sample: { columns: [{ name: 'id', type: 'INTEGER' }, { name: 'body', type: 'VARCHAR' }], rows: [] },
    });
    expect(huge.json.columns.map((column: { name: string }) => column.name)).toEqual(['id', 'body']);
  }, 60_000);

  it('updates the profiles after a sync changed the table', async () => {
    writeFileSync(path.join(quarry.dir, 'data', 'shop', 'feb.csv'), 'id,amount,channel\n5,500,phone\n');
    await syncAndBuild();
    const after = (await get('/api/catalog/tables/raw_shop/shop')).json;
    expect(after.row_count).toBe(5);
    const amount = after.columns.find((column: { name: string }) => column.name === 'amount');
    expect({ max: amount.max, nulls: amount.null_fraction }).toEqual({ max: '500', nulls: 0.2 });
    const channel = after.columns.find((column: { name: string }) => column.name === 'channel');
    expect(channel.top_values).toEqual([{ value: 'web', count: 3 }, { value: 'phone', count: 1 }, { value: 'store', count: 1 }]);
  }, 120_000);
});
