import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUARRY_BIN, runQuarry } from '../support/quarry-process.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';
import { fingerprintWarehouse } from '../support/warehouse-fingerprint.ts';

const scratch = mkdtempSync(path.join(tmpdir(), 'quarry-backup-'));
let original: TestQuarry;

beforeAll(async () => {
  original = await startQuarry({ demo: true });
  expect((await syncAndWait(original, 'orders')).type).toBe('sync_completed');
}, 120_000);

afterAll(async () => {
  await original.close();
  rmSync(scratch, { recursive: true, force: true });
});

function quarry(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  return spawnSync(QUARRY_BIN, args, { encoding: 'utf8' });
}

describe('quarry backup and quarry restore', () => {
  it('back up a running project, even during a sync, and restore it into a fresh folder with every table equal', async () => {
    const before = await fingerprintWarehouse(original);
    expect(Object.keys(before)).toContain('raw_orders.orders');

    // A sync running while the backup starts: the backup waits for it, so the file ledger and the lake agree.
    writeFileSync(path.join(original.dir, 'data', 'orders', '2026-11.csv'),
      'order_id,ordered_at,customer,country,product,quantity,unit_price\n9001,2026-11-02,Ada,NL,pen,3,1.2\n');
    const sync = syncAndWait(original, 'orders');
    const backupDir = path.join(scratch, 'backup');
    const backup = await runQuarry(['backup', backupDir, '--project', original.dir]);
    await sync;
    expect(backup.stderr).not.toMatch(/at .*\.ts:\d+/);
    expect(backup.status, backup.stderr).toBe(0);
    expect(backup.stdout).toMatch(/^Backed up Test project into /);
    const manifest = JSON.parse(readFileSync(path.join(backupDir, 'quarry-backup.json'), 'utf8'));
    expect(manifest.items).toEqual(expect.arrayContaining(['.quarry/platform.db', '.quarry/project.yml', '.quarry/secret.key', 'transform', 'data']));
    expect(existsSync(path.join(backupDir, 'transform', 'target'))).toBe(false);

    const after = await fingerprintWarehouse(original);
    const restoredDir = path.join(scratch, 'restored');
    const restore = quarry('restore', backupDir, '--project', restoredDir);
    expect(restore.status, restore.stderr).toBe(0);
    expect(restore.stdout).toContain(`into ${restoredDir}`);
    const overProject = quarry('restore', backupDir, '--project', original.dir);
    expect(overProject.status).toBe(1);
    expect(overProject.stderr).toContain('already holds a project');

    const restored = await startQuarry({ projectDir: restoredDir });
    try {
      expect(await fingerprintWarehouse(restored)).toEqual(after);
      expect(after['raw_orders.orders']).not.toEqual(before['raw_orders.orders']);
      expect((await restored.ctx.store.users.list()).map((user) => user.email)).toEqual((await original.ctx.store.users.list()).map((user) => user.email));
      expect((await restored.ctx.store.fileLedger.forSource('orders')).size).toBe((await original.ctx.store.fileLedger.forSource('orders')).size);
      // In a new folder the ledger's paths are the old ones: a sync reads the files again, replacing their rows.
      const rowsBefore = await restored.query('SELECT count(*) AS n FROM raw_orders.orders');
      expect((await syncAndWait(restored, 'orders')).type).toBe('sync_completed');
      expect(await restored.query('SELECT count(*) AS n FROM raw_orders.orders')).toEqual(rowsBefore);
      const session = await restored.login('viewer');
      expect((await restored.request('GET', '/api/sources', { cookie: session })).status).toBe(200);
    } finally {
      await restored.close();
    }
  }, 240_000);

  it('refuses, changing nothing: a non-empty target, a target inside the project, jobs that do not end, a folder that is no backup', () => {
    const full = path.join(scratch, 'full');
    mkdirSync(full, { recursive: true });
    writeFileSync(path.join(full, 'keep.txt'), 'mine');
    const intoFull = quarry('backup', full, '--project', original.dir);
    expect(intoFull.status).toBe(1);
    expect(intoFull.stderr).toContain('is not empty');
    expect(readFileSync(path.join(full, 'keep.txt'), 'utf8')).toBe('mine');

    const intoProject = quarry('backup', path.join(original.dir, 'backups'), '--project', original.dir);
    expect(intoProject.status).toBe(1);
    expect(intoProject.stderr).toContain('inside the project');

    // A job that never ends: the backup waits for it, then gives up, leaving no folder behind.
    const platform = new DatabaseSync(path.join(original.dir, '.quarry', 'platform.db'));
    try {
      const { id } = platform.prepare("INSERT INTO jobs (kind, target, status, created_at, started_at) VALUES ('sync', 'orders', 'running', datetime(), datetime()) RETURNING id")
        .get() as { id: number };
      const waited = quarry('backup', path.join(scratch, 'never'), '--project', original.dir, '--wait', '1');
      platform.prepare("UPDATE jobs SET status = 'interrupted', finished_at = datetime() WHERE id = ?").run(id);
      expect(waited.status).toBe(1);
      expect(waited.stderr).toContain('Jobs kept running for 1 s; no backup was taken');
      expect(existsSync(path.join(scratch, 'never'))).toBe(false);
    } finally {
      platform.close();
    }

    // A shared lake's catalog lives in PostgreSQL: the backup says so rather than copying a project without its warehouse.
    const shared = path.join(scratch, 'shared');
    expect(quarry('init', shared, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive').status).toBe(0);
    const projectFile = path.join(shared, '.quarry', 'project.yml');
    writeFileSync(projectFile, `${readFileSync(projectFile, 'utf8')}\nwarehouse:\n  catalog: postgres://postgres@127.0.0.1:5432/test\n  data_path: ${path.join(scratch, 'lake-data')}\n`);
    const ofShared = quarry('backup', path.join(scratch, 'shared-backup'), '--project', shared);
    expect(ofShared.status).toBe(1);
    expect(ofShared.stderr).toContain('PostgreSQL catalog');
    expect(existsSync(path.join(scratch, 'shared-backup'))).toBe(false);

    const notABackup = quarry('restore', full, '--project', path.join(scratch, 'fresh'));
    expect(notABackup.status).toBe(1);
    expect(notABackup.stderr).toContain('not a Quarry backup');
    expect(existsSync(path.join(scratch, 'fresh', '.quarry'))).toBe(false);
  });
});
