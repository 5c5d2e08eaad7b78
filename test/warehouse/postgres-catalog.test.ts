import { execFile } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initProject } from '../../src/cli/init.ts';
import { startPlatform } from '../../src/server/index.ts';
import { createLogger } from '../../src/logger.ts';
import { pythonExecutable } from '../../src/python/index.ts';
import {
  DUCKDB_EXTENSIONS_DIR, lakeChildEnv, LakeWriter, openSandboxedReader, READER_SANDBOX_PYTHON_PATH, takeCatalogWriterLock, type PostgresCatalog,
} from '../../src/warehouse/index.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';
import { LOCAL_POSTGRES, onPostgres, sharedLakeServiceOptions } from '../support/local-postgres.ts';
import { freshPostgresStore } from '../support/postgres-store.ts';
import { runQuarry } from '../support/quarry-process.ts';
import { syncAndWait, type SyncEnd } from '../support/sync.ts';

// Two Quarry services sharing one lake, as two hosts would: the catalog in the local PostgreSQL (a schema
// of this test's own), the Parquet files in one folder, the source files in another both can read.
const schema = `quarry_lake_test_${String(process.pid)}_${Date.now().toString(36)}`;

/** Quarry writers waiting for the catalog's advisory lock right now. */
const waitingWriters = (): Promise<number> => onPostgres(async (client) => Number((await client.query(
  "SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = 'quarry-writer'",
)).rows[0].n));

