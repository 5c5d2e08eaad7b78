import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { QUARRY_BIN, spawnQuarry, type QuarryProcess } from '../support/quarry-process.ts';
import { copyInitialisedSupersetHome } from '../support/superset-home.ts';
import { freePort } from '../support/free-port.ts';
import { sessionCookieOf } from '../support/quarry.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'quarry-dashboard-crash-'));
const EMAIL = 'admin@example.com';
const PASSWORD = 'admin-password-123';
const PID_FILE = path.join(dir, '.quarry', 'dashboard', 'gunicorn.pid');

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const alive = (pid: number): boolean => existsSync(`/proc/${String(pid)}`) && !readFileSync(`/proc/${String(pid)}/stat`, 'utf8').includes(') Z ');

async function dashboardRunning(server: QuarryProcess): Promise<{ headers: Record<string, string> }> {
  const login = await fetch(`${server.url}/api/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  const headers = { cookie: sessionCookieOf(login.headers), accept: 'application/json' };
  await expect.poll(async () => (await (await fetch(`${server.url}/api/status`, { headers })).json() as { services: { dashboard: string } }).services.dashboard,
    { timeout: 180_000, interval: 500 }).toBe('running');
  return { headers };
}

async function shippedDashboards(server: QuarryProcess, headers: Record<string, string>): Promise<string[]> {
  const response = await fetch(`${server.url}/dashboard/api/v1/dashboard/`, { headers });
  if (response.status !== 200) return [];
  return ((await response.json()) as { result: { slug: string }[] }).result.map((dashboard) => dashboard.slug);
}

async function stop(server: QuarryProcess): Promise<void> {
  const stopped = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await stopped;
}

describe('the dashboard tool after a crash or a lost metadata DB', () => {
  it('ends the Superset a Quarry killed with -9 left behind at the next start, which takes the configured port again', { timeout: 360_000 }, async () => {
    expect(spawnSync(QUARRY_BIN, ['init', dir, '--demo', '--admin-email', EMAIL, '--admin-password', PASSWORD, '--non-interactive']).status).toBe(0);
    const port = await freePort();
    const projectFile = path.join(dir, '.quarry', 'project.yml');
    const config = parse(readFileSync(projectFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(projectFile, stringify({ ...config, dashboard: { port }, transform_docs: { port: await freePort() } }));
    // The first start's initialisation is not what this file tests; the rebuild below initialises one anew.
    await copyInitialisedSupersetHome(path.join(dir, '.quarry', 'dashboard'));

    const first = await spawnQuarry(dir, { dashboard: true });
    const { headers: firstHeaders } = await dashboardRunning(first);
    // The first start loads the demo's files and runs its models: the registered warehouse and shipped dashboard
    // give the rebuild below something to bring back.
    await expect.poll(() => shippedDashboards(first, firstHeaders), { timeout: 120_000, interval: 500 }).toEqual(['sales']);
    const orphan = Number(readFileSync(PID_FILE, 'utf8'));
    const killed = once(first.child, 'exit');
    first.child.kill('SIGKILL');
    await killed;
    // gunicorn runs in its own process group: it outlives Quarry and still holds the port.
    expect(alive(orphan)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${String(port)}/dashboard/health`)).status).toBe(200);

    const second = await spawnQuarry(dir, { dashboard: true });
    try {
      const { headers } = await dashboardRunning(second);
      expect(alive(orphan)).toBe(false);
      const successor = Number(readFileSync(PID_FILE, 'utf8'));
      expect(successor).not.toBe(orphan);
      expect(readFileSync(`/proc/${String(successor)}/cmdline`, 'utf8')).toContain(`127.0.0.1:${String(port)}`);
      const me = await fetch(`${second.url}/dashboard/api/v1/me/`, { headers });
      expect(me.status).toBe(200);
      expect(second.output()).not.toContain('"level":50');
    } finally {
      await stop(second);
    }
    // A clean stop leaves nothing running behind.
    await expect.poll(() => existsSync(PID_FILE) ? alive(Number(readFileSync(PID_FILE, 'utf8'))) : false, { timeout: 15_000 }).toBe(false);
  });

  it('builds a lost Superset metadata DB again at the next start, with the accounts, the warehouse and the shipped dashboards', { timeout: 240_000 }, async () => {
    rmSync(path.join(dir, '.quarry', 'dashboard', 'superset.db'));
    const third = await spawnQuarry(dir, { dashboard: true });
    try {
      const { headers } = await dashboardRunning(third);
      expect((await fetch(`${third.url}/dashboard/api/v1/me/`, { headers })).status).toBe(200);
      await expect.poll(() => shippedDashboards(third, headers), { timeout: 120_000, interval: 500 }).toEqual(['sales']);
      const config = await (await fetch(`${third.url}/api/dashboard-config`, { headers })).json() as { database: { datasets: string[] } };
      expect(config.database.datasets).toContain('marts.revenue_by_month');
    } finally {
      await stop(third);
    }
  });
});
