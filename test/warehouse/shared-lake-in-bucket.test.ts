import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onPostgres, sharedLakeServiceOptions } from '../support/local-postgres.ts';
import { startObjectStore, type ObjectStore } from '../support/object-store.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

// Two Quarry services sharing one lake as two hosts would, with nothing mounted: the catalog in the local
// PostgreSQL (a schema of this test's own), the Parquet files in a bucket of a real S3-compatible server.
const schema = `quarry_lake_bucket_${String(process.pid)}_${Date.now().toString(36)}`;

describe('a lake with a PostgreSQL catalog and its data in a bucket, shared by two services', () => {
  let shared: string;
  let store: ObjectStore;
  let first: TestQuarry;
  let second: TestQuarry;

  beforeAll(async () => {
    shared = await mkdtemp(path.join(tmpdir(), 'quarry-shared-bucket-'));
    store = await startObjectStore();
    const options = sharedLakeServiceOptions(shared, schema);
    const inBucket = {
      ...options,
      // A source an editor points at the lake's own bucket, to read its keys with the lake's credentials.
      sourcesYaml: `${options.sourcesYaml}  - name: peek\n    type: filesystem\n    filesystem: { bucket_url: "s3://shared-lake/quarry", endpoint: "${store.endpoint}", url_style: path, use_ssl: false }\n`,
      projectConfig: {
        ...options.projectConfig,
        warehouse: { ...options.projectConfig.warehouse, data_path: 's3://shared-lake/quarry' },
        object_store: { endpoint: store.endpoint, region: store.region, url_style: 'path', use_ssl: false, access_key_id_env: 'LAKE_KEY_ID', secret_access_key_env: 'LAKE_SECRET' },
      },
      env: { LAKE_KEY_ID: store.accessKeyId, LAKE_SECRET: store.secretAccessKey },
    };
    first = await startQuarry(inBucket);
    second = await startQuarry(inBucket);
  }, 180_000);

  afterAll(async () => {
    await second.close();
    await first.close();
    await store.stop();
    await onPostgres((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    await rm(shared, { recursive: true, force: true });
  });

  it('lets one service read what the other synced into the bucket, and keeps the bucket\'s path in the catalog', async () => {
    expect(await syncAndWait(first, 'orders')).toMatchObject({ type: 'sync_completed', rows: 3 });
    const answer = await second.request('POST', '/api/query', { as: 'viewer', body: { sql: 'SELECT count(*), sum(amount)::INTEGER FROM raw_orders.orders' } });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json.rows).toEqual([['3', 35]]); // a BIGINT count comes as a string, as JSON cannot hold every one
    const dataPath = await onPostgres(async (client) => (await client.query(`SELECT value FROM ${schema}.ducklake_metadata WHERE key = 'data_path'`)).rows[0]?.value);
    expect(dataPath).toBe('s3://shared-lake/quarry/');
    expect(second.ctx.lake.dataPath).toBe('s3://shared-lake/quarry/');
  }, 120_000);

  it('refuses a source reading the lake\'s own bucket, which DuckDB would read with the lake\'s keys', async () => {
    const ending = await syncAndWait(first, 'peek');
    expect(ending).toMatchObject({ type: 'sync_failed' });
    expect(ending.type === 'sync_failed' && ending.error).toBe('s3://shared-lake is the bucket of the warehouse\'s own data: a source reads other buckets (query the warehouse\'s tables instead)');
    expect(await first.query("SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE schema_name = 'raw_peek'")).toEqual([{ n: 0 }]);
  }, 60_000);
});
