import { chmodSync, copyFileSync, existsSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { captureLog } from '../support/captured-log.ts';
import { queryDuckDb } from '../support/duckdb-query.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

/**
 * The warehouse of a project made before the lake, as that Quarry left it: warehouse/warehouse.duckdb
 * (a raw table, dbt's staging view naming its table through the "warehouse" database, a marts table)
 * and its published replica under serving/ (read-only v1/, the current and warehouse.duckdb links).
 */
async function writeOldWarehouse(dir: string): Promise<void> {
  const warehouseDir = path.join(dir, 'warehouse');
  mkdirSync(warehouseDir, { recursive: true });
  const file = path.join(warehouseDir, 'warehouse.duckdb');
  await queryDuckDb(file, `
    CREATE SCHEMA raw_orders; CREATE SCHEMA staging; CREATE SCHEMA marts;
    CREATE TABLE raw_orders.orders AS SELECT i AS id, CASE WHEN i % 3 = 0 THEN 'north' ELSE 'south' END AS region, i * 1.5 AS amount, DATE '2026-01-01' + (i % 30)::INTEGER AS day FROM range(2500) r(i);
    CREATE TABLE raw_orders."Odd ""Name""" AS SELECT 1 AS x;
    CREATE VIEW "warehouse"."staging"."stg_orders" AS SELECT id, region, amount FROM "warehouse"."raw_orders"."orders";
    CREATE TABLE marts.totals AS SELECT region, sum(amount) AS total FROM staging.stg_orders GROUP BY region;
    CHECKPOINT`);
  const version = path.join(warehouseDir, 'serving', 'v1');
  mkdirSync(version, { recursive: true });
  copyFileSync(file, path.join(version, 'warehouse.duckdb'));
  chmodSync(path.join(version, 'warehouse.duckdb'), 0o444);
  chmodSync(version, 0o555);
  symlinkSync('v1', path.join(warehouseDir, 'serving', 'current'));
  symlinkSync(path.join('current', 'warehouse.duckdb'), path.join(warehouseDir, 'serving', 'warehouse.duckdb'));
}

describe('a project with a warehouse from before the lake', () => {
  let quarry: TestQuarry | undefined;
  afterAll(async () => {
    await quarry?.close();
  });

  it('is converted on its first start, keeps the old file until the next successful start, and logs the step', async () => {
    const first = captureLog();
    quarry = await startQuarry({ prepare: writeOldWarehouse, log: first.log });
    const warehouseDir = quarry.ctx.paths.warehouseDir;
    const kept = path.join(warehouseDir, 'warehouse.duckdb.converted');

    expect(existsSync(path.join(warehouseDir, 'warehouse.duckdb'))).toBe(false);
    expect(existsSync(kept)).toBe(true);
    expect(existsSync(path.join(warehouseDir, 'serving'))).toBe(false);
    expect(await quarry.query('SELECT count(*) AS n, sum(amount)::DOUBLE AS amount FROM raw_orders.orders')).toEqual([{ n: 2500, amount: 4685625 }]);
    expect(await quarry.query('SELECT x FROM raw_orders."Odd ""Name"""')).toEqual([{ x: 1 }]);
    const totals = 'SELECT region, total::DOUBLE AS total FROM marts.totals ORDER BY region';
    expect(await quarry.query(totals)).toEqual(await queryDuckDb(kept, totals, { access_mode: 'READ_ONLY' }));
    // The view was made again in the lake, reading the lake's table.
    expect(await quarry.query('SELECT count(*) AS n FROM staging.stg_orders')).toEqual([{ n: 2500 }]);
    // One snapshot holds every table of the conversion.
    expect(await quarry.query("SELECT commit_message FROM ducklake_snapshots('warehouse') WHERE commit_message IS NOT NULL"))
      .toEqual([{ commit_message: 'converted the single-file warehouse into the lake' }]);
    const messages = first.records().map((record) => record.msg);
    expect(messages).toContain('converting the single-file warehouse into the lake');
    expect(first.records()).toContainEqual(expect.objectContaining({
      msg: "converted the single-file warehouse into the lake; every table's row count checked", tables: 3, rows: 2503,
    }));

    quarry = await quarry.restart();
    expect(existsSync(kept)).toBe(false);
    expect(await quarry.query('SELECT count(*) AS n FROM raw_orders.orders')).toEqual([{ n: 2500 }]);
  }, 120_000);
});
