import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/store/index.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const SOURCES = [
  'sources:',
  '  - name: orders', '    type: local_files', '    local_files: { directory: data/orders }',
  '  - name: other', '    type: local_files', '    local_files: { directory: data/other }',
].join('\n') + '\n';

/** A CSV of `rows` orders from `first` on: large enough to be written as a Parquet file, not inlined in the catalog. */
function ordersCsv(first: number, rows: number): string {
  return `id,amount\n${Array.from({ length: rows }, (_, index) => `${String(first + index)},${String(index % 97)}`).join('\n')}\n`;
}

describe('the lake\'s snapshots: listing, restore and maintenance', () => {
  let quarry: TestQuarry;
  const ordersDir = (): string => path.join(quarry.dir, 'data', 'orders');
  const count = async (sql = 'SELECT count(*) AS n FROM raw_orders.orders'): Promise<number> => Number((await quarry.query(sql))[0]?.n);
  const liveFiles = async (): Promise<number> => count('SELECT count(*) AS n FROM __ducklake_metadata_warehouse.ducklake_data_file WHERE end_snapshot IS NULL');
  const lastSync = async (source = 'orders'): Promise<JobRecord> => {
    const job = await quarry.ctx.store.jobs.latest('sync', source);
    if (job === undefined) throw new Error(`no sync of ${source}`);
    return job;
  };
  const restored = async (source: string, beforeSync: number): Promise<void> => {
    const event = quarry.nextEvent('warehouse_restored', (candidate) => candidate.source === source);
    const response = await quarry.request('POST', `/api/sources/${source}/restore`, { as: 'editor', body: { before_sync: beforeSync } });
    expect(response.status, response.text).toBe(200);
    expect(response.json).toMatchObject({ success: true, source_name: source, job_id: expect.any(Number) });
    await event;
    await quarry.jobsIdle();
  };

  beforeAll(async () => {
    quarry = await startQuarry({
      sourcesYaml: SOURCES,
      prepare: (dir) => {
        mkdirSync(path.join(dir, 'data', 'orders'), { recursive: true });
        mkdirSync(path.join(dir, 'data', 'other'), { recursive: true });
        writeFileSync(path.join(dir, 'data', 'orders', 'a.csv'), ordersCsv(1, 2000));
        writeFileSync(path.join(dir, 'data', 'other', 'x.csv'), ordersCsv(1, 10));
      },
    });
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed' });
    expect(await syncAndWait(quarry, 'other')).toMatchObject({ type: 'sync_completed' });
    writeFileSync(path.join(ordersDir(), 'b.csv'), ordersCsv(2001, 2000));
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed' });
  }, 120_000);
  afterAll(async () => {
    await quarry.close();
  });

  it('lists each sync\'s snapshot with its job and the tables it changed, to every role', async () => {
    const response = await quarry.request('GET', '/api/warehouse/snapshots?limit=10', { as: 'viewer' });
    expect(response.status).toBe(200);
    const sync = await lastSync();
    expect(response.json[0]).toEqual({
      id: expect.any(Number), time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), author: 'quarry', message: `sync orders (job ${String(sync.id)})`,
      job: { id: sync.id, kind: 'sync', target: 'orders' }, tables_changed: ['raw_orders.orders'],
    });
    expect(response.json).toContainEqual(expect.objectContaining({ job: { id: (await lastSync('other')).id, kind: 'sync', target: 'other' }, tables_changed: ['raw_other.other'] }));
    expect((await quarry.request('GET', '/api/warehouse/snapshots?limit=1', { as: 'viewer' })).json).toHaveLength(1);
    expect((await quarry.request('GET', '/api/warehouse/snapshots?limit=0', { as: 'viewer' })).status).toBe(400);
    expect((await quarry.request('GET', '/api/warehouse/snapshots')).status).toBe(401);
  });

  it('restores the rows of before a bad sync as a new snapshot, keeps the later history, and rebuilds at the next sync', async () => {
    const good = await count();
    writeFileSync(path.join(ordersDir(), 'bad.csv'), ordersCsv(9001, 3000));
    await syncAndWait(quarry, 'orders');
    const bad = await lastSync();
    expect(await count()).toBe(good + 3000);

    await restored('orders', bad.id);
    expect(await count()).toBe(good);
    const snapshots = (await quarry.request('GET', '/api/warehouse/snapshots?limit=5', { as: 'viewer' })).json as { job: { kind: string; id: number } | null }[];
    expect(snapshots[0]?.job).toMatchObject({ kind: 'restore', target: 'orders' });
    expect(snapshots.some((snapshot) => snapshot.job?.id === bad.id)).toBe(true); // the bad sync's snapshot is still history
    // The ledger described the bad file as loaded: it is cleared, and the next sync is a full refresh.
    expect((await quarry.ctx.store.fileLedger.forSource('orders')).size).toBe(0);
    rmSync(path.join(ordersDir(), 'bad.csv'));
    await syncAndWait(quarry, 'orders');
    expect(await lastSync()).toMatchObject({ status: 'success', fullRefresh: true });
    expect(await count()).toBe(good);
    expect(await quarry.ctx.store.refreshMarks.isMarked('orders')).toBe(false);
  });

  it('refuses a restore it cannot do, with the contract\'s errors, and lets only editors and admins restore', async () => {
    const sync = await lastSync();
    const restore = (body: unknown, source = 'orders', as: 'viewer' | 'editor' = 'editor') => quarry.request('POST', `/api/sources/${source}/restore`, { as, body });
    expect((await restore({ before_sync: 999_999 })).json).toEqual({ detail: 'No sync job 999999', code: 'sync_not_found' });
    expect((await restore({ before_sync: 999_999 })).status).toBe(404);
    const otherSource = await restore({ before_sync: (await lastSync('other')).id });
    expect(otherSource.status).toBe(400);
    expect(otherSource.json).toMatchObject({ code: 'sync_of_another_source' });
    expect((await restore({ before_sync: sync.id }, 'nowhere')).status).toBe(404);
    expect((await restore({ before: sync.id })).status).toBe(400);
    expect((await restore({ before_sync: sync.id }, 'orders', 'viewer')).status).toBe(403);
    const cookie = await quarry.login('editor');
    const crossSite = await quarry.request('POST', '/api/sources/orders/restore', { cookie, body: { before_sync: sync.id } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.json).toMatchObject({ code: 'csrf_failed' });

    // While a sync of the source waits for the warehouse, a restore of it is refused.
    const { promise: gate, resolve: open } = Promise.withResolvers<undefined>();
    const held = quarry.ctx.writer.turn(() => gate, { signal: AbortSignal.timeout(60_000) });
    await quarry.ctx.jobs.startSync('orders', { fullRefresh: false, requestedBy: 'test' });
    const busy = await restore({ before_sync: sync.id });
    open(undefined);
    await held;
    await quarry.jobsIdle();
    expect(busy.status).toBe(409);
    expect(busy.json).toMatchObject({ code: 'sync_in_progress' });
  });

  it('maintenance merges files and keeps time travel within the retention; expired snapshots cannot be restored', async () => {
    writeFileSync(path.join(ordersDir(), 'c.csv'), ordersCsv(20_001, 2000));
    await syncAndWait(quarry, 'orders');
    const beforeD = (await quarry.request('GET', '/api/warehouse/snapshots?limit=1', { as: 'viewer' })).json[0].id as number;
    const rowsBeforeD = await count();
    writeFileSync(path.join(ordersDir(), 'd.csv'), ordersCsv(30_001, 2000));
    await syncAndWait(quarry, 'orders');
    const filesBefore = await liveFiles();
    expect(filesBefore).toBeGreaterThan(1);

    await quarry.ctx.jobs.startMaintenance({ retentionDays: 7, requestedBy: 'test' });
    await quarry.jobsIdle();
    expect(await quarry.ctx.store.jobs.latest('maintain', 'warehouse')).toMatchObject({ status: 'success' });
    expect(await liveFiles()).toBeLessThan(filesBefore);
    expect(await count(`SELECT count(*) AS n FROM raw_orders.orders AT (VERSION => ${String(beforeD)})`)).toBe(rowsBeforeD);

    const old = await lastSync();
    await quarry.ctx.jobs.startMaintenance({ retentionDays: 0, requestedBy: 'test' });
    await quarry.jobsIdle();
    const expired = await quarry.request('POST', '/api/sources/orders/restore', { as: 'editor', body: { before_sync: old.id } });
    expect(expired.status).toBe(409);
    expect(expired.json).toMatchObject({ code: 'snapshot_expired' });
  });
});
