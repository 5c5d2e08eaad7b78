import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/store/index.ts';
import { awaitDemoDashboard, dashboardSession, type DashboardSession } from '../support/dashboard-session.ts';
import { EMAILS, startQuarry, type TestQuarry, type TestResponse } from '../support/quarry.ts';

// The contract gives viewers reads only. In the dashboard tool that means: every dashboard and chart's
// data to look at, and no way to create, change or delete anything other users see.

interface Attempt {
  readonly what: string;
  readonly method: 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  /** What the viewer gets: 403, or 404 where the feature is off for everyone. */
  readonly refusedWith?: 403 | 404;
}

/** Permissions that would let their holder change what other users see, on the resources the contract names. */
const WRITES = /^can_(write|add|edit|delete|bulk_create|tag|import|copy_dash|save_dash|set_embedded|delete_embedded)/;
const SHARED_RESOURCES = ['Dashboard', 'Chart', 'Dataset', 'SavedQuery', 'Tag', 'ReportSchedule', 'Database', 'Theme', 'CssTemplate', 'Annotation'];

describe('role matrix of the dashboard tool', () => {
  let quarry: TestQuarry;
  let databaseId: number;
  const sessions = new Map<Role, DashboardSession>();

  const call = async (role: Role, method: string, path: string, body?: unknown): Promise<TestResponse> => {
    let session = sessions.get(role);
    if (session === undefined) {
      session = await dashboardSession(quarry, role);
      sessions.set(role, session);
    }
    return quarry.request(method, `/dashboard${path}`, { ...session, body });
  };

  const ids = async (): Promise<{ dashboard: number; chart: number; dataset: number }> => {
    const dashboard = await call('admin', 'GET', '/api/v1/dashboard/sales');
    const charts = await call('admin', 'GET', '/api/v1/dashboard/sales/charts');
    const datasets = await call('admin', 'GET', '/api/v1/dataset/?q=(page_size:100)');
    const dataset = (datasets.json.result as { id: number; table_name: string }[]).find((row) => row.table_name === 'revenue_by_country');
    return { dashboard: dashboard.json.result.id, chart: charts.json.result[0].id, dataset: dataset?.id ?? 0 };
  };

  const attempts = async (): Promise<Attempt[]> => {
    const { dashboard, chart, dataset } = await ids();
    return [
      { what: 'create a published dashboard', method: 'POST', path: '/api/v1/dashboard/', body: { dashboard_title: 'Made by a viewer', published: true } },
      { what: 'change a dashboard', method: 'PUT', path: `/api/v1/dashboard/${String(dashboard)}`, body: { dashboard_title: 'Renamed by a viewer' } },
      {
        what: 'create a chart', method: 'POST', path: '/api/v1/chart/',
        body: { slice_name: 'Made by a viewer', viz_type: 'table', datasource_id: dataset, datasource_type: 'table', params: '{}' },
      },
      { what: 'change a chart', method: 'PUT', path: `/api/v1/chart/${String(chart)}`, body: { slice_name: 'Renamed by a viewer' } },
      { what: 'create a dataset', method: 'POST', path: '/api/v1/dataset/', body: { database: databaseId, schema: 'staging', table_name: 'stg_orders__orders' } },
      { what: 'save a query', method: 'POST', path: '/api/v1/saved_query/', body: { db_id: databaseId, label: 'Saved by a viewer', sql: 'select 1', schema: 'marts' } },
      { what: 'create a tag', method: 'POST', path: '/api/v1/tag/', body: { name: 'viewer-tag', objects_to_tag: [['dashboard', dashboard]] } },
      { what: 'tag a dashboard', method: 'POST', path: `/api/v1/tag/1/${String(dashboard)}/`, body: { properties: { tags: ['viewer-tag'] } } },
      {
        // Alerts and reports are off (no ALERT_REPORTS flag): nobody may create one; the role test below covers the permission.
        what: 'create a report', method: 'POST', path: '/api/v1/report/', refusedWith: 404,
        body: {
          type: 'Report', name: 'Viewer report', crontab: '0 9 * * *', dashboard, recipients: [{ type: 'Email', recipient_config_json: { target: 'x@example.com' } }],
        },
      },
      { what: 'delete a chart', method: 'DELETE', path: `/api/v1/chart/${String(chart)}` },
      { what: 'delete a dashboard', method: 'DELETE', path: `/api/v1/dashboard/${String(dashboard)}` },
    ];
  };

  beforeAll(async () => {
    quarry = await startQuarry({ dashboard: true, demo: true, transform: true });
    databaseId = await awaitDemoDashboard(quarry);
  }, 300_000);
  afterAll(async () => {
    await quarry.close();
  }, 60_000);

  it('gives a viewer only the Quarry viewer role', async () => {
    const me = await call('viewer', 'GET', '/api/v1/me/roles/');
    expect(me.json.result.username).toBe(EMAILS.viewer);
    expect(Object.keys(me.json.result.roles)).toEqual(['quarry_viewer']);
  });

  it('gives the viewer role no permission to write dashboards, charts, datasets, saved queries, tags or reports', async () => {
    const roles = await call('admin', 'GET', '/api/v1/security/roles/?q=(page_size:100)');
    const role = (roles.json.result as { id: number; name: string }[]).find((row) => row.name === 'quarry_viewer');
    const permissions = await call('admin', 'GET', `/api/v1/security/roles/${String(role?.id)}/permissions/`);
    const granted = (permissions.json.result as { permission_name: string; view_menu_name: string }[])
      .map((permission) => `${permission.permission_name} on ${permission.view_menu_name}`);
    expect(granted).toContain('can_read on Dashboard');
    expect(granted).toContain(`database_access on [warehouse].(id:${String(databaseId)})`);
    const writes = granted.filter((permission) => WRITES.test(permission) && SHARED_RESOURCES.includes(permission.split(' on ')[1] ?? ''));
    expect(writes).toEqual([]);
  });

  it('lets a viewer open the demo dashboard and read its charts\' data', async () => {
    const dashboard = await call('viewer', 'GET', '/api/v1/dashboard/sales');
    expect(dashboard.status).toBe(200);
    expect(dashboard.json.result.dashboard_title).toBe('Demo shop sales');
    const charts = await call('viewer', 'GET', '/api/v1/dashboard/sales/charts');
    expect(charts.status).toBe(200);
    expect(charts.json.result).toHaveLength(5);
    const { dataset } = await ids();
    const data = await call('viewer', 'POST', '/api/v1/chart/data', {
      datasource: { id: dataset, type: 'table' }, force: true, result_format: 'json', result_type: 'full',
      queries: [{ columns: [], metrics: [{ expressionType: 'SQL', sqlExpression: 'SUM(orders)', label: 'orders' }], row_limit: 10 }],
    });
    expect(data.status).toBe(200);
    expect(data.json.result[0].data).toEqual([{ orders: 240 }]);
    const page = await call('viewer', 'GET', '/superset/dashboard/sales/');
    expect(page.status).toBe(200);
  });

  it('refuses a viewer every create, change and delete of what other users see', async () => {
    const before = await ids();
    for (const attempt of await attempts()) {
      const response = await call('viewer', attempt.method, attempt.path, attempt.body);
      expect({ what: attempt.what, status: response.status }).toEqual({ what: attempt.what, status: attempt.refusedWith ?? 403 });
    }
    expect(await ids()).toEqual(before);
    const dashboards = await call('admin', 'GET', '/api/v1/dashboard/');
    expect(dashboards.json.result.map((row: { dashboard_title: string }) => row.dashboard_title)).toEqual(['Demo shop sales']);
    const dashboard = await call('admin', 'GET', '/api/v1/dashboard/sales');
    expect(dashboard.json.result.dashboard_title).toBe('Demo shop sales');
    expect((await call('admin', 'GET', '/api/v1/saved_query/')).json.count).toBe(0);
  });

  it('lets an editor make the same requests (the viewer\'s refusals are about the role, not the request)', async () => {
    const creations = (await attempts()).filter((attempt) => ['create a published dashboard', 'create a chart', 'create a dataset', 'save a query'].includes(attempt.what));
    for (const attempt of creations) {
      const response = await call('editor', attempt.method, attempt.path, attempt.body);
      expect({ what: attempt.what, status: response.status }).toEqual({ what: attempt.what, status: 201 });
    }
  });
});
