import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProjectConfigSchema, projectPaths } from '../../src/config/index.ts';
import { ConfigError, InvalidRequestError } from '../../src/errors.ts';
import { createLogger } from '../../src/logger.ts';
import { installErrorHandler } from '../../src/server/plugins/index.ts';
import { assertSourceVariablesOwned, parseSources, SecretRedactor, sourceEnvironment } from '../../src/sources/config/index.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/alert-receivers.ts';
import { bearerOf, startFakeApi, type FakeApi, type SeenRequest } from '../support/fake-api.ts';
import { startQuarry, type RequestOptions, type TestQuarry } from '../support/quarry.ts';
import { logMessages, syncAndWait } from '../support/sync.ts';

/** The saved source's token, which its upstream echoes in a 401 body. */
const ECHOED_TOKEN = 'echoed-token-4b7d9e2a';
const OTHER_TOKEN = 'other-source-token-71c3';
const GOOD_TOKEN = 'good-token-9f1e';
/** Everything in the environment that is not the tested source's own. */
const NOT_ITS_OWN = {
  OTHER_SECRET: 'other-secret-5d1a66', SMTP_USER: 'alerts@example.com', SMTP_PASSWORD: 'smtp-password-8c2f',
  SHOP_DB_URL: 'postgresql://shop:db-password-3e9b@db.example.com/shop', OTHER_API_TOKEN: OTHER_TOKEN,
};
const MAIL_ALERT = {
  name: 'mail', on: ['schedule_missed'],
  email: { host: 'smtp.example.com', user_env: 'SMTP_USER', password_env: 'SMTP_PASSWORD', from: 'quarry@example.com', to: ['team@example.com'] },
};

const bearerApi = (baseUrl: string, variable: string, endpoint = '/v1/orders') => ({
  type: 'rest_api', config: { base_url: baseUrl, auth_type: 'bearer', auth_token_env: variable, endpoints: [{ path: endpoint }] },
});

/** All a fake vendor was sent, as one text to search for credentials. */
const sent = (requests: readonly SeenRequest[]): string => JSON.stringify(requests.map((request) => ({
  path: request.path, query: request.query.toString(), headers: request.headers, body: request.body,
})));

