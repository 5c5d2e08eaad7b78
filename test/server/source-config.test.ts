import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startItemsApi } from '../fakes/items-api.ts';
import { records, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';

describe('sources from the browser: types, add, test (API)', () => {
  let quarry: TestQuarry;
  let api: FakeApi;
  const sourcesFile = (): string => readFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), 'utf8');
  const envFile = (): string => readFileSync(path.join(quarry.dir, '.env'), 'utf8');
  const version = async (): Promise<string> => (await quarry.request('GET', '/api/sources-file', { as: 'editor' })).json.version as string;
  const itemsConfig = (): Record<string, unknown> => ({
    base_url: `${api.url}/v1`, auth_token_env: 'ITEMS_TOKEN',
    endpoints: [{ path: '/items', data_selector: 'data', primary_key: 'id', paginator: { type: 'offset', limit: 50, total_path: 'total' } }],
  });

  beforeAll(async () => {
    api = await startItemsApi(records(120, (n) => ({ id: n, name: `item ${String(n)}` })), { token: 'items-secret-token' });
    quarry = await startQuarry({ users: ['admin', 'editor', 'viewer'] });
  });
  afterAll(async () => {
    await quarry.close();
    await api.close();
  });

  it('lists every type with its category, its fields, and why the form does not add some', async () => {
    const reply = await quarry.request('GET', '/api/source-types', { as: 'viewer' });
    expect(reply.status).toBe(200);
    const rest = (reply.json.types as { key: string }[]).find((type) => type.key === 'rest_api');
    expect(rest).toMatchObject({ category: expect.any(String), addable: true, reason: null, section: 'rest_api' });
    expect((rest as unknown as { fields: { name: string }[] }).fields.map((field) => field.name)).toEqual(expect.arrayContaining(['base_url', 'auth_type', 'endpoints']));
    const refused = (reply.json.types as { addable: boolean; reason: string | null; fields: unknown[] }[]).filter((type) => !type.addable);
    expect(refused.length).toBeGreaterThan(0);
    for (const type of refused) {
      expect(type.reason).toEqual(expect.any(String));
      expect(type.fields).toEqual([]);
    }
  });

  it('adds a rest_api source: the section to sources.yml with its comments, the credential to .env only, never answered', async () => {
    const before = await version();
    const reply = await quarry.request('POST', '/api/sources', {
      as: 'editor', body: { name: 'items', type: 'rest_api', config: itemsConfig(), secrets: { ITEMS_TOKEN: 'items-secret-token' }, version: before },
    });
    expect(reply.status).toBe(201);
    expect(reply.json).toMatchObject({ success: true, source_name: 'items', version: expect.any(String) });
    expect(reply.json.version).not.toBe(before);
    expect(reply.text).not.toContain('items-secret-token');
    expect(sourcesFile()).toContain('# Sources Quarry loads');
    expect(sourcesFile()).toContain('auth_token_env: ITEMS_TOKEN');
    expect(sourcesFile()).toMatch(/- name: items\n\s+type: rest_api\n\s+staging_column_names: snake_case\n/);
    expect(sourcesFile()).not.toContain('items-secret-token');
    expect(envFile()).toContain("ITEMS_TOKEN='items-secret-token'");
  });

  it('tests a source as `quarry source test` does, and says why one cannot be read', async () => {
    const passed = await quarry.request('POST', '/api/sources/items/test', { as: 'editor' });
    expect(passed.json).toEqual({ success: true, message: 'Connected and read the first records' });
    await quarry.request('POST', '/api/sources', {
      as: 'admin', body: { name: 'wrong_token', type: 'rest_api', config: { ...itemsConfig(), auth_token_env: 'WRONG_TOKEN' }, secrets: { WRONG_TOKEN: 'nope' }, version: await version() },
    });
    const failed = await quarry.request('POST', '/api/sources/wrong_token/test', { as: 'editor' });
    expect(failed.json.success).toBe(false);
    expect(failed.json.message).toContain('401');
    expect(failed.text).not.toContain('nope');
    expect((await quarry.request('POST', '/api/sources/no_such_source/test', { as: 'editor' })).status).toBe(404);
  });

  it('disables and enables a source in sources.yml, keeping its comments; a disabled source is not synced', async () => {
    const disabled = await quarry.request('PATCH', '/api/sources/items', { as: 'editor', body: { enabled: false, version: await version() } });
    expect(disabled.json).toMatchObject({ success: true, message: 'items is disabled', source_name: 'items' });
    expect(sourcesFile()).toContain('# Sources Quarry loads');
    expect(sourcesFile()).toMatch(/- name: items\n(.*\n)*?\s+enabled: false/);
    const refused = await quarry.request('POST', '/api/sources/items/sync', { as: 'editor' });
    expect(refused.json.code).toBe('source_disabled');
    const enabled = await quarry.request('PATCH', '/api/sources/items', { as: 'editor', body: { enabled: true, version: await version() } });
    expect(enabled.json.message).toBe('items is enabled');
    expect((await quarry.request('PATCH', '/api/sources/items', { as: 'editor', body: { enabled: false, version: 'stale' } })).json.code).toBe('sources_file_changed');
    expect((await quarry.request('PATCH', '/api/sources/nothing_here', { as: 'editor', body: { enabled: false, version: await version() } })).status).toBe(404);
    expect((await quarry.request('PATCH', '/api/sources/items', { as: 'viewer', body: { enabled: false, version: await version() } })).status).toBe(403);
    const synced = quarry.nextEvent('sync_completed', (event) => event.source === 'items');
    expect((await quarry.request('POST', '/api/sources/items/sync', { as: 'editor' })).status).toBe(200);
    expect((await synced).rows).toBeGreaterThan(0);
  });

  it('refuses, writing nothing, when sources.yml changed since the form read it', async () => {
    const read = await version();
    appendFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), '# a note someone typed meanwhile\n');
    const before = sourcesFile();
    const reply = await quarry.request('POST', '/api/sources', { as: 'editor', body: { name: 'late', type: 'rest_api', config: itemsConfig(), version: read } });
    expect(reply.status).toBe(409);
    expect(reply.json).toEqual({ detail: expect.stringContaining('sources.yml changed'), code: 'sources_file_changed' });
    expect(sourcesFile()).toBe(before);
  });

  it('refuses bad additions with 400 and writes nothing; viewers may not add or test', async () => {
    const current = await version();
    const before = sourcesFile();
    const bad = [
      { name: 'Bad Name', type: 'rest_api', config: itemsConfig(), version: current },
      { name: 'items', type: 'rest_api', config: itemsConfig(), version: current },
      { name: 'typo', type: 'rest_apj', config: {}, version: current },
      { name: 'hidden', type: 'csv', config: {}, version: current },
      { name: 'no_url', type: 'rest_api', config: { endpoints: [] }, version: current },
      { name: 'bad_secret', type: 'rest_api', config: itemsConfig(), secrets: { 'not a name': 'x' }, version: current },
    ];
    for (const body of bad) {
      const reply = await quarry.request('POST', '/api/sources', { as: 'admin', body });
      expect({ name: body.name, status: reply.status, code: reply.json.code }).toEqual({ name: body.name, status: 400, code: 'invalid_request' });
    }
    expect(sourcesFile()).toBe(before);
    const viewer = await quarry.request('POST', '/api/sources', { as: 'viewer', body: { name: 'v', type: 'rest_api', config: itemsConfig(), version: current } });
    expect(viewer.status).toBe(403);
    expect((await quarry.request('POST', '/api/sources/items/test', { as: 'viewer' })).status).toBe(403);
    expect(sourcesFile()).toBe(before);
  });
});
