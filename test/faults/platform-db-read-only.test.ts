import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureLog, type CapturedLog } from '../support/captured-log.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

const READ_ONLY = {
  detail: 'The platform database is read-only: nothing can be changed until an administrator makes it writable again; reading still works',
  code: 'platform_db_read_only',
};

/**
 * SQLite keeps the database and its WAL open, and a read-only remount is refused (EBUSY) while a file is open
 * for writing, so the test marks the two files immutable: the kernel then refuses every write through the
 * open descriptors, to root too, as a file system remounted read-only after an error does. Not the -shm
 * file: SQLite writes it through a shared memory map, where a refused write is a SIGBUS that kills Node.
 */
function setImmutable(quarry: TestQuarry, on: boolean): void {
  const database = path.join(quarry.dir, '.quarry', 'platform.db');
  execFileSync('chattr', [on ? '+i' : '-i', database, `${database}-wal`]);
}

// chattr +i needs root and a file system with the immutable flag (ext4, xfs, btrfs), as the test machines and CI have.
describe.skipIf(process.getuid?.() !== 0)('the platform database turning read-only while the service runs', () => {
  let quarry: TestQuarry;
  let captured: CapturedLog;
  let dataDir: string;

  beforeAll(async () => {
    captured = captureLog();
    quarry = await startQuarry({
      log: captured.log,
      sourcesYaml: 'sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: data/orders }\n',
    });
    dataDir = path.join(quarry.dir, 'data', 'orders');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(path.join(dataDir, 'first.csv'), 'id,name\n1,a\n2,b\n');
  });

  afterEach(() => {
    setImmutable(quarry, false); // a failed assertion must not leave files that even root cannot delete
  });

  afterAll(async () => {
    await quarry.close();
  });

  it('refuses writes with 503 platform_db_read_only, keeps serving reads, logs why, and takes writes and syncs again once writable', async () => {
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 2 });
    expect((await quarry.request('POST', '/api/auth/api-keys', { as: 'editor', body: { name: 'before' } })).status).toBe(201);
    await quarry.request('GET', '/api/sources', { as: 'viewer' });

    setImmutable(quarry, true);
    // Past the minute after which a signed-in request records when its session was last seen.
    quarry.clock.advance(5 * 60_000);

    const key = await quarry.request('POST', '/api/auth/api-keys', { as: 'editor', body: { name: 'during' } });
    expect(key.status).toBe(503);
    expect(key.json).toEqual(READ_ONLY);
    const sync = await quarry.request('POST', '/api/sources/orders/sync', { as: 'editor', body: {} });
    expect(sync.status).toBe(503);
    expect(sync.json).toEqual(READ_ONLY);

    const sources = await quarry.request('GET', '/api/sources', { as: 'viewer' });
    expect(sources.status).toBe(200);
    expect(sources.json[0]).toMatchObject({ name: 'orders', status: 'synced', row_count: 2 });
    const keys = await quarry.request('GET', '/api/auth/api-keys', { as: 'editor' });
    expect(keys.status).toBe(200);
    expect(keys.json.map((entry: { name: string }) => entry.name)).toEqual(['before']);
    expect(await quarry.query('SELECT count(*) AS n FROM raw_orders.orders')).toEqual([{ n: 2 }]);
    expect(captured.records()).toContainEqual(expect.objectContaining({
      level: 50, method: 'POST', url: '/api/auth/api-keys',
      msg: 'the platform database cannot be written (read-only file or file system); changes are refused until it is writable',
    }));
    expect(captured.records().filter((record) => record.msg === 'unhandled error')).toEqual([]);

    setImmutable(quarry, false);
    expect((await quarry.request('POST', '/api/auth/api-keys', { as: 'editor', body: { name: 'after' } })).status).toBe(201);
    const names = (await quarry.request('GET', '/api/auth/api-keys', { as: 'editor' })).json.map((entry: { name: string }) => entry.name);
    expect(names.toSorted()).toEqual(['after', 'before']);
    writeFileSync(path.join(dataDir, 'second.csv'), 'id,name\n3,c\n');
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 3 });
    expect(await quarry.query('SELECT count(*) AS n FROM raw_orders.orders')).toEqual([{ n: 3 }]);
  }, 120_000);

  it('fails a sync that ends while the database is read-only without stopping the service, and records it with the next sync', async () => {
    // Holding the writer's turn keeps the sync queued until the database has turned read-only.
    const { promise: released, resolve: release } = Promise.withResolvers<undefined>();
    const { promise: holding, resolve: holds } = Promise.withResolvers<undefined>();
    const held = quarry.ctx.writer.turn(() => { holds(undefined); return released; }, { signal: AbortSignal.timeout(60_000) });
    await holding;
    const failed = quarry.nextEvent('sync_failed');
    const { job: queued } = await quarry.ctx.jobs.startSync('orders', { fullRefresh: false, requestedBy: 'test' });
    setImmutable(quarry, true);
    release(undefined);
    await held;
    expect(await failed).toMatchObject({
      source: 'orders', error: 'The sync failed: the platform database is read-only, so the sync could not be recorded',
    });
    await quarry.jobsIdle();
    expect((await quarry.ctx.store.jobs.history('sync', 'orders', 1))[0]).toMatchObject({ id: queued.id, status: 'queued' });
    expect(captured.records()).toContainEqual(expect.objectContaining({
      level: 50, job: queued.id, msg: 'the end of the sync could not be recorded in the platform database; it is recorded with the next sync',
    }));
    expect((await quarry.request('GET', '/api/status', { as: 'viewer' })).status).toBe(200);

    setImmutable(quarry, false);
    writeFileSync(path.join(dataDir, 'third.csv'), 'id,name\n4,d\n');
    expect(await syncAndWait(quarry, 'orders')).toMatchObject({ type: 'sync_completed', rows: 4 });
    const [latest, earlier] = await quarry.ctx.store.jobs.history('sync', 'orders', 2);
    expect(latest).toMatchObject({ status: 'success', rows: 4 });
    expect(earlier).toMatchObject({
      id: queued.id, status: 'failed', error: 'The sync failed: the platform database is read-only, so the sync could not be recorded',
    });
    expect(await logMessages(quarry, 'orders', 'ERROR')).toContain('The sync failed: the platform database is read-only, so the sync could not be recorded');
  }, 120_000);
});
