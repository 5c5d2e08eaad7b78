import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryLake } from '../support/duckdb-query.ts';
import { QUARRY_BIN } from '../support/quarry-process.ts';

function quarry(args: string[]) {
  const result = spawnSync(QUARRY_BIN, args, { encoding: 'utf8', env: { ...process.env, QUARRY_ADMIN_PASSWORD: 'a-good-password' }, stdio: ['ignore', 'pipe', 'pipe'] });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('quarry warehouse', () => {
  let dir: string;
  const orders = async (): Promise<number> => Number((await queryLake(dir, 'SELECT count(*) AS n FROM raw_orders.orders'))[0]?.n);
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'quarry-cli-warehouse-'));
    expect(quarry(['init', dir, '--admin-email', 'a@example.com', '--non-interactive']).code).toBe(0);
    writeFileSync(path.join(dir, '.quarry', 'sources.yml'), 'sources:\n  - name: orders\n    type: local_files\n    local_files: { directory: data/orders }\n');
    mkdirSync(path.join(dir, 'data', 'orders'), { recursive: true });
    writeFileSync(path.join(dir, 'data', 'orders', 'a.csv'), 'id,amount\n1,10\n2,20\n3,30\n');
    expect(quarry(['sync', 'orders', '--project', dir]).code).toBe(0);
    writeFileSync(path.join(dir, 'data', 'orders', 'bad.csv'), 'id,amount\n4,-1\n5,-1\n');
    expect(quarry(['sync', 'orders', '--project', dir]).code).toBe(0);
  }, 120_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the snapshots with the job that made each, restores before a sync, and maintains the lake', async () => {
    const listed = quarry(['warehouse', 'snapshots', '--project', dir, '--limit', '2']);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^SNAPSHOT\s+TIME\s+JOB\s+TABLES CHANGED$/);
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(/sync orders \(job 2\)\s+raw_orders\.orders$/);
    expect(await orders()).toBe(5);

    const restored = quarry(['warehouse', 'restore', '--source', 'orders', '--before-sync', '2', '--project', dir]);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('Restored the raw tables of orders to before the sync 2');
    expect(await orders()).toBe(3);
    expect(quarry(['warehouse', 'snapshots', '--project', dir, '--limit', '1']).stdout).toMatch(/restore orders \(job 3\)/);

    const unknown = quarry(['warehouse', 'restore', '--source', 'orders', '--before-sync', '99', '--project', dir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No sync job 99');

    const maintained = quarry(['warehouse', 'maintain', '--project', dir]);
    expect(maintained.code, maintained.stderr).toBe(0);
    expect(maintained.stdout).toContain('Warehouse maintenance finished');
    expect(await orders()).toBe(3);
  }, 120_000);
});
