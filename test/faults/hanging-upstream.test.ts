import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

describe('an upstream API that hangs past the timeout', () => {
  let api: FakeApi;
  let quarry: TestQuarry;
  let hangsLeft = 0;

  beforeAll(async () => {
    api = await startFakeApi((app) => {
      app.get('/v1/items', async () => {
        if (hangsLeft > 0) {
          hangsLeft -= 1;
          await sleep(3000);
        }
        return { data: records(5, (n) => ({ id: n })) };
      });
      app.get('/v1/stuck', async () => {
        await sleep(60_000);
        return { data: [] };
      });
    });
    quarry = await startQuarry({
      sourcesYaml: [
        'sources:',
        ...['items', 'stuck'].map((name) => [
          `  - name: ${name}`, '    type: rest_api', '    rest_api:', `      base_url: ${api.url}/v1`, '      auth_type: none', '      timeout_seconds: 1',
          '      endpoints:', `        - { path: /${name}, primary_key: id }`,
        ].join('\n')),
        '',
      ].join('\n'),
    });
  });

  afterAll(async () => {
    await quarry.close();
    await api.app.close();
  });

  it('abandons the hung requests, retries, loads everything once and says so in the log', async () => {
    hangsLeft = 2;
    expect(await syncAndWait(quarry, 'items')).toMatchObject({ type: 'sync_completed', rows: 5 });
    const warnings = await logMessages(quarry, 'items', 'WARNING');
    expect(warnings.filter((line) => line.startsWith(`No answer from ${new URL(api.url).host} within 1 s; retrying`))).toHaveLength(2);
    expect(await quarry.query('SELECT count(*) AS n FROM raw_items.items')).toEqual([{ n: 5 }]);
  });

  it('gives up on one that never answers, keeps the service answering and the data intact', async () => {
    const pending = syncAndWait(quarry, 'stuck');
    // The API keeps answering while the sync waits on the vendor.
    expect((await quarry.request('GET', '/api/sources', { as: 'viewer' })).status).toBe(200);
    const end = await pending;
    expect(end.type === 'sync_failed' ? end.error : '').toBe(`No answer from ${new URL(api.url).host} within 1 s`);
    expect(await logMessages(quarry, 'stuck', 'ERROR')).toEqual([`No answer from ${new URL(api.url).host} within 1 s`]);
    expect(await quarry.query('SELECT count(*) AS n FROM raw_items.items')).toEqual([{ n: 5 }]);
    hangsLeft = 0;
    expect(await syncAndWait(quarry, 'items')).toMatchObject({ type: 'sync_completed' });
  }, 90_000);
});
