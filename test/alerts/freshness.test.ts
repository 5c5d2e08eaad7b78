import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../support/alert-receivers.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const HOUR_MS = 3_600_000;

const SOURCES = `sources:
  - name: orders
    type: local_files
    freshness: {warn_after_hours: 24, error_after_hours: 48}
    local_files:
      directory: data/orders
  - name: returns
    type: local_files
    local_files:
      directory: data/returns
`;

describe('source freshness', () => {
  let quarry: TestQuarry;
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    quarry = await startQuarry({
      sourcesYaml: SOURCES,
      projectConfig: { web: { public_url: 'https://quarry.example.com' }, alerts: [{ name: 'team', webhook_url_env: 'HOOK_URL', on: ['source_stale'] }] },
      env: { HOOK_URL: receiver.url },
      prepare: (dir) => {
        for (const source of ['orders', 'returns']) {
          mkdirSync(path.join(dir, 'data', source), { recursive: true });
          writeFileSync(path.join(dir, 'data', source, 'a.csv'), 'id,amount\n1,10\n');
        }
      },
    });
  });
  afterEach(async () => {
    await quarry.close();
    await receiver.close();
  });

  async function sync(source: string): Promise<void> {
    const completed = quarry.nextEvent('sync_completed', (event) => event.source === source);
    expect((await quarry.request('POST', `/api/sources/${source}/sync`, { as: 'editor' })).status).toBe(200);
    await completed;
  }

  async function health(): Promise<{ status: string; warnings: string[]; critical_issues: string[] }> {
    const response = await quarry.request('GET', '/api/health/platform', { as: 'viewer' });
    expect(response.status).toBe(200);
    return response.json;
  }

  it('warns, then reports critical, a source past its limits, and alerts once per stale period', async () => {
    await sync('orders');
    await sync('returns');
    quarry.clock.advance(23 * HOUR_MS);
    await quarry.freshness.check();
    expect(await health()).toMatchObject({ status: 'healthy', warnings: [], critical_issues: [] });

    quarry.clock.advance(2 * HOUR_MS);
    expect(await health()).toMatchObject({ status: 'warning', warnings: ['orders was last synced 25 hours ago (stale after 24 hours)'], critical_issues: [] });
    const stale = quarry.nextEvent('alert_sent');
    await quarry.freshness.check();
    expect(await stale).toMatchObject({ alert: 'team', event: 'source_stale' });
    expect(receiver.accepted).toEqual([expect.objectContaining({
      text: '[Test project] orders is stale: orders was last synced 25 hours ago (stale after 24 hours)\nhttps://quarry.example.com/sources/orders',
      event: 'source_stale', status: 'firing', source: 'orders', error: 'orders was last synced 25 hours ago (stale after 24 hours)',
    })]);

    quarry.clock.advance(24 * HOUR_MS);
    expect(await health()).toMatchObject({
      status: 'critical', warnings: [], critical_issues: ['orders was last synced 49 hours ago (critical after 48 hours)'],
    });
    await quarry.freshness.check();
    await quarry.alerts.deliverDue();
    expect(receiver.accepted).toHaveLength(1);

    const fresh = quarry.nextEvent('alert_sent');
    await sync('orders');
    expect(await fresh).toMatchObject({ alert: 'team', event: 'source_stale_resolved' });
    expect(receiver.accepted[1]).toMatchObject({ text: '[Test project] orders is fresh again\nhttps://quarry.example.com/sources/orders', error: null });
    expect(await health()).toMatchObject({ status: 'healthy', warnings: [], critical_issues: [] });
  });

  it('keeps the seven-day rule for a source without limits, and never calls a never-synced source stale', async () => {
    await sync('returns');
    quarry.clock.advance(8 * 24 * HOUR_MS);
    await quarry.freshness.check();
    expect(await health()).toMatchObject({ status: 'warning', warnings: ['returns was last synced 8 days ago'], critical_issues: [] });
    await quarry.alerts.deliverDue();
    expect(receiver.api.requests).toHaveLength(0);
  });
});

describe('a source its schedule syncs, without limits of its own', () => {
  let quarry: TestQuarry;
  let receiver: WebhookReceiver;

  beforeEach(async () => {
    receiver = await startWebhookReceiver();
    quarry = await startQuarry({
      sourcesYaml: 'sources:\n  - name: orders\n    type: local_files\n    local_files:\n      directory: data/orders\n',
      projectConfig: {
        schedules: [{ name: 'hourly', cron: '0 * * * *', sync: ['orders'], retries: 0 }],
        alerts: [{ name: 'team', webhook_url_env: 'HOOK_URL', on: ['source_stale', 'schedule_missed'] }],
      },
      env: { HOOK_URL: receiver.url },
      prepare: (dir) => {
        mkdirSync(path.join(dir, 'data', 'orders'), { recursive: true });
        writeFileSync(path.join(dir, 'data', 'orders', 'a.csv'), 'id,amount\n1,10\n');
      },
    });
  });
  afterEach(async () => {
    await quarry.close();
    await receiver.close();
  });

  /** Moves the clock to the schedule's next slot and resolves with how its run ended. */
  async function nextScheduledRun(): Promise<string> {
    const completed = quarry.nextEvent('schedule_completed');
    quarry.clock.advanceToNextTimer();
    return (await completed).outcome;
  }

  it('is stale after two of the schedule\'s intervals and critical after four; a run the schedule misses alerts once, and both recover', async () => {
    expect(await nextScheduledRun()).toBe('success');
    const folder = path.join(quarry.dir, 'data', 'orders');
    const moved = `${folder}.away`;
    renameSync(folder, moved);

    const missed = quarry.nextEvent('alert_sent', (event) => event.event === 'schedule_missed');
    expect(await nextScheduledRun()).toBe('failed');
    await missed;
    expect(await nextScheduledRun()).toBe('failed');
    await quarry.freshness.check();
    const health = async () => (await quarry.request('GET', '/api/health/platform', { as: 'viewer' })).json as { warnings: string[]; critical_issues: string[] };
    expect((await health()).warnings).toContain('orders was last synced 2 hours ago (stale after 2 hours)');
    expect(await nextScheduledRun()).toBe('failed');
    expect(await nextScheduledRun()).toBe('failed');
    expect((await health()).critical_issues).toContain('orders was last synced 4 hours ago (critical after 4 hours)');
    await quarry.alerts.deliverDue();
    expect(receiver.accepted.map((message) => [message.event, message.status])).toEqual([['schedule_missed', 'firing'], ['source_stale', 'firing']]);

    renameSync(moved, folder);
    expect(await nextScheduledRun()).toBe('success');
    await quarry.jobsIdle();
    await expect.poll(async () => {
      await quarry.alerts.deliverDue();
      return receiver.accepted.slice(2).map((message) => [message.event, message.status]).sort();
    }).toEqual([['schedule_missed_resolved', 'resolved'], ['source_stale_resolved', 'resolved']]);
    expect(await health()).toMatchObject({ warnings: [], critical_issues: [] });
  });
});
