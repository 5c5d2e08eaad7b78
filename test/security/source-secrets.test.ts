import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSources } from '../../src/sources/config/index.ts';
import { configProblemsOf } from '../support/config-problems.ts';
import { startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type TestQuarry } from '../support/quarry.ts';
import { syncAndWait } from '../support/sync.ts';

const HEADER_KEY = 'hdr-key-5f0c2e9a7b1d';

const restApi = (headers: string) => [
  'sources:', '  - name: api', '    type: rest_api', '    rest_api:', '      base_url: https://api.example.com', '      auth_type: none',
  `      headers: ${headers}`, '      endpoints: [{ path: /x }]', '',
].join('\n');

const nativePipeline = (kwargs: string) => [
  'sources:', '  - name: pipe', '    type: native_pipeline', '    native_pipeline:', '      source_module: my_source', '      source_function: load',
  `      function_kwargs: ${kwargs}`, '',
].join('\n');

const HEADER_ADVICE = 'looks like a secret written into sources.yml; use auth_type with auth_token_env, or keep it in an environment variable and write env:NAME here';
const KWARG_ADVICE = 'looks like a secret written into sources.yml; keep it in an environment variable and write env:NAME here';

describe('secret literals in sources.yml', () => {
  it.each([
    ['Authorization', 'Bearer abcdef123456'],
    ['X-Api-Key', 'plain-words'],
    ['X-Custom', 'sk_live_4eC39HqLyjWDarjtT1zdp7dc'],
    ['X-Custom', 'ghp_16C7e42F292c6912E7710c838347Ae178B4a'],
    ['X-Custom', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
    ['X-Trace', 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MEFCQ0RFRkdI'],
  ])('refuses a rest_api header %s with a literal credential, without repeating it', (name, value) => {
    const problems = configProblemsOf(restApi(JSON.stringify({ [name]: value })));
    expect(problems).toEqual([`sources.yml: sources[0].rest_api.headers.${name}: ${HEADER_ADVICE}`]);
    expect(problems.join('\n')).not.toContain(value);
  });

  it('takes ordinary header values and env: references for the secret ones', () => {
    expect(() => parseSources(restApi('{Accept: application/json, X-Tenant: acme-eu, Authorization: "env:API_AUTHORIZATION", User-Agent: "quarry/1.0"}'))).not.toThrow();
    expect(configProblemsOf(restApi('{X-Api-Key: "env:lower"}'))).toEqual([
      'sources.yml: sources[0].rest_api.headers.X-Api-Key: "env:lower" is not an environment reference: write env:NAME with capital letters, digits and underscores',
    ]);
  });

  it('refuses secret-looking function_kwargs of a native_pipeline, nested ones too, and takes env: references', () => {
    expect(configProblemsOf(nativePipeline('{api_key: abc123, options: {client_secret: s3cr3t}, tokens: [sk_test_4eC39HqLyjWDarjtT1zdp7dc]}'))).toEqual([
      `sources.yml: sources[0].native_pipeline.function_kwargs.api_key: ${KWARG_ADVICE}`,
      `sources.yml: sources[0].native_pipeline.function_kwargs.options.client_secret: ${KWARG_ADVICE}`,
      `sources.yml: sources[0].native_pipeline.function_kwargs.tokens[0]: ${KWARG_ADVICE}`,
    ]);
    expect(() => parseSources(nativePipeline('{api_key: "env:PIPE_KEY", start_date: "2024-01-01", table_names: [orders, customers], page_size: 100}'))).not.toThrow();
  });
});

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
