import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSources, sourceEnvironment } from '../../src/config/index.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/alert-receivers.ts';
import { bearerOf, startFakeApi, type FakeApi } from '../support/fake-api.ts';
import { startQuarry, type RequestOptions, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

/** The saved source's token, which its upstream echoes in a 401 body. */
const ECHOED_TOKEN = 'echoed-token-4b7d9e2a';
const OTHER_TOKEN = 'other-source-token-71c3';

const bearerApi = (baseUrl: string, variable: string) => ({
  type: 'rest_api', config: { base_url: baseUrl, auth_type: 'bearer', auth_token_env: variable, endpoints: [{ path: '/v1/orders' }] },
});

describe('a source reads and writes only the variables it declares', () => {
  let api: FakeApi;
  let receiver: WebhookReceiver;
  let quarry: TestQuarry;
  let editorKey: string;
  beforeAll(async () => {
    api = await startFakeApi((app) => {
      app.get('/v1/orders', async (request, reply) => {
        const token = bearerOf(request);
        if (token === 'good-token-9f1e') return [{ id: 1 }];
        return reply.code(401).send({ error: `invalid token ${token ?? ''}` });
      });
    });
    receiver = await startWebhookReceiver();
    quarry = await startQuarry({
      projectConfig: { alerts: [{ name: 'team', webhook_url_env: 'ALERT_WEBHOOK_URL', on: ['sync_failed'] }] },
      env: { ALERT_WEBHOOK_URL: receiver.url, ECHOED_API_TOKEN: ECHOED_TOKEN, OTHER_API_TOKEN: OTHER_TOKEN },
      sourcesYaml: [
        'sources:',
        '  - name: echoed', '    type: rest_api', '    rest_api:', `      base_url: ${api.url}`, '      auth_type: bearer',
        '      auth_token_env: ECHOED_API_TOKEN', '      endpoints: [{ path: /v1/orders }]',
        '  - name: other', '    type: rest_api', '    rest_api:', `      base_url: ${api.url}`, '      auth_type: bearer',
        '      auth_token_env: OTHER_API_TOKEN', '      endpoints: [{ path: /v1/orders }]', '',
      ].join('\n'),
    });
    const created = await quarry.request('POST', '/api/auth/api-keys', { as: 'editor', body: { name: 'automation' } });
    editorKey = created.json.key as string;
  });
  afterAll(async () => {
    await quarry.close();
    await Promise.all([api.close(), receiver.close()]);
  });

  const dotEnv = () => readFileSync(path.join(quarry.dir, '.env'), 'utf8');
  const version = async () => (await quarry.request('GET', '/api/sources-file', { as: 'editor' })).json.version as string;
  const asEditor: [string, () => RequestOptions][] = [
    ["an editor's session", () => ({ as: 'editor' })],
    ["an editor's API key", () => ({ apiKey: editorKey })],
  ];

  it.each(asEditor)('refuses, through %s, credentials for a variable the source does not declare, writing nothing', async (_how, caller) => {
    const before = dotEnv();
    for (const variable of ['ALERT_WEBHOOK_URL', 'SMTP_PASSWORD', 'QUARRY_LOG_LEVEL', 'QUARRY_PYTHON_ENVS_DIR']) {
      const body = { name: 'feed', ...bearerApi(api.url, 'FEED_TOKEN'), secrets: { [variable]: 'http://attacker.example/hook' }, version: await version() };
      const added = await quarry.request('POST', '/api/sources', { ...caller(), body });
      expect(added.status).toBe(400);
      expect(added.json).toEqual({ code: 'variable_not_allowed', detail: `A credential was given for ${variable}, which the source does not read: its section declares FEED_TOKEN` });
    }
    expect(dotEnv()).toBe(before);
    expect(quarry.ctx.sources.map((source) => source.name)).toEqual(['echoed', 'other']);
  });

  it.each([
    ['QUARRY_LOG_LEVEL', 'QUARRY_LOG_LEVEL belongs to Quarry or its runtime, not to a source: name another variable for the credential'],
    ['PATH', 'PATH belongs to Quarry or its runtime, not to a source: name another variable for the credential'],
    ['ALERT_WEBHOOK_URL', "ALERT_WEBHOOK_URL belongs to the project's settings (project.yml), not to a source: name another variable"],
    ['OTHER_API_TOKEN', "OTHER_API_TOKEN belongs to the source other: name another variable for this source's credential"],
  ])('refuses a source that declares %s, at the test and at saving, sending nothing', async (variable, detail) => {
    const seen = api.requests.length;
    const tested = await quarry.request('POST', '/api/source-test', { as: 'editor', body: { ...bearerApi(api.url, variable), secrets: {} } });
    expect(tested.status).toBe(400);
    expect(tested.json).toEqual({ code: 'variable_not_allowed', detail });
    const added = await quarry.request('POST', '/api/sources', { as: 'editor', body: { name: 'feed', ...bearerApi(api.url, variable), secrets: {}, version: await version() } });
    expect(added.json).toEqual({ code: 'variable_not_allowed', detail });
    const edited = await quarry.request('PUT', '/api/sources/echoed', { as: 'editor', body: { config: bearerApi(api.url, variable).config, secrets: {}, version: await version() } });
    expect(edited.json).toEqual({ code: 'variable_not_allowed', detail });
    expect(api.requests.length).toBe(seen);
  });

  it('tests and saves a source with its own variable, and sends only that credential', async () => {
    const tested = await quarry.request('POST', '/api/source-test', {
      as: 'editor', body: { ...bearerApi(api.url, 'FEED_TOKEN'), secrets: { FEED_TOKEN: 'good-token-9f1e' } },
    });
    expect(tested.json.success).toBe(true);
    expect(JSON.stringify(api.requests.at(-1)?.headers)).not.toContain(OTHER_TOKEN);
    const added = await quarry.request('POST', '/api/sources', {
      as: 'editor', body: { name: 'feed', ...bearerApi(api.url, 'FEED_TOKEN'), secrets: { FEED_TOKEN: 'good-token-9f1e' }, version: await version() },
    });
    expect(added.status).toBe(201);
    expect(dotEnv()).toContain('FEED_TOKEN=');
  });

  it('gives a connector only its declared variables and the process basics', () => {
    const [source] = parseSources([
      'sources:', '  - name: shop', '    type: rest_api', '    rest_api:', '      base_url: https://api.example.com', '      auth_type: bearer',
      '      auth_token_env: SHOP_TOKEN', '      headers: { X-Key: "env:SHOP_KEY" }', '      endpoints: [{ path: /x }]', '',
    ].join('\n'));
    if (source === undefined) throw new Error('no source');
    const env = { SHOP_TOKEN: 't', SHOP_KEY: 'k', OTHER_API_TOKEN: OTHER_TOKEN, SMTP_PASSWORD: 'p', PATH: '/usr/bin', QUARRY_LOG_LEVEL: 'info' };
    expect(sourceEnvironment(source, env)).toEqual({ SHOP_TOKEN: 't', SHOP_KEY: 'k', PATH: '/usr/bin' });
  });

  it('redacts a credential its upstream echoes from the event, the logs, the history, health and the alert', async () => {
    const end = await syncAndWait(quarry, 'echoed');
    expect(end.type).toBe('sync_failed');
    const shown = [
      JSON.stringify(end),
      logMessages(quarry, 'echoed', 'ERROR').join('\n'),
      (await quarry.request('GET', '/api/logs', { as: 'viewer' })).text,
      (await quarry.request('GET', '/api/sources/echoed/history', { as: 'viewer' })).text,
      (await quarry.request('GET', '/api/health/platform', { as: 'viewer' })).text,
      (await quarry.request('GET', '/api/sources', { as: 'viewer' })).text,
    ];
    for (let waited = 0; receiver.accepted.length === 0 && waited < 100; waited++) await sleep(50);
    shown.push(JSON.stringify(receiver.accepted));
    expect(receiver.accepted.length).toBeGreaterThan(0);
    expect(JSON.stringify(end)).toContain('***');
    for (const text of shown) expect(text).not.toContain(ECHOED_TOKEN);
  });
});
