import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { queryLake } from '../support/duckdb-query.ts';
import { QUARRY_BIN, spawnQuarry, type QuarryProcess } from '../support/quarry-process.ts';
import { sessionCookieOf } from '../support/quarry.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'quarry-run-crash-'));
const EMAIL = 'admin@example.com';
const PASSWORD = 'demo-password-123';

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function headersFor(server: QuarryProcess): Promise<Record<string, string>> {
  const login = await fetch(`${server.url}/api/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  return { cookie: sessionCookieOf(login.headers), 'x-requested-with': 'XMLHttpRequest' };
}

async function modelStatuses(server: QuarryProcess, headers: Record<string, string>): Promise<Record<string, string>> {
  const models = await (await fetch(`${server.url}/api/transform/models`, { headers })).json() as { models: { name: string; status: string }[] };
  return Object.fromEntries(models.models.map((model) => [model.name, model.status]));
}

async function stop(server: QuarryProcess): Promise<void> {
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await exited;
}

describe('a crash in the middle of a model run', () => {
  it('keeps the last built tables, records the run interrupted, and the next run succeeds', { timeout: 180_000 }, async () => {
    expect(spawnSync(QUARRY_BIN, ['init', dir, '--demo', '--admin-email', EMAIL, '--admin-password', PASSWORD, '--non-interactive']).status).toBe(0);
    // Models run when this test says, not after each sync as the demo has them.
    const projectFile = path.join(dir, '.quarry', 'project.yml');
    const projectYaml = readFileSync(projectFile, 'utf8');
    expect(projectYaml).toContain('auto_transform: true');
    writeFileSync(projectFile, projectYaml.replace('auto_transform: true', 'auto_transform: false'));
    // A model slow enough to be caught in the middle: several seconds of DuckDB arithmetic.
    writeFileSync(path.join(dir, 'transform', 'models', 'marts', 'slow_totals.sql'),
      "select count(*) as orders, (select sum(i % 7) from range(6000000000) t(i)) as busy from {{ ref('stg_orders__orders') }}\n");

    let server = await spawnQuarry(dir);
    let headers = await headersFor(server);
    // The first start loads the demo's files, which builds their staging models.
    await expect.poll(async () => (await modelStatuses(server, headers)).stg_orders__orders, { timeout: 60_000 }).toBe('success');
    expect((await fetch(`${server.url}/api/transform/models/orders_enriched/run?cascade=true`, { method: 'POST', headers })).status).toBe(200);
    await expect.poll(async () => (await modelStatuses(server, headers)).orders_enriched, { timeout: 60_000 }).toBe('success');

    expect((await fetch(`${server.url}/api/transform/models/slow_totals/run?cascade=false`, { method: 'POST', headers })).status).toBe(200);
    await expect.poll(async () => (await modelStatuses(server, headers)).slow_totals, { timeout: 30_000 }).toBe('running');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const killed = once(server.child, 'exit');
    server.child.kill('SIGKILL');
    await killed;

    server = await spawnQuarry(dir);
    try {
      headers = await headersFor(server);
      // The models list comes back at once from the manifest the last run left.
      await expect.poll(async () => (await modelStatuses(server, headers)).orders_enriched, { timeout: 5000 }).toBe('success');
      expect((await modelStatuses(server, headers)).slow_totals).not.toBe('running');
      const activity = await (await fetch(`${server.url}/api/logs?limit=50`, { headers })).json() as { message: string }[];
      expect(activity.some((entry) => /The run job \d+ was interrupted when the process running it \(pid \d+\) stopped; the previous data is intact/.test(entry.message))).toBe(true);
      // The tables built before the crash are intact and readable.
      const rows = await queryLake(dir, 'SELECT count(*)::INTEGER AS n FROM marts.orders_enriched');
      expect(Number(rows[0]?.n)).toBeGreaterThan(0);
      // And the next run works.
      expect((await fetch(`${server.url}/api/transform/models/orders_enriched/run?cascade=false`, { method: 'POST', headers })).status).toBe(200);
      await expect.poll(async () => (await modelStatuses(server, headers)).orders_enriched, { timeout: 60_000 }).toBe('success');
    } finally {
      await stop(server);
    }
  });
});
