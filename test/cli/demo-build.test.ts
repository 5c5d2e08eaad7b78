import { execFile, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../support/alert-receivers.ts';
import { allowLoopback } from '../support/loopback-network.ts';
import { createApiKey, QUARRY_BIN, spawnQuarry } from '../support/quarry-process.ts';
import { DatabaseSync } from 'node:sqlite';

const dir = mkdtempSync(path.join(tmpdir(), 'quarry-demo-build-'));
const OCTOBER = path.join(dir, 'data', 'orders', 'orders_2026-10.csv');
let receiver: WebhookReceiver;

// Not spawnSync: the webhook receiver in this process must answer the command's alerts while it runs.
async function quarry(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(QUARRY_BIN, [...args, '--project', dir], { encoding: 'utf8', env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr });
    });
  });
}

const alertsSent = (): unknown[][] => receiver.accepted.map((body) => [body.event, body.model]);

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});

afterAll(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the demo project, built with its data tests from the command line', () => {
  it('passes its tests; a duplicated order fails unique, skips the marts after it and alerts once; the fixed file turns it green', { timeout: 240_000 }, async () => {
    expect(spawnSync(QUARRY_BIN, ['init', dir, '--demo', '--admin-email', 'admin@example.com', '--admin-password', 'demo-password-123', '--non-interactive']).status).toBe(0);
    await allowLoopback(dir);
    appendFileSync(path.join(dir, '.quarry', 'project.yml'), 'alerts:\n  - {name: team, webhook_url_env: ALERT_WEBHOOK_URL, on: [transform_test_failed]}\n');
    appendFileSync(path.join(dir, '.env'), `\nALERT_WEBHOOK_URL=${receiver.url}\n`);
    // The demo has watcher.auto_transform on: the command runs the models downstream before it exits, as the service would.
    const synced = await quarry(['sync', 'orders']);
    expect(synced.code).toBe(0);
    expect(synced.stderr).toBe('');
    expect(synced.stdout).toMatch(/^Models downstream: 5 built$/m);

    const green = await quarry(['build']);
    expect(green.stderr).toBe('');
    expect(green.code).toBe(0);
    expect(green.stdout).toMatch(/^pass +test +unique_orders_enriched_order_id$/m);
    expect(green.stdout).toMatch(/^success +model +revenue_by_month$/m);
    // Generated after the sync: not_null on every staging column the data has no null in.
    expect(green.stdout).toMatch(/^pass +test +not_null_stg_orders__orders_order_id$/m);
    expect(green.stdout).toMatch(/^5 of 5 models, seeds and snapshots built; tests: 17 passed, 0 failed, 0 warned, 0 skipped$/m);
    // Each node once: its line as dbt finishes it, and no table of them all again at the end.
    expect(green.stdout.match(/unique_orders_enriched_order_id/g)).toHaveLength(1);
    expect(green.stdout).not.toContain('NODE');
    // Profiling what it changed is not what the command's user waits for: it is left to the service, and said so.
    expect(green.stdout.trimEnd().split('\n').at(-1)).toMatch(/^The catalog's profiles of \d+ tables? it changed are left to the service: refreshed within a minute while it runs, else when it next starts\.$/);

    const original = readFileSync(OCTOBER, 'utf8');
    const lines = original.trimEnd().split('\n');
    writeFileSync(OCTOBER, `${[...lines, lines[1] ?? ''].join('\n')}\n`);
    const duplicated = await quarry(['sync', 'orders']);
    expect(duplicated.code).toBe(0);
    expect(duplicated.stdout).toMatch(/^Models downstream: 2 built; not built: .*revenue_by_month.*; failing tests: unique_orders_enriched_order_id \(see quarry logs\)$/m);
    const red = await quarry(['build']);
    expect(red.code).toBe(1);
    expect(red.stderr).toMatch(/^quarry: The build failed: orders_enriched: the test unique_orders_enriched_order_id failed \(1 failing rows\)/);
    expect(red.stdout).toMatch(/^fail +test +unique_orders_enriched_order_id$/m);
    expect(red.stdout).toMatch(/^unique_orders_enriched_order_id +test +fail +1 failing rows on orders_enriched$/m);
    expect(red.stdout).toMatch(/^revenue_by_month +model +skipped +Skipped because the upstream test unique_orders_enriched_order_id of orders_enriched failed$/m);
    // What went wrong is detailed at the end; what went well only had its line.
    expect(red.stdout.match(/not_null_orders_enriched_order_id/g)).toHaveLength(1);

    // Sent by the command itself before it exits: no service runs.
    expect(alertsSent()).toEqual([['transform_test_failed', 'orders_enriched']]);

    const tests = await quarry(['test', 'orders_enriched']);
    expect(tests.code).toBe(1);
    expect(tests.stdout).toMatch(/^unique_orders_enriched_order_id +test +fail/m);
    expect(alertsSent()).toHaveLength(1);

    writeFileSync(OCTOBER, original);
    expect((await quarry(['sync', 'orders'])).code).toBe(0);
    const fixed = await quarry(['build', 'orders_enriched+']);
    expect(fixed.stderr).toBe('');
    expect(fixed.code).toBe(0);
    expect(fixed.stdout).toMatch(/^4 of 4 models, seeds and snapshots built; tests: 8 passed, 0 failed, 0 warned, 0 skipped$/m);
    expect(alertsSent()).toEqual([['transform_test_failed', 'orders_enriched'], ['transform_test_failed_resolved', 'orders_enriched']]);
  });

  it('goes through the running Quarry when QUARRY_API_KEY lets the command reach it: its warm dbt builds, runs and tests', { timeout: 120_000 }, async () => {
    const server = await spawnQuarry(dir);
    try {
      const key = await createApiKey(server.url, { email: 'admin@example.com', password: 'demo-password-123' });
      const built = await quarry(['build', 'orders_enriched+'], { QUARRY_API_KEY: key });
      expect(built.stderr).toBe('');
      expect(built.code).toBe(0);
      // No line per node as it goes (the service's dbt hears them): every node is in the table at the end.
      expect(built.stdout).toMatch(/^revenue_by_month +model +success +\d+\.\d\d s$/m);
      expect(built.stdout).toMatch(/^unique_orders_enriched_order_id +test +pass/m);
      expect(built.stdout).toMatch(/^4 of 4 models, seeds and snapshots built; tests: 8 passed, 0 failed, 0 warned, 0 skipped$/m);

      const one = await quarry(['run', 'revenue_by_month', '--no-cascade'], { QUARRY_API_KEY: key });
      expect({ code: one.code, stderr: one.stderr }).toEqual({ code: 0, stderr: '' });
      expect(one.stdout).toMatch(/^1 of 1 models, seeds and snapshots built; tests: \d+ passed, 0 failed/m);
      const tested = await quarry(['test', 'orders_enriched'], { QUARRY_API_KEY: key });
      expect({ code: tested.code, stderr: tested.stderr }).toEqual({ code: 0, stderr: '' });
      expect(tested.stdout).toMatch(/^0 of 0 models, seeds and snapshots built; tests: [1-9]\d* passed, 0 failed/m);

      // The service ran them, for the key's owner; this process opened nothing.
      const database = new DatabaseSync(path.join(dir, '.quarry', 'platform.db'), { readOnly: true });
      try {
        const runs = database.prepare("SELECT target, requested_by FROM jobs WHERE kind = 'run' ORDER BY id DESC LIMIT 3").all();
        expect(runs).toEqual([
          { target: 'test orders_enriched', requested_by: 'admin@example.com' },
          { target: 'revenue_by_month', requested_by: 'admin@example.com' },
          { target: 'build orders_enriched+', requested_by: 'admin@example.com' },
        ]);
      } finally {
        database.close();
      }

      const refused = await quarry(['build', 'orders;rm'], { QUARRY_API_KEY: key });
      expect(refused).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/^quarry: "orders;rm" is not a dbt selector word/) });
      const wrongKey = await quarry(['build'], { QUARRY_API_KEY: 'qk_not-a-key' });
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.stderr).toMatch(/^quarry: The running Quarry refused its event feed \(HTTP 401\)/);
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
    }
  });
});