describe('a source reads and writes only the variables it declares', () => {
  let api: FakeApi;
  let receiver: WebhookReceiver;
  let quarry: TestQuarry;
  let editorKey: string;
  beforeAll(async () => {
    api = await startFakeApi((app) => {
      app.get('/v1/orders', async (request, reply) => {
        const token = bearerOf(request);
        if (token === GOOD_TOKEN) return [{ id: 1 }];
        return reply.code(401).send({ error: `invalid token ${token ?? ''}` });
      });
      // Echoes its credential back the way some vendors do, in the URL-encoded and base64 forms too.
      app.get('/v1/echo', async (request, reply) => {
        const token = bearerOf(request) ?? '';
        return reply.code(401).send({ error: `refused ${token} (${encodeURIComponent(token)}, ${Buffer.from(token).toString('base64')})` });
      });
    });
    receiver = await startWebhookReceiver();
    quarry = await startQuarry({
      projectConfig: { alerts: [{ name: 'team', webhook_url_env: 'ALERT_WEBHOOK_URL', on: ['sync_failed'] }, MAIL_ALERT] },
      env: { ALERT_WEBHOOK_URL: receiver.url, ECHOED_API_TOKEN: ECHOED_TOKEN, ...NOT_ITS_OWN },
      sourcesYaml: [
        'sources:',
        '  - name: echoed', '    type: rest_api', '    rest_api:', `      base_url: ${api.url}`, '      auth_type: bearer',
        '      auth_token_env: ECHOED_API_TOKEN', '      endpoints: [{ path: /v1/orders }]',
        '  - name: other', '    type: rest_api', '    rest_api:', `      base_url: ${api.url}`, '      auth_type: bearer',
        '      auth_token_env: OTHER_API_TOKEN', '      endpoints: [{ path: /v1/orders }]',
        '  - name: shop_db', '    type: relational_db', '    generic_config:', '      credentials_env: SHOP_DB_URL', '',
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
      const edited = await quarry.request('PUT', '/api/sources/echoed', {
        ...caller(), body: { config: bearerApi(api.url, 'ECHOED_API_TOKEN').config, secrets: { [variable]: 'x' }, version: await version() },
      });
      expect(edited.status).toBe(400);
      expect(edited.json.code).toBe('variable_not_allowed');
    }
    expect(dotEnv()).toBe(before);
    expect(quarry.ctx.sources.map((source) => source.name)).toEqual(['echoed', 'other', 'shop_db']);
  });

  it.each([
    ['QUARRY_LOG_LEVEL', 'QUARRY_LOG_LEVEL belongs to Quarry or its runtime, not to a source: name another variable for the credential'],
    ['PATH', 'PATH belongs to Quarry or its runtime, not to a source: name another variable for the credential'],
    ['PGPASSWORD', 'PGPASSWORD belongs to Quarry or its runtime, not to a source: name another variable for the credential'],
    ['SMTP_PASSWORD', "SMTP_PASSWORD belongs to the project's settings (project.yml), not to a source: name another variable"],
    ['ALERT_WEBHOOK_URL', "ALERT_WEBHOOK_URL belongs to the project's settings (project.yml), not to a source: name another variable"],
    ['SHOP_DB_URL', "SHOP_DB_URL belongs to the source shop_db: set a distinct *_env (or env: reference) for this source's credential"],
    // Set in the service's environment, read by no source: a value nobody typed into a form.
    ['OTHER_SECRET', 'OTHER_SECRET already holds a value that no source reads: type the credential into the form for this source, or name another variable'],
  ])('refuses a source that declares %s, at the test and at saving, sending nothing', async (variable, detail) => {
    const seen = api.requests.length;
    const before = dotEnv();
    for (const [, caller] of asEditor) {
      const tested = await quarry.request('POST', '/api/source-test', { ...caller(), body: { ...bearerApi(api.url, variable), secrets: {} } });
      expect(tested.status).toBe(400);
      expect(tested.json).toEqual({ code: 'variable_not_allowed', detail });
      const added = await quarry.request('POST', '/api/sources', { ...caller(), body: { name: 'feed', ...bearerApi(api.url, variable), secrets: {}, version: await version() } });
      expect(added.status).toBe(400);
      expect(added.json).toEqual({ code: 'variable_not_allowed', detail });
      const edited = await quarry.request('PUT', '/api/sources/echoed', { ...caller(), body: { config: bearerApi(api.url, variable).config, secrets: {}, version: await version() } });
      expect(edited.json).toEqual({ code: 'variable_not_allowed', detail });
    }
    expect(api.requests.length).toBe(seen);
    expect(dotEnv()).toBe(before);
  });

  it('refuses a credential typed for a variable the service\'s environment sets, which would never be read, sending nothing', async () => {
    const seen = api.requests.length;
    const before = dotEnv();
    const detail = "OTHER_SECRET is set in the service's environment, which a form cannot replace: name another variable for this source's credential";
    const secrets = { OTHER_SECRET: GOOD_TOKEN };
    const tested = await quarry.request('POST', '/api/source-test', { as: 'editor', body: { ...bearerApi(api.url, 'OTHER_SECRET'), secrets } });
    expect(tested.json).toEqual({ code: 'variable_not_allowed', detail });
    const added = await quarry.request('POST', '/api/sources', { as: 'editor', body: { name: 'feed', ...bearerApi(api.url, 'OTHER_SECRET'), secrets, version: await version() } });
    expect(added.json).toEqual({ code: 'variable_not_allowed', detail });
    expect(api.requests.length).toBe(seen);
    expect(dotEnv()).toBe(before);
  });

  it('tests, saves and syncs a source with its own variable, sending that credential and nothing else of the environment', async () => {
    const seen = api.requests.length;
    const tested = await quarry.request('POST', '/api/source-test', {
      as: 'editor', body: { ...bearerApi(api.url, 'FEED_TOKEN'), secrets: { FEED_TOKEN: GOOD_TOKEN } },
    });
    expect(tested.json.success).toBe(true);
    const added = await quarry.request('POST', '/api/sources', {
      as: 'editor', body: { name: 'feed', ...bearerApi(api.url, 'FEED_TOKEN'), secrets: { FEED_TOKEN: GOOD_TOKEN }, version: await version() },
    });
    expect(added.status).toBe(201);
    expect(dotEnv()).toContain(`FEED_TOKEN='${GOOD_TOKEN}'`);
    expect((await syncAndWait(quarry, 'feed')).type).toBe('sync_completed');
    const requests = api.requests.slice(seen);
    expect(requests.map((request) => request.headers.authorization)).toEqual(requests.map(() => `Bearer ${GOOD_TOKEN}`));
    for (const value of [...Object.values(NOT_ITS_OWN), ECHOED_TOKEN, receiver.url]) expect(sent(requests)).not.toContain(value);
  });

  it('gives a connector only its declared variables, nothing else of the process', () => {
    const [source] = parseSources([
      'sources:', '  - name: shop', '    type: rest_api', '    rest_api:', '      base_url: https://api.example.com', '      auth_type: bearer',
      '      auth_token_env: SHOP_TOKEN', '      headers: { X-Key: "env:SHOP_KEY" }', '      endpoints: [{ path: /x }]', '',
    ].join('\n'));
    if (source === undefined) throw new Error('no source');
    const env = { SHOP_TOKEN: 't', SHOP_KEY: 'k', ...NOT_ITS_OWN, PATH: '/usr/bin', HOME: '/home/quarry', QUARRY_LOG_LEVEL: 'info', DLT_DATA_DIR: '/x' };
    expect(sourceEnvironment(source, env)).toEqual({ SHOP_TOKEN: 't', SHOP_KEY: 'k' });
  });

  it('redacts a credential its upstream echoes from the event, the logs, the history, health and the alert', async () => {
    const end = await syncAndWait(quarry, 'echoed');
    expect(end.type).toBe('sync_failed');
    await expect.poll(() => receiver.accepted.length, { timeout: 5_000 }).toBeGreaterThan(0);
    const shown = [
      JSON.stringify(end),
      (await logMessages(quarry, 'echoed', 'ERROR')).join('\n'),
      (await quarry.request('GET', '/api/logs', { as: 'viewer' })).text,
      (await quarry.request('GET', '/api/sources/echoed/history', { as: 'viewer' })).text,
      (await quarry.request('GET', '/api/health/platform', { as: 'viewer' })).text,
      (await quarry.request('GET', '/api/sources', { as: 'viewer' })).text,
      JSON.stringify(receiver.accepted),
    ];
    expect(JSON.stringify(end)).toContain('***');
    expect(JSON.stringify(receiver.accepted)).toContain('***');
    for (const text of shown) expect(text).not.toContain(ECHOED_TOKEN);
  });

  it('learns the credential of a source added in the browser at once, in each form an upstream echoes it', async () => {
    const token = 'fresh-token+/=7a3c91';
    const added = await quarry.request('POST', '/api/sources', {
      as: 'editor', body: { name: 'echoing', ...bearerApi(api.url, 'ECHOING_TOKEN', '/v1/echo'), secrets: { ECHOING_TOKEN: token }, version: await version() },
    });
    expect(added.status).toBe(201);
    const end = await syncAndWait(quarry, 'echoing');
    expect(end).toMatchObject({ type: 'sync_failed', error: expect.stringContaining('refused ***') });
    const shown = [JSON.stringify(end), (await logMessages(quarry, 'echoing', 'ERROR')).join('\n'), (await quarry.request('GET', '/api/logs', { as: 'viewer' })).text];
    for (const text of shown) {
      for (const form of [token, encodeURIComponent(token), Buffer.from(token).toString('base64').replace(/=+$/, '')]) expect(text).not.toContain(form);
    }
  });
});

describe('the secrets Quarry knows', () => {
  const project = ProjectConfigSchema.parse({ name: 'p', organization: 'o', alerts: [MAIL_ALERT] });
  const [echoed] = parseSources('sources:\n  - name: echoed\n    type: rest_api\n    rest_api: {base_url: "https://api.example.com", auth_type: bearer, auth_token_env: ECHOED_API_TOKEN, endpoints: [{path: /x}]}\n');
  const redactor = new SecretRedactor();
  redactor.learn(project, echoed === undefined ? [] : [echoed], { ECHOED_API_TOKEN: ECHOED_TOKEN, ...NOT_ITS_OWN, SHORT: 'abc' });

  it('are every source credential and the project own, in each form', () => {
    const text = `a ${ECHOED_TOKEN} b ${NOT_ITS_OWN.SMTP_PASSWORD} c ${Buffer.from(NOT_ITS_OWN.SMTP_PASSWORD).toString('base64')} d ${NOT_ITS_OWN.OTHER_SECRET}`;
    expect(redactor.redact(text)).toBe(`a *** b *** c *** d ${NOT_ITS_OWN.OTHER_SECRET}`);
  });

  it('are taken out of every log line, whatever field carries them, the line staying JSON', () => {
    const lines: string[] = [];
    const destination = new Writable({ write(chunk: Buffer, _encoding, callback) { lines.push(chunk.toString('utf8')); callback(); } });
    const log = createLogger({ destination, redactor });
    log.error({ err: new Error(`upstream said "${ECHOED_TOKEN}"\n`), smtp: NOT_ITS_OWN.SMTP_PASSWORD }, `sync failed: ${ECHOED_TOKEN}`);
    log.info('nothing secret here');
    expect(lines).toHaveLength(2);
    const record = JSON.parse(lines[0] ?? '') as { msg: string; smtp: string; err: { message: string; stack: string } };
    expect(record).toMatchObject({ msg: 'sync failed: ***', smtp: '***', err: { message: 'upstream said "***"\n' } });
    expect(lines.join('')).not.toContain(ECHOED_TOKEN);
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({ msg: 'nothing secret here' });
  });
  it('are taken out of an error answered to the API', async () => {
    const app = Fastify({ logger: false });
    app.decorateRequest('actor', null);
    installErrorHandler(app, (text) => redactor.redact(text));
    app.get('/api/broken', () => {
      throw new InvalidRequestError(`The upstream answered: bad token ${ECHOED_TOKEN}`);
    });
    const answer = await app.inject({ method: 'GET', url: '/api/broken' });
    await app.close();
    expect(answer.json()).toEqual({ code: 'invalid_request', detail: 'The upstream answered: bad token ***' });
  });
});

describe('sources.yml, as loaded', () => {
  const paths = projectPaths('/srv/project');
  const project = ProjectConfigSchema.parse({ name: 'p', organization: 'o', alerts: [MAIL_ALERT] });
  const problemsOf = (yaml: string): string[] => {
    try {
      assertSourceVariablesOwned(paths, project, parseSources(yaml));
      return [];
    } catch (error) {
      if (error instanceof ConfigError) return [...error.problems];
      throw error;
    }
  };
  const restApi = (name: string, variable: string) => `  - name: ${name}\n    type: rest_api\n    rest_api: {base_url: "https://api.example.com", auth_type: bearer, auth_token_env: ${variable}, endpoints: [{path: /x}]}\n`;

  it('refuses a variable of Quarry, of project.yml or of an earlier source of another type, each where it is declared', () => {
    const yaml = `sources:\n${restApi('logs', 'QUARRY_LOG_LEVEL')}${restApi('mail', 'SMTP_PASSWORD')}`
      + '  - name: shop_db\n    type: relational_db\n    generic_config: {credentials_env: SHOP_DB_URL}\n'
      + restApi('copy', 'SHOP_DB_URL')
      + '  - name: pipeline\n    type: rest_api\n    rest_api: {base_url: "https://api.example.com", auth_type: none, headers: {X-Key: "env:LD_PRELOAD"}, endpoints: [{path: /x}]}\n';
    expect(problemsOf(yaml)).toEqual([
      '.quarry/sources.yml: sources[0].rest_api.auth_token_env: QUARRY_LOG_LEVEL belongs to Quarry or its runtime, not to a source: name another variable for the credential',
      ".quarry/sources.yml: sources[1].rest_api.auth_token_env: SMTP_PASSWORD belongs to the project's settings (project.yml), not to a source: name another variable",
      ".quarry/sources.yml: sources[3].rest_api.auth_token_env: SHOP_DB_URL belongs to the source shop_db: set a distinct *_env (or env: reference) for this source's credential",
      '.quarry/sources.yml: sources[4].rest_api.headers.X-Key: LD_PRELOAD belongs to Quarry or its runtime, not to a source: name another variable for the credential',
    ]);
  });

  it('lets sources of one type share a variable, and types share the one they both name by default', () => {
    const yaml = 'sources:\n'
      + '  - name: support\n    type: helpdesk_a\n    generic_config: {subdomain: acme, email: agent@example.com}\n'
      + '  - name: support_january\n    type: helpdesk_a\n    generic_config: {subdomain: acme, email: agent@example.com}\n'
      + '  - name: traffic\n    type: web_analytics\n    web_analytics: {property_id: "123"}\n'
      + '  - name: ads\n    type: search_ads\n    search_ads: {property_id: "123-456-7890"}\n'
      + `${restApi('orders', 'ORDERS_TOKEN')}${restApi('refunds', 'ORDERS_TOKEN')}`;
    expect(problemsOf(yaml)).toEqual([]);
  });
});
