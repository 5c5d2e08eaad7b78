import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

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

  it('restarts Superset when it dies', async () => {
    const pid = quarry.dashboard?.status().pid;
    expect(pid).toBeTypeOf('number');
    process.kill(-(pid ?? 0), 'SIGKILL');
    await vi.waitFor(() => {
      expect(quarry.dashboard?.status().state).toBe('running');
      expect(quarry.dashboard?.status().pid).not.toBe(pid);
    }, { timeout: 60_000, interval: 200 });
  }, 70_000);

  it('reports not_running once stopped', async () => {
    await quarry.dashboard?.stop();
    const status = await quarry.request('GET', '/api/status', { as: 'viewer' });
    expect(status.json.services.dashboard).toBe('not_running');
  }, 30_000);
});

describe('a project with the dashboard tool disabled', () => {
  it('reports it disabled', async () => {
    const quarry = await startQuarry({ projectConfig: { dashboard: { enabled: false } } });
    try {
      const status = await quarry.request('GET', '/api/status', { as: 'viewer' });
      expect(status.json.services.dashboard).toBe('disabled');
    } finally {
      await quarry.close();
    }
  });
});
