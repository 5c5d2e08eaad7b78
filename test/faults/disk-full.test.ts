import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

/** Rows of random text, which Parquet cannot compress much (the lake's files are zstd-compressed). */
async function writeCsv(file: string, rows: number): Promise<void> {
  const stream = createWriteStream(file);
  stream.write('id,name,amount\n');
  for (let index = 0; index < rows; index++) {
    if (!stream.write(`${String(index)},${randomBytes(16).toString('hex')},${String(index % 977)}.25\n`)) await once(stream, 'drain');
  }
  stream.end();
  await once(stream, 'finish');
}

// Mounting a small tmpfs over the warehouse folder needs root, as the test machines and CI run.
describe.skipIf(process.getuid?.() !== 0)('a full disk under the warehouse', () => {
  let quarry: TestQuarry;
  let warehouseDir: string;
  let dataDir: string;

  beforeAll(async () => {
    quarry = await startQuarry({ sourcesYaml: 'sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: data/orders }\n' });
    warehouseDir = path.join(quarry.dir, 'warehouse');
    mkdirSync(warehouseDir, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=24m', 'tmpfs', warehouseDir]);
    dataDir = path.join(quarry.dir, 'data', 'orders');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, 'small.csv'), 'id,name,amount\n1,a,1.5\n2,b,2.5\n');
  });

  afterAll(async () => {
    await quarry.close().catch(() => undefined);
    try {
      execFileSync('umount', ['-l', warehouseDir]);
    } catch {
      // not mounted
    }
    rmSync(quarry.dir, { recursive: true, force: true });
  });

  it('fails the sync that runs out of space with one line, keeps the loaded data, and syncs again once there is room', async () => {
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 2 });
    await writeCsv(path.join(dataDir, 'huge.csv'), 3_000_000);
    const snapshot = async (): Promise<unknown> => (await quarry.query("SELECT max(snapshot_id) AS id FROM ducklake_snapshots('warehouse')"))[0]?.id;
    const before = await snapshot();
    const full = await syncAndWait(quarry, 'orders');
    expect(full.type).toBe('sync_failed');
    expect(full.type === 'sync_failed' ? full.error : '').toMatch(/No space left on device|out of space|disk full/i);
    expect(full.type === 'sync_failed' ? full.error : '').not.toMatch(/\n|at .*\.ts:\d+/);
    // The service answers, and what was loaded before is still there for readers.
    const sources = await quarry.request('GET', '/api/sources', { as: 'viewer' });
    expect(sources.json[0]).toMatchObject({ name: 'orders', status: 'failed', row_count: 2 });
    expect(await quarry.query('SELECT count(*) AS n FROM raw_orders.orders')).toEqual([{ n: 2 }]);
    expect(await snapshot()).toBe(before); // the failed sync committed nothing

    rmSync(path.join(dataDir, 'huge.csv'));
    writeFileSync(path.join(dataDir, 'more.csv'), 'id,name,amount\n3,c,3.5\n');
    // Room again (the user freed space); the failed sync's unregistered files stay until the lake's maintenance.
    execFileSync('mount', ['-o', 'remount,size=80m', warehouseDir]);
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 3 });
    expect(await quarry.query('SELECT count(*) AS n FROM raw_orders.orders')).toEqual([{ n: 3 }]);
  }, 120_000);
});
