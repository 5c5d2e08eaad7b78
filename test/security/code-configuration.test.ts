import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startQuarry, type RequestOptions, type TestQuarry } from '../support/quarry.ts';

const FEED_MODULE = `
import dlt

@dlt.source
def orders():
    return dlt.resource([{"id": 1, "amount": 10}, {"id": 2, "amount": 20}, {"id": 3, "amount": 30}], name="orders")
`;

const SOURCES = `sources:
  - name: saved
    type: native_pipeline
    native_pipeline: { source_module: orders_feed, source_function: orders }
`;

const EDITOR_REFUSAL = {
  detail: 'Only an admin configures a native_pipeline source: it runs code on the server, and your role is editor',
  code: 'forbidden',
};
const TEST_REFUSAL = {
  detail: 'A native_pipeline source runs code on the server, so it is not tested before it is saved: an admin saves it (POST /api/sources), '
    + 'then tests the saved source (POST /api/sources/{name}/test)',
  code: 'invalid_request',
};

describe('only an admin configures a source that runs code, and only code of the pipelines folder', () => {
  let quarry: TestQuarry;
  let markers: string;
  let editorKey: string;
  let criticalBefore: unknown;

  /** The reported request: a shell command through os.system, its output in a file of `markers`. */
  const exploit = () => ({
    type: 'native_pipeline',
    config: { source_module: 'os', source_function: 'system', function_kwargs: { command: `id > ${path.join(markers, 'x')}` } },
  });
  const sourcesFile = () => readFileSync(path.join(quarry.dir, '.quarry', 'sources.yml'), 'utf8');
  const version = async () => (await quarry.request('GET', '/api/sources-file', { as: 'admin' })).json.version as string;
  const callers: [string, () => RequestOptions][] = [
    ['an editor signed in', () => ({ as: 'editor' })],
    ["an editor's API key", () => ({ apiKey: editorKey })],
  ];

  /** Nothing ran, and the service answers as before. */
  const expectNothingRan = async (): Promise<void> => {
    expect(readdirSync(markers)).toEqual([]);
    const health = await quarry.request('GET', '/api/health/platform', { as: 'viewer' });
    expect(health.status).toBe(200);
    expect(health.json.critical_issues).toEqual(criticalBefore);
  };

  beforeAll(async () => {
    markers = mkdtempSync(path.join(tmpdir(), 'quarry-markers-'));
    quarry = await startQuarry({
      sourcesYaml: SOURCES,
      prepare: (dir) => {
        mkdirSync(path.join(dir, 'pipelines'));
        writeFileSync(path.join(dir, 'pipelines', 'orders_feed.py'), FEED_MODULE);
      },
    });
    const created = await quarry.request('POST', '/api/auth/api-keys', { as: 'editor', body: { name: 'automation' } });
    expect(created.status).toBe(201);
    editorKey = created.json.key as string;
    criticalBefore = (await quarry.request('GET', '/api/health/platform', { as: 'viewer' })).json.critical_issues;
  });
  afterAll(async () => {
    await quarry.close();
    rmSync(markers, { recursive: true, force: true });
  });

  describe.each(callers)('as %s', (_caller, as) => {
    it('POST /api/source-test refuses the command before anything runs', async () => {
      const reply = await quarry.request('POST', '/api/source-test', { ...as(), body: exploit() });
      expect(reply.status).toBe(400);
      expect(reply.json).toEqual(TEST_REFUSAL);
      await expectNothingRan();
    });

    it('POST /api/sources refuses to save it (403), writing nothing', async () => {
      const before = sourcesFile();
      const reply = await quarry.request('POST', '/api/sources', { ...as(), body: { name: 'pwn', ...exploit(), version: await version() } });
      expect(reply.status).toBe(403);
      expect(reply.json).toEqual(EDITOR_REFUSAL);
      expect(sourcesFile()).toBe(before);
      await expectNothingRan();
    });

    it('PUT, PATCH, DELETE and the test of a saved native_pipeline source answer 403, changing nothing', async () => {
      const before = sourcesFile();
      const current = await version();
      const replies = [
        await quarry.request('PUT', '/api/sources/saved', { ...as(), body: { config: exploit().config, version: current } }),
        await quarry.request('PATCH', '/api/sources/saved', { ...as(), body: { enabled: false, version: current } }),
        await quarry.request('DELETE', `/api/sources/saved?version=${current}`, as()),
        await quarry.request('POST', '/api/sources/saved/test', as()),
      ];
      for (const reply of replies) {
        expect(reply.status).toBe(403);
        expect(reply.json).toEqual(EDITOR_REFUSAL);
      }
      expect(sourcesFile()).toBe(before);
      await expectNothingRan();
    });
  });

  it('GET /api/source-types tells the form that native_pipeline is for admins', async () => {
    const nativePipeline = async (options: RequestOptions) =>
      ((await quarry.request('GET', '/api/source-types', options)).json.types as { key: string }[]).find((type) => type.key === 'native_pipeline');
    expect(await nativePipeline({ as: 'editor' })).toMatchObject({
      admin_only: true, addable: false, reason: 'only an admin adds it: it runs code on the server', fields: [],
    });
    expect(await nativePipeline({ as: 'admin' })).toMatchObject({ admin_only: true, addable: true, reason: null });
    expect((await nativePipeline({ as: 'admin' }) as unknown as { fields: unknown[] }).fields.length).toBeGreaterThan(0);
  });

  it("refuses an admin's os module too, tested or saved", async () => {
    const before = sourcesFile();
    const test = await quarry.request('POST', '/api/source-test', { as: 'admin', body: exploit() });
    expect(test.json).toEqual(TEST_REFUSAL);
    const saved = await quarry.request('POST', '/api/sources', { as: 'admin', body: { name: 'pwn', ...exploit(), version: await version() } });
    expect(saved.status).toBe(400);
    expect(saved.json).toEqual({
      detail: "source_module os is not a module of the project: a native_pipeline runs only modules of the project's pipelines/ folder: "
        + 'put it in pipelines/os.py or pipelines/os/__init__.py',
      code: 'pipeline_module_refused',
    });
    const edited = await quarry.request('PUT', '/api/sources/saved', { as: 'admin', body: { config: exploit().config, version: await version() } });
    expect(edited.status).toBe(400);
    expect(edited.json.code).toBe('pipeline_module_refused');
    expect(sourcesFile()).toBe(before);
    await expectNothingRan();
  });

  it('an admin saves and tests a module of pipelines/, and an editor syncs it', async () => {
    const config = { source_module: 'orders_feed', source_function: 'orders' };
    const saved = await quarry.request('POST', '/api/sources', { as: 'admin', body: { name: 'feed', type: 'native_pipeline', config, version: await version() } });
    expect(saved.status).toBe(201);
    const tested = await quarry.request('POST', '/api/sources/feed/test', { as: 'admin' });
    expect(tested.json).toMatchObject({ success: true });
    const completed = quarry.nextEvent('sync_completed', (event) => event.source === 'feed');
    const sync = await quarry.request('POST', '/api/sources/feed/sync', { apiKey: editorKey, body: {} });
    expect(sync.status).toBe(200);
    expect(await completed).toMatchObject({ rows: 3 });
    await quarry.jobsIdle();
    expect(await quarry.query('SELECT count(*) AS n, sum(amount) AS total FROM raw_feed.orders')).toEqual([{ n: 3, total: 60 }]);
    await expectNothingRan();
  });
});
