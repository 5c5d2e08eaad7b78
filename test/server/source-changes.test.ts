import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerOf, records, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

const TOKEN = 'edit-secret-token';

/** Two rest_api sources with the user's comments between them, reading the gated fake. */
function sourcesYaml(url: string): string {
  return `# Sources Quarry loads (kept by every edit)
sources:
  # the items API, first
  - name: items
    type: rest_api
    rest_api:
      base_url: ${url}/v1
      auth_token_env: ITEMS_TOKEN
      endpoints:
        - path: /items
          data_selector: data
          primary_key: id
  # a second one, which goes away with its tables
  - name: spare
    type: rest_api
    rest_api:
      base_url: ${url}/v1
      auth_token_env: SPARE_TOKEN
      endpoints:
        - path: /items
          data_selector: data
          primary_key: id
`;
}

describe('sources from the browser: edit, delete, test before saving (API)', () => {
  let quarry: TestQuarry;
  let api: FakeApi;
  /** While set, the fake holds its answers until released: a sync stays running. */
  let gate: Promise<void> | undefined;
  const items = records(20, (n) => ({ id: n, name: `item ${String(n)}` }));
  const sourcesFile = (): string => readFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), 'utf8');
  const envFile = (): string => readFileSync(path.join(quarry.dir, '.env'), 'utf8');
  const version = async (): Promise<string> => (await quarry.request('GET', '/api/sources-file', { as: 'editor' })).json.version as string;
  const itemsConfig = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    base_url: `${api.url}/v1`, auth_token_env: 'ITEMS_TOKEN', endpoints: [{ path: '/items', data_selector: 'data', primary_key: 'id' }], ...extra,
  });

  beforeAll(async () => {
    api = await startFakeApi((app) => {
      app.get('/v1/items', async (request, reply) => {
        await gate;
        if (bearerOf(request) !== TOKEN) return reply.code(401).send({ message: 'bad token' });
        return { data: items };
      });
    });
    quarry = await startQuarry({
      users: ['admin', 'editor', 'viewer'], sourcesYaml: sourcesYaml(api.url),
      prepare: (dir) => { appendFileSync(path.join(dir, '.env'), `ITEMS_TOKEN='${TOKEN}'\nSPARE_TOKEN='${TOKEN}'\n`); },
    });
  });
  afterAll(async () => {
    await quarry.close();
    await api.close();
  });

  it('shows a source\'s section for the edit form, its credential only as set', async () => {
    const reply = await quarry.request('GET', '/api/sources/items/config', { as: 'editor' });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      name: 'items', type: 'rest_api', version: await version(),
      section: { base_url: `${api.url}/v1`, auth_token_env: 'ITEMS_TOKEN', endpoints: [{ path: '/items', data_selector: 'data', primary_key: 'id' }] },
      credentials: [{ variable: 'ITEMS_TOKEN', set: true }],
    });
    expect(reply.text).not.toContain(TOKEN);
    expect((await quarry.request('GET', '/api/sources/items/config', { as: 'viewer' })).status).toBe(403);
    expect((await quarry.request('GET', '/api/sources/nothing_here/config', { as: 'admin' })).status).toBe(404);
  });

  it('edits a source in place: comments, order and the other source kept, the credential kept unless replaced', async () => {
    const reply = await quarry.request('PUT', '/api/sources/items', {
      as: 'editor', body: { config: itemsConfig({ timeout_seconds: 42, headers: { 'X-Team': 'data' } }), version: await version() },
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toMatchObject({ success: true, source_name: 'items', message: 'Saved the settings of items' });
    const file = sourcesFile();
    expect(file).toContain('# Sources Quarry loads (kept by every edit)');
    expect(file).toContain('# the items API, first');
    expect(file).toContain('# a second one, which goes away with its tables');
    expect(file.indexOf('name: items')).toBeLessThan(file.indexOf('name: spare'));
    expect(file).toMatch(/- name: items\n(.*\n)*?\s+timeout_seconds: 42/);
    expect(envFile()).toContain(`ITEMS_TOKEN='${TOKEN}'`);
    // A masked header sent back keeps the file's value; the details show the change.
    const shown = (await quarry.request('GET', '/api/sources/items/config', { as: 'editor' })).json.section as Record<string, unknown>;
    expect(shown.headers).toEqual({ 'X-Team': '***' });
    await quarry.request('PUT', '/api/sources/items', { as: 'editor', body: { config: { ...shown, timeout_seconds: 43 }, version: await version() } });
    expect(sourcesFile()).toContain('X-Team: data');
    const details = await quarry.request('GET', '/api/sources/items/details', { as: 'viewer' });
    expect(details.json.config.rest_api.timeout_seconds).toBe(43);

    const replaced = await quarry.request('PUT', '/api/sources/items', {
      as: 'admin', body: { config: itemsConfig(), secrets: { ITEMS_TOKEN: 'a-new-token' }, version: await version() },
    });
    expect(replaced.text).not.toContain('a-new-token');
    expect(envFile()).toContain("ITEMS_TOKEN='a-new-token'");
    await quarry.request('PUT', '/api/sources/items', { as: 'admin', body: { config: itemsConfig(), secrets: { ITEMS_TOKEN: TOKEN }, version: await version() } });
  });

  it('refuses edits it cannot make, writing nothing: 409 for a changed file, 400 for bad fields, 403 for viewers and cross-site requests, 404', async () => {
    const read = await version();
    appendFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), '# typed by hand meanwhile\n');
    const before = sourcesFile();
    const stale = await quarry.request('PUT', '/api/sources/items', { as: 'editor', body: { config: itemsConfig(), version: read } });
    expect(stale.status).toBe(409);
    expect(stale.json).toEqual({ detail: expect.stringContaining('sources.yml changed'), code: 'sources_file_changed' });
    const current = await version();
    for (const config of [{ ...itemsConfig(), auth_type: 'bogus' }, { ...itemsConfig(), no_such_field: 1 }, { endpoints: [] }, { ...itemsConfig(), timeout_seconds: 'soon' }]) {
      const bad = await quarry.request('PUT', '/api/sources/items', { as: 'editor', body: { config, version: current } });
      expect({ status: bad.status, code: bad.json.code }).toEqual({ status: 400, code: 'invalid_request' });
    }
    const badSecret = await quarry.request('PUT', '/api/sources/items', { as: 'editor', body: { config: itemsConfig(), secrets: { 'not a name': 'x' }, version: current } });
    expect(badSecret.status).toBe(400);
    expect((await quarry.request('PUT', '/api/sources/items', { as: 'viewer', body: { config: itemsConfig(), version: current } })).status).toBe(403);
    const cookie = await quarry.login('editor');
    const crossSite = await quarry.request('PUT', '/api/sources/items', { cookie, body: { config: itemsConfig(), version: current } });
    expect(crossSite.json).toMatchObject({ code: 'csrf_failed' });
    expect((await quarry.request('PUT', '/api/sources/nothing_here', { as: 'editor', body: { config: itemsConfig(), version: current } })).status).toBe(404);
    for (const hostile of ['..%2F..%2Fetc%2Fpasswd', '%2E%2E', 'items%00', 'x'.repeat(64), 'Items']) {
      const reply = await quarry.request('PUT', `/api/sources/${hostile}`, { as: 'editor', body: { config: itemsConfig(), version: current } });
      expect([400, 404]).toContain(reply.status);
      const removal = await quarry.request('DELETE', `/api/sources/${hostile}?version=${current}`, { as: 'editor' });
      expect([400, 404]).toContain(removal.status);
    }
    expect(sourcesFile()).toBe(before);
  });

  it('tests a configuration before it is saved, writing nothing and answering no secret', async () => {
    const before = { sources: sourcesFile(), env: envFile() };
    const candidate = { name: 'fresh', type: 'rest_api', config: itemsConfig({ auth_token_env: 'FRESH_TOKEN' }) };
    const passed = await quarry.request('POST', '/api/source-test', { as: 'editor', body: { ...candidate, secrets: { FRESH_TOKEN: TOKEN } } });
    expect(passed.json).toEqual({ success: true, message: 'Connected and read the first records' });
    const failed = await quarry.request('POST', '/api/source-test', { as: 'editor', body: { ...candidate, secrets: { FRESH_TOKEN: 'wrong-fresh-secret' } } });
    expect(failed.json.success).toBe(false);
    expect(failed.json.message).toContain('401');
    expect(failed.text).not.toContain('wrong-fresh-secret');
    // An edit's test uses the saved credential when none is typed.
    expect((await quarry.request('POST', '/api/source-test', { as: 'editor', body: { name: 'items', type: 'rest_api', config: itemsConfig() } })).json.success).toBe(true);
    const invalid = await quarry.request('POST', '/api/source-test', { as: 'editor', body: { type: 'rest_api', config: { endpoints: 'none' } } });
    expect(invalid.json.code).toBe('invalid_request');
    expect((await quarry.request('POST', '/api/source-test', { as: 'editor', body: { type: 'csv', config: {} } })).status).toBe(400);
    expect((await quarry.request('POST', '/api/source-test', { as: 'viewer', body: candidate })).status).toBe(403);
    expect({ sources: sourcesFile(), env: envFile() }).toEqual(before);
  });

  it('deletes a source: refused while it syncs, then removed from sources.yml with its tables and credentials kept', async () => {
    const synced = quarry.nextEvent('sync_completed', (event) => event.source === 'items');
    const { promise: held, resolve: release } = Promise.withResolvers<undefined>();
    gate = held;
    expect((await quarry.request('POST', '/api/sources/items/sync', { as: 'editor' })).status).toBe(200);
    await expect.poll(() => api.requests.filter((request) => request.path === '/v1/items').length).toBeGreaterThan(0);
    const busy = await quarry.request('DELETE', `/api/sources/items?version=${await version()}`, { as: 'editor' });
    expect(busy.status).toBe(409);
    expect(busy.json.code).toBe('sync_in_progress');
    gate = undefined;
    release(undefined);
    await synced;
    await quarry.jobsIdle();
    expect((await quarry.request('DELETE', '/api/sources/items?version=stale', { as: 'editor' })).json.code).toBe('sources_file_changed');
    expect((await quarry.request('DELETE', `/api/sources/items?version=${await version()}`, { as: 'viewer' })).status).toBe(403);
    const cookie = await quarry.login('editor');
    expect((await quarry.request('DELETE', `/api/sources/items?version=${await version()}`, { cookie })).json.code).toBe('csrf_failed');

    const removed = await quarry.request('DELETE', `/api/sources/items?version=${await version()}`, { as: 'editor' });
    expect(removed.json).toMatchObject({ success: true, source_name: 'items', tables_dropped: false, credentials_removed: [] });
    expect(sourcesFile()).not.toContain('name: items');
    expect(sourcesFile()).toContain('# a second one, which goes away with its tables');
    expect(envFile()).toContain('ITEMS_TOKEN=');
    expect(await quarry.query('SELECT count(*)::INTEGER AS n FROM raw_items.items')).toEqual([{ n: 20 }]);
    expect((await quarry.request('GET', '/api/sources/items/details', { as: 'viewer' })).status).toBe(404);
    expect((await quarry.request('DELETE', `/api/sources/items?version=${await version()}`, { as: 'editor' })).status).toBe(404);
  });

  it('drops the tables and removes the credentials when asked', async () => {
    const synced = quarry.nextEvent('sync_completed', (event) => event.source === 'spare');
    await quarry.request('POST', '/api/sources/spare/sync', { as: 'editor' });
    await synced;
    await quarry.jobsIdle();
    const spareSchemas = "SELECT count(*)::INTEGER AS n FROM information_schema.schemata WHERE schema_name = 'raw_spare'";
    expect(await quarry.query(spareSchemas)).toEqual([{ n: 1 }]);
    const removed = await quarry.request('DELETE', `/api/sources/spare?version=${await version()}&drop_tables=true&remove_credentials=true`, { as: 'admin' });
    expect(removed.json).toMatchObject({ success: true, tables_dropped: true, credentials_removed: ['SPARE_TOKEN'] });
    expect(envFile()).not.toContain('SPARE_TOKEN');
    expect(envFile()).toContain('ITEMS_TOKEN=');
    expect(await quarry.query(spareSchemas)).toEqual([{ n: 0 }]);
    expect(sourcesFile()).toContain('# Sources Quarry loads (kept by every edit)');
  });
});
