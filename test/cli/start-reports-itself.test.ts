import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { QUARRY_BIN, spawnQuarry, type QuarryProcess } from '../support/quarry-process.ts';

describe('quarry start --port P --no-dashboard describes itself as it runs', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'quarry-start-'));
  let server: QuarryProcess;
  let port: number;
  let cookie: string;
  beforeAll(async () => {
    spawnSync(QUARRY_BIN, ['init', dir, '--admin-email', 'a@example.com', '--admin-password', 'a-good-password', '--non-interactive']);
    port = await freePort();
    server = await spawnQuarry(dir, { port });
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a@example.com', password: 'a-good-password' }),
    });
    cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  });
  afterAll(async () => {
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });

  const get = async (url: string): Promise<unknown> => (await fetch(`${server.url}${url}`, { headers: { cookie } })).json();

  it('reports the port it listens on at /api/config, not the configured 8800', async () => {
    const base = `http://127.0.0.1:${String(port)}`;
    expect(server.url).toBe(base);
    expect(await get('/api/config')).toEqual({
      web_port: port, web_url: base, dashboard_url: `${base}/dashboard/`, transform_docs_url: `${base}/transform-docs/`, api_url: `${base}/api`,
      project_name: expect.any(String), organization: expect.any(String),
    });
  });

  it('says the dashboard tool is disabled at /api/dashboard-config and /api/status', async () => {
    expect(await get('/api/dashboard-config')).toMatchObject({ enabled: false, running: false, state: 'disabled', dashboard_url: `${server.url}/dashboard/` });
    expect(await get('/api/status')).toMatchObject({ services: { dashboard: 'disabled' } });
  });
});
