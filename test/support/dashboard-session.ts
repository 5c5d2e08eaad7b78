import { randomBytes } from 'node:crypto';
import { vi } from 'vitest';
import type { Role } from '../../src/store/index.ts';
import { EMAILS, PASSWORDS, type TestQuarry, type TestResponse } from './quarry.ts';

export interface DashboardSession {
  readonly cookie: string;
  readonly headers: Record<string, string>;
}

/** A browser-like session as `role` through Quarry's proxy: both cookies and the CSRF token Superset wants on writes. */
export async function dashboardSession(quarry: TestQuarry, role: Role): Promise<DashboardSession> {
  const login = await fetch(`${quarry.url}/api/auth/login`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: EMAILS[role], password: PASSWORDS[role] }),
  });
  if (login.status !== 200) throw new Error(`login as ${role} failed: ${String(login.status)}`);
  const cookie = login.headers.getSetCookie().map((value) => value.split(';')[0]).join('; ');
  const headers = { accept: 'application/json', 'x-requested-with': 'XMLHttpRequest' };
  const csrf = await quarry.request('GET', '/dashboard/api/v1/security/csrf_token/', { cookie, headers });
  return { cookie, headers: { ...headers, 'x-csrftoken': String(csrf.json.result) } };
}

/** Runs `sql` in SQL Lab on the database, through the proxy, in the session. */
export function runInSqlLab(quarry: TestQuarry, session: DashboardSession, databaseId: number, sql: string): Promise<TestResponse> {
  return quarry.request('POST', '/dashboard/api/v1/sqllab/execute/', {
    ...session, body: { database_id: databaseId, sql, runAsync: false, schema: 'marts', tab: 'test', client_id: randomBytes(5).toString('hex'), queryLimit: 100 },
  });
}

/**
 * Starts the demo's first sync and waits until it has run its models, registered the warehouse with
 * its marts, and created the demo dashboard. Returns the warehouse database's id in Superset.
 */
export async function awaitDemoDashboard(quarry: TestQuarry): Promise<number> {
  if ((await quarry.request('POST', '/api/sources/orders/sync', { as: 'admin' })).status !== 200) throw new Error('the demo sync did not start');
  let databaseId = 0;
  await vi.waitFor(async () => {
    const config = await quarry.request('GET', '/api/dashboard-config', { as: 'admin' });
    const database = config.json.database as { id: number; datasets: string[] } | null;
    if (database === null || !database.datasets.includes('marts.revenue_by_country')) throw new Error('marts not registered yet');
    const dashboard = await quarry.request('GET', '/dashboard/api/v1/dashboard/sales', { as: 'admin', headers: { accept: 'application/json' } });
    if (dashboard.status !== 200) throw new Error('demo dashboard not created yet');
    databaseId = database.id;
  }, { timeout: 180_000, interval: 500 });
  return databaseId;
}
