import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const HEADER_KEY = 'hdr-key-5f0c2e9a7b1d';

describe('credentials of a rest_api source stay in the environment and out of the API', () => {
  let api: FakeApi;
  let quarry: TestQuarry;
  beforeAll(async () => {
    api = await startFakeApi((app) => {
      app.get('/v1/orders', async () => [{ id: 1 }, { id: 2 }]);
    });
    quarry = await startQuarry({
      env: { SHOP_HEADER_KEY: HEADER_KEY },
      sourcesYaml: [
        'sources:', '  - name: shop', '    type: rest_api', '    rest_api:', `      base_url: ${api.url}`, '      auth_type: none',
        '      headers: { X-Tenant: acme-eu, X-Api-Key: "env:SHOP_HEADER_KEY" }', '      endpoints: [{ path: /v1/orders }]', '',
      ].join('\n'),
    });
  });
  afterAll(async () => {
    await quarry.close();
    await api.close();
  });

  it('sends an env: header with the variable\'s value, and a plain one as written', async () => {
    expect((await syncAndWait(quarry, 'shop')).type).toBe('sync_completed');
    expect(api.requests[0]?.headers).toMatchObject({ 'x-api-key': HEADER_KEY, 'x-tenant': 'acme-eu' });
  });

  it('shows viewers the headers masked, references by name', async () => {
    const details = await quarry.request('GET', '/api/sources/shop/details', { as: 'viewer' });
    expect(details.status).toBe(200);
    expect(details.json.config.rest_api.headers).toEqual({ 'X-Tenant': '***', 'X-Api-Key': 'env:SHOP_HEADER_KEY' });
    expect(details.text).not.toContain(HEADER_KEY);
    expect(details.text).not.toContain('acme-eu');
  });
});