describe('a lake with a PostgreSQL catalog, shared by two Quarry services', () => {
  let shared: string;
  let first: TestQuarry;
  let second: TestQuarry;
  const catalog: PostgresCatalog = { kind: 'postgres', ...LOCAL_POSTGRES, metadataSchema: schema, password: undefined };

  const viewerQuery = async (quarry: TestQuarry, sql: string): Promise<unknown[][]> => {
    const response = await quarry.request('POST', '/api/query', { as: 'viewer', body: { sql } });
    expect(response.status, response.text).toBe(200);
    return response.json.rows;
  };
  const ordersIn = async (quarry: TestQuarry): Promise<number> => Number((await viewerQuery(quarry, 'SELECT count(*) FROM raw_orders.orders'))[0]?.[0]);

  beforeAll(async () => {
    shared = await mkdtemp(path.join(tmpdir(), 'quarry-shared-'));
    const options = sharedLakeServiceOptions(shared, schema);
    first = await startQuarry(options);
    second = await startQuarry({
      ...options, transform: true,
      prepare: (dir) => {
        writeFileSync(path.join(dir, 'transform', 'models', 'marts', 'totals_by_region.sql'),
          "select region, sum(amount) as total from {{ source('raw_orders', 'orders') }} group by region\n");
        writeFileSync(path.join(dir, 'transform', 'models', 'marts', '_sources.yml'),
          'version: 2\nsources:\n  - name: raw_orders\n    schema: raw_orders\n    tables:\n      - name: orders\n');
      },
    });
  }, 180_000);

  afterAll(async () => {
    await second.close();
    await first.close();
    await onPostgres((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    await rm(shared, { recursive: true, force: true });
  });

  it('keeps the catalog in PostgreSQL and the data in the shared folder, not in the projects', async () => {
    const tables = await onPostgres(async (client) => (await client.query('SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = $1', [schema])).rows[0].n);
    expect(Number(tables)).toBeGreaterThan(10);
    expect(first.ctx.lake.dataPath).toBe(`${path.join(shared, 'lake')}${path.sep}`);
  });

  it('stops a start whose data_path is not where the lake keeps its data, in project.yml\'s terms, changing nothing', async () => {
    const options = sharedLakeServiceOptions(shared, schema);
    const elsewhere = path.join(shared, 'elsewhere');
    const starting = startQuarry({ ...options, projectConfig: { ...options.projectConfig, warehouse: { ...options.projectConfig.warehouse, data_path: elsewhere } } });
    const error = await starting.then(async (quarry) => { await quarry.close(); return undefined; }, (failure: unknown) => failure);
    expect((error as Error).message).toBe(`warehouse.data_path: the lake's data files are in ${path.join(shared, 'lake')}${path.sep}, and project.yml says `
      + `${elsewhere}${path.sep}. DuckLake cannot move them in place: put data_path back, or copy the lake with \`quarry warehouse move-data\` (docs/operations.md).`);
    const stored = await onPostgres(async (client) => (await client.query(`SELECT value FROM ${schema}.ducklake_metadata WHERE key = 'data_path'`)).rows[0].value);
    expect(stored).toBe(`${path.join(shared, 'lake')}${path.sep}`);
    expect(existsSync(elsewhere)).toBe(false);
  }, 60_000);

  it('lets one service see what the other synced: a new snapshot, its rows through POST /api/query', async () => {
    // A viewer's SQL may not call ducklake_* functions: the snapshots come from the service's own list.
    const latestSnapshot = async (): Promise<number> => (await second.request('GET', '/api/warehouse/snapshots?limit=1', { as: 'viewer' })).json[0].id;
    const snapshotBefore = await latestSnapshot();
    expect(await syncAndWait(first, 'orders')).toMatchObject({ type: 'sync_completed', rows: 3 });
    expect(await latestSnapshot()).toBeGreaterThan(snapshotBefore);
    expect(await ordersIn(second)).toBe(3);
    expect(await second.query('SELECT sum(amount)::INTEGER AS total FROM raw_orders.orders')).toEqual([{ total: 35 }]);
  }, 120_000);

  it('lists, describes and profiles in one service\'s catalog the table the other synced, with the snapshot that made it', async () => {
    const viewerGet = (quarry: TestQuarry, url: string) => quarry.request('GET', url, { as: 'viewer' });
    const listed = await viewerGet(second, '/api/catalog/tables');
    expect(listed.status, listed.text).toBe(200);
    expect(listed.json.tables).toContainEqual({
      schema: 'raw_orders', name: 'orders', layer: 'raw', kind: 'table', row_count: 3, column_count: null, source: null, model: null,
      description: '', updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/), profiled_at: null,
    });

    const detail = await viewerGet(second, '/api/catalog/tables/raw_orders/orders');
    expect(detail.status, detail.text).toBe(200);
    expect(detail.json.columns.find((column: { name: string }) => column.name === 'amount')).toMatchObject({ type: 'BIGINT', min: '5', max: '20', null_fraction: 0 });
    expect(detail.json.columns.find((column: { name: string }) => column.name === 'region').top_values).toEqual([{ value: 'north', count: 2 }, { value: 'south', count: 1 }]);
    expect(detail.json.sample.rows).toHaveLength(3);
    const profiled = (await viewerGet(second, '/api/catalog/tables')).json.tables.find((table: { name: string }) => table.name === 'orders');
    expect(profiled).toMatchObject({ column_count: detail.json.columns.length, profiled_at: detail.json.profiled_at });
    expect((await viewerGet(second, '/api/catalog/search?q=region')).json.results)
      .toContainEqual({ schema: 'raw_orders', name: 'orders', layer: 'raw', match: 'column', column: 'region' });

    const snapshots = await viewerGet(second, '/api/warehouse/snapshots?limit=5');
    expect(snapshots.status, snapshots.text).toBe(200);
    expect(snapshots.json.find((snapshot: { tables_changed: string[] }) => snapshot.tables_changed.includes('raw_orders.orders'))).toMatchObject({
      job: { kind: 'sync', target: 'orders' },
    });
  }, 120_000);

  it('makes a writer wait in line while another host holds the catalog\'s writer lock, then write', async () => {
    const held = await takeCatalogWriterLock(catalog, AbortSignal.timeout(30_000));
    let ended: Promise<SyncEnd>;
    let synced = false;
    try {
      ended = syncAndWait(second, 'orders');
      void ended.then(() => { synced = true; });
      await expect.poll(waitingWriters, { timeout: 30_000 }).toBe(1);
      expect(synced).toBe(false);
    } finally {
      await held.release();
    }
    expect(await ended).toMatchObject({ type: 'sync_completed' });
    expect(await ordersIn(first)).toBe(3);
  }, 120_000);

  it('lets writers of different tables hold the lock together, and makes two writers of the same tables wait in line', async () => {
    const signal = AbortSignal.timeout(30_000);
    const orders = await takeCatalogWriterLock(catalog, signal, 'orders');
    // Another source's sync commits beside it: this resolves while the first is held.
    const customers = await takeCatalogWriterLock(catalog, signal, 'customers');
    let ordersAgainHeld = false;
    const ordersAgain = takeCatalogWriterLock(catalog, signal, 'orders').then((held) => {
      ordersAgainHeld = true;
      return held;
    });
    await expect.poll(waitingWriters, { timeout: 10_000 }).toBe(1);
    expect(ordersAgainHeld).toBe(false);
    await orders.release();
    await (await ordersAgain).release();
    await customers.release();
  }, 60_000);

  it('puts the commits of writers holding the lock together in line, and lets the line go on after a failed commit and a session that ended', async () => {
    const signal = AbortSignal.timeout(30_000);
    const [orders, customers, products] = await Promise.all(['orders', 'customers', 'products'].map((name) => takeCatalogWriterLock(catalog, signal, name)));
    try {
      const steps: string[] = [];
      const { promise: ordersCommitted, resolve: endOrdersCommit } = Promise.withResolvers<undefined>();
      const ordersCommit = orders!.commitInLine(async () => {
        steps.push('orders begins');
        await ordersCommitted;
        steps.push('orders ends');
      });
      await expect.poll(() => steps).toEqual(['orders begins']);
      const customersCommit = customers!.commitInLine(async () => {
        steps.push('customers fails');
        throw new Error('the commit failed');
      });
      await expect.poll(waitingWriters, { timeout: 10_000 }).toBe(1);
      endOrdersCommit(undefined);
      await ordersCommit;
      await expect(customersCommit).rejects.toThrow('the commit failed');
      expect(steps).toEqual(['orders begins', 'orders ends', 'customers fails']);

      // The failed commit's holder has left the line: it commits again, and a commit whose host dies before it ends
      // (its session ended) lets the next one go on.
      await customers!.commitInLine(async () => { steps.push('customers again'); });
      void customers!.commitInLine(() => new Promise<never>(() => undefined));
      const productsCommit = products!.commitInLine(async () => { steps.push('products'); });
      await expect.poll(waitingWriters, { timeout: 10_000 }).toBe(1);
      await customers!.release();
      await productsCommit;
      expect(steps.slice(3)).toEqual(['customers again', 'products']);
    } finally {
      await Promise.all([orders!.release(), customers!.release(), products!.release()]);
    }
  }, 60_000);

  it('sets DuckLake\'s retries of a commit whose snapshot another writer took: after 5 ms, doubling, 12 times', async () => {
    const writer = new LakeWriter({ catalog, dataPath: `${path.join(shared, 'lake')}${path.sep}` }, path.join(shared, 'writer.lock'));
    const settings = await writer.write(async ({ connection }) => (await connection.runAndReadAll(`SELECT current_setting('ducklake_retry_wait_ms')::INTEGER AS wait,
      current_setting('ducklake_retry_backoff')::DOUBLE AS backoff, current_setting('ducklake_max_retry_count')::INTEGER AS retries`)).getRowObjects()[0],
    { signal: AbortSignal.timeout(30_000) });
    expect(settings).toEqual({ wait: 5, backoff: 2, retries: 12 });
    await writer.close();
  }, 60_000);

  it('lets one process\'s writes of different tables hold their turns together, and a write of every table wait for them', async () => {
    const writer = new LakeWriter({ catalog, dataPath: `${path.join(shared, 'lake')}${path.sep}` }, path.join(shared, 'writer.lock'));
    const signal = AbortSignal.timeout(30_000);
    const { promise: released, resolve: release } = Promise.withResolvers<undefined>();
    const inside: string[] = [];
    const holdTurn = (name: string) => (): Promise<undefined> => {
      inside.push(name);
      return released;
    };
    const turns = [
      writer.turn(holdTurn('orders'), { signal, alongside: 'orders' }),
      writer.turn(holdTurn('customers'), { signal, alongside: 'customers' }),
    ];
    try {
      await expect.poll(() => inside.toSorted(), { timeout: 20_000 }).toEqual(['customers', 'orders']);
      turns.push(writer.turn(holdTurn('every table'), { signal }));
      await expect.poll(waitingWriters, { timeout: 10_000 }).toBe(1);
      expect(inside).toHaveLength(2);
    } finally {
      release(undefined);
      await Promise.allSettled(turns);
    }
    await Promise.all(turns);
    expect(inside).toHaveLength(3);
    expect(inside.at(-1)).toBe('every table');
  }, 60_000);

  it('serialises syncs both services start at once: no lost and no doubled rows', async () => {
    writeFileSync(path.join(shared, 'files', 'b.csv'), 'id,region,amount\n4,west,1\n5,south,2\n');
    const [one, two] = await Promise.all([syncAndWait(first, 'orders'), syncAndWait(second, 'orders')]);
    expect([one.type, two.type]).toEqual(['sync_completed', 'sync_completed']);
    expect(await ordersIn(first)).toBe(5);
    expect(await viewerQuery(second, 'SELECT _quarry_file, count(*)::INTEGER FROM raw_orders.orders GROUP BY 1 ORDER BY 1'))
      .toEqual([[path.join(shared, 'files', 'a.csv'), 3], [path.join(shared, 'files', 'b.csv'), 2]]);
  }, 120_000);

  it('runs dbt on one service under the lock; the other reads the model it built', async () => {
    await second.ctx.transform.idle();
    await second.jobsIdle();
    const finished = second.nextEvent('transform_run_completed', (event) => event.model === 'totals_by_region');
    const failed = second.nextEvent('transform_run_failed', (event) => event.model === 'totals_by_region');
    expect((await second.request('POST', '/api/transform/models/totals_by_region/run', { as: 'admin' })).status).toBe(200);
    expect(await Promise.race([finished, failed])).toMatchObject({ type: 'transform_run_completed' });
    expect(await viewerQuery(first, 'SELECT region, total::INTEGER FROM marts.totals_by_region ORDER BY region'))
      .toEqual([['north', 15], ['south', 22], ['west', 1]]);
    const listedByFirst = (await first.request('GET', '/api/catalog/tables', { as: 'viewer' })).json.tables;
    expect(listedByFirst).toContainEqual(expect.objectContaining({ schema: 'marts', name: 'totals_by_region', layer: 'marts', kind: 'table', row_count: 3 }));
  }, 180_000);

  it('gives a Node reader the lake attached before the sandbox closes, and nothing past its data folder', async () => {
    const reader = await openSandboxedReader(first.ctx.lake);
    const planted = path.join(shared, 'planted-by-node.csv');
    try {
      expect(Number((await reader.connection.runAndReadAll('SELECT count(*) FROM raw_orders.orders')).getRows()[0]?.[0])).toBe(5);
      for (const sql of [
        `COPY (SELECT 'junk' AS a) TO '${planted}' (FORMAT csv)`,
        "SELECT * FROM read_text('/etc/passwd')",
        'CREATE TABLE raw_orders.intruder AS SELECT 1 AS x',
        `ATTACH 'ducklake:${lakeChildEnv(first.ctx.lake).QUARRY_LAKE_ATTACH ?? ''}' AS other (DATA_PATH '${first.ctx.lake.dataPath}', METADATA_SCHEMA '${schema}')`,
        'SET enable_external_access = true',
      ]) {
        await expect(reader.connection.run(sql), sql).rejects.toThrow();
      }
    } finally {
      reader.close();
    }
    expect(existsSync(planted)).toBe(false);
  }, 60_000);

  it('opens the same lake for a Python reader (the dashboard tool\'s sandbox): attached first, then nothing past its data', async () => {
    const script = [
      'import sys',
      'from reader_sandbox import connect_sandboxed',
      'connection = connect_sandboxed(sys.argv[1], sys.argv[2], sys.argv[3], metadata_schema=sys.argv[4])',
      'print(connection.execute("select count(*) from raw_orders.orders").fetchone()[0])',
      'for sql in sys.argv[5:]:',
      '    try:',
      '        connection.execute(sql)',
      '        print("wrote:", sql)',
      '    except Exception as error:',
      '        print("refused:", type(error).__name__)',
    ].join('\n');
    const lake = lakeChildEnv(first.ctx.lake);
    const planted = path.join(shared, 'planted.csv');
    const { stdout } = await promisify(execFile)(pythonExecutable('superset', first.ctx.env.QUARRY_PYTHON_ENVS_DIR), [
      '-c', script, lake.QUARRY_LAKE_ATTACH ?? '', first.ctx.lake.dataPath, DUCKDB_EXTENSIONS_DIR, schema,
      `COPY (select 'junk' as a) TO '${planted}' (FORMAT csv)`,
      "select * from read_text('/etc/passwd')",
      'create table raw_orders.intruder as select 1 as x',
      `ATTACH 'ducklake:${lake.QUARRY_LAKE_ATTACH ?? ''}' AS other (DATA_PATH '${first.ctx.lake.dataPath}', METADATA_SCHEMA '${schema}')`,
      'SET enable_external_access = true',
    ], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PYTHONPATH: READER_SANDBOX_PYTHON_PATH } });
    expect(stdout.trim().split('\n')).toEqual(['5', ...Array.from({ length: 5 }, () => expect.stringMatching(/^refused: /))]);
    expect(existsSync(planted)).toBe(false);
  }, 60_000);
});

