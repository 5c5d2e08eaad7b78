import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { QUARRY_BIN } from '../support/quarry-process.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'quarry-demo-build-'));
const OCTOBER = path.join(dir, 'data', 'orders', 'orders_2026-10.csv');

function quarry(args: string[]) {
  const result = spawnSync(QUARRY_BIN, [...args, '--project', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the demo project, built with its data tests from the command line', () => {
  it('passes its tests; a duplicated order fails unique and skips the marts after it; the fixed file turns it green', { timeout: 240_000 }, () => {
    expect(spawnSync(QUARRY_BIN, ['init', dir, '--demo', '--admin-email', 'admin@example.com', '--admin-password', 'demo-password-123', '--non-interactive']).status).toBe(0);
    expect(quarry(['sync', 'orders']).code).toBe(0);

    const green = quarry(['build']);
    expect(green.stderr).toBe('');
    expect(green.code).toBe(0);
    expect(green.stdout).toMatch(/^pass +test +unique_orders_enriched_order_id$/m);
    expect(green.stdout).toMatch(/^success +model +revenue_by_month$/m);
    // Generated after the sync: not_null on every staging column the data has no null in.
    expect(green.stdout).toMatch(/^pass +test +not_null_stg_orders__orders_order_id$/m);
    expect(green.stdout).toMatch(/^5 of 5 models, seeds and snapshots built; tests: 17 passed, 0 failed, 0 warned, 0 skipped$/m);

    const original = readFileSync(OCTOBER, 'utf8');
    const lines = original.trimEnd().split('\n');
    writeFileSync(OCTOBER, `${[...lines, lines[1] ?? ''].join('\n')}\n`);
    expect(quarry(['sync', 'orders']).code).toBe(0);
    const red = quarry(['build']);
    expect(red.code).toBe(1);
    expect(red.stderr).toMatch(/^quarry: The build failed: orders_enriched: the test unique_orders_enriched_order_id failed \(1 failing rows\)/);
    expect(red.stdout).toMatch(/^fail +test +unique_orders_enriched_order_id$/m);
    expect(red.stdout).toMatch(/^unique_orders_enriched_order_id +test +fail +1 failing rows on orders_enriched$/m);
    expect(red.stdout).toMatch(/^revenue_by_month +model +skipped +Skipped because the upstream test unique_orders_enriched_order_id of orders_enriched failed$/m);

    const tests = quarry(['test', 'orders_enriched']);
    expect(tests.code).toBe(1);
    expect(tests.stdout).toMatch(/^unique_orders_enriched_order_id +test +fail/m);

    writeFileSync(OCTOBER, original);
    expect(quarry(['sync', 'orders']).code).toBe(0);
    const fixed = quarry(['build', 'orders_enriched+']);
    expect(fixed.stderr).toBe('');
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/^4 of 4 models, seeds and snapshots built; tests: 8 passed, 0 failed, 0 warned, 0 skipped$/m);
  });
});
