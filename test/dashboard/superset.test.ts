import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Fastify from 'fastify';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEMO_SOURCES_YAML } from '../../src/cli/demo-data.ts';
import { SERVICE_ACCOUNT, SupersetApi } from '../../src/dashboard/index.ts';
import type { Role } from '../../src/store/index.ts';
import { launchBrowser, screenshot, signIn } from '../support/browser.ts';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { EMAILS, PASSWORDS, startQuarry, type TestQuarry } from '../support/quarry.ts';
import { rawRequest } from '../support/raw-request.ts';

const MARTS = ['marts.customer_revenue', 'marts.orders_enriched', 'marts.revenue_by_country', 'marts.revenue_by_month'];

/** A JSON API whose one page is held until the test releases it: a sync that stays running for as long as the test needs. */
async function startHeldFeed(): Promise<{ api: FakeApi; hold: () => { reached: Promise<unknown>; release: () => void } }> {
  let gate: { reached: () => void; released: Promise<unknown> } | undefined;
  const api = await startFakeApi((app) => {
    app.get('/v1/feed', async () => {
      gate?.reached();
      await gate?.released;
      return { data: [{ id: 1, kind: 'held' }] };
    });
  });
  return {
    api,
    hold: () => {
      const reached = Promise.withResolvers();
      const released = Promise.withResolvers();
      gate = { reached: () => { reached.resolve(undefined); }, released: released.promise };
      return { reached: reached.promise, release: () => { released.resolve(undefined); } };
    },
  };
}

