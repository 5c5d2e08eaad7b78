import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  assertReadsOnly, lakeLocation, lakeProblem, openSandboxedReader, withSandboxedReader, type DuckDBConnection,
} from '../../src/warehouse/index.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const SOURCES = 'sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: data/orders }\n';

describe('the warehouse as a lake', () => {
  let quarry: TestQuarry;

  const latestSnapshot = async (): Promise<number> =>
    Number((await quarry.query("SELECT max(snapshot_id) AS id FROM ducklake_snapshots('warehouse')"))[0]?.id);
  /** Writes `work` in one transaction as the lake's writer, in its turn after any job's. */
  const write = <T>(work: (connection: DuckDBConnection) => Promise<T>, signal = AbortSignal.timeout(60_000)): Promise<T> =>
    quarry.ctx.writer.write(({ transaction }) => transaction(work), { signal });
  const idle = async (): Promise<void> => {
    await quarry.jobsIdle();
    await quarry.ctx.transform.idle();
  };
  const orders = async (): Promise<number> => Number((await quarry.query('SELECT count(*) AS n FROM raw_orders.orders'))[0]?.n);

  beforeAll(async () => {
    quarry = await startQuarry({
      sourcesYaml: SOURCES, transform: true,
      prepare: (dir) => {
        mkdirSync(path.join(dir, 'data', 'orders'), { recursive: true });
        writeFileSync(path.join(dir, 'data', 'orders', 'a.csv'), 'id,region,amount\n1,north,10\n2,south,20\n3,north,5\n');
        writeFileSync(path.join(dir, 'transform', 'models', 'marts', 'totals_by_region.sql'),
          "select region, sum(amount) as total from {{ source('raw_orders', 'orders') }} group by region\n");
        writeFileSync(path.join(dir, 'transform', 'models', 'marts', '_sources.yml'),
          'version: 2\nsources:\n  - name: raw_orders\n    schema: raw_orders\n    tables:\n      - name: orders\n');
      },
    });
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 3 });
  }, 120_000);
  afterAll(async () => {
    await quarry.close();
  });

  it('keeps the project\'s data as a catalog and Parquet files, with no serving copy', () => {
    const warehouse = quarry.ctx.paths.warehouseDir;
    expect(existsSync(path.join(warehouse, 'catalog.sqlite'))).toBe(true);
    expect(existsSync(path.join(warehouse, 'serving'))).toBe(false);
    expect(existsSync(path.join(warehouse, 'warehouse.duckdb'))).toBe(false);
    expect(readdirSync(path.join(warehouse, 'data'))).toContain('raw_orders');
  });

  it('lets a reader read the last snapshot while a write is open, never waiting for it, and see the write once committed', async () => {
    await idle();
    const { promise: writing, resolve: written } = Promise.withResolvers<undefined>();
    const { promise: read, resolve: readDone } = Promise.withResolvers<undefined>();
    const writer = write(async (connection) => {
      await connection.run('INSERT INTO raw_orders.orders (id, region, amount) SELECT i, \'east\', 1 FROM range(100, 100100) r(i)');
      written(undefined);
      await read; // the transaction stays open until the reader has read
    });
    await writing;
    const during = await withSandboxedReader(lakeLocation(quarry.ctx.paths), async (connection) =>
      Number((await connection.runAndReadAll('SELECT count(*) AS n FROM raw_orders.orders')).getRowObjects()[0]?.n));
    readDone(undefined);
    await writer;
    expect(during).toBe(3);
    expect(await orders()).toBe(100_003);
    await write((connection) => connection.run('DELETE FROM raw_orders.orders WHERE id >= 100'));
  });

  it('leaves no snapshot behind a write whose statement fails, even when the failure is caught inside the transaction', async () => {
    await idle();
    const before = await latestSnapshot();
    const failing = write(async (connection) => {
      await connection.run('INSERT INTO raw_orders.orders (id, region, amount) VALUES (1000, \'east\', 1)');
      await connection.run("INSERT INTO raw_orders.orders (id, region, amount) VALUES ('not a number', 'east', 1)").catch(() => undefined);
    });
    await expect(failing).rejects.toThrow(/nothing of it was committed/);
    expect(await latestSnapshot()).toBe(before);
    writeFileSync(path.join(quarry.dir, 'data', 'orders', 'b.csv'), 'id,region,amount\n4,west,1\n');
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed' });
    expect(await latestSnapshot()).toBeGreaterThan(before);
    expect(await orders()).toBe(4);
  });

  it('leaves no snapshot behind a write interrupted in the middle of its transaction', async () => {
    await idle();
    const before = await latestSnapshot();
    const stop = new AbortController();
    const writing = write(async (connection) => {
      await connection.run('INSERT INTO raw_orders.orders (id, region, amount) VALUES (1000, \'east\', 1)');
      setTimeout(() => { stop.abort(); }, 300);
      await connection.run('INSERT INTO raw_orders.orders (id, region, amount) SELECT i, md5(i::VARCHAR), i FROM range(1000000000) r(i)');
    }, stop.signal);
    await expect(writing).rejects.toThrow(/interrupt/i);
    expect(await latestSnapshot()).toBe(before);
    expect(await orders()).toBe(4);
  });

  it('keeps writing, write after write, while a reader in the same process is in the middle of a transaction', async () => {
    await idle();
    const reader = await openSandboxedReader(lakeLocation(quarry.ctx.paths));
    try {
      await reader.connection.run('BEGIN');
      const count = async (): Promise<number> => Number((await reader.connection.runAndReadAll('SELECT count(*) AS n FROM raw_orders.orders')).getRowObjects()[0]?.n);
      const before = await count();
      for (const id of [2000, 2001]) {
        await write((connection) => connection.run(`INSERT INTO raw_orders.orders (id, region, amount) VALUES (${String(id)}, 'west', 1)`));
      }
      expect(await count()).toBe(before);
      await reader.connection.run('COMMIT');
      expect(await count()).toBe(before + 2);
      await write((connection) => connection.run('DELETE FROM raw_orders.orders WHERE id IN (2000, 2001)'));
    } finally {
      reader.close();
    }
  });

  it('shows the pooled readers, whose read transactions begin when they are handed back, a commit made while they sat idle', async () => {
    await idle();
    // More queries at once than the pool has readers, so every pooled connection is used and handed back.
    const counts = async (): Promise<number[]> => Promise.all(Array.from({ length: 6 }, async () =>
      Number((await quarry.ctx.readers.run('SELECT count(*) AS n FROM raw_orders.orders', { maxRows: 1, timeoutMs: 30_000 })).rows[0]?.[0])));
    const before = await counts();
    expect(new Set(before).size).toBe(1);
    await write((connection) => connection.run("INSERT INTO raw_orders.orders (id, region, amount) VALUES (3000, 'west', 1)"));
    expect(await counts()).toEqual(before.map((count) => count + 1));
    await write((connection) => connection.run('DELETE FROM raw_orders.orders WHERE id = 3000'));
  });

  it('lets health requests that arrive together share one check of the lake, and checks again for a later one', async () => {
    const asked = vi.spyOn(quarry.ctx.readers, 'withReader');
    try {
      expect(await Promise.all(Array.from({ length: 10 }, () => lakeProblem(quarry.ctx.readers)))).toEqual(Array.from({ length: 10 }, () => undefined));
      expect(asked).toHaveBeenCalledTimes(1);
      expect(await lakeProblem(quarry.ctx.readers)).toBeUndefined();
      expect(asked).toHaveBeenCalledTimes(2);
    } finally {
      asked.mockRestore();
    }
  });

  it('gives any query path a sandboxed reader that refuses what is not a query, and the catalog extension\'s functions', async () => {
    const reader = await openSandboxedReader(lakeLocation(quarry.ctx.paths));
    try {
      const { connection } = reader;
      await assertReadsOnly(connection, 'SELECT region, count(*) FROM raw_orders.orders GROUP BY ALL');
      const platformDb = quarry.ctx.paths.platformDb;
      for (const sql of [
        `SELECT * FROM sqlite_scan('${platformDb}', 'users')`, `SELECT * FROM "Sqlite_Scan"('${platformDb}', 'users')`,
        "SELECT * FROM query('SELECT 1')", `ATTACH '${platformDb}' AS p (TYPE sqlite)`, "COPY (SELECT 1) TO '/tmp/x.csv'",
        'SET threads = 4', 'SELECT 1; DROP TABLE raw_orders.orders',
      ]) {
        await expect(assertReadsOnly(connection, sql), sql).rejects.toThrow(/not allowed|Only/);
      }
      // The sandbox itself, for a statement that got past the check: no host file, not the catalog.
      await expect(connection.run("SELECT * FROM read_text('/etc/passwd')")).rejects.toThrow(/Permission Error/);
      await expect(connection.run(`COPY (SELECT 'junk') TO '${quarry.ctx.paths.lakeCatalogFile}' (FORMAT csv, USE_TMP_FILE false)`)).rejects.toThrow(/Permission Error/);
      await expect(connection.run('DELETE FROM raw_orders.orders')).rejects.toThrow(/read-only/);
    } finally {
      reader.close();
    }
    expect(await orders()).toBe(4);
  });

  it('builds a marts table model twice in a row on the lake (no "Cascade Drop not supported")', async () => {
    for (let run = 0; run < 2; run++) {
      await idle(); // the staging models a sync regenerates are built in a run of their own
      const finished = quarry.nextEvent('transform_run_completed', (event) => event.model === 'totals_by_region');
      const failed = quarry.nextEvent('transform_run_failed', (event) => event.model === 'totals_by_region');
      expect((await quarry.request('POST', '/api/transform/models/totals_by_region/run', { as: 'admin' })).status).toBe(200);
      const outcome = await Promise.race([finished, failed]);
      expect(outcome).toMatchObject({ type: 'transform_run_completed' });
      await quarry.jobsIdle();
    }
    expect(await quarry.query('SELECT region, total::INTEGER AS total FROM marts.totals_by_region ORDER BY region'))
      .toEqual([{ region: 'north', total: 15 }, { region: 'south', total: 20 }, { region: 'west', total: 1 }]);
    expect(await quarry.query("SELECT table_type FROM information_schema.tables WHERE table_schema = 'marts' AND table_name LIKE 'totals_by_region%'"))
      .toEqual([{ table_type: 'BASE TABLE' }]);
  }, 120_000);

  it('records the snapshots a model run spans (dbt commits its own) and lists them as the run\'s', async () => {
    const run = (await quarry.ctx.store.jobs.history('run', 'totals_by_region', 1))[0];
    expect(run?.snapshotBefore).toEqual(expect.any(Number));
    expect(run?.snapshotAfter).toBeGreaterThan(run?.snapshotBefore ?? Infinity);
    const snapshots = (await quarry.request('GET', '/api/warehouse/snapshots?limit=100', { as: 'viewer' })).json as { id: number; job: unknown; tables_changed: string[] }[];
    const ofRun = snapshots.filter((snapshot) => snapshot.id > (run?.snapshotBefore ?? 0) && snapshot.id <= (run?.snapshotAfter ?? 0));
    expect(ofRun.length).toBeGreaterThan(0);
    for (const snapshot of ofRun) expect(snapshot.job).toEqual({ id: run?.id, kind: 'run', target: 'totals_by_region' });
    expect(ofRun.flatMap((snapshot) => snapshot.tables_changed)).toContain('marts.totals_by_region');
  });
});
