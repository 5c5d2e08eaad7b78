import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { QUARRY_BIN, spawnQuarry } from '../support/quarry-process.ts';
import { sessionCookieOf } from '../support/quarry.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'quarry-demo-transform-'));
const EMAIL = 'admin@example.com';
const PASSWORD = 'demo-password-123';
const MARTS = ['customer_revenue', 'orders_enriched', 'revenue_by_country', 'revenue_by_month'];

function quarry(args: string[]) {
  const result = spawnSync(QUARRY_BIN, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the demo project, as a newcomer uses it', () => {
  it('loads and builds at its first start, runs a marts model with cascade, shows the events, the statuses and the lineage', { timeout: 120_000 }, async () => {
    expect(quarry(['init', dir, '--demo', '--admin-email', EMAIL, '--admin-password', PASSWORD, '--non-interactive']).code).toBe(0);
    const listed = quarry(['models', '--project', dir]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^orders_enriched +marts +table +not_run +stg_orders__orders$/m);
    expect(listed.stdout).toMatch(/^stg_orders__orders +staging +view +not_run$/m);

    const server = await spawnQuarry(dir);
    try {
      const login = await fetch(`${server.url}/api/auth/login`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
      });
      const cookie = sessionCookieOf(login.headers);
      const headers = { cookie, 'x-requested-with': 'XMLHttpRequest' };
      const statuses = async (): Promise<Record<string, string>> => {
        const listed = await (await fetch(`${server.url}/api/transform/models`, { headers })).json() as { models: { name: string; status: string }[] };
        return Object.fromEntries(listed.models.map((model) => [model.name, model.status]));
      };
      const ALL_BUILT = {
        customer_revenue: 'success', orders_enriched: 'success', revenue_by_country: 'success', revenue_by_month: 'success', stg_orders__orders: 'success',
      };
      // Nobody presses Sync: the first start loads the sample files, and auto_transform builds every model.
      await expect.poll(statuses, { timeout: 60_000, interval: 500 }).toEqual(ALL_BUILT);
      await expect.poll(async () => (await fetch(`${server.url}/api/sources/orders/details`, { headers })).json(), { timeout: 10_000 })
        .toMatchObject({ row_count: 240 });

      const socket = new WebSocket(`${server.url.replace('http', 'ws')}/ws`, { headers: { cookie } });
      const events: { type: string; model?: string; source?: string }[] = [];
      socket.on('message', (data: Buffer) => { events.push(JSON.parse(data.toString()) as { type: string }); });
      await once(socket, 'open');
      const seen = (type: string, model: string) => events.some((event) => event.type === type && event.model === model);

      const run = await fetch(`${server.url}/api/transform/models/orders_enriched/run?cascade=true`, { method: 'POST', headers });
      expect(run.status).toBe(200);
      await expect.poll(() => MARTS.every((model) => seen('transform_run_completed', model)), { timeout: 30_000 }).toBe(true);
      for (const model of MARTS) expect(seen('transform_run_started', model)).toBe(true);
      socket.close();

      expect(await statuses()).toEqual(ALL_BUILT);

      const docs = await fetch(`${server.url}/transform-docs/`, { headers: { cookie } });
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('dbt');
      // The catalog is regenerated after the run; once it lists the marts tables the lineage is complete.
      await expect.poll(async () => {
        const catalog = await (await fetch(`${server.url}/transform-docs/catalog.json`, { headers: { cookie } })).json() as { nodes: Record<string, unknown> };
        return Object.keys(catalog.nodes).sort();
      }, { timeout: 60_000 }).toEqual(['model.quarry.customer_revenue', 'model.quarry.orders_enriched', 'model.quarry.revenue_by_country', 'model.quarry.revenue_by_month', 'model.quarry.stg_orders__orders']);
      const manifest = await (await fetch(`${server.url}/manifest.json`, { headers: { cookie } })).json() as { child_map: Record<string, string[]> };
      // Its data tests are children too.
      expect(manifest.child_map['model.quarry.orders_enriched']?.filter((child) => child.startsWith('model.')).sort()).toEqual(['model.quarry.customer_revenue', 'model.quarry.revenue_by_country', 'model.quarry.revenue_by_month']);
      expect(manifest.child_map['source.quarry.orders.orders']).toEqual(['model.quarry.stg_orders__orders']);
    } finally {
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
    }

    const single = quarry(['run', 'revenue_by_month', '--no-cascade', '--project', dir]);
    expect(single.stderr).toBe('');
    expect(single.code).toBe(0);
    expect(single.stdout).toMatch(/^revenue_by_month +model +success +\d+\.\d\d s$/m);
    // The model's data tests run with it (dbt build), and are reported beside it.
    expect(single.stdout).toMatch(/^not_null_revenue_by_month_\w+ +test +pass/m);
    expect(single.stdout).toMatch(/^1 of 1 models, seeds and snapshots built; tests: \d+ passed, 0 failed, 0 warned, 0 skipped$/m);
  });
});
