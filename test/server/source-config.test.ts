import { appendFileSync, existsSync, readFileSync, statSync } from 'node:fs';
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

  it('describes each type for people: the product beside the key, labels, what it signs in with, what to do for a type added by hand', async () => {
    const reply = await quarry.request('GET', '/api/source-types', { as: 'viewer' });
    const types = reply.json.types as { key: string; product: string; signs_in_with: string; how_to_add: string | null; folder_field?: string; fields: { name: string; label: string; option_labels?: string[]; item_fields?: { name: string; label: string }[] }[] }[];
    const byKey = new Map(types.map((type) => [type.key, type]));
    expect(reply.json.data_roots).toEqual(['data']);
    expect(byKey.get('crm_a')).toMatchObject({ product: 'HubSpot', signs_in_with: 'an API key or token, kept in an environment variable', how_to_add: null });
    expect(byKey.get('crm_c')?.product).toBe('Pipedrive');
    const rest = byKey.get('rest_api');
    expect(rest?.fields.find((field) => field.name === 'base_url')?.label).toBe('Base URL');
    expect(rest?.fields.find((field) => field.name === 'auth_type')).toMatchObject({ label: 'Authentication', option_labels: expect.arrayContaining(['a bearer token', 'a user name and password']) });
    expect(rest?.fields.find((field) => field.name === 'endpoints')?.item_fields?.map((field) => field.name)).toEqual(expect.arrayContaining(['path', 'params', 'data_selector', 'primary_key']));
    expect(rest?.folder_field).toBeUndefined();
    expect(byKey.get('local_files')?.folder_field).toBe('directory');
    expect(byKey.get('task_tracker')).toMatchObject({ product: 'Asana', how_to_add: 'Add it to sources.yml by hand; see docs/connectors/task_tracker.md.' });
    for (const type of types.filter((candidate) => candidate.how_to_add !== null)) expect(type.how_to_add).not.toMatch(/SDK|untested|upstream loader/);
  });

  it("creates a new file source's folder inside the data root when saving it, and tests the unsaved form without failing on the missing folder", async () => {
    const folder = path.join(quarry.dir, 'data', 'dropbox');
    const tested = await quarry.request('POST', '/api/source-test', { as: 'editor', body: { name: 'dropbox', type: 'local_files', config: { directory: 'data/dropbox' } } });
    expect(tested.json).toEqual({ success: true, message: 'data/dropbox does not exist yet: saving the source creates it, then you can upload files into it' });
    expect(existsSync(folder)).toBe(false);

    const added = await quarry.request('POST', '/api/sources', { as: 'editor', body: { name: 'dropbox', type: 'local_files', config: { directory: 'data/dropbox' }, version: await version() } });
    expect(added.status).toBe(201);
    expect(added.json.message).toBe('Added the local_files source "dropbox"; created its folder data/dropbox');
    expect(statSync(folder).isDirectory()).toBe(true);
    const form = new FormData();
    form.append('file', new Blob(['id\n1\n'], { type: 'text/csv' }), 'jan.csv');
    const uploaded = await quarry.request('POST', '/api/sources/dropbox/upload-csv', { as: 'editor', body: form });
    expect(uploaded.json).toMatchObject({ success: true, file_name: 'jan.csv' });
    expect(existsSync(path.join(folder, 'jan.csv'))).toBe(true);

    const outside = await quarry.request('POST', '/api/sources', { as: 'editor', body: { name: 'elsewhere', type: 'local_files', config: { directory: '../elsewhere' }, version: await version() } });
    expect(outside.json.code).toBe('outside_data_roots');
    expect(existsSync(path.join(quarry.dir, '..', 'elsewhere'))).toBe(false);
  });
});