describe('a PostgreSQL catalog Quarry cannot use', () => {
  it.each([
    ['unreachable', 'postgres://postgres@127.0.0.1:1/test', /cannot be used: .*ECONNREFUSED/],
    ['refusing the login', 'postgres://no_such_quarry_role@127.0.0.1:5432/test', /cannot be used: .*no_such_quarry_role/],
  ])('stops the start with a clear error when it is %s, never naming the password', async (_case, address, message) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'quarry-test-'));
    const env = { QUARRY_ADMIN_PASSWORD: PASSWORDS.admin, QUARRY_WAREHOUSE_PASSWORD: 'never-shown-secret' };
    try {
      await initProject(dir, { name: 'Test project', organization: '', adminEmail: EMAILS.admin, nonInteractive: true }, env);
      writeFileSync(path.join(dir, '.quarry', 'project.yml'),
        `name: Test project\nwarehouse:\n  catalog: ${address}\n  data_path: ${path.join(dir, 'shared')}\n`);
      const starting = startPlatform({
        projectDir: dir, env, log: createLogger({ level: 'silent' }), host: '127.0.0.1', ports: { web: 0, dashboard: 0 },
        watcher: false, transform: false, docsServer: false, dashboard: 'not_started',
      });
      const error = await starting.then(() => undefined, (failure: unknown) => failure);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain('@127.0.0.1:');
      expect((error as Error).message).not.toContain('never-shown-secret');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('stops a worker\'s start with the same error, before it takes a job', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'quarry-test-'));
    const platform = freshPostgresStore();
    const env = { QUARRY_ADMIN_PASSWORD: PASSWORDS.admin, QUARRY_WAREHOUSE_PASSWORD: 'never-shown-secret' };
    try {
      await initProject(dir, { name: 'Test project', organization: '', adminEmail: EMAILS.admin, nonInteractive: true }, env);
      writeFileSync(path.join(dir, '.quarry', 'project.yml'), [
        'name: Test project', `platform:\n  store: ${platform.url}\n  schema: ${platform.schema}`,
        `warehouse:\n  catalog: postgres://postgres@127.0.0.1:1/test\n  data_path: ${path.join(dir, 'shared')}`, '',
      ].join('\n'));
      const worker = await runQuarry(['worker', '--project', dir, '--name', 'refused'], env);
      expect(worker.status).not.toBe(0);
      expect(worker.stderr).toMatch(/cannot be used: .*ECONNREFUSED/);
      expect(worker.stdout).not.toContain('is taking jobs');
      expect(worker.stdout + worker.stderr).not.toContain('never-shown-secret');
    } finally {
      await platform.drop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
