import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';
import type { Role } from '../../src/store/index.ts';

// One Superset for the whole file: its first start (metadata DB, roles, service account) takes about half a minute.
describe('the dashboard tool (Superset) under /dashboard/', () => {
  let quarry: TestQuarry;

  beforeAll(async () => {
    quarry = await startQuarry({ dashboard: true });
  }, 240_000);
  afterAll(async () => {
    await quarry.close();
  }, 60_000);

  it('initialises Superset inside the project and reports it running on loopback', async () => {
    expect(quarry.dashboard?.status().state).toBe('running');
    expect(quarry.dashboard?.origin()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const status = await quarry.request('GET', '/api/status', { as: 'viewer' });
    expect(status.json.services.dashboard).toBe('running');
    const health = await fetch(`${quarry.dashboard?.origin() ?? ''}/dashboard/health`);
    expect(await health.text()).toBe('OK');
  });

  const loginCookies = async (role: Role): Promise<string[]> => {
    const response = await fetch(`${quarry.url}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAILS[role], password: PASSWORDS[role] }),
    });
    expect(response.status).toBe(200);
    return response.headers.getSetCookie();
  };
  const cookieHeader = (setCookies: string[]): string => setCookies.map((cookie) => cookie.split(';')[0]).join('; ');

  it('gives every user a dashboard account with the mapped role, signed in through the proxy without a second login', async () => {
    const expected: Record<Role, string[]> = { admin: ['Admin'], editor: ['Alpha', 'sql_lab'], viewer: ['Gamma'] };
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      const me = await quarry.request('GET', '/dashboard/api/v1/me/roles/', { as: role });
      expect(me.status).toBe(200);
      expect(me.json.result.username).toBe(EMAILS[role]);
      expect(Object.keys(me.json.result.roles).sort()).toEqual(expected[role]);
      const user = quarry.ctx.store.users.findByEmail(EMAILS[role]);
      const account = quarry.ctx.store.dashboardAccounts.get(user?.id ?? 0);
      expect(account).toMatchObject({ username: EMAILS[role], active: true });
      expect(account?.passwordEncrypted).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    }
  });

  it('describes the dashboard tool and the caller\'s account at /api/dashboard-config, without secrets', async () => {
    const config = await quarry.request('GET', '/api/dashboard-config', { as: 'viewer' });
    expect(config.status).toBe(200);
    expect(config.json).toEqual({
      dashboard_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/dashboard\/$/), enabled: true, running: true, state: 'running', database: null,
      account: { username: EMAILS.viewer, active: true, synced_at: expect.any(String) },
    });
  });

  it('sets dashboard.SESSION beside svc_session at login, and logout ends both', async () => {
    const setCookies = await loginCookies('editor');
    expect(setCookies.find((cookie) => cookie.startsWith('svc_session='))).toBeDefined();
    const dashboardCookie = setCookies.find((cookie) => cookie.startsWith('dashboard.SESSION='));
    expect(dashboardCookie).toMatch(/; Path=\/dashboard/);
    expect(dashboardCookie).toContain('HttpOnly');
    const cookie = cookieHeader(setCookies);
    const me = await quarry.request('GET', '/dashboard/api/v1/me/', { cookie, headers: { accept: 'application/json' } });
    expect(me.status).toBe(200);
    expect(me.json.result.username).toBe(EMAILS.editor);

    const logout = await quarry.request('POST', '/api/auth/logout', { cookie, headers: { 'x-requested-with': 'XMLHttpRequest' } });
    expect(logout.status).toBe(200);
    expect(logout.headers.getSetCookie().find((value) => value.startsWith('dashboard.SESSION=;'))).toMatch(/Path=\/dashboard/);
    const after = await quarry.request('GET', '/dashboard/api/v1/me/', { cookie, headers: { accept: 'application/json' } });
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/login?next=%2Fdashboard%2Fapi%2Fv1%2Fme%2F');
  });

  it('refuses requests without a platform session and ignores forged identity headers', async () => {
    const api = await quarry.request('GET', '/dashboard/api/v1/me/', { headers: { accept: 'application/json', 'x-quarry-user': EMAILS.admin } });
    expect(api.status).toBe(303);
    expect(api.headers.get('location')).toBe('/login?next=%2Fdashboard%2Fapi%2Fv1%2Fme%2F');
    const page = await quarry.request('GET', '/dashboard/', { headers: { accept: 'text/html' } });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login?next=%2Fdashboard%2F');

    const forged = await quarry.request('GET', '/dashboard/api/v1/me/roles/', {
      as: 'viewer', headers: { 'x-quarry-user': EMAILS.admin, 'x-quarry-proxy-secret': 'guess', x_quarry_user: EMAILS.admin },
    });
    expect(forged.status).toBe(200);
    expect(forged.json.result.username).toBe(EMAILS.viewer);
    // Straight at Superset, the header without the proxy's secret is nobody.
    const direct = await fetch(`${quarry.dashboard?.origin() ?? ''}/dashboard/api/v1/me/`, { headers: { 'x-quarry-user': EMAILS.admin, 'x-quarry-proxy-secret': 'guess' } });
    expect(direct.status).toBe(401);
  });

  it('restarts Superset when it dies', async () => {
    const pid = quarry.dashboard?.status().pid;
    expect(pid).toBeTypeOf('number');
    process.kill(-(pid ?? 0), 'SIGKILL');
    await vi.waitFor(() => {
      expect(quarry.dashboard?.status().state).toBe('running');
      expect(quarry.dashboard?.status().pid).not.toBe(pid);
    }, { timeout: 60_000, interval: 200 });
  }, 70_000);

  it('reports not_running once stopped and answers 502 upstream_unavailable', async () => {
    await quarry.dashboard?.stop();
    const status = await quarry.request('GET', '/api/status', { as: 'viewer' });
    expect(status.json.services.dashboard).toBe('not_running');
    const json = await quarry.request('GET', '/dashboard/api/v1/me/', { as: 'viewer', headers: { accept: 'application/json' } });
    expect(json.status).toBe(502);
    expect(json.json).toEqual({ detail: 'The dashboard tool is not available right now', code: 'upstream_unavailable' });
    const page = await quarry.request('GET', '/dashboard/', { as: 'viewer', headers: { accept: 'text/html' } });
    expect(page.status).toBe(502);
    expect(page.text).toContain('The dashboard tool is not available right now');
  }, 30_000);
});

describe('a project with the dashboard tool disabled', () => {
  it('reports it disabled', async () => {
    const quarry = await startQuarry({ projectConfig: { dashboard: { enabled: false } } });
    try {
      const status = await quarry.request('GET', '/api/status', { as: 'viewer' });
      expect(status.json.services.dashboard).toBe('disabled');
      const config = await quarry.request('GET', '/api/dashboard-config', { as: 'viewer' });
      expect(config.json).toMatchObject({ enabled: false, running: false, state: 'disabled', account: null });
    } finally {
      await quarry.close();
    }
  });
});
