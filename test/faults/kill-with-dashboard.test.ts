import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { QUARRY_BIN, spawnQuarry, type QuarryProcess } from '../support/quarry-process.ts';
import { sessionCookieOf } from '../support/quarry.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'quarry-dashboard-crash-'));
const EMAIL = 'admin@example.com';
const PASSWORD = 'admin-password-123';
const PID_FILE = path.join(dir, '.quarry', 'dashboard', 'gunicorn.pid');

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

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

describe('Quarry killed with -9 while the dashboard tool runs', () => {
  it('ends the Superset it left behind at the next start, which takes the configured port again', { timeout: 360_000 }, async () => {
    expect(spawnSync(QUARRY_BIN, ['init', dir, '--admin-email', EMAIL, '--admin-password', PASSWORD, '--non-interactive']).status).toBe(0);
    const port = await freePort();
    const projectFile = path.join(dir, '.quarry', 'project.yml');
    const config = parse(readFileSync(projectFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(projectFile, stringify({ ...config, dashboard: { port }, transform_docs: { port: await freePort() } }));

    const first = await spawnQuarry(dir, { dashboard: true });
    await dashboardRunning(first);
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
      expect(second.output()).not.toContain('Error');
    } finally {
      const stopped = once(second.child, 'exit');
      second.child.kill('SIGTERM');
      await stopped;
    }
    // A clean stop leaves nothing running behind.
    await expect.poll(() => existsSync(PID_FILE) ? alive(Number(readFileSync(PID_FILE, 'utf8'))) : false, { timeout: 15_000 }).toBe(false);
  });
});