// One Superset for the whole file: its first start (metadata DB, roles, service account) takes about half a minute.
describe('the dashboard tool (Superset) under /dashboard/, on the demo project', () => {
  let quarry: TestQuarry;
  let browser: Browser;
  let superset: SupersetApi;
  let feed: Awaited<ReturnType<typeof startHeldFeed>>;

  const dashboardConfig = async () => (await quarry.request('GET', '/api/dashboard-config', { as: 'admin' })).json;
  const datasetId = async (table: string): Promise<number> => {
    const [schema, name] = table.split('.');
    const listed = await superset.list<{ id: number; schema: string; table_name: string }>('/api/v1/dataset/', { col: 'table_name', opr: 'eq', value: name ?? '' });
    const found = listed.find((row) => row.schema === schema);
    if (found === undefined) throw new Error(`no dataset ${table}`);
    return found.id;
  };
  const revenueByCountry = async (role: Role) => quarry.request('POST', '/dashboard/api/v1/chart/data', {
    as: role,
    body: {
      datasource: { id: await datasetId('marts.revenue_by_country'), type: 'table' }, force: true, result_format: 'json', result_type: 'full',
      queries: [{ columns: [], metrics: [{ expressionType: 'SQL', sqlExpression: 'SUM(orders)', label: 'orders' }], row_limit: 10 }],
    },
  });

  beforeAll(async () => {
    feed = await startHeldFeed();
    const sourcesYaml = `${DEMO_SOURCES_YAML}  - name: feed\n    type: rest_api\n    rest_api:\n      base_url: ${feed.api.url}/v1\n      auth_type: none\n`
      + '      endpoints:\n        - path: /feed\n          data_selector: data\n';
    [quarry, browser] = await Promise.all([
      startQuarry({ dashboard: true, freshDashboardHome: true, demo: true, transform: true, sourcesYaml }),
      launchBrowser(),
    ]);
    superset = new SupersetApi({ origin: () => quarry.dashboard?.origin(), username: SERVICE_ACCOUNT, password: () => quarry.dashboard?.servicePassword() ?? '' });
    // The demo as a newcomer starts it: the sync runs the models (auto_transform), which registers the marts and the dashboard.
    expect((await quarry.request('POST', '/api/sources/orders/sync', { as: 'admin' })).status).toBe(200);
    await vi.waitFor(async () => {
      expect((await dashboardConfig()).database?.datasets).toEqual(MARTS);
      const dashboards = await superset.list<{ slug: string }>('/api/v1/dashboard/');
      expect(dashboards.map((dashboard) => dashboard.slug)).toEqual(['sales']);
    }, { timeout: 120_000, interval: 500 });
  }, 300_000);
  afterAll(async () => {
    await browser.close();
    await quarry.close();
    await feed.api.close();
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

  /** A browser-like session as `role` through the proxy: both cookies and the CSRF token Superset wants on writes. */
  const supersetSession = async (role: Role): Promise<{ cookie: string; headers: Record<string, string> }> => {
    const cookie = cookieHeader(await loginCookies(role));
    const headers = { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' };
    const csrf = await quarry.request('GET', '/dashboard/api/v1/security/csrf_token/', { cookie, headers });
    return { cookie, headers: { ...headers, 'x-csrftoken': csrf.json.result } };
  };

  /** SQL Lab as `role`, through the proxy. */
  const sqlLab = async (role: Role, databaseId: number) => {
    const session = await supersetSession(role);
    return async (sql: string) => quarry.request('POST', '/dashboard/api/v1/sqllab/execute/', {
      ...session, body: { database_id: databaseId, sql, runAsync: false, schema: 'marts', tab: 'test', client_id: randomBytes(5).toString('hex'), queryLimit: 100 },
    });
  };

  it('gives every user a dashboard account with the mapped role, signed in through the proxy without a second login', async () => {
    const expected: Record<Role, string[]> = { admin: ['Admin'], editor: ['Alpha', 'sql_lab'], viewer: ['quarry_viewer'] };
    for (const role of ['admin', 'editor', 'viewer'] as const) {
      const me = await quarry.request('GET', '/dashboard/api/v1/me/roles/', { as: role });
      expect(me.status).toBe(200);
      expect(me.json.result.username).toBe(EMAILS[role]);
      expect(Object.keys(me.json.result.roles).sort()).toEqual(expected[role]);
      const user = await quarry.ctx.store.users.findByEmail(EMAILS[role]);
      const account = await quarry.ctx.store.dashboardAccounts.get(user?.id ?? 0);
      expect(account).toMatchObject({ username: EMAILS[role], active: true, role });
      expect(account?.passwordEncrypted).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    }
  });

  it('pushes a new user, a role change, a deactivation and a deletion to Superset at once', async () => {
    const email = 'newcomer@example.com';
    const supersetUser = async () => {
      const [found] = await superset.list<{ id: number }>('/api/v1/security/users/', { col: 'username', opr: 'eq', value: email });
      const detail = await superset.request<{ result: { active: boolean; roles: { name: string }[] } }>('GET', `/api/v1/security/users/${String(found?.id)}`);
      return { active: detail.result.active, roles: detail.result.roles.map((role) => role.name).sort() };
    };
    const created = await quarry.request('POST', '/api/users', { as: 'admin', body: { email, name: 'New Comer', role: 'viewer', password: 'newcomer-password-1' } });
    expect(created.status).toBe(201);
    expect(await supersetUser()).toEqual({ active: true, roles: ['quarry_viewer'] });
    expect((await quarry.request('PATCH', `/api/users/${email}`, { as: 'admin', body: { role: 'editor' } })).status).toBe(200);
    expect(await supersetUser()).toEqual({ active: true, roles: ['Alpha', 'sql_lab'] });
    expect((await quarry.request('PATCH', `/api/users/${email}`, { as: 'admin', body: { active: false } })).status).toBe(200);
    expect((await supersetUser()).active).toBe(false);
    expect((await quarry.request('PATCH', `/api/users/${email}`, { as: 'admin', body: { active: true } })).status).toBe(200);
    expect((await supersetUser()).active).toBe(true);
    expect((await quarry.request('DELETE', `/api/users/${email}`, { as: 'admin' })).status).toBe(200);
    expect((await supersetUser()).active).toBe(false);
  });

  it('gives a user who inherits a deleted user\'s id, or re-uses a deleted user\'s email, an account of their own', async () => {
    const supersetUser = async (email: string) => {
      const [found] = await superset.list<{ id: number; username: string; active: boolean }>('/api/v1/security/users/', { col: 'username', opr: 'eq', value: email });
      return found;
    };
    const add = async (email: string) => {
      expect((await quarry.request('POST', '/api/users', { as: 'admin', body: { email, name: 'Someone', role: 'viewer', password: 'someone-password-1' } })).status).toBe(201);
      return (await quarry.ctx.store.users.findByEmail(email))?.id;
    };
    const first = await add('first@example.com');
    expect((await quarry.request('DELETE', '/api/users/first@example.com', { as: 'admin' })).status).toBe(200);
    // SQLite gives the newest row's id to the next user: the account recorded under it was the deleted user's.
    expect(await add('second@example.com')).toBe(first);
    const [deleted, second] = [await supersetUser('first@example.com'), await supersetUser('second@example.com')];
    expect(deleted?.active).toBe(false);
    expect(second?.active).toBe(true);
    expect(second?.id).not.toBe(deleted?.id);

    expect((await quarry.request('DELETE', '/api/users/second@example.com', { as: 'admin' })).status).toBe(200);
    await add('second@example.com');
    const login = await fetch(`${quarry.url}/api/auth/login`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'second@example.com', password: 'someone-password-1' }),
    });
    const me = await quarry.request('GET', '/dashboard/api/v1/me/', { cookie: cookieHeader(login.headers.getSetCookie()), headers: { accept: 'application/json' } });
    expect(me.status).toBe(200);
    expect(me.json.result.username).toBe('second@example.com');
    expect((await supersetUser('first@example.com'))?.active).toBe(false);
  });

  it('describes the dashboard tool, the registered warehouse and the caller\'s account at /api/dashboard-config, without secrets', async () => {
    const config = await quarry.request('GET', '/api/dashboard-config', { as: 'viewer' });
    expect(config.status).toBe(200);
    expect(config.json).toEqual({
      dashboard_url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/dashboard\/$/), enabled: true, running: true, state: 'running',
      database: { id: expect.any(Number), name: 'warehouse', datasets: MARTS, refreshed_at: expect.any(String) },
      account: { username: EMAILS.viewer, active: true, synced_at: expect.any(String) },
    });
  });

  it('registers the lake read-only and sandboxed: SQL reads the marts, writes, host files and the catalog extension\'s functions are refused', async () => {
    const { database } = await dashboardConfig();
    const registered = await superset.request<{ result: { sqlalchemy_uri: string } }>('GET', `/api/v1/database/${String(database.id)}/connection`);
    expect(registered.result.sqlalchemy_uri).toBe('duckdb:///quarry_lake');

    const run = await sqlLab('editor', database.id);
    const count = await run('select count(*) as n from marts.orders_enriched');
    expect(count.status).toBe(200);
    expect(count.json.data).toEqual([{ n: 240 }]);
    const write = await run('create table marts.intruder as select 1 as x');
    expect(write.status).toBeGreaterThanOrEqual(400);
    expect(write.text).toMatch(/read-only|DML/i);
    const host = await run("select * from read_text('/etc/passwd')");
    expect(host.status).toBeGreaterThanOrEqual(400);
    expect(host.text).toMatch(/function read_text is refused/i);
    const files = await run("select * from '/etc/passwd'");
    expect(files.status).toBeGreaterThanOrEqual(400);
    // sqlite_scanner (the catalog's extension) ignores enable_external_access: only the check before the query stops it.
    for (const sql of [
      `select * from sqlite_scan('${path.join(quarry.dir, '.quarry', 'platform.db')}', 'users')`,
      `select * from "SQLITE_SCAN"('${path.join(quarry.dir, '.quarry', 'platform.db')}', 'users')`,
      `select * from query('select 1')`,
    ]) {
      const refused = await run(sql);
      expect({ sql, status: refused.status, text: refused.text }).toEqual({ sql, status: expect.any(Number), text: expect.stringMatching(/is refused/) });
      expect(refused.status).toBeGreaterThanOrEqual(400);
    }
  });

  it('keeps every database an admin registers on the sandboxed lake, whatever its URI or engine parameters say', async () => {
    const admin = await supersetSession('admin');
    const register = async (name: string, uri: string, extra: unknown) => quarry.request('POST', '/dashboard/api/v1/database/', {
      ...admin, body: { database_name: name, sqlalchemy_uri: uri, expose_in_sqllab: true, allow_dml: true, extra: JSON.stringify(extra) },
    });
    const hostileParams = { engine_params: { connect_args: {
      url_config: { enable_external_access: 'true', lock_configuration: 'false' }, database: ':memory:', read_only: false,
    } } };
    const hostile = await register('hostile', 'duckdb:///quarry_lake?access_mode=read_write&enable_external_access=true', hostileParams);
    expect(hostile.status, hostile.text).toBe(201);
    const run = await sqlLab('admin', hostile.json.id);
    // The lake, not the `:memory:` database the parameters name; SQL may not read settings (current_setting is not
    // allowed), so the sandbox's own are checked where it is opened (test/security/reader-writes.test.ts).
    const lake = await run("select count(*) as n, (select count(*) from duckdb_tables() where database_name <> 'warehouse') as elsewhere from marts.orders_enriched");
    expect(lake.json.data).toEqual([{ n: 240, elsewhere: 0 }]);
    expect((await run("select * from read_csv('/etc/passwd')")).text).toMatch(/refused|disabled by configuration|Permission Error/i);
    expect((await run('create table marts.intruder as select 1 as x')).text).toMatch(/read-only/i);
    for (const uri of ['duckdb:///:memory:', `duckdb:///${path.join(quarry.dir, '.quarry', 'platform.db')}`, 'postgresql://postgres@127.0.0.1:5432/test']) {
      const refused = await register(`elsewhere-${String(uri.length)}`, uri, {});
      expect({ uri, status: refused.status }).toEqual({ uri, status: 422 });
    }
  });

  it('lets a viewer read chart data from the lake', async () => {
    const data = await revenueByCountry('viewer');
    expect(data.status).toBe(200);
    expect(data.json.result[0].data).toEqual([{ orders: 240 }]);
  });

  it('keeps answering chart queries from the lake while a sync is running', async () => {
    const held = feed.hold();
    expect((await quarry.request('POST', '/api/sources/feed/sync', { as: 'admin' })).status).toBe(200);
    await held.reached;
    for (let query = 0; query < 3; query++) {
      expect((await quarry.ctx.store.jobs.latest('sync', 'feed'))?.status).toBe('running');
      const data = await revenueByCountry('viewer');
      expect(data.status).toBe(200);
      expect(data.json.result[0].data).toEqual([{ orders: 240 }]);
    }
    held.release();
    await vi.waitFor(async () => { expect((await quarry.ctx.store.jobs.latest('sync', 'feed'))?.status).toBe('success'); }, { timeout: 30_000 });
    // And after the sync committed its snapshot.
    expect((await revenueByCountry('viewer')).json.result[0].data).toEqual([{ orders: 240 }]);
  }, 60_000);

  it('refreshes a dataset\'s columns when its marts model changes', async () => {
    const model = path.join(quarry.dir, 'transform', 'models', 'marts', 'revenue_by_country.sql');
    // The demo dashboard's pie chart reads revenue: it stays, one column is added.
    writeFileSync(model, 'select country, count(*) as orders, round(sum(revenue), 2) as revenue, round(avg(revenue), 2) as average_order from {{ ref(\'orders_enriched\') }} group by country\n');
    const run = await quarry.request('POST', '/api/transform/models/revenue_by_country/run', { as: 'admin' });
    expect(run.status).toBe(200);
    const id = await datasetId('marts.revenue_by_country');
    await vi.waitFor(async () => {
      const dataset = await superset.request<{ result: { columns: { column_name: string }[] } }>('GET', `/api/v1/dataset/${String(id)}`);
      expect(dataset.result.columns.map((column) => column.column_name).sort()).toEqual(['average_order', 'country', 'orders', 'revenue']);
    }, { timeout: 60_000, interval: 500 });
  }, 70_000);

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

  it('never forwards to another host or outside Superset, whatever the request target says', async () => {
    const seenElsewhere: string[] = [];
    const elsewhere = Fastify();
    elsewhere.all('/*', async (request) => {
      seenElsewhere.push(`${request.method} ${request.url}`);
      return 'elsewhere';
    });
    const other = new URL(await elsewhere.listen({ host: '127.0.0.1', port: 0 })).host;
    try {
      const cookie = await quarry.login('viewer');
      const secretKey = readFileSync(path.join(quarry.dir, '.quarry', 'secret.key'), 'utf8').trim();
      const targets = [
        `http://${other}/dashboard/`, `//${other}/dashboard/`, `/dashboard//${other}/`, `/dashboard/%2F%2F${other}/`, `/dashboard/@${other}/`,
        `/dashboard@${other}/`, `/dashboard/http://${other}/`, `/dashboard/%5C%5C${other}/`, '/dashboard/../.quarry/secret.key',
        '/dashboard/..%2F.quarry%2Fsecret.key', '/dashboard/%2e%2e/%2e%2e/etc/passwd', '/dashboard/dashboard/api/../../../.quarry/secret.key',
        '/dashboard/static/../../../.quarry/secret.key', '/dashboard/%00/', `/dashboard/login/?next=//${other}/`, `/dashboard/logout/?next=http://${other}/`,
      ];
      for (const target of targets) {
        const response = await rawRequest(quarry.url, `GET ${target} HTTP/1.1`, { cookie, accept: 'application/json' });
        expect({ target, answered: response.status >= 200 && response.status < 500 }).toEqual({ target, answered: true });
        expect({ target, leaked: response.body.includes(secretKey) || response.body.includes('root:x:0') }).toEqual({ target, leaked: false });
        const location = /^location:\s*(.*)$/im.exec(response.head)?.[1]?.trim();
        if (location !== undefined) {
          expect({ target, onSite: new URL(location, quarry.url).origin === quarry.url && !location.startsWith('//') }).toEqual({ target, onSite: true });
        }
      }
      expect(seenElsewhere).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  }, 60_000);

  it('takes a newcomer from Quarry\'s Dashboards link to the demo dashboard, signed in once, with the demo data', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    try {
      await signIn(page, quarry.url, EMAILS.viewer, PASSWORDS.viewer);
      await page.waitForURL(`${quarry.url}/`);
      // The project ships a dashboard, so the Dashboards link opens it.
      await page.getByRole('link', { name: 'Dashboards' }).click();
      await page.waitForURL(/\/dashboard\/superset\/dashboard\/sales\//);
      await expect.poll(() => page.getByText('Demo shop sales').count(), { timeout: 60_000 }).toBeGreaterThan(0);
      // The big numbers are the demo's figures, read from the lake: 240 orders.
      await expect.poll(() => page.getByText('240', { exact: true }).count(), { timeout: 60_000 }).toBeGreaterThan(0);
      await expect.poll(() => page.locator('canvas, svg.echarts, [data-test="chart-container"] svg').count(), { timeout: 30_000 }).toBeGreaterThan(0);
      await page.waitForLoadState('networkidle');
      await screenshot(page, 'dashboard-demo');
      await expect.poll(() => page.getByText('Barbara', { exact: true }).count(), { timeout: 30_000 }).toBeGreaterThan(0);
      expect(await page.getByLabel('Password').count()).toBe(0);
    } finally {
      await page.close();
    }
  }, 120_000);

  it('opens Superset\'s list of dashboards when the dashboard the project ships is gone', async () => {
    const [shipped] = await superset.list<{ id: number }>('/api/v1/dashboard/', { col: 'slug', opr: 'eq', value: 'sales' });
    expect((await quarry.request('GET', '/dashboard/', { as: 'viewer', headers: { accept: 'text/html' } })).headers.get('location')).toBe('/dashboard/superset/dashboard/sales/');
    await superset.request('PUT', `/api/v1/dashboard/${String(shipped?.id)}`, { published: false });
    try {
      expect((await quarry.request('GET', '/dashboard/', { as: 'viewer', headers: { accept: 'text/html' } })).headers.get('location')).toBe('/dashboard/dashboard/list/');
    } finally {
      await superset.request('PUT', `/api/v1/dashboard/${String(shipped?.id)}`, { published: true });
    }
  });

  it('restarts Superset when it dies, and the dashboards answer again', async () => {
    const pid = quarry.dashboard?.status().pid;
    expect(pid).toBeTypeOf('number');
    process.kill(-(pid ?? 0), 'SIGKILL');
    await vi.waitFor(() => {
      expect(quarry.dashboard?.status().state).toBe('running');
      expect(quarry.dashboard?.status().pid).not.toBe(pid);
    }, { timeout: 60_000, interval: 200 });
    const data = await revenueByCountry('viewer');
    expect(data.status).toBe(200);
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

  it('signs in at the first /dashboard/ request someone who logged in while Superset was down', async () => {
    const setCookies = await loginCookies('editor');
    expect(setCookies.some((cookie) => cookie.startsWith('dashboard.SESSION='))).toBe(false);
    quarry.dashboard?.start();
    await quarry.dashboard?.whenReady();
    const me = await quarry.request('GET', '/dashboard/api/v1/me/', { cookie: cookieHeader(setCookies), headers: { accept: 'application/json' } });
    expect(me.status).toBe(200);
    expect(me.json.result.username).toBe(EMAILS.editor);
  }, 120_000);
});

describe('a project with the dashboard tool disabled', () => {
  it('reports it disabled', async () => {
    const quarry = await startQuarry({ projectConfig: { dashboard: { enabled: false } } });
    try {
      const status = await quarry.request('GET', '/api/status', { as: 'viewer' });
      expect(status.json.services.dashboard).toBe('disabled');
      const config = await quarry.request('GET', '/api/dashboard-config', { as: 'viewer' });
      expect(config.json).toMatchObject({ enabled: false, running: false, state: 'disabled', account: null, database: null });
    } finally {
      await quarry.close();
    }
  });
});
